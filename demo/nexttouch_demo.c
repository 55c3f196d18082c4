// nexttouch_demo.c -- what '#pragma omp nexttouch' does, in one picture.
//
// One thread initialises an array, so Linux puts every page on that thread's
// NUMA node ("first touch"). Then a team of threads works on it, each thread
// on its own block: most threads now read memory on another node. The
// directive '#pragma omp nexttouch(a : n)' moves each page to the node of the
// thread that touches it next. Later the program changes how the work is
// divided (interleaved chunks instead of blocks), and the same directive
// follows the new pattern.
//
// Build and run (make demo does this in an emulated 4-node machine):
//   build/bin/clang -fopenmp -O2 demo/nexttouch_demo.c -lnuma -o nexttouch_demo
//   tools/numa-vm/numa-vm --nodes 4 --cpus 4 -- \
//       env OMP_NUM_THREADS=4 OMP_PROC_BIND=spread OMP_PLACES=cores ./nexttouch_demo
#define _GNU_SOURCE
#include <numa.h>
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { MiB = 1 << 20, SIZE = 16 * MiB, COLS = 64 }; // 4096 pages, 64 per char

static double *a;             // the data: SIZE bytes
static long n, npages, pg;    // elements, pages, page size
static int *user;             // per page: the thread that works on it
static int *user_node;        // per page: the node that thread runs on
static int *page_node;        // per page: the node the page is on
static int color;             // ANSI colours (demo --color)

static void show(const char *title, int after_nexttouch);   // helpers: after main()
static void show_threads(void);
static void show_counters(void);

static void note_user(long page) {
  user[page] = omp_get_thread_num();
  user_node[page] = numa_node_of_cpu(sched_getcpu());
}

// The parallel work: every thread adds 1 to its part of the array and notes
// the NUMA node it runs on for each page it works on. 'chunk' == 0: one block
// per thread (schedule(static)); otherwise interleaved chunks of that many
// elements (schedule(static, chunk)).
static void work(long chunk) {
  long per_page = pg / sizeof(double);
  if (chunk == 0) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
      a[i] += 1;
      if (i % per_page == 0)
        note_user(i / per_page);
    }
  } else {
#pragma omp parallel for schedule(static, chunk)
    for (long i = 0; i < n; i++) {
      a[i] += 1;
      if (i % per_page == 0)
        note_user(i / per_page);
    }
  }
}

int main(int argc, char **argv) {
  color = argc > 1 && strcmp(argv[1], "--color") == 0;
  pg = sysconf(_SC_PAGESIZE);
  n = SIZE / sizeof(double);
  npages = SIZE / pg;
  a = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  madvise(a, SIZE, MADV_NOHUGEPAGE); // 4 KiB pages, to show them one by one
  user = calloc(npages, sizeof(int));
  user_node = calloc(npages, sizeof(int));
  page_node = calloc(npages, sizeof(int));

  printf("A %d MiB array = %ld pages of %ld KiB; below, one character = %ld "
         "pages.\n", SIZE / MiB, npages, pg / 1024, npages / COLS);
  show_threads(); // starts the team: thread 0 is now bound to its place

  // 1. Serial initialisation: thread 0 touches every page first, and Linux
  //    allocates every page on thread 0's node.
  for (long i = 0; i < n; i++)
    a[i] = i;
  work(0);
  show("1. Thread 0 initialised the array alone; then the team works on it, "
       "one block per thread.", 0);

  // 2. Re-do first touch: the next parallel loop places the pages.
  kmp_reset_nexttouch_counters();
#pragma omp nexttouch(a : n)
  work(0);
  show("2. '#pragma omp nexttouch(a : n)', then the same parallel loop.", 1);
  show_counters();

  // 3. The program changes its pattern: interleaved chunks of 1 MiB.
  work(MiB / sizeof(double));
  show("3. Later the work is split differently: interleaved 1 MiB chunks.", 0);
  kmp_reset_nexttouch_counters();
#pragma omp nexttouch(a : n)
  work(MiB / sizeof(double));
  show("4. '#pragma omp nexttouch(a : n)' again, then the new loop.", 1);
  show_counters();

  long bad = 0;
  for (long i = 0; i < n; i++)
    bad += a[i] != (double)i + 4;
  printf("\nData intact after the moves: %s.\n", bad ? "NO" : "yes");
  printf("Why: a page stays on the node of the thread that first touched it (1), even when the work moves (3).\n"
         "nexttouch: in the next loop each page's first access faults; libomp moves it to that thread's node (2, 4).\n");
  return bad != 0;
}

// ---------------------------------------------------------------------------
// Helpers: where the pages are, and how to print that.

static void show_threads(void) {
  int nt = omp_get_max_threads(), *node = calloc(nt, sizeof(int));
#pragma omp parallel
  node[omp_get_thread_num()] = numa_node_of_cpu(sched_getcpu());
  printf("%d NUMA nodes, %d threads:", numa_max_node() + 1, nt);
  for (int t = 0; t < nt; t++)
    printf("%s thread %d on node %d", t ? "," : "", t, node[t]);
  printf(".\n");
  free(node);
}

static void where_are_the_pages(void) {
  enum { CHUNK = 512 };
  void *pages[CHUNK];
  for (long i = 0; i < npages; i += CHUNK) {
    long k = npages - i < CHUNK ? npages - i : CHUNK;
    for (long j = 0; j < k; j++)
      pages[j] = (char *)a + (i + j) * pg;
    if (move_pages(0, k, pages, NULL, page_node + i, 0) != 0)
      for (long j = 0; j < k; j++)
        page_node[i + j] = -1;
  }
}

// One character per group of pages: the value most of them have (a thread or
// a node number), coloured by node.
static void map_line(const char *label, const int *value, const int *node) {
  // background by node, with a foreground that stays readable on it
  static const char *ansi[] = {"\033[97;41m", "\033[30;42m", "\033[97;44m",
                               "\033[30;43m", "\033[97;45m", "\033[30;46m",
                               "\033[30;47m", "\033[97;100m"};
  long group = npages / COLS;
  int last = -2;
  printf("  %-20s ", label);
  for (int c = 0; c < COLS; c++) {
    int count[9] = {0}, best = 8;
    for (long p = c * group; p < (c + 1) * group; p++)
      count[value[p] >= 0 && value[p] < 8 ? value[p] : 8]++;
    for (int k = 0; k < 9; k++)
      if (count[k] > count[best])
        best = k;
    long p = c * group;
    while (p < (c + 1) * group - 1 && value[p] != best)
      p++;
    int nd = node[p];
    char ch = best < 8 ? '0' + best : '?';
    if (color && nd != last)
      printf("\033[0m%s", nd >= 0 && nd < 8 ? ansi[nd] : "");
    last = nd;
    putchar(ch);
  }
  printf(color ? "\033[0m\n" : "\n");
}

static void show(const char *title, int after_nexttouch) {
  where_are_the_pages();
  long local = 0;
  for (long p = 0; p < npages; p++)
    local += page_node[p] == user_node[p];
  printf("\n%s\n", title);
  map_line("used by thread:", user, user_node);
  map_line("page is on node:", page_node, page_node);
  printf("  %-20s %ld of %ld pages (%.0f%%) are on the node of the thread that "
         "uses them\n",
         "local:", local, npages, 100.0 * local / npages);
  if (after_nexttouch && local < npages)
    printf("  %-20s (not 100%%: by default one fault moves a batch, the page and "
           "untouched pages\n  %-20s after it; a thread that ran ahead took pages of the "
           "next thread's\n  %-20s chunk first. KMP_NEXTTOUCH_WINDOW=1 "
           "moves exactly one page per fault.)\n", "", "", "");
}

static void show_counters(void) {
  kmp_nexttouch_counters_t c;
  memset(&c, 0, sizeof c);
  c.size = sizeof c; // kmp_get_nexttouch_counters: see docs/NextTouch.rst
  kmp_get_nexttouch_counters(&c);
  unsigned long long failed = c.fail_arm + c.fail_move_busy +
                              c.fail_move_nomem + c.fail_move_other +
                              c.fail_restore;
  printf("  %-20s %llu pages armed; %llu faults moved %llu pages (in %llu "
         "batches),\n  %-20s %llu pages were already local, %llu failed; "
         "moved to node",
         "runtime counters:", (unsigned long long)c.pages_armed,
         (unsigned long long)c.faults, (unsigned long long)c.pages_migrated,
         (unsigned long long)c.batches, "", (unsigned long long)c.pages_already_local,
         failed);
  for (int k = 0; k < c.num_nodes && k < KMP_NEXTTOUCH_MAX_NODES; k++)
    printf(" %d: %llu%s", k, (unsigned long long)c.migrated_to_node[k],
           k + 1 < c.num_nodes ? "," : "");
  printf(c.num_nodes < 2 ? " (one node: next-touch is a no-op)\n" : "\n");
}
