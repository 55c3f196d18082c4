// Pages the program takes back from an armed range: a guard page made with
// mprotect(PROT_NONE) or with mmap(MAP_FIXED, PROT_NONE) inside the range,
// and a page unmapped there.  The fault path moves a batch of untouched
// units at once; the pages the program changed are its own and no batch may
// open them: the guard still faults (the program's handler sees it), and
// every armed page is counted once (migrated, already local, touched
// serially, disarmed or failed), also when the program makes half of a
// large armed range read-only, block by block.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=16 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: guard_pages: PASS
#include "nexttouch_test.h"
#include <setjmp.h>
#include <signal.h>

enum { N = 64 };
static long pg;
static sigjmp_buf jb;
static volatile int guard_faults;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)si;
  (void)uc;
  guard_faults++;
  siglongjmp(jb, 1);
}

// 1 if reading p faults (the program's handler runs).
static int faults(char *p) {
  if (sigsetjmp(jb, 1))
    return 1;
  (void)*(volatile char *)p;
  return 0;
}

static unsigned long long accounted(const kmp_nexttouch_counters_t *c) {
  return c->pages_migrated + c->pages_already_local + c->pages_touched_serial +
         c->pages_disarmed + c->pages_expired + c->fail_move_busy +
         c->fail_move_nomem + c->fail_move_other;
}

int main(void) {
  pg = nt_pagesize();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);

  char *a = nt_map(N * pg);
  for (int p = 0; p < N; p++)
    a[p * pg] = (char)(p + 1);
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 0)
    ((volatile char *)a)[(N - 1) * pg] += 0; // arms; the last page touched
  // The program takes pages back while they are armed.
  NT_CHECK(mprotect(a + 12 * pg, pg, PROT_NONE) == 0, "mprotect guard");
  NT_CHECK(mmap(a + 40 * pg, pg, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == a + 40 * pg,
           "mmap guard");
  NT_CHECK(munmap(a + 50 * pg, pg) == 0, "munmap");
  // A region touches the pages before each of them: batches reach over.
  long sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
  {
    if (omp_get_thread_num() == 0) {
      int pages[] = {8, 9, 10, 11, 32, 36, 38, 39, 48, 49};
      for (unsigned i = 0; i < sizeof pages / sizeof *pages; i++)
        sum += a[pages[i] * pg];
    }
  }
  NT_CHECK(sum == 9 + 10 + 11 + 12 + 33 + 37 + 39 + 40 + 49 + 50, "sum %ld",
           sum);
  NT_CHECK(nt_maps_prot(a + 12 * pg) == PROT_NONE, "mprotect guard opened");
  NT_CHECK(nt_maps_prot(a + 40 * pg) == PROT_NONE, "mmap guard opened");
  NT_CHECK(faults(a + 12 * pg) && faults(a + 40 * pg) && faults(a + 50 * pg),
           "a guard did not fault");
  NT_CHECK(guard_faults == 3, "%d faults reached the program's handler",
           guard_faults);
  // The rest reads as it was written.
  for (int p = 0; p < N; p++)
    if (p != 12 && p != 40 && p != 50)
      NT_CHECK(a[p * pg] == (char)(p + 1), "page %d: %d", p, a[p * pg]);
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_armed == N && accounted(&c) == N,
           "armed %llu, accounted %llu (disarmed %llu)",
           (unsigned long long)c.pages_armed, (unsigned long long)accounted(&c),
           (unsigned long long)c.pages_disarmed);
  NT_CHECK(c.pages_disarmed == 3, "disarmed %llu",
           (unsigned long long)c.pages_disarmed);

  // Many VMAs: the program makes every other block of an armed range
  // read-only, half through the C library, half with the raw system call
  // (seen only by the engine's next look at the mappings); the region
  // touches the blocks left read-write, the rest is disarmed.  Each armed
  // page is still counted once.
  enum { M = 4096, B = 32 };
  char *m = nt_map(M * pg);
  for (int p = 0; p < M; p++)
    m[p * pg] = 1;
  kmp_nexttouch_counters_t d0 = nt_counters();
  NT_CHECK(kmp_nexttouch(m, M * pg) == 0, "request");
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 0)
    ((volatile char *)m)[B * pg] += 0; // arms; one page touched
  for (int b = 2; b < M / B; b += 2) {
    if (b % 4)
      NT_CHECK(mprotect(m + b * B * pg, B * pg, PROT_READ) == 0, "mprotect");
    else
      NT_CHECK(syscall(SYS_mprotect, m + b * B * pg, B * pg, PROT_READ) == 0,
               "raw mprotect");
  }
  long total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int p = 0; p < M; p++)
    if ((p / B) % 2 || p < 2 * B)
      total += m[p * pg];
  NT_CHECK(total == M / 2 + B, "read %ld", total);
  kmp_nexttouch_disarm(NULL, 0);
  for (int p = 0; p < M; p++)
    total += m[p * pg]; // read-only blocks read as they are
  NT_CHECK(total == 2 * (M / 2 + B) + M / 2 - B, "read %ld", total);
  kmp_nexttouch_counters_t d = nt_counters();
  NT_CHECK(d.pages_armed - d0.pages_armed == M &&
               accounted(&d) - accounted(&d0) == M,
           "many VMAs: armed %llu, accounted %llu",
           (unsigned long long)(d.pages_armed - d0.pages_armed),
           (unsigned long long)(accounted(&d) - accounted(&d0)));
  return nt_done("guard_pages");
}
