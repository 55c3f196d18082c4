// The program moves armed pages with mremap.  Through the C library, libomp's
// wrapper disarms them where they are first (pages_disarmed), and they move
// as ordinary pages ('libc' as the second argument).  With the raw system
// call, which no wrapper sees, mremap keeps the engine's PROT_NONE, and the
// old address, where the engine's table has the units, is gone.  The engine
// marks the pages it protects (the VMA policy MPOL_LOCAL, which the kernel
// moves with the mapping): a fault on a marked inaccessible page outside its
// table opens it where it is, as a serial touch would (docs/NextTouch.rst,
// Guarantees and limitations).
//   move:     pages 1..N-1 moved to another address after the region.
//   grow:     moved while growing to twice the size (MREMAP_MAYMOVE): the
//             old pages and the new ones read and write.
//   region:   moved inside the region by one thread; both threads then read
//             the moved pages at once.
//   readonly: moved, then made read-only by the program: reads work, a
//             write still dies by SIGSEGV (the engine opens only its own
//             protection).
// Each case checks every byte, the protection afterwards, that the old
// units are dropped (at the mremap, or at the next arming), and that the
// moved range can be requested and armed again.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run move | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run grow \
// RUN:   | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run region | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run readonly \
// RUN:   | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run move libc | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run region libc \
// RUN:   | FileCheck %s
// REQUIRES: linux
// CHECK: moved_range: PASS
#include "nexttouch_test.h"
#include <signal.h>
#include <sys/wait.h>

enum { N = 64 };
static long pg;

static unsigned char val(long i) { return (unsigned char)(i * 7 + 3); }

// A place for the moved pages: reserved, so the move goes where we say.
static char *reserve(size_t bytes) {
  char *p = (char *)mmap(NULL, bytes, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  return p;
}

static void check_bytes(const char *what, const unsigned char *p, long from,
                        long to) {
  long bad = 0;
  for (long i = from; i < to; i++)
    bad += p[i - from] != val(i);
  NT_CHECK(bad == 0, "%s: %ld bytes wrong", what, bad);
}

static int write_dies(volatile char *p) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    *p = 1;
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

static int use_libc;

// mremap(MREMAP_MAYMOVE | MREMAP_FIXED) through the C library (libomp's
// wrapper) or as the raw system call.
static unsigned char *move_to(void *from, size_t len, size_t newlen, void *to) {
  int flags = MREMAP_MAYMOVE | MREMAP_FIXED;
  if (use_libc)
    return (unsigned char *)mremap(from, len, newlen, flags, to);
  return (unsigned char *)syscall(SYS_mremap, from, len, newlen, flags, to);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "move";
  use_libc = argc > 2 && !strcmp(argv[2], "libc");
  pg = nt_pagesize();
  unsigned char *buf = (unsigned char *)nt_map(N * pg);
  for (long i = 0; i < N * pg; i++)
    buf[i] = val(i);
  size_t len = (N - 1) * pg; // pages 1..N-1 stay armed
  int grow = !strcmp(mode, "grow");
  size_t newlen = grow ? 2 * len : len;
  unsigned char *dst = (unsigned char *)reserve(newlen);
  unsigned char *moved = NULL;

  NT_CHECK(kmp_nexttouch(buf, N * pg) == 0, "request");
  if (!strcmp(mode, "region")) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        ((volatile unsigned char *)buf)[0] += 0;
        moved = move_to(buf + pg, len, len, dst);
      }
#pragma omp barrier
      // Both threads read every moved page; faults race on them.
      long bad = 0;
      if (moved != MAP_FAILED)
        for (long i = pg; i < N * pg; i += 512)
          bad += moved[i - pg] != val(i);
      NT_CHECK(bad == 0, "thread %d: %ld bytes wrong", omp_get_thread_num(),
               bad);
    }
    NT_CHECK(moved != MAP_FAILED, "mremap: %s", strerror(errno));
  } else {
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0)
      ((volatile unsigned char *)buf)[0] += 0;
    NT_CHECK(nt_maps_prot(buf + pg) == PROT_NONE, "not armed");
    moved = move_to(buf + pg, len, newlen, dst);
    NT_CHECK(moved != MAP_FAILED, "mremap: %s", strerror(errno));
    if (!strcmp(mode, "readonly")) {
      NT_CHECK(mprotect(moved, len, PROT_READ) == 0, "mprotect");
      check_bytes("read-only moved pages", moved, pg, N * pg);
      NT_CHECK(write_dies((volatile char *)moved + 5 * pg),
               "a write to the program's read-only pages did not fault");
      NT_CHECK(nt_maps_prot(moved) == PROT_READ, "protection changed: %d",
               nt_maps_prot(moved));
      return nt_done("moved_range");
    }
  }
  if (moved == MAP_FAILED)
    return nt_done("moved_range");
  check_bytes("moved pages", moved, pg, N * pg);
  NT_CHECK(nt_maps_prot(moved) == (PROT_READ | PROT_WRITE) &&
               nt_maps_prot(moved + len - 1) == (PROT_READ | PROT_WRITE),
           "moved pages: protection %d", nt_maps_prot(moved));
  for (size_t i = 0; i < newlen; i++)
    moved[i] = (unsigned char)(i ^ 0x5a);
  long bad = 0;
  for (size_t i = 0; i < newlen; i++)
    bad += moved[i] != (unsigned char)(i ^ 0x5a);
  NT_CHECK(bad == 0, "%ld bytes wrong after writing", bad);
  NT_CHECK(buf[0] == val(0), "page 0 changed");

  // The units at the old address are gone: disarmed by the wrapper, or
  // dropped at the next arming.  The moved range is an ordinary range now:
  // requested and armed again.
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(c0.pages_disarmed == (use_libc ? N - 1 : 0),
           "%llu units disarmed at the mremap",
           (unsigned long long)c0.pages_disarmed);
  NT_CHECK(kmp_nexttouch(moved, newlen) == 0, "request the moved range");
#pragma omp parallel num_threads(2)
  moved[omp_get_thread_num() * pg] += 0;
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(c1.pages_disarmed - c0.pages_disarmed == (use_libc ? 0 : N - 1),
           "%llu old units dropped at the arming",
           (unsigned long long)(c1.pages_disarmed - c0.pages_disarmed));
  NT_CHECK(c1.pages_armed - c0.pages_armed == newlen / pg,
           "%llu pages armed again, want %zu",
           (unsigned long long)(c1.pages_armed - c0.pages_armed), newlen / pg);
  bad = 0;
  for (size_t i = 0; i < newlen; i++)
    bad += moved[i] != (unsigned char)(i ^ 0x5a);
  NT_CHECK(bad == 0, "%ld bytes wrong after the second region", bad);
  return nt_done("moved_range");
}
