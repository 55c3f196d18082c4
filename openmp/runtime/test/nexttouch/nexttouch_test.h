// Helpers shared by the next-touch tests (not a test itself: lit runs .c/.cpp).
#ifndef NEXTTOUCH_TEST_H
#define NEXTTOUCH_TEST_H
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int nt_failures;

#define NT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
      fflush(stdout);                                                          \
      nt_failures++;                                                           \
    }                                                                          \
  } while (0)

static long nt_pagesize(void) { return sysconf(_SC_PAGESIZE); }

// Anonymous read-write memory without transparent huge pages (tests that want
// THP ask for it explicitly).
// The AnonHugePages of the mapping that holds addr (kB), -1 if not found.
static long nt_anon_huge_kb(void *addr) {
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[256];
  int in = 0;
  long kb = -1;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long s, e;
    if (line[0] != ' ' && sscanf(line, "%lx-%lx ", &s, &e) == 2 &&
        strchr(line, '-') < strchr(line, ' '))
      in = (uintptr_t)addr >= s && (uintptr_t)addr < e;
    else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
      break;
  }
  if (f)
    fclose(f);
  return kb;
}

static char *nt_map(size_t bytes) {
  char *p = (char *)mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

static kmp_nexttouch_counters_t nt_counters(void) {
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c;
  if (kmp_get_nexttouch_counters(&c) != 0) {
    printf("FAIL: kmp_get_nexttouch_counters\n");
    exit(2);
  }
  return c;
}

// The node each page is on now (move_pages query), -errno if not known.
static void nt_nodes_of(char *base, size_t npages, int *nodes) {
  long pg = nt_pagesize();
  enum { CHUNK = 512 };
  void *pages[CHUNK];
  for (size_t i = 0; i < npages; i += CHUNK) {
    size_t k = npages - i < CHUNK ? npages - i : CHUNK;
    for (size_t j = 0; j < k; j++)
      pages[j] = base + (i + j) * pg;
    if (syscall(SYS_move_pages, 0, k, pages, NULL, nodes + i, 0) != 0)
      for (size_t j = 0; j < k; j++)
        nodes[i + j] = -errno;
  }
}

// The protection /proc/self/maps shows for the page at p (PROT_* bits), -1
// if it is not mapped.
static int nt_maps_prot(const void *p) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512], perm[8];
  unsigned long lo, hi, a = (unsigned long)p;
  int prot = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 && lo <= a && a < hi) {
      prot =
          (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0);
      break;
    }
  if (f)
    fclose(f);
  return prot;
}

// readonly: the sum of [p, p+len) read in a region through each thread's
// pointer (-1 if the threads disagree); *rep: every thread read a replica.
static long nt_ro_region_sum(const char *p, size_t len, int *rep) {
  kmp_readonly_t h;
  NT_CHECK(kmp_readonly_begin(1, (const void **)&p, &len, NULL, &h) == 0,
           "begin %p", (void *)p);
  long sums[64], nrep = 0;
  int nth = 1;
#pragma omp parallel reduction(+ : nrep)
  {
    const char *q = (const char *)kmp_readonly_ptr(h, 0);
    long s = 0;
    for (size_t i = 0; i < len; i++)
      s += q[i];
    sums[omp_get_thread_num()] = s;
    nrep += q != p;
#pragma omp single
    nth = omp_get_num_threads();
  }
  kmp_readonly_end(h);
  for (int t = 1; t < nth; t++)
    if (sums[t] != sums[0])
      return -1;
  if (rep)
    *rep = nrep == nth;
  return sums[0];
}

// The compiler's entry points, for tests that call them as generated code
// does (libomp's kmp.h is not installed).
typedef struct ident {
  int reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident_t;
typedef struct kmp_memory_range {
  void *base;
  size_t count, elem_size;
} kmp_memory_range_t;
extern int __kmpc_nexttouch(ident_t *, int, int, const kmp_memory_range_t *);
extern void *__kmpc_readonly_begin(ident_t *, int, int,
                                   const kmp_memory_range_t *,
                                   const char *const *);
extern void **__kmpc_readonly_ptrs(ident_t *, int, void *);
extern void __kmpc_readonly_end(ident_t *, int, void *);

// Runs this program again in a child process, as args (args[0] its name;
// NULL-terminated), with the variables of env ({name, value} each, a NULL
// value skipped; ends with a NULL name) set on top of this process's
// environment (which keeps LD_LIBRARY_PATH and the rest).  Returns the
// child's exit status, or -1 if it did not exit.
static int nt_run_self(char *const *args, const char *const (*env)[2]) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    for (; (*env)[0]; env++)
      if ((*env)[1])
        setenv((*env)[0], (*env)[1], 1);
    execv("/proc/self/exe", args);
    _exit(127);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
    return -1;
  return WEXITSTATUS(st);
}

// The process's mappings now, and the most it may have (vm.max_map_count).
static long nt_map_count(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  long n = 0;
  int c;
  while (f && (c = fgetc(f)) != EOF)
    n += c == '\n';
  if (f)
    fclose(f);
  return n;
}

static long nt_max_map_count(void) {
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  long n = 65530;
  if (f) {
    if (fscanf(f, "%ld", &n) != 1)
      n = 65530;
    fclose(f);
  }
  return n;
}

// Use up the process's mappings but `spare`: single pages with alternating
// protection in one reserved range, so that neighbours do not merge.  The
// range (*pages pages; munmap it to give them back), or NULL.
static char *nt_use_up_maps(long spare, long *pages) {
  long pg = nt_pagesize();
  *pages = nt_max_map_count() - nt_map_count() - spare;
  NT_CHECK(*pages > 0, "max_map_count %ld, %ld maps", nt_max_map_count(),
           nt_map_count());
  if (*pages <= 0)
    return NULL;
  char *pool = (char *)mmap(NULL, *pages * pg, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  NT_CHECK(pool != MAP_FAILED, "pool");
  if (pool == MAP_FAILED)
    return NULL;
  for (long i = 0; i < *pages; i += 2)
    if (mprotect(pool + i * pg, pg, PROT_READ) != 0)
      break;
  return pool;
}

// Does the kernel give this process asynchronous write protection (a
// user-mode-only userfaultfd with UFFD_FEATURE_WP_ASYNC, Linux 6.7): the
// written bits readonly uses?
static int nt_kernel_has_written_bits(void) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1);
  if (fd < 0)
    return 0;
  struct uffdio_api api = {UFFD_API, (1ULL << 15) | (1ULL << 13), 0};
  int ok = ioctl(fd, UFFDIO_API, &api) == 0;
  close(fd);
  return ok;
}

static int nt_done(const char *name) {
  if (nt_failures) {
    printf("%s: FAILED (%d)\n", name, nt_failures);
    fflush(stdout);
    return 1;
  }
  printf("%s: PASS\n", name);
  fflush(stdout);
  return 0;
}
#endif
