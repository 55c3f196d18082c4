// A malloc replacement linked into the program gives memory back with munmap
// and madvise.  libomp frees its own buffers through it, also while an
// engine holds its lock (dropping a readonly item, kmp_readonly_release,
// shutdown, reading the maps at arming): the wrapped munmap and madvise then
// run inside libomp and must not wait for that lock.  Each case ends within
// its alarm, with the data and the counters right:
//   readonly:  items cached, changed by the program (dropped at the next
//              region), released, and cached again; then shutdown drops them
//   nexttouch: ranges requested, armed, touched, and disarmed at shutdown
// RUN: %libomp-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %libomp-run readonly | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=2 %libomp-run nexttouch | FileCheck %s
// REQUIRES: linux
// UNSUPPORTED: asan, tsan
// (The sanitizers bring their own malloc.)
// CHECK: malloc_replacement: PASS
#include "nexttouch_test.h"

// Every block is a mapping of its own: free() is munmap(), and a freed
// block's first page is given back with madvise(MADV_DONTNEED) before.
struct hdr {
  void *map;
  size_t maplen, size;
};
static volatile long unmaps;

static void *block(size_t align, size_t n) {
  if (align < 64)
    align = 64;
  size_t len = n + align + sizeof(struct hdr);
  char *m = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  uintptr_t p = ((uintptr_t)m + sizeof(struct hdr) + align - 1) & ~(align - 1);
  struct hdr *h = (struct hdr *)p - 1;
  h->map = m;
  h->maplen = len;
  h->size = n;
  return (void *)p;
}

void *malloc(size_t n) { return block(64, n); }
void *calloc(size_t k, size_t n) {
  if (n && k > (size_t)-1 / n)
    return NULL;
  return block(64, k * n); // fresh mappings are zero
}
void free(void *p) {
  if (!p)
    return;
  struct hdr *h = (struct hdr *)p - 1;
  madvise(h->map, 4096, MADV_DONTNEED);
  __atomic_fetch_add(&unmaps, 1, __ATOMIC_RELAXED);
  munmap(h->map, h->maplen);
}
void *realloc(void *p, size_t n) {
  if (!p)
    return malloc(n);
  void *q = malloc(n);
  if (!q)
    return NULL;
  size_t old = ((struct hdr *)p - 1)->size;
  memcpy(q, p, old < n ? old : n);
  free(p);
  return q;
}
int posix_memalign(void **out, size_t align, size_t n) {
  void *p = block(align, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}
void *aligned_alloc(size_t align, size_t n) { return block(align, n); }
void *memalign(size_t align, size_t n) { return block(align, n); }
void *valloc(size_t n) { return block(4096, n); }
void *pvalloc(size_t n) { return block(4096, (n + 4095) & ~(size_t)4095); }
size_t malloc_usable_size(void *p) {
  return p ? ((struct hdr *)p - 1)->size : 0;
}

enum { ITEMS = 8, PAGES = 4 };

static int readonly_case(void) {
  long pg = nt_pagesize();
  char *a[ITEMS];
  size_t len = PAGES * pg;
  for (int i = 0; i < ITEMS; i++) {
    a[i] = nt_map(len);
    memset(a[i], i + 1, len);
  }
  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < ITEMS; i++) {
      int rep = 0;
      long s = nt_ro_region_sum(a[i], len, &rep);
      NT_CHECK(s == (long)len * (i + 1 + round), "round %d item %d: %ld", round,
               i, s);
    }
    // The program changes every item: the next region copies them afresh.
    for (int i = 0; i < ITEMS; i++)
      memset(a[i], i + 2 + round, len);
    if (round == 3)
      NT_CHECK(kmp_readonly_release(NULL, 0) == 0, "release");
  }
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.readonly_regions >= 6 * ITEMS, "%llu regions",
           (unsigned long long)c.readonly_regions);
  return 0;
}

static int nexttouch_case(void) {
  long pg = nt_pagesize();
  enum { N = 64 };
  for (int round = 0; round < 4; round++) {
    char *b = (char *)malloc(N * pg);
    memset(b, round + 1, N * pg);
    NT_CHECK(kmp_nexttouch(b, N * pg) == 0, "request");
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int p = 0; p < N; p++)
      sum += b[p * pg + 100];
    NT_CHECK(sum == N * (round + 1), "round %d: %ld", round, sum);
    free(b);
  }
  NT_CHECK(nt_counters().faults > 0, "no fault taken");
  return 0;
}

int main(int argc, char **argv) {
  alarm(60);
  const char *mode = argc > 1 ? argv[1] : "readonly";
  if (!strcmp(mode, "readonly"))
    readonly_case();
  else
    nexttouch_case();
  NT_CHECK(unmaps > 0, "the replacement was not used");
  return nt_done("malloc_replacement");
}
