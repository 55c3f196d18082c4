// What libomp's wrappers of the C library cost per call (bench/wrappers.sh,
// docs/Benchmarks.rst "The C library wrappers"): the same program against
// our libomp and against Debian's stock libomp of the same release (chosen
// by LD_LIBRARY_PATH), natively.  Each call is timed as the best of REPS
// runs of about 20 ms (100 ms for write and read; at most CALLS calls, five
// times that for write and read), in two states:
//   idle    no engine has been used (the wrappers' fast path);
//   in-use  next-touch has armed pages (not the buffers') and readonly has
//           cached an item: the wrappers look at every buffer; with the
//           stock libomp (no engines) the same loop again.
// Every function libomp wraps, one line each (a pair where a call needs its
// partner).  Prints "WRAP call state ns" lines, then "WRAP_LIBOMP ours|stock".
//
//   wrapper_cost [CALLS] [REPS]        (defaults 200000, 7)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <spawn.h>
#include <sys/socket.h>
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
// One call each (a pair where a call needs its partner: open+close, ...),
// every function libomp wraps; a call that may block is made so that it
// returns at once (WNOHANG, a zero timeout, a pending signal).
static int sk[2];
static FILE *fp_null, *fp_zero;
static struct iovec iov2[2];
static struct mmsghdr mm[1];
static struct msghdr mh;
static sigset_t usr1;
static jmp_buf jb;
static sigjmp_buf sjb;
extern char **environ;
static void op_write(void) { (void)!write(fd_null, buf, 64); }
static void op_read(void) { (void)!read(fd_zero, buf, 64); }
static void op_pwrite(void) { (void)!pwrite(fd_null, buf, 64, 0); }
static void op_pread(void) { (void)!pread(fd_zero, buf, 64, 0); }
static void op_pwrite64(void) { (void)!pwrite64(fd_null, buf, 64, 0); }
static void op_pread64(void) { (void)!pread64(fd_zero, buf, 64, 0); }
static void op_writev(void) { (void)!writev(fd_null, iov2, 2); }
static void op_readv(void) { (void)!readv(fd_zero, iov2, 2); }
static void op_pwritev(void) { (void)!pwritev(fd_null, iov2, 2, 0); }
static void op_preadv(void) { (void)!preadv(fd_zero, iov2, 2, 0); }
static void op_pwritev64(void) { (void)!pwritev64(fd_null, iov2, 2, 0); }
static void op_preadv64(void) { (void)!preadv64(fd_zero, iov2, 2, 0); }
static void op_send_recv(void) {
  (void)!send(sk[0], buf, 64, 0);
  (void)!recv(sk[1], buf, 64, 0);
}
static void op_sendto_recvfrom(void) {
  (void)!sendto(sk[0], buf, 64, 0, NULL, 0);
  (void)!recvfrom(sk[1], buf, 64, 0, NULL, NULL);
}
static void op_sendmsg_recvmsg(void) {
  (void)!sendmsg(sk[0], &mh, 0);
  (void)!recvmsg(sk[1], &mh, 0);
}
static void op_sendmmsg_recvmmsg(void) {
  (void)!sendmmsg(sk[0], mm, 1, 0);
  (void)!recvmmsg(sk[1], mm, 1, 0, NULL);
}
static void op_fwrite_fflush(void) {
  (void)!fwrite(buf, 1, 64, fp_null);
  fflush(fp_null);
}
static void op_fwrite_unlocked(void) {
  (void)!fwrite_unlocked(buf, 1, 64, fp_null);
  fflush(fp_null);
}
static void op_fread(void) { (void)!fread(buf, 1, 4096, fp_zero); }
static void op_fread_unlocked(void) {
  (void)!fread_unlocked(buf, 1, 4096, fp_zero);
}
static void op_vm_readv(void) {
  struct iovec l = {buf, 64}, r = {buf + 128, 64};
  (void)!process_vm_readv(getpid(), &l, 1, &r, 1, 0);
}
static void op_vm_writev(void) {
  struct iovec l = {buf, 64}, r = {buf + 128, 64};
  (void)!process_vm_writev(getpid(), &l, 1, &r, 1, 0);
}
// What _FORTIFY_SOURCE builds call.
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *, size_t, size_t, int, struct sockaddr *,
                       socklen_t *);
size_t __fread_chk(void *, size_t, size_t, size_t, FILE *);
size_t __fread_unlocked_chk(void *, size_t, size_t, size_t, FILE *);
int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
void __longjmp_chk(jmp_buf, int);
static void op_read_chk(void) { (void)!__read_chk(fd_zero, buf, 64, 4096); }
static void op_pread_chk(void) {
  (void)!__pread_chk(fd_zero, buf, 64, 0, 4096);
}
static void op_pread64_chk(void) {
  (void)!__pread64_chk(fd_zero, buf, 64, 0, 4096);
}
static void op_recv_chk(void) {
  (void)!send(sk[0], buf, 64, 0);
  (void)!__recv_chk(sk[1], buf, 64, 4096, 0);
}
static void op_recvfrom_chk(void) {
  (void)!send(sk[0], buf, 64, 0);
  (void)!__recvfrom_chk(sk[1], buf, 64, 4096, 0, NULL, NULL);
}
static void op_fread_chk(void) {
  (void)!__fread_chk(buf, 4096, 1, 4096, fp_zero);
}
static void op_fread_unlocked_chk(void) {
  (void)!__fread_unlocked_chk(buf, 4096, 1, 4096, fp_zero);
}
static void op_open(void) { close(open("/dev/null", O_RDONLY)); }
static void op_open64(void) { close(open64("/dev/null", O_RDONLY)); }
static void op_openat(void) { close(openat(AT_FDCWD, "/dev/null", O_RDONLY)); }
static void op_openat64(void) {
  close(openat64(AT_FDCWD, "/dev/null", O_RDONLY));
}
static void op_open_2(void) { close(__open_2("/dev/null", O_RDONLY)); }
static void op_open64_2(void) { close(__open64_2("/dev/null", O_RDONLY)); }
static void op_openat_2(void) {
  close(__openat_2(AT_FDCWD, "/dev/null", O_RDONLY));
}
static void op_openat64_2(void) {
  close(__openat64_2(AT_FDCWD, "/dev/null", O_RDONLY));
}
static void op_fopen(void) { fclose(fopen("/dev/null", "r")); }
static void op_fopen64(void) { fclose(fopen64("/dev/null", "r")); }
static void op_freopen(void) {
  FILE *f = fopen("/dev/null", "r");
  fclose(freopen("/dev/zero", "r", f));
}
static void op_freopen64(void) {
  FILE *f = fopen("/dev/null", "r");
  fclose(freopen64("/dev/zero", "r", f));
}
static void op_wait(void) { (void)!wait(NULL); } // ECHILD
static void op_waitpid(void) { waitpid(-1, NULL, WNOHANG); }
static void op_wait3(void) { wait3(NULL, WNOHANG, NULL); }
static void op_wait4(void) { wait4(-1, NULL, WNOHANG, NULL); }
static void op_waitid(void) {
  siginfo_t si;
  waitid(P_ALL, 0, &si, WEXITED | WNOHANG);
}
static void op_posix_spawn(void) {
  pid_t pid;
  char *argv[] = {(char *)"true", NULL};
  if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) == 0)
    waitpid(pid, NULL, 0);
}
static void op_posix_spawnp(void) {
  pid_t pid;
  char *argv[] = {(char *)"true", NULL};
  if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) == 0)
    waitpid(pid, NULL, 0);
}
static void op_sigmask(void) {
  sigset_t s;
  pthread_sigmask(SIG_BLOCK, NULL, &s);
}
static void op_sigprocmask(void) {
  sigset_t s;
  sigprocmask(SIG_BLOCK, NULL, &s);
}
static void op_sigaction(void) {
  struct sigaction sa;
  sigaction(SIGSEGV, NULL, &sa);
}
static void op_signal(void) { signal(SIGUSR2, SIG_DFL); }
static void op_sigpending(void) {
  sigset_t s;
  sigpending(&s);
}
// SIGUSR1 is blocked: raise() makes it pending, the call takes it.
static void op_sigwait(void) {
  int sig;
  raise(SIGUSR1);
  sigwait(&usr1, &sig);
}
static void op_sigwaitinfo(void) {
  raise(SIGUSR1);
  sigwaitinfo(&usr1, NULL);
}
static void op_sigtimedwait(void) {
  struct timespec zero = {0, 0};
  sigtimedwait(&usr1, NULL, &zero); // EAGAIN
}
static void op_sigsuspend(void) {
  sigset_t s;
  pthread_sigmask(SIG_BLOCK, NULL, &s);
  sigdelset(&s, SIGUSR1);
  raise(SIGUSR1); // pending: sigsuspend returns after its handler
  sigsuspend(&s);
}
static void *thread_fn(void *a) { return a; }
static void op_pthread_create(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, thread_fn, NULL) == 0)
    pthread_join(t, NULL);
}
static void op_mmap_munmap(void) {
  munmap(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
         4096);
}
static void op_mmap64(void) {
  munmap(mmap64(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
         4096);
}
static void op_mremap(void) {
  void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(mremap(p, 4096, 8192, MREMAP_MAYMOVE), 8192);
}
static void op_mprotect(void) { mprotect(page, 4096, PROT_READ | PROT_WRITE); }
static void op_madvise(void) { madvise(page, 4096, MADV_NORMAL); }
static void op_longjmp(void) {
  if (!setjmp(jb))
    longjmp(jb, 1);
}
static void op__longjmp(void) {
  if (!_setjmp(jb))
    _longjmp(jb, 1);
}
static void op_siglongjmp(void) {
  if (!sigsetjmp(sjb, 1))
    siglongjmp(sjb, 1);
}
static void op_longjmp_chk(void) {
  if (!setjmp(jb))
    __longjmp_chk(jb, 1);
}

static const struct {
  const char *name;
  op_fn fn;
} ops[] = {{"write", op_write},
           {"read", op_read},
           {"pwrite", op_pwrite},
           {"pread", op_pread},
           {"pwrite64", op_pwrite64},
           {"pread64", op_pread64},
           {"writev", op_writev},
           {"readv", op_readv},
           {"pwritev", op_pwritev},
           {"preadv", op_preadv},
           {"pwritev64", op_pwritev64},
           {"preadv64", op_preadv64},
           {"send+recv", op_send_recv},
           {"sendto+recvfrom", op_sendto_recvfrom},
           {"sendmsg+recvmsg", op_sendmsg_recvmsg},
           {"sendmmsg+recvmmsg", op_sendmmsg_recvmmsg},
           {"fwrite+fflush", op_fwrite_fflush},
           {"fwrite_unlocked+fflush", op_fwrite_unlocked},
           {"fread", op_fread},
           {"fread_unlocked", op_fread_unlocked},
           {"process_vm_readv", op_vm_readv},
           {"process_vm_writev", op_vm_writev},
           {"__read_chk", op_read_chk},
           {"__pread_chk", op_pread_chk},
           {"__pread64_chk", op_pread64_chk},
           {"send+__recv_chk", op_recv_chk},
           {"send+__recvfrom_chk", op_recvfrom_chk},
           {"__fread_chk", op_fread_chk},
           {"__fread_unlocked_chk", op_fread_unlocked_chk},
           {"open+close", op_open},
           {"open64+close", op_open64},
           {"openat+close", op_openat},
           {"openat64+close", op_openat64},
           {"__open_2+close", op_open_2},
           {"__open64_2+close", op_open64_2},
           {"__openat_2+close", op_openat_2},
           {"__openat64_2+close", op_openat64_2},
           {"fopen+fclose", op_fopen},
           {"fopen64+fclose", op_fopen64},
           {"fopen+freopen+fclose", op_freopen},
           {"fopen+freopen64+fclose", op_freopen64},
           {"wait", op_wait},
           {"waitpid", op_waitpid},
           {"wait3", op_wait3},
           {"wait4", op_wait4},
           {"waitid", op_waitid},
           {"posix_spawn+waitpid", op_posix_spawn},
           {"posix_spawnp+waitpid", op_posix_spawnp},
           {"pthread_sigmask", op_sigmask},
           {"sigprocmask", op_sigprocmask},
           {"sigaction", op_sigaction},
           {"signal", op_signal},
           {"sigpending", op_sigpending},
           {"raise+sigwait", op_sigwait},
           {"raise+sigwaitinfo", op_sigwaitinfo},
           {"sigtimedwait", op_sigtimedwait},
           {"raise+sigsuspend", op_sigsuspend},
           {"pthread_create+join", op_pthread_create},
           {"mmap+munmap", op_mmap_munmap},
           {"mmap64+munmap", op_mmap64},
           {"mmap+mremap+munmap", op_mremap},
           {"mprotect", op_mprotect},
           {"madvise", op_madvise},
           {"setjmp+longjmp", op_longjmp},
           {"_setjmp+_longjmp", op__longjmp},
           {"sigsetjmp+siglongjmp", op_siglongjmp},
           {"setjmp+__longjmp_chk", op_longjmp_chk}};

static void on_usr1(int sig) { (void)sig; }

// Each call is made n times per run, n such that a run takes about 20 ms
// (100 ms for write and read, whose ratios have targets), at most CALLS
// (five times that for write and read), and timed as the best of REPS runs.
static void measure(const char *state) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    int targeted = ops[i].fn == op_write || ops[i].fn == op_read;
    double t0 = now();
    for (int k = 0; k < 8; k++)
      ops[i].fn();
    double each = (now() - t0) / 8, run_ns = targeted ? 100e6 : 20e6;
    long most = targeted ? 5 * calls : calls;
    long n = each > 0 ? (long)(run_ns / each) : most;
    n = n < 8 ? 8 : n > most ? most : n;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      t0 = now();
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
  fp_null = fopen("/dev/null", "w");
  fp_zero = fopen("/dev/zero", "r");
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sk);
  iov2[0] = (struct iovec){buf, 32};
  iov2[1] = (struct iovec){buf + 64, 32};
  mh.msg_iov = iov2;
  mh.msg_iovlen = 2;
  mm[0].msg_hdr = mh;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  signal(SIGUSR1, on_usr1);
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
