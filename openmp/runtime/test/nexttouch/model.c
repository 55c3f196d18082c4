// Seeded randomized test: sequences of requests (serial and from the
// region's threads), regions, serial touches, kmp_nexttouch_disarm, the
// program's own mprotect, free + new mapping at the same address, mremap and
// fork, checked after every step against a model of each page: its bytes,
// the protection the program gave it, whether it is armed (PROT_NONE in
// /proc/self/maps), and, in the NUMA guest, its node.
//
// The model's rules (docs/NextTouch.rst): a request of read-write pages is
// pending until the next fork of a team (EACCES if the range holds a page
// the program made read-only, or moved armed pages); at that fork the
// pages the pending requests cover whole (a partial first or last page is
// not armed unless another request covers the rest) that are mapped
// read-write are armed; an armed page touched
// in a region moves to its toucher's node (exact window), one touched by
// serial code stays where it is; kmp_nexttouch_disarm opens pages where
// they are; the program's mprotect ends arming; a freed buffer mapped anew
// at the same address is armed by the requests still pending there; armed
// pages moved by mremap stay inaccessible at their new address until
// touched, and are then opened where they are (with the moved pages the
// kernel merged into the same VMA).
//
// Checked after every step, with no access that could disturb the engine
// (contents read through /proc/self/mem, which does not fault):
//  - zero corrupted bytes; - every page's protection: PROT_NONE exactly
//  where the model says armed (with the adaptive window, a batch may have
//  opened an armed page early: then only "never armed where the model says
//  not armed"); - request return codes; - a write to a page the program
//  made read-only kills a child process by SIGSEGV; - a forked child reads
//  every byte right (touching armed pages) and runs a region;
//  - in the guest with the exact window: every present page on the node
//  the model says (pages touched in a region on their toucher's node).
//
// Usage: model SEED STEPS exact|adaptive [SCALE]: SCALE times STEPS steps
// (%nt-stress-scale: 1, or NT_STRESS_SCALE from make check-stress).  With
// NT_MODEL_NODES set (guest_model.c), nodes are checked too; NT_MODEL_TRACE
// prints the steps, NT_MODEL_SKIP="mremap,fork" replaces those steps with
// serial touches (for narrowing a failure down).
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run 1 300 exact %nt-stress-scale | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=3 \
// RUN:   %libomp-run 2 300 exact %nt-stress-scale | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run 3 300 adaptive %nt-stress-scale | FileCheck %s
// REQUIRES: linux
// CHECK: model: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>

enum { NBUF = 3, NPG = 48, MAXT = 16 };
enum { ARM_NO = 0, ARM_YES = 1, ARM_MOVED = 2 };

struct page {
  uint64_t id; // what the bytes are made of
  uint64_t version; // the first 8 bytes
  int ro; // the program made it read-only
  int armed; // ARM_*
  int node; // where it must be (-1: not checked, -2: look again)
  int cow; // shared with a child since a fork: a write may copy it
};

static long pg;
static char *bufs[NBUF];
static struct page m[NBUF][NPG];
static uint64_t next_id = 1, rng;
static int exact, memfd, nodes_known, trace;
static long steps_done;
static const char *step_name = "start";

static unsigned rnd(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

static unsigned char pat(uint64_t id, long off) {
  return (unsigned char)(id * 131 + off * 7 + (off >> 9));
}

static void fill(int b, int p) {
  char *a = bufs[b] + p * pg;
  for (long i = 8; i < pg; i++)
    a[i] = pat(m[b][p].id, i);
  memcpy(a, &m[b][p].version, 8);
}

static int node_of(char *a) {
  int st = -1;
  void *pp = a;
  if (syscall(SYS_move_pages, 0, 1UL, &pp, NULL, &st, 0) != 0)
    return -1;
  return st;
}

static void new_buffer(int b, char *at) {
  char *p =
      (char *)mmap(at, NPG * pg, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  madvise(p, NPG * pg, MADV_NOHUGEPAGE);
  bufs[b] = p;
  for (int q = 0; q < NPG; q++) {
    memset(&m[b][q], 0, sizeof m[b][q]);
    m[b][q].id = next_id++;
    fill(b, q);
    m[b][q].node = node_of(p + q * pg);
  }
}

// ---------------------------------------------------------------------------
// Checks

// /proc/self/maps, parsed once per check.
static char mapsbuf[1 << 20];
enum { MAXVMA = 16384 };
static struct vma {
  uintptr_t lo, hi;
  int prot;
} vmas[MAXVMA];
static int nvmas;

static void read_maps(void) {
  int fd = open("/proc/self/maps", O_RDONLY);
  size_t n = 0;
  ssize_t r;
  while ((r = read(fd, mapsbuf + n, sizeof mapsbuf - 1 - n)) > 0)
    n += r;
  mapsbuf[n] = 0;
  close(fd);
  nvmas = 0;
  for (char *s = mapsbuf; *s && nvmas < MAXVMA;) {
    char *e;
    vmas[nvmas].lo = strtoul(s, &e, 16);
    vmas[nvmas].hi = strtoul(e + 1, &e, 16);
    vmas[nvmas].prot =
        (e[1] == 'r' ? PROT_READ : 0) | (e[2] == 'w' ? PROT_WRITE : 0);
    nvmas++;
    s = strchr(e, '\n');
    if (!s)
      break;
    s++;
  }
}

static int maps_prot_of(uintptr_t a) {
  int lo = 0, hi = nvmas;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (vmas[mid].hi <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < nvmas && vmas[lo].lo <= a ? vmas[lo].prot : -1;
}

static void check_all(void) {
  static unsigned char page[65536];
  read_maps();
  for (int b = 0; b < NBUF; b++)
    for (int p = 0; p < NPG; p++) {
      struct page *x = &m[b][p];
      char *a = bufs[b] + p * pg;
      // Bytes, read without faulting.
      if (pread(memfd, page, pg, (off_t)(uintptr_t)a) != pg) {
        NT_CHECK(0, "step %ld (%s): buffer %d page %d unreadable", steps_done,
                 step_name, b, p);
        continue;
      }
      long bad = memcmp(page, &x->version, 8) != 0;
      for (long i = 8; i < pg; i++)
        bad += page[i] != pat(x->id, i);
      NT_CHECK(bad == 0, "step %ld (%s): buffer %d page %d: %ld bytes wrong",
               steps_done, step_name, b, p, bad);
      // Protection.
      int want = x->ro ? PROT_READ : PROT_READ | PROT_WRITE;
      int prot = maps_prot_of((uintptr_t)a);
      if (((x->armed == ARM_YES && !exact) || x->armed == ARM_MOVED) &&
          prot == want)
        x->armed = ARM_NO; // a batch, or its moved neighbour's fault (one
                           // VMA), opened it early
      if (x->armed)
        want = PROT_NONE;
      NT_CHECK(prot == want,
               "step %ld (%s): buffer %d page %d: protection %d, model %d "
               "(armed %d, ro %d)",
               steps_done, step_name, b, p, prot, want, x->armed, x->ro);
      if (prot != want && prot == (x->ro ? PROT_READ : PROT_READ | PROT_WRITE))
        x->armed = ARM_NO; // report once
      if (trace && prot == PROT_NONE) {
        int mode = -1;
        syscall(SYS_get_mempolicy, &mode, NULL, 0UL, a, 2UL /*MPOL_F_ADDR*/);
        if (mode != 4 /*MPOL_LOCAL*/)
          printf("  step %ld: buffer %d page %d (armed %d) PROT_NONE "
                 "without the mark (policy %d)\n",
                 steps_done, b, p, x->armed, mode);
      }
      // Node (the guest, exact window, accessible pages).
      if (nodes_known && !x->armed && x->node == -2)
        x->node = node_of(a);
      if (nodes_known && exact && !x->armed && x->node >= 0) {
        int nd = node_of(a);
        NT_CHECK(nd == x->node,
                 "step %ld (%s): buffer %d page %d on node %d, "
                 "model %d",
                 steps_done, step_name, b, p, nd, x->node);
        if (nd >= 0)
          x->node = nd;
      }
    }
}

// ---------------------------------------------------------------------------
// Steps

// The pages [p0, p1) of buffer b as the engine sees a request: EACCES if one
// is read-only or moved armed memory.  Moved armed pages that the kernel put
// where the engine still has armed units of a range the program unmapped
// look armed (they carry the mark): the request may succeed (ANY).
enum { ANY = -1 };
static int expect_request(int b, int p0, int p1) {
  int moved = 0;
  for (int p = p0; p < p1; p++) {
    if (m[b][p].ro)
      return EACCES;
    moved |= m[b][p].armed == ARM_MOVED;
  }
  return moved ? ANY : 0;
}

static int request_ok(int got, int want) {
  return want == ANY ? got == 0 || got == EACCES : got == want;
}

static void pick_range(int *b, int *p0, int *p1) {
  *b = rnd(NBUF);
  *p0 = rnd(NPG);
  *p1 = *p0 + 1 + rnd(NPG - *p0 < 12 ? NPG - *p0 : 12);
}

// Pending requests are byte ranges of addresses: a buffer freed and mapped
// anew at the same address, or another buffer moved there, is armed by them.
// A fork arms the pages that they cover whole together (the engine merges
// requests that overlap or meet, and arms only the whole pages inside).
enum { MAXPEND = 8192 };
static uintptr_t pend_lo[MAXPEND], pend_hi[MAXPEND];
static int npend;

static void add_pending_bytes(uintptr_t lo, uintptr_t hi) {
  if (npend < MAXPEND) {
    pend_lo[npend] = lo;
    pend_hi[npend++] = hi;
  }
}

static void add_pending(int b, int p0, int p1) {
  add_pending_bytes((uintptr_t)bufs[b] + p0 * pg, (uintptr_t)bufs[b] + p1 * pg);
}

// Is the page at a covered whole by the pending ranges?
static int is_pending(uintptr_t a) {
  uintptr_t at = a, end = a + pg;
  for (int grew = 1; grew && at < end;) {
    grew = 0;
    for (int k = 0; k < npend; k++)
      if (pend_lo[k] <= at && pend_hi[k] > at) {
        at = pend_hi[k];
        grew = 1;
      }
  }
  return at >= end;
}

// Disarming [lo, hi) (whole pages) takes those bytes out of the requests.
static void remove_pending(uintptr_t lo, uintptr_t hi) {
  int n = npend;
  for (int k = 0; k < n; k++) {
    if (pend_hi[k] <= lo || pend_lo[k] >= hi)
      continue;
    if (pend_lo[k] < lo && pend_hi[k] > hi) // a hole in the middle
      add_pending_bytes(hi, pend_hi[k]);
    if (pend_lo[k] < lo) {
      pend_hi[k] = lo;
    } else if (pend_hi[k] > hi) {
      pend_lo[k] = hi;
    } else {
      pend_lo[k] = pend_hi[k] = 0; // gone
    }
  }
  int j = 0;
  for (int k = 0; k < npend; k++)
    if (pend_hi[k] > pend_lo[k]) {
      pend_lo[j] = pend_lo[k];
      pend_hi[j++] = pend_hi[k];
    }
  npend = j;
}

static void request(int b, int p0, int p1, int rc) {
  // Partial first and last pages (the range's return code concerns every
  // page it meets; only the whole pages are armed).
  char *s = bufs[b] + p0 * pg + (rnd(2) ? rnd(pg / 2) : 0);
  char *e = bufs[b] + p1 * pg - (rnd(2) ? rnd(pg / 2) : 0);
  int got = kmp_nexttouch(s, e - s);
  if (trace)
    printf("  request buffer %d pages %d-%d: %d\n", b, p0, p1 - 1, got);
  NT_CHECK(request_ok(got, rc),
           "step %ld: request of buffer %d pages %d-%d: %d, "
           "model %d",
           steps_done, b, p0, p1 - 1, got, rc);
  if (got == 0)
    add_pending_bytes((uintptr_t)s, (uintptr_t)e);
}

static void at_fork(void) {
  for (int b = 0; b < NBUF; b++)
    for (int p = 0; p < NPG; p++) {
      struct page *x = &m[b][p];
      if (is_pending((uintptr_t)bufs[b] + p * pg) && !x->ro &&
          x->armed == ARM_NO)
        x->armed = ARM_YES;
    }
  npend = 0;
}

// A touch (a write if `write`) by a thread on `node` (-1: serial code).
static void touched(struct page *x, int node, int write) {
  if (x->cow && write) {
    // After fork() the first write may copy the page (copy-on-write), and
    // the copy is allocated on the writer's node: not the engine's doing.
    x->cow = 0;
    if (x->armed != ARM_YES || node < 0)
      x->node = -2;
  }
  if (x->armed == ARM_YES && node >= 0)
    x->node = node;
  if (x->armed == ARM_MOVED)
    x->node = -2; // opened in place, or migrated if it looked armed (above)
  x->armed = ARM_NO;
}

static int cur_node(void) {
  unsigned cpu, node;
  if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0)
    return -1;
  return (int)node;
}

// A region: the team's threads request ranges (pending for the next fork)
// and touch a random set of pages, each once, schedule(static, chunk).
static void step_region(void) {
  int nt = omp_get_max_threads(), n = 0, chunk = 1 + rnd(4);
  static int tb[NBUF * NPG], tp[NBUF * NPG], tnode[NBUF * NPG];
  for (int b = 0; b < NBUF; b++)
    for (int p = 0; p < NPG; p++)
      if (rnd(3) == 0) {
        tb[n] = b;
        tp[n++] = p;
      }
  int rb[MAXT], r0[MAXT], r1[MAXT], rc[MAXT], want[MAXT],
      nreq = rnd(2) ? nt : 0;
  if (getenv("NT_MODEL_NOREQ"))
    nreq = 0;
  for (int t = 0; t < nreq && t < MAXT; t++) {
    pick_range(&rb[t], &r0[t], &r1[t]);
    want[t] = expect_request(rb[t], r0[t], r1[t]);
  }
  at_fork();
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    if (t < nreq && t < MAXT) {
      char *s = bufs[rb[t]] + r0[t] * pg, *e = bufs[rb[t]] + r1[t] * pg;
      rc[t] = kmp_nexttouch(s, e - s);
    }
#pragma omp barrier
#pragma omp for schedule(static, chunk)
    for (int i = 0; i < n; i++) {
      struct page *x = &m[tb[i]][tp[i]];
      char *a = bufs[tb[i]] + tp[i] * pg;
      if (x->ro) {
        volatile char c = a[8];
        (void)c;
      } else {
        uint64_t v = x->version + 1;
        memcpy(a, &v, 8);
      }
      tnode[i] = cur_node();
    }
  }
  for (int i = 0; i < n; i++) {
    struct page *x = &m[tb[i]][tp[i]];
    if (!x->ro)
      x->version++;
    touched(x, x->armed == ARM_MOVED ? -1 : tnode[i], !x->ro);
  }
  for (int t = 0; t < nreq && t < MAXT; t++) {
    NT_CHECK(request_ok(rc[t], want[t]),
             "step %ld: thread %d's request: %d, model %d", steps_done, t,
             rc[t], want[t]);
    if (rc[t] == 0)
      add_pending(rb[t], r0[t], r1[t]);
  }
}

static void step_serial_touch(void) {
  for (int k = 0, n = 1 + rnd(8); k < n; k++) {
    int b = rnd(NBUF), p = rnd(NPG);
    struct page *x = &m[b][p];
    char *a = bufs[b] + p * pg;
    if (x->ro) {
      volatile char c = a[100];
      (void)c;
    } else {
      x->version++;
      memcpy(a, &x->version, 8);
    }
    touched(x, -1, !x->ro);
  }
}

static void step_mprotect(void) {
  int b, p0, p1;
  pick_range(&b, &p0, &p1);
  int ro = rnd(2);
  for (int p = p0; p < p1; p++) // moved armed pages: left alone
    if (m[b][p].armed == ARM_MOVED)
      return;
  NT_CHECK(mprotect(bufs[b] + p0 * pg, (p1 - p0) * pg,
                    ro ? PROT_READ : PROT_READ | PROT_WRITE) == 0,
           "mprotect");
  for (int p = p0; p < p1; p++) {
    m[b][p].ro = ro;
    m[b][p].armed = ARM_NO;
  }
}

static void step_disarm(void) {
  int b, p0, p1;
  pick_range(&b, &p0, &p1);
  if (rnd(4) == 0) {
    NT_CHECK(kmp_nexttouch_disarm(NULL, 0) == 0, "disarm all");
    npend = 0;
    for (int c = 0; c < NBUF; c++)
      for (int p = 0; p < NPG; p++) {
        if (m[c][p].armed == ARM_YES)
          m[c][p].armed = ARM_NO;
      }
    return;
  }
  NT_CHECK(kmp_nexttouch_disarm(bufs[b] + p0 * pg, (p1 - p0) * pg) == 0,
           "disarm");
  remove_pending((uintptr_t)bufs[b] + p0 * pg, (uintptr_t)bufs[b] + p1 * pg);
  for (int p = p0; p < p1; p++) {
    if (m[b][p].armed == ARM_YES)
      m[b][p].armed = ARM_NO;
  }
}

// free() of a large buffer and a new one at the same address.
static void step_remap(void) {
  int b = rnd(NBUF);
  NT_CHECK(munmap(bufs[b], NPG * pg) == 0, "munmap");
  new_buffer(b, bufs[b]);
}

// mremap of every page of a buffer to a new place, one page at a time (the
// engine's protections split the buffer into several VMAs).
static void step_mremap(void) {
  int b = rnd(NBUF);
  char *dst = (char *)mmap(NULL, NPG * pg, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  for (int p = 0; p < NPG; p++) {
    void *r = mremap(bufs[b] + p * pg, pg, pg, MREMAP_MAYMOVE | MREMAP_FIXED,
                     dst + p * pg);
    NT_CHECK(r != MAP_FAILED, "mremap: %s", strerror(errno));
    struct page *x = &m[b][p]; // requests stay at the old address
    if (x->armed == ARM_YES)
      x->armed = ARM_MOVED;
  }
  bufs[b] = dst;
}

static void all_cow(void) {
  for (int b = 0; b < NBUF; b++)
    for (int p = 0; p < NPG; p++)
      m[b][p].cow = 1;
}

// A write to a page the program made read-only still dies.
static void step_ro_write(void) {
  all_cow();
  for (int b = 0; b < NBUF; b++)
    for (int p = 0; p < NPG; p++)
      if (m[b][p].ro && rnd(4) == 0) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
          bufs[b][p * pg + 9] = 1;
          _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        NT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
                 "step %ld: write to read-only buffer %d page %d: status %#x",
                 steps_done, b, p, st);
        return;
      }
}

// fork(): the child reads every byte (touching armed pages) and runs a
// region that writes every writable page.
static void step_fork(void) {
  all_cow();
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    long bad = 0;
    for (int b = 0; b < NBUF; b++)
      for (int p = 0; p < NPG; p++) {
        char *a = bufs[b] + p * pg;
        bad += memcmp(a, &m[b][p].version, 8) != 0;
        for (long i = 8; i < pg; i += 61)
          bad += (unsigned char)a[i] != pat(m[b][p].id, i);
      }
#pragma omp parallel for schedule(dynamic) reduction(+ : bad)
    for (int i = 0; i < NBUF * NPG; i++)
      if (!m[i / NPG][i % NPG].ro)
        bufs[i / NPG][(i % NPG) * pg + 4] ^= 0;
    _exit(bad ? 1 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "step %ld: child status %#x",
           steps_done, st);
}

// With NT_MODEL_TRACE: a fault that reaches the program says which page.
static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  uintptr_t a = (uintptr_t)si->si_addr;
  for (int b = 0; b < NBUF; b++)
    if (a >= (uintptr_t)bufs[b] && a < (uintptr_t)bufs[b] + NPG * pg &&
        m[b][(a - (uintptr_t)bufs[b]) / pg].ro) {
      signal(SIGSEGV, SIG_DFL); // step_ro_write's child: die by it
      return;
    }
  int mode = -1;
  syscall(SYS_get_mempolicy, &mode, NULL, 0UL, (void *)a, 2UL /*F_ADDR*/);
  printf("SIGSEGV at %#lx (code %d, policy %d) in step %ld (%s)\n",
         (unsigned long)a, si->si_code, mode, steps_done, step_name);
  for (int b = 0; b < NBUF; b++)
    if (a >= (uintptr_t)bufs[b] && a < (uintptr_t)bufs[b] + NPG * pg) {
      struct page *x = &m[b][(a - (uintptr_t)bufs[b]) / pg];
      printf("  buffer %d page %ld: armed %d ro %d pending %d\n", b,
             (long)((a - (uintptr_t)bufs[b]) / pg), x->armed, x->ro,
             is_pending(a & ~(uintptr_t)(pg - 1)));
    }
  read_maps();
  printf("%s", mapsbuf);
  fflush(stdout);
  _exit(3);
}

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
  long steps = argc > 2 ? atol(argv[2]) : 300;
  exact = argc > 3 ? !strcmp(argv[3], "exact") : 1;
  if (argc > 4)
    steps *= atol(argv[4]);
  rng = seed * 0x9e3779b97f4a7c15ull + 1;
  trace = getenv("NT_MODEL_TRACE") != NULL;
  const char *skip = getenv("NT_MODEL_SKIP");
  if (trace) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
  }
  pg = nt_pagesize();
  memfd = open("/proc/self/mem", O_RDONLY);
  if (memfd < 0) {
    perror("/proc/self/mem");
    return 2;
  }
  for (int b = 0; b < NBUF; b++)
    new_buffer(b, NULL);
  nodes_known = m[0][0].node >= 0 && getenv("NT_MODEL_NODES") != NULL;
  static const char *names[] = {"request",  "region", "serial",
                                "mprotect", "disarm", "remap",
                                "mremap",   "fork",   "ro-write"};
  long count[9] = {0};
  for (steps_done = 0; steps_done < steps && nt_failures < 20; steps_done++) {
    int w = rnd(100), op;
    if (w < 25)
      op = 0;
    else if (w < 55)
      op = 1;
    else if (w < 65)
      op = 2;
    else if (w < 73)
      op = 3;
    else if (w < 80)
      op = 4;
    else if (w < 86)
      op = 5;
    else if (w < 91)
      op = 6;
    else if (w < 96)
      op = 7;
    else
      op = 8;
    if (skip && strstr(skip, names[op]))
      op = 2; // NT_MODEL_SKIP="mremap,fork": those steps become serial
    step_name = names[op];
    count[op]++;
    if (trace)
      printf("step %ld: %s\n", steps_done, step_name);
    switch (op) {
    case 0: {
      int b, p0, p1;
      pick_range(&b, &p0, &p1);
      request(b, p0, p1, expect_request(b, p0, p1));
      break;
    }
    case 1:
      step_region();
      break;
    case 2:
      step_serial_touch();
      break;
    case 3:
      step_mprotect();
      break;
    case 4:
      step_disarm();
      break;
    case 5:
      step_remap();
      break;
    case 6:
      step_mremap();
      break;
    case 7:
      step_fork();
      break;
    case 8:
      step_ro_write();
      break;
    }
    check_all();
  }
  kmp_nexttouch_counters_t c = nt_counters();
  printf("model: seed %llu, %ld steps (%s window):", (unsigned long long)seed,
         steps_done, exact ? "exact" : "adaptive");
  for (int i = 0; i < 9; i++)
    printf(" %s %ld", names[i], count[i]);
  printf("; armed %llu, faults %llu, serial %llu, disarmed %llu, fail_arm "
         "%llu, nodes %s\n",
         (unsigned long long)c.pages_armed, (unsigned long long)c.faults,
         (unsigned long long)c.pages_touched_serial,
         (unsigned long long)c.pages_disarmed, (unsigned long long)c.fail_arm,
         nodes_known ? "checked" : "not checked");
  NT_CHECK(c.pages_armed > 0 && c.faults > 0, "the engine did nothing");
  return nt_done("model");
}
