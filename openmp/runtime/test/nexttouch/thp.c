// Transparent huge pages: a range backed by THP is armed in 2 MB units
// (one fault and one batch per huge page in exact mode), the huge pages stay
// huge (AnonHugePages unchanged), the data is intact.  KMP_NEXTTOUCH_THP=false
// arms 4 KB pages instead.  Needs a kernel that gives huge pages to
// madvise(MADV_HUGEPAGE) (lit feature `thp`); fails if it then gives none.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 %libomp-run thp | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_THP=false OMP_NUM_THREADS=4 %libomp-run nothp | FileCheck %s
// REQUIRES: linux, thp
// CHECK: thp: PASS
#include "nexttouch_test.h"
#include <stdint.h>

int main(int argc, char **argv) {
  int thp = !strcmp(argv[1], "thp");
  const size_t H = 2 << 20, NH = 8;
  char *raw = (char *)mmap(NULL, (NH + 1) * H, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *a = (char *)(((uintptr_t)raw + H - 1) & ~(H - 1));
  madvise(a, NH * H, MADV_HUGEPAGE);
  for (size_t i = 0; i < NH * H; i += 64)
    a[i] = (char)(i >> 6);
  long before = nt_anon_huge_kb(a);
  if (before < (long)(NH * H >> 10)) {
    NT_CHECK(0, "THP is enabled, but the kernel gave %ld kB of huge pages",
             before);
    return nt_done("thp");
  }
  // A range with 4 KB pages on both sides of the huge ones: a[-8 KB, +8 KB).
  long pg = nt_pagesize();
  NT_CHECK(kmp_nexttouch(a + pg, NH * H - 2 * pg) == 0, "request");
#pragma omp parallel for schedule(static, 1)
  for (size_t h = 0; h < NH; h++)
    for (size_t i = 0; i < H; i += pg)
      a[h * H + i + 1] += 1;
  kmp_nexttouch_counters_t c = nt_counters();
  long after = nt_anon_huge_kb(a);
  NT_CHECK(c.pages_armed == NH * H / pg - 2, "armed %llu",
           (unsigned long long)c.pages_armed);
  NT_CHECK(c.pages_already_local == c.pages_armed, "handled %llu",
           (unsigned long long)c.pages_already_local);
  if (thp) {
    // 6 huge units + 2 * 510 pages of 4 KB on the edges.
    NT_CHECK(c.batches == (NH - 2) + 2 * (H / pg - 1), "batches %llu",
             (unsigned long long)c.batches);
    NT_CHECK(after >= before - 2 * (long)(H >> 10),
             "huge pages split: %ld kB -> %ld kB", before, after);
  } else {
    NT_CHECK(c.batches == c.pages_armed, "batches %llu",
             (unsigned long long)c.batches);
  }
  for (size_t i = 0; i < NH * H; i += 64)
    if (a[i] != (char)(i >> 6) || (i % pg == 0 && a[i + 1] != 1)) {
      NT_CHECK(0, "byte %zu", i);
      break;
    }
  printf("AnonHugePages %ld kB -> %ld kB, %llu batches\n", before, after,
         (unsigned long long)c.batches);
  return nt_done("thp");
}
