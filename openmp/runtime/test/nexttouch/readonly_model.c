// Randomized model of readonly(list) (host, KMP_READONLY_FORCE=1: real
// replicas; KMP_NEXTTOUCH_FORCE=1).  A seeded sequence of steps over a pool
// of buffers (mmap'ed and malloc'ed), each with a shadow copy of its bytes:
//   region:   a random list of buffers (also two overlapping parts of one
//             buffer, and buffers listed twice through nested regions),
//             begun by the initial thread, by a task of another team, or
//             by a thread outside OpenMP (a root of its own); every thread
//             of the team reads every item through its pointer and
//             compares it with the shadow;
//   write:    serial code writes random bytes;
//   thread:   a thread outside OpenMP writes random bytes;
//   read:     read(2) from a pipe, or pread(2) from a file, into a buffer
//             (a kernel write);
//   discard:  madvise(MADV_DONTNEED) on an mmap'ed buffer (zeros);
//   protect:  mprotect(RW), a write, mprotect(R), then mprotect(RW);
//   move:     mremap of an mmap'ed buffer to a new address (and its shadow
//             follows); the old address is unmapped;
//   realloc:  realloc of a malloc'ed buffer (it may move);
//   renew:    free, then malloc of the same size (often the same address),
//             filled anew;
//   request:  kmp_nexttouch on a buffer, touched by the next region;
//   release:  kmp_readonly_release of a buffer;
//   fork:     a child checks every buffer against the shadow, writes one,
//             and exits; the parent's data does not change;
//   again:    the last region's list once more, twice (a list started
//             before and unchanged starts as it did, where the kernel has
//             the written bits: the model checks that some did).
// Every read is checked against the shadow; a difference is stale data.
// NT_STRESS_SCALE (or the second argument) multiplies the steps (make
// check-stress).
// RUN: %libomp-compile && env KMP_READONLY_FORCE=1 KMP_NEXTTOUCH_FORCE=1 \
// RUN:   OMP_NUM_THREADS=3 %libomp-run 1 | FileCheck %s
// RUN: env KMP_READONLY_FORCE=1 KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 \
// RUN:   KMP_READONLY_BUDGET=256k %libomp-run 2 | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: tsan
// (TSan does not support threads started in the child of a multi-threaded
// fork.)
// CHECK: readonly_model: PASS
#define _GNU_SOURCE
#include "nexttouch_test.h"
#include <pthread.h>
#include <sys/wait.h>

enum { NBUF = 8, MAXP = 24 };
static long pg;
struct buf {
  char *p;
  size_t len;
  int heap; // malloc'ed (else mmap'ed)
  char *shadow;
};
static struct buf bufs[NBUF];
static unsigned seed;

static unsigned rnd(unsigned n) { return (unsigned)rand_r(&seed) % n; }

static void fill(struct buf *b, size_t off, size_t n, unsigned char v) {
  memset(b->p + off, v, n);
  memset(b->shadow + off, v, n);
}

static void new_buf(struct buf *b) {
  b->len = (1 + rnd(MAXP)) * pg - (rnd(2) ? rnd(pg) : 0);
  b->heap = rnd(2);
  if (b->heap)
    b->p = (char *)malloc(b->len);
  else
    b->p = nt_map((b->len + pg - 1) / pg * pg);
  b->shadow = (char *)malloc(b->len);
  fill(b, 0, b->len, (unsigned char)rnd(256));
}

static void free_buf(struct buf *b) {
  if (b->heap)
    free(b->p);
  else
    munmap(b->p, (b->len + pg - 1) / pg * pg);
  free(b->shadow);
}

// A random part of a buffer: [*off, *off + *n).
static void part(const struct buf *b, size_t *off, size_t *n) {
  *off = rnd((unsigned)b->len);
  *n = 1 + rnd((unsigned)(b->len - *off));
}

static long mismatches;

// A region listing the items (nested: a second region inside, listing the
// first item again through the pointer the outer one gave).
static void region(int n, const int *which, const size_t *offs,
                   const size_t *lens, int nested) {
  const void *ptrs[8];
  for (int i = 0; i < n; i++)
    ptrs[i] = bufs[which[i]].p + offs[i];
  kmp_readonly_t h;
  int rc = kmp_readonly_begin(n, ptrs, lens, NULL, &h);
  NT_CHECK(rc == 0 || rc == EBUSY, "begin: %d", rc);
  long bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    for (int i = 0; i < n; i++) {
      const char *q = kmp_readonly_ptr(h, i);
      const char *s = bufs[which[i]].shadow + offs[i];
      bad += memcmp(q, s, lens[i]) != 0;
      // Pages armed for next-touch are touched here as well.
      bad += memcmp(bufs[which[i]].p, bufs[which[i]].shadow,
                    bufs[which[i]].len) != 0;
    }
    if (nested) {
#pragma omp master
      {
        const void *inner = kmp_readonly_ptr(h, 0);
        kmp_readonly_t h2;
        if (kmp_readonly_begin(1, &inner, lens, NULL, &h2) == 0) {
          const char *q = kmp_readonly_ptr(h2, 0);
          bad += memcmp(q, bufs[which[0]].shadow + offs[0], lens[0]) != 0;
          kmp_readonly_end(h2);
        }
      }
    }
  }
  kmp_readonly_end(h);
  mismatches += bad;
}

// The region begun where `from` says: 0 the initial thread, 1 a task of a
// team (run by any of its threads, the region nested in it), 2 a thread
// outside OpenMP.
struct region_args {
  int n, nested;
  const int *which;
  const size_t *offs, *lens;
};
static void *region_thread(void *arg) {
  struct region_args *r = (struct region_args *)arg;
  region(r->n, r->which, r->offs, r->lens, r->nested);
  return NULL;
}
static void region_from(int from, struct region_args *r) {
  if (from == 1) {
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task
    region_thread(r);
  } else if (from == 2) {
    pthread_t t;
    NT_CHECK(pthread_create(&t, NULL, region_thread, r) == 0, "pthread");
    pthread_join(t, NULL);
  } else {
    region_thread(r);
  }
}

static int file_fd = -1; // a temporary file for pread(2)

struct thread_write {
  struct buf *b;
  size_t off, n;
  unsigned char v;
};
static void *writer(void *arg) {
  struct thread_write *w = (struct thread_write *)arg;
  memset(w->b->p + w->off, w->v, w->n);
  return NULL;
}

static int check_all(void) {
  for (int i = 0; i < NBUF; i++)
    if (memcmp(bufs[i].p, bufs[i].shadow, bufs[i].len))
      return 0;
  return 1;
}

// The last region's list, for `again`.
static struct {
  int k, which[8];
  size_t offs[8], lens[8];
} last;

static void step(int s) {
  int i = rnd(NBUF);
  struct buf *b = &bufs[i];
  size_t off, n;
  switch (rnd(18)) {
  case 0:
  case 1:
  case 2:
  case 3: { // region
    int k = 1 + rnd(4), which[8];
    size_t offs[8], lens[8];
    for (int j = 0; j < k; j++) {
      which[j] = rnd(NBUF);
      if (rnd(3)) {
        offs[j] = 0;
        lens[j] = bufs[which[j]].len;
      } else {
        part(&bufs[which[j]], &offs[j], &lens[j]);
      }
    }
    struct region_args r = {k, rnd(4) == 0, which, offs, lens};
    region_from(rnd(4) % 3, &r);
    last.k = k;
    memcpy(last.which, which, sizeof which);
    memcpy(last.offs, offs, sizeof offs);
    memcpy(last.lens, lens, sizeof lens);
    break;
  }
  case 4: // write
    part(b, &off, &n);
    fill(b, off, n, (unsigned char)rnd(256));
    break;
  case 5: { // thread
    struct thread_write w;
    part(b, &w.off, &w.n);
    w.b = b;
    w.v = (unsigned char)rnd(256);
    pthread_t t;
    pthread_create(&t, NULL, writer, &w);
    pthread_join(t, NULL);
    memset(b->shadow + w.off, w.v, w.n);
    break;
  }
  case 6: { // read
    part(b, &off, &n);
    if (n > 4096)
      n = 4096;
    char data[4096];
    memset(data, rnd(256), n);
    if (rnd(2) && file_fd >= 0) {
      off_t at = (off_t)rnd(4) * 4096;
      if (pwrite(file_fd, data, n, at) == (ssize_t)n &&
          pread(file_fd, b->p + off, n, at) == (ssize_t)n)
        memcpy(b->shadow + off, data, n);
      break;
    }
    int fd[2];
    if (pipe(fd))
      break;
    if (write(fd[1], data, n) == (ssize_t)n &&
        read(fd[0], b->p + off, n) == (ssize_t)n)
      memcpy(b->shadow + off, data, n);
    close(fd[0]);
    close(fd[1]);
    break;
  }
  case 7: // discard
    if (!b->heap) {
      size_t bytes = (b->len + pg - 1) / pg * pg;
      NT_CHECK(madvise(b->p, bytes, MADV_DONTNEED) == 0, "madvise");
      memset(b->shadow, 0, b->len);
    }
    break;
  case 8: // protect
    if (!b->heap) {
      size_t bytes = (b->len + pg - 1) / pg * pg;
      mprotect(b->p, bytes, PROT_READ | PROT_WRITE);
      part(b, &off, &n);
      fill(b, off, n, (unsigned char)rnd(256));
      mprotect(b->p, bytes, PROT_READ);
      mprotect(b->p, bytes, PROT_READ | PROT_WRITE);
    }
    break;
  case 9: // move
    if (!b->heap) {
      size_t bytes = (b->len + pg - 1) / pg * pg;
      char *q = (char *)mremap(
          b->p, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED,
          mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      NT_CHECK(q != MAP_FAILED, "mremap");
      if (q != MAP_FAILED)
        b->p = q;
    }
    break;
  case 10: // realloc
    if (b->heap) {
      size_t len = (1 + rnd(MAXP)) * pg - rnd(pg);
      char *q = (char *)realloc(b->p, len);
      if (q) {
        b->shadow = (char *)realloc(b->shadow, len);
        if (len > b->len) {
          memset(q + b->len, 9, len - b->len);
          memset(b->shadow + b->len, 9, len - b->len);
        }
        b->p = q;
        b->len = len;
      }
    }
    break;
  case 11: // renew
    free_buf(b);
    new_buf(b);
    break;
  case 12: // request
    kmp_nexttouch(b->p, b->len);
    break;
  case 13: // release
    kmp_readonly_release(b->p, b->len);
    break;
  case 14: // fork
    if (s % 4 == 0) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) {
        alarm(30);
        if (!check_all())
          _exit(3);
        memset(bufs[0].p, 0x5a, bufs[0].len);
        _exit(0);
      }
      int st = 0;
      waitpid(pid, &st, 0);
      NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "step %d: child %d", s,
               st);
    }
    break;
  case 15: // again
    for (int j = 0; j < last.k; j++) // a buffer renewed smaller since
      if (last.offs[j] + last.lens[j] > bufs[last.which[j]].len)
        last.k = 0;
    for (int t = 0; t < 2 && last.k; t++) {
      struct region_args r = {last.k, 0, last.which, last.offs, last.lens};
      region_from(rnd(4) % 3, &r);
    }
    break;
  default: // the whole pool, serially
    NT_CHECK(check_all(), "step %d: serial read differs", s);
  }
}

int main(int argc, char **argv) {
  pg = nt_pagesize();
  seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
  int steps = 2000;
  const char *scale = argc > 2 ? argv[2] : getenv("NT_STRESS_SCALE");
  if (scale && atoi(scale) > 1)
    steps *= atoi(scale);
  char path[] = "/tmp/readonly_model.XXXXXX";
  file_fd = mkstemp(path);
  if (file_fd >= 0)
    unlink(path);
  for (int i = 0; i < NBUF; i++)
    new_buf(&bufs[i]);
  for (int s = 0; s < steps && !nt_failures && !mismatches; s++)
    step(s);
  NT_CHECK(mismatches == 0, "%ld reads in regions differ from the shadow",
           mismatches);
  NT_CHECK(check_all(), "the pool at the end");
  uint64_t served = nt_counters().readonly_lists_reused;
  printf("readonly_model: %llu regions started as an earlier one\n",
         (unsigned long long)served);
  NT_CHECK(served > 0 || !nt_kernel_has_written_bits(),
           "no region was started as an earlier one");
  return nt_done("readonly_model");
}
