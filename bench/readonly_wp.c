// bench/readonly_wp.c -- how can libomp notice writes to the list items of
// readonly(list) on this kernel?  Measures the three candidates on one
// populated array and prints their figures (docs/Design.rst, "Choosing the
// write trap"):
//
//  1. mprotect(PROT_READ) + a SIGSEGV handler that opens the written page
//     (or a chunk of 32 pages) again: cost to protect, per fault, to open;
//     what read(2) into a protected page does;
//  2. userfaultfd write-protect (UFFDIO_REGISTER_MODE_WP): whether an
//     unprivileged process may use it (vm.unprivileged_userfaultfd, or
//     UFFD_USER_MODE_ONLY), cost to protect, per fault (a service thread
//     resolves it), what read(2) into a protected page does;
//  3. soft-dirty bits (clear_refs 4, /proc/self/pagemap bit 55): cost of the
//     process-wide clear, of the writes after it, of reading the bits.
//
// Plus what a replica costs (copy of the array, per page and per MB), and
// reading /proc/self/maps (done once per region start by the runtime).
//
// Not a test; no libomp.  Build and run:
//   clang -O2 bench/readonly_wp.c -lpthread -o /tmp/readonly_wp && /tmp/readonly_wp [MiB]
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static long pg;
static size_t npages, bytes;
static char *a;
static int chunk_pages = 1; // what the SIGSEGV handler opens per fault
static volatile long faults;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fig(const char *what, double v, const char *unit) {
  printf("%-44s %12.3f %s\n", what, v, unit);
}

static void touch_all(void) {
  for (size_t p = 0; p < npages; p++)
    a[p * pg] += 1;
}

// ---------------------------------------------------------------------------
// 1. mprotect + SIGSEGV

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  uintptr_t page = (uintptr_t)si->si_addr & ~(uintptr_t)(pg - 1);
  uintptr_t base = (uintptr_t)a;
  uintptr_t start = base + (page - base) / (chunk_pages * pg) * (chunk_pages * pg);
  size_t len = chunk_pages * pg;
  if (start + len > base + bytes)
    len = base + bytes - start;
  mprotect((void *)start, len, PROT_READ | PROT_WRITE);
  faults++;
}

static void bench_mprotect(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  int chunks[] = {1, 32};
  for (int c = 0; c < 2; c++) {
    chunk_pages = chunks[c];
    double t0 = now();
    mprotect(a, bytes, PROT_READ);
    double t1 = now();
    faults = 0;
    touch_all();
    double t2 = now();
    char name[64];
    if (c == 0) {
      fig("mprotect: protect, per page", (t1 - t0) / npages * 1e9, "ns");
      fig("mprotect: protect, per MB", (t1 - t0) / (bytes >> 20) * 1e6, "us");
    }
    snprintf(name, sizeof name, "mprotect: write fault opening %d page(s)",
             chunk_pages);
    fig(name, (t2 - t1) / faults * 1e6, "us/fault");
    snprintf(name, sizeof name, "mprotect: ... per page written (%ld faults)",
             (long)faults);
    fig(name, (t2 - t1) / npages * 1e6, "us");
  }
  // Opening the whole array at once (a region's end, for an item without
  // replicas).
  mprotect(a, bytes, PROT_READ);
  double t0 = now();
  mprotect(a, bytes, PROT_READ | PROT_WRITE);
  fig("mprotect: open everything, per MB", (now() - t0) / (bytes >> 20) * 1e6,
      "us");
  // read(2) into a protected page: the kernel cannot send a signal for its
  // own access; the call fails.
  int fds[2];
  if (pipe(fds) == 0) {
    mprotect(a, pg, PROT_READ);
    if (write(fds[1], "x", 1) != 1)
      perror("write");
    errno = 0;
    ssize_t r = read(fds[0], a, 1);
    printf("%-44s %s\n", "mprotect: read(2) into a protected page",
           r == 1 ? "succeeds" : strerror(errno));
    mprotect(a, pg, PROT_READ | PROT_WRITE);
    close(fds[0]);
    close(fds[1]);
  }
  signal(SIGSEGV, SIG_DFL);
}

// ---------------------------------------------------------------------------
// 2. userfaultfd write-protect

static int uffd = -1;
static volatile int uffd_stop;
static volatile long uffd_faults;

static void *uffd_service(void *arg) {
  (void)arg;
  struct pollfd p = {uffd, POLLIN, 0};
  while (!uffd_stop) {
    if (poll(&p, 1, 100) <= 0)
      continue;
    struct uffd_msg m;
    if (read(uffd, &m, sizeof m) != sizeof m)
      continue;
    if (m.event != UFFD_EVENT_PAGEFAULT)
      continue;
    struct uffdio_writeprotect wp;
    wp.range.start = m.arg.pagefault.address & ~(uint64_t)(pg - 1);
    wp.range.len = pg;
    wp.mode = 0; // clear the protection and wake the faulting thread
    ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
    uffd_faults++;
  }
  return NULL;
}

static int uffd_open(int flags) {
  return (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | flags);
}

// With UFFD_USER_MODE_ONLY (all an unprivileged process may have when
// vm.unprivileged_userfaultfd is 0): what read(2) into a protected page does.
static void uffd_user_mode_read(void) {
  int fd = uffd_open(UFFD_USER_MODE_ONLY);
  if (fd < 0)
    return;
  struct uffdio_api api = {UFFD_API, UFFD_FEATURE_PAGEFAULT_FLAG_WP, 0};
  struct uffdio_register reg;
  memset(&reg, 0, sizeof reg);
  reg.range.start = (uintptr_t)a;
  reg.range.len = pg;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  struct uffdio_writeprotect wp = {{(uintptr_t)a, pg},
                                   UFFDIO_WRITEPROTECT_MODE_WP};
  int fds[2];
  if (ioctl(fd, UFFDIO_API, &api) == 0 && ioctl(fd, UFFDIO_REGISTER, &reg) == 0 &&
      ioctl(fd, UFFDIO_WRITEPROTECT, &wp) == 0 && pipe(fds) == 0) {
    if (write(fds[1], "x", 1) != 1)
      perror("write");
    errno = 0;
    ssize_t r = read(fds[0], a, 1); // no service thread: must not block
    printf("%-44s %s\n", "uffd: USER_MODE_ONLY read(2) into it",
           r == 1 ? "succeeds" : strerror(errno));
    close(fds[0]);
    close(fds[1]);
    struct uffdio_range rr = {(uintptr_t)a, pg};
    ioctl(fd, UFFDIO_UNREGISTER, &rr);
  }
  close(fd);
}

static void bench_uffd(void) {
  int unpriv = -1;
  FILE *f = fopen("/proc/sys/vm/unprivileged_userfaultfd", "r");
  if (f) {
    if (fscanf(f, "%d", &unpriv) != 1)
      unpriv = -1;
    fclose(f);
  }
  printf("%-44s %d\n", "uffd: vm.unprivileged_userfaultfd", unpriv);
  int um = uffd_open(UFFD_USER_MODE_ONLY);
  printf("%-44s %s\n", "uffd: UFFD_USER_MODE_ONLY (unprivileged)",
         um >= 0 ? "available" : strerror(errno));
  if (um >= 0) {
    close(um);
    uffd_user_mode_read();
  }
  uffd = uffd_open(0);
  if (uffd < 0) {
    printf("%-44s %s\n", "uffd: full userfaultfd", strerror(errno));
    return;
  }
  struct uffdio_api api = {UFFD_API, UFFD_FEATURE_PAGEFAULT_FLAG_WP, 0};
  if (ioctl(uffd, UFFDIO_API, &api) != 0) {
    printf("%-44s %s\n", "uffd: UFFD_FEATURE_PAGEFAULT_FLAG_WP",
           strerror(errno));
    close(uffd);
    return;
  }
  struct uffdio_register reg;
  memset(&reg, 0, sizeof reg);
  reg.range.start = (uintptr_t)a;
  reg.range.len = bytes;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
    printf("%-44s %s\n", "uffd: register WP on anonymous memory",
           strerror(errno));
    close(uffd);
    return;
  }
  pthread_t th;
  uffd_stop = 0;
  pthread_create(&th, NULL, uffd_service, NULL);
  struct uffdio_writeprotect wp = {{(uintptr_t)a, bytes},
                                   UFFDIO_WRITEPROTECT_MODE_WP};
  double t0 = now();
  int rc = ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
  double t1 = now();
  if (rc != 0) {
    printf("%-44s %s\n", "uffd: UFFDIO_WRITEPROTECT", strerror(errno));
  } else {
    fig("uffd: protect, per page", (t1 - t0) / npages * 1e9, "ns");
    fig("uffd: protect, per MB", (t1 - t0) / (bytes >> 20) * 1e6, "us");
    uffd_faults = 0;
    touch_all();
    double t2 = now();
    fig("uffd: write fault (service thread opens 1 page)",
        (t2 - t1) / (uffd_faults ? uffd_faults : 1) * 1e6, "us/fault");
    // A system call writing into a protected page: the kernel's own access
    // is a fault the service thread resolves (not with USER_MODE_ONLY).
    ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
    int fds[2];
    if (pipe(fds) == 0) {
      if (write(fds[1], "x", 1) != 1)
        perror("write");
      errno = 0;
      ssize_t r = read(fds[0], a, 1);
      printf("%-44s %s\n", "uffd: read(2) into a protected page",
             r == 1 ? "succeeds (service thread resolved it)"
                    : strerror(errno));
      close(fds[0]);
      close(fds[1]);
    }
  }
  uffd_stop = 1;
  pthread_join(th, NULL);
  struct uffdio_range r = {(uintptr_t)a, bytes};
  ioctl(uffd, UFFDIO_UNREGISTER, &r);
  close(uffd);
}

// ---------------------------------------------------------------------------
// 3. soft-dirty bits

static int clear_soft_dirty(void) {
  int fd = open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0)
    return -1;
  int ok = write(fd, "4", 1) == 1;
  close(fd);
  return ok ? 0 : -1;
}

static void bench_soft_dirty(void) {
  double t0 = now();
  touch_all(); // baseline: writes to writable, dirty pages
  double base = now() - t0;
  t0 = now();
  if (clear_soft_dirty() != 0) {
    printf("%-44s %s\n", "soft-dirty: clear_refs 4", strerror(errno));
    return;
  }
  double t1 = now();
  touch_all();
  double t2 = now();
  fig("soft-dirty: clear_refs (whole process), per MB of array",
      (t1 - t0) / (bytes >> 20) * 1e6, "us");
  fig("soft-dirty: first write after clear, extra per page",
      ((t2 - t1) - base) / npages * 1e6, "us");
  int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0)
    return;
  uint64_t *pm = malloc(8 * npages);
  double t3 = now();
  ssize_t r = pread(fd, pm, 8 * npages, ((uintptr_t)a / pg) * 8);
  double t4 = now();
  close(fd);
  size_t dirty = 0;
  for (size_t p = 0; r == (ssize_t)(8 * npages) && p < npages; p++)
    dirty += (pm[p] >> 55) & 1;
  fig("soft-dirty: read pagemap, per page", (t4 - t3) / npages * 1e9, "ns");
  printf("%-44s %zu of %zu%s\n", "soft-dirty: written pages seen dirty", dirty,
         npages, dirty ? "" : " (no soft-dirty tracking in this kernel)");
  free(pm);
}

// ---------------------------------------------------------------------------
// What replicas and the region start cost

static void bench_replica(void) {
  char *r = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  double t0 = now();
  memcpy(r, a, bytes); // first touch included, as for a new replica
  double t1 = now();
  memcpy(r, a, bytes); // a refresh of a replica that exists
  double t2 = now();
  fig("replica: new copy, per page", (t1 - t0) / npages * 1e6, "us");
  fig("replica: new copy, per MB", (t1 - t0) / (bytes >> 20) * 1e3, "ms");
  fig("replica: refresh copy, per page", (t2 - t1) / npages * 1e6, "us");
  munmap(r, bytes);
  // The same with transparent huge pages (2 MB aligned, MADV_HUGEPAGE).
  size_t huge = 2UL << 20;
  char *m = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  r = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
  madvise(r, bytes, MADV_HUGEPAGE);
  t0 = now();
  memcpy(r, a, bytes);
  fig("replica: new copy with THP, per 4K page", (now() - t0) / npages * 1e6,
      "us");
  munmap(m, bytes + huge);
  // Populated by the kernel in one call first (no fault per page).
  r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
           -1, 0);
  madvise(r, bytes, MADV_NOHUGEPAGE);
  t0 = now();
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  int pop = madvise(r, bytes, MADV_POPULATE_WRITE);
  memcpy(r, a, bytes);
  fig(pop == 0 ? "replica: MADV_POPULATE_WRITE + copy, per page"
               : "replica: (no MADV_POPULATE_WRITE) copy, per page",
      (now() - t0) / npages * 1e6, "us");
  munmap(r, bytes);
  char buf[1 << 16];
  int n = 200;
  double t3 = now();
  for (int i = 0; i < n; i++) {
    int fd = open("/proc/self/maps", O_RDONLY);
    while (read(fd, buf, sizeof buf) > 0)
      ;
    close(fd);
  }
  fig("read /proc/self/maps once", (now() - t3) / n * 1e6, "us");
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
  pg = sysconf(_SC_PAGESIZE);
  bytes = mib << 20;
  npages = bytes / pg;
  struct utsname u;
  uname(&u);
  printf("readonly_wp: kernel %s, %zu MiB = %zu pages of %ld bytes\n",
         u.release, mib, npages, pg);
  a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
           -1, 0);
  madvise(a, bytes, MADV_NOHUGEPAGE); // the runtime works in base pages
  memset(a, 1, bytes);
  bench_mprotect();
  bench_uffd();
  bench_soft_dirty();
  bench_replica();
  return 0;
}
