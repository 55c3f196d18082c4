// A region whose list is the same as an earlier region's, nothing changed
// since, is started as that region was (readonly_lists_reused counts it):
// where the kernel has the written bits (Linux 6.7 on) that is every such
// region; before, none, and everything below still holds.  Each change
// between regions is seen by the next region, which finds its items again,
// and every thread reads the current content (host, KMP_READONLY_FORCE=1:
// real replicas):
//  - a serial write to an item (the fault opens a chunk);
//  - an item unmapped and mapped anew at the same address by raw system
//    calls (as the C library's own munmap and mmap do, unseen by the
//    wrappers), with new content;
//  - the same in a list of many separate pages;
//  - an item unmapped by a raw munmap and listed again: an error for it and
//    the original pointer, not its replica's old content;
//  - kmp_readonly_release;
//  - more lists than are remembered, used in turn;
//  - a fork() child starting the parent's list (the parent's written bits
//    are not the child's: its items are found again, then tracked again and
//    the list served as it was), and one of its own (served as it was).
// A write in a region started as an earlier one still stops the program.
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash \
// RUN:   %libomp-run write 2>&1 | FileCheck %s --check-prefix=TRAP
// REQUIRES: linux
// A sanitizer's allocator gives no block of its own: its items share pages.
// UNSUPPORTED: asan, tsan
// CHECK: readonly_lists: PASS
// TRAP: OMP: Error #{{[0-9]+}}: readonly at unknown: list item 2 (0x{{[0-9a-f]+}}, {{[0-9]+}} bytes) was written
// TRAP-NOT: NOT REACHED
#include "nexttouch_test.h"

enum { K = 48, MAPPED = 24, PAGES = 2, LISTS = 20 };
static long pg;
static const void *ptr[K];
static size_t len[K];
static int bits;

static uint64_t reused(void) { return nt_counters().readonly_lists_reused; }

// The sum of item i's bytes.
static long sum_of(const char *p, size_t n) {
  long s = 0;
  for (size_t i = 0; i < n; i++)
    s += p[i];
  return s;
}

// One region over items [0, n) of ptr/len: every thread sums every item
// through its pointer and must find want[i].  *served: it was started as
// an earlier region.  A write to item `write` (-1: none) by thread 1.
static void region(int n, const void **p, const size_t *l, const long *want,
                   int *served, int write) {
  uint64_t r0 = reused();
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(n, p, l, NULL, &h) == 0, "begin");
  long bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    for (int i = 0; i < n; i++) {
      const char *q = kmp_readonly_ptr(h, i);
      bad += sum_of(q, l[i]) != want[i];
    }
    if (write >= 0 && omp_get_thread_num() == 1) {
      ((char *)p[write])[0] = 9;
      printf("NOT REACHED\n");
    }
  }
  kmp_readonly_end(h);
  NT_CHECK(bad == 0, "%ld sums differ", bad);
  if (served)
    *served = reused() != r0;
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  bits = nt_kernel_has_written_bits();
  long want[K];
  for (int i = 0; i < K; i++) {
    // Mappings of their own, and blocks of their own from malloc (its
    // mmapped chunks: free() unmaps them with the C library's own munmap).
    len[i] = i < MAPPED ? PAGES * pg : 40 * pg + 24;
    char *p = i < MAPPED ? nt_map(len[i]) : malloc(len[i]);
    memset(p, 1 + i % 3, len[i]);
    ptr[i] = p;
    want[i] = (long)len[i] * (1 + i % 3);
  }
  int served;
  region(K, ptr, len, want, &served, -1);
  NT_CHECK(!served, "the first region was served as an earlier one");
  region(K, ptr, len, want, &served, -1);
  NT_CHECK(served == bits, "the same list again: served %d, bits %d", served,
           bits);
  if (argc > 1 && !strcmp(argv[1], "write")) {
    region(K, ptr, len, want, NULL, 2);
    return 1;
  }

  // A serial write: seen, then served as it was again.
  ((char *)ptr[3])[5] += 4;
  want[3] += 4;
  region(K, ptr, len, want, &served, -1);
  NT_CHECK(!served, "served after a serial write");
  region(K, ptr, len, want, &served, -1);
  NT_CHECK(served == bits, "not served after the write was seen");

  // Unmapped and mapped anew at the same address, unseen by the wrappers.
  char *p5 = (char *)ptr[5];
  NT_CHECK(syscall(SYS_munmap, p5, len[5]) == 0, "raw munmap");
  NT_CHECK((char *)syscall(SYS_mmap, p5, len[5], PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                           0) == p5,
           "raw mmap at the same address");
  memset(p5, 7, len[5]);
  want[5] = 7L * len[5];
  region(K, ptr, len, want, &served, -1);
  NT_CHECK(!served, "served after the item was mapped anew");
  region(K, ptr, len, want, &served, -1);

  // Unmapped for good and listed again: an error, and the original.
  const void *one[1] = {ptr[7]};
  size_t one_len[1] = {len[7]};
  long one_want[1] = {want[7]};
  region(1, one, one_len, one_want, NULL, -1);
  region(1, one, one_len, one_want, &served, -1);
  NT_CHECK(served == bits, "a list of one item");
  NT_CHECK(syscall(SYS_munmap, ptr[7], len[7]) == 0, "raw munmap");
  kmp_readonly_t h;
  uint64_t r0 = reused();
  NT_CHECK(kmp_readonly_begin(1, one, one_len, NULL, &h) != 0,
           "an unmapped item gives no error");
  NT_CHECK(kmp_readonly_ptr(h, 0) == ptr[7], "an unmapped item's replica");
  kmp_readonly_end(h);
  NT_CHECK(reused() == r0, "an unmapped item served as it was");
  ptr[7] = nt_map(len[7]);
  memset((char *)ptr[7], 2, len[7]);
  want[7] = 2L * len[7];

  // A list of many separate pages (the runtime checks their span in one
  // scan): one mapped anew.
  enum { SPREAD = 80 };
  char *sp = nt_map(2 * SPREAD * pg);
  const void *sptr[SPREAD];
  size_t slen[SPREAD];
  long swant[SPREAD];
  for (int i = 0; i < SPREAD; i++) {
    sptr[i] = sp + 2 * i * pg;
    slen[i] = pg;
    memset(sp + 2 * i * pg, 1, pg);
    swant[i] = pg;
  }
  region(SPREAD, sptr, slen, swant, NULL, -1);
  region(SPREAD, sptr, slen, swant, &served, -1);
  NT_CHECK(served == bits, "a list of many pages");
  char *s9 = sp + 2 * 9 * pg;
  NT_CHECK(syscall(SYS_munmap, s9, pg) == 0 &&
               (char *)syscall(SYS_mmap, s9, pg, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                               0) == s9,
           "raw munmap and mmap");
  memset(s9, 5, pg);
  swant[9] = 5 * pg;
  region(SPREAD, sptr, slen, swant, &served, -1);
  NT_CHECK(!served, "served after a page of many was mapped anew");

  // Released: found again.
  region(K, ptr, len, want, NULL, -1);
  NT_CHECK(kmp_readonly_release(NULL, 0) == 0, "release");
  region(K, ptr, len, want, &served, -1);
  NT_CHECK(!served, "served after a release");

  // More lists than are remembered, in turn: each list two items.
  for (int round = 0; round < 3; round++)
    for (int l = 0; l < LISTS; l++) {
      const void *two[2] = {ptr[l], ptr[K - 1 - l]};
      size_t two_len[2] = {len[l], len[K - 1 - l]};
      long two_want[2] = {want[l], want[K - 1 - l]};
      region(2, two, two_len, two_want, NULL, -1);
    }

  // A fork() child: its own regions, its own writes.
  region(K, ptr, len, want, NULL, -1);
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    region(K, ptr, len, want, &served, -1);
    NT_CHECK(!served, "the parent's list served in the child");
    ((char *)ptr[MAPPED + 1])[0] += 1;
    want[MAPPED + 1] += 1;
    region(K, ptr, len, want, NULL, -1);
    region(K, ptr, len, want, &served, -1);
    NT_CHECK(served == bits, "the parent's items tracked again in the child");
    // An item of the child's own too.
    const void *own[1] = {nt_map(PAGES * pg)};
    size_t own_len[1] = {PAGES * pg};
    long own_want[1] = {0};
    region(1, own, own_len, own_want, NULL, -1);
    region(1, own, own_len, own_want, &served, -1);
    NT_CHECK(served == bits, "the child's own list");
    _exit(nt_failures ? 1 : 0);
  }
  int st;
  NT_CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && !WEXITSTATUS(st),
           "the child");
  region(K, ptr, len, want, NULL, -1);
  for (int i = MAPPED; i < K; i++)
    free((void *)ptr[i]);
  return nt_done("readonly_lists");
}
