// What libomp's wrappers of the C library cost per call (bench/wrappers.sh,
// docs/Benchmarks.rst "The C library wrappers"): the same program against
// our libomp and against Debian's stock libomp of the same release (chosen
// by LD_LIBRARY_PATH), natively.  Each call is timed as the best of REPS
// runs of CALLS calls, in two states:
//   idle    no engine has been used (the wrappers' fast path);
//   in-use  next-touch has armed pages (not the buffers') and readonly has
//           cached an item: the wrappers look at every buffer; with the
//           stock libomp (no engines) the same loop again.
// Prints "WRAP call state ns" lines, then "WRAP_LIBOMP ours|stock".
//
//   wrapper_cost [CALLS] [REPS]        (defaults 200000, 7)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long calls = 200000;
static int reps = 7;
static int fd_null, fd_zero;
static char buf[4096] __attribute__((aligned(4096)));
static char *page;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

typedef void (*op_fn)(void);
static void op_write(void) { (void)!write(fd_null, buf, 64); }
static void op_read(void) { (void)!read(fd_zero, buf, 64); }
static void op_writev(void) {
  struct iovec v[2] = {{buf, 32}, {buf + 64, 32}};
  (void)!writev(fd_null, v, 2);
}
static void op_sigmask(void) {
  sigset_t s;
  pthread_sigmask(SIG_BLOCK, NULL, &s);
}
static void op_sigaction(void) {
  struct sigaction sa;
  sigaction(SIGSEGV, NULL, &sa);
}
static void op_mprotect(void) { mprotect(page, 4096, PROT_READ | PROT_WRITE); }
static void op_madvise(void) { madvise(page, 4096, MADV_NORMAL); }
static void op_waitpid(void) { waitpid(-1, NULL, WNOHANG); } // ECHILD
static void op_open(void) { close(open("/dev/null", O_RDONLY)); }

static const struct {
  const char *name;
  op_fn fn;
} ops[] = {{"write", op_write},         {"read", op_read},
           {"writev", op_writev},       {"pthread_sigmask", op_sigmask},
           {"sigaction", op_sigaction}, {"mprotect", op_mprotect},
           {"madvise", op_madvise},     {"waitpid", op_waitpid},
           {"open+close", op_open}};

static void measure(const char *state) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    long n = ops[i].fn == op_open ? calls / 4 : calls;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      for (long k = 0; k < n; k++)
        ops[i].fn();
      double t = (now() - t0) / n;
      if (t < best)
        best = t;
    }
    printf("WRAP %s %s %.1f\n", ops[i].name, state, best);
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  if (argc > 1)
    calls = atol(argv[1]);
  if (argc > 2)
    reps = atoi(argv[2]);
  fd_null = open("/dev/null", O_WRONLY);
  fd_zero = open("/dev/zero", O_RDONLY);
  page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
              -1, 0);
  memset(buf, 1, sizeof buf);
  // Ours has the engines' API; the stock libomp does not.
  int (*nt)(void *, size_t) =
      (int (*)(void *, size_t))dlsym(RTLD_DEFAULT, "kmp_nexttouch");
  int (*ro_begin)(int, const void *const *, const size_t *, const char *const *,
                  void **) =
      (int (*)(int, const void *const *, const size_t *, const char *const *,
               void **))dlsym(RTLD_DEFAULT, "kmp_readonly_begin");
  void (*ro_end)(void *) =
      (void (*)(void *))dlsym(RTLD_DEFAULT, "kmp_readonly_end");
#pragma omp parallel
  (void)omp_get_thread_num(); // the runtime and its threads exist
  measure("idle");
  enum { N = 64 };
  char *a = mmap(NULL, N * 4096, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *item = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(a, 1, N * 4096);
  memset(item, 2, 16 * 4096);
  if (nt && ro_begin && ro_end) {
    if (nt(a, N * 4096) != 0)
      fprintf(stderr, "wrapper_cost: kmp_nexttouch failed\n");
    const void *p = item;
    size_t len = 16 * 4096;
    void *h;
    if (ro_begin(1, &p, &len, NULL, &h) == 0) {
#pragma omp parallel
      (void)*(volatile char *)item;
      ro_end(h);
    }
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < N / 2; i++) // half the pages stay armed
      s += a[i * 4096];
    if (s != N / 2)
      fprintf(stderr, "wrapper_cost: bad sum %ld\n", s);
  }
  measure("in-use");
  printf("WRAP_LIBOMP %s\n", nt ? "ours" : "stock");
  return 0;
}
