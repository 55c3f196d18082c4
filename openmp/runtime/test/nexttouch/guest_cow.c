// Pages shared copy-on-write with a forked child, in a 2-node guest.  The
// kernel moves a page only while one process maps it, and mbind does not
// say which pages it skipped: every armed page must still be counted once,
// and a page that stayed is never counted as migrated.
// All pages start on node 1; the child keeps [N/2, N) shared (the parent
// wrote [0, N/2) after the fork, so those copies are its own, moved back to
// node 1).  Thread 0 (node 0) touches everything: [0, N/2) must move to
// node 0 (pages_migrated), [N/2, N) stay on node 1 (fail_move_busy).
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// One guest boot runs each mechanism with the adaptive and the exact window,
// each in a fresh process.
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- %t all \
// RUN:   | FileCheck %s
// CHECK-COUNT-6: guest_cow {{.*}}: PASS
// CHECK: guest_cow all: PASS
#include "nexttouch_test.h"
#include <numaif.h>
#include <signal.h>
#include <sys/wait.h>

enum { N = 256 };

static void move_to(char *a, int from, int to, int node) {
  long pg = nt_pagesize();
  void *pages[N];
  int nodes[N], status[N];
  for (int p = from; p < to; p++) {
    pages[p - from] = a + p * pg;
    nodes[p - from] = node;
  }
  move_pages(0, to - from, pages, nodes, status, MPOL_MF_MOVE);
}

// Every configuration in a child of its own (the settings are read once).
static int all(void) {
  const char *mechs[] = {"auto", "mbind", "move_pages"};
  const char *windows[] = {"adaptive", "1"};
  int failed = 0;
  for (int m = 0; m < 3; m++)
    for (int w = 0; w < 2; w++) {
      char name[64];
      snprintf(name, sizeof name, "%s-%s", mechs[m], windows[w]);
      char *args[] = {(char *)"guest_cow", name, NULL};
      const char *env[][2] = {{"KMP_NEXTTOUCH_MECHANISM", mechs[m]},
                              {"KMP_NEXTTOUCH_WINDOW", windows[w]},
                              {"OMP_NUM_THREADS", "2"},
                              {"OMP_PROC_BIND", "spread"},
                              {"OMP_PLACES", "cores"},
                              {NULL, NULL}};
      failed += nt_run_self(args, env) != 0;
    }
  NT_CHECK(failed == 0, "%d configurations failed", failed);
  return nt_done("guest_cow all");
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "";
  if (!strcmp(name, "all"))
    return all();
  long pg = nt_pagesize();
  char *a = nt_map(N * pg);
  for (int p = 0; p < N; p++)
    a[p * pg] = (char)p;
  move_to(a, 0, N, 1);
  int go[2];
  if (pipe(go) != 0)
    return 2;
  pid_t pid = fork();
  if (pid == 0) { // keeps every page it did not lose shared until told
    char c;
    close(go[1]);
    if (read(go[0], &c, 1) < 0)
      _exit(1);
    _exit(0);
  }
  close(go[0]);
  for (int p = 0; p < N / 2; p++)
    a[p * pg] += 0; // the parent's own copies of [0, N/2)
  move_to(a, 0, N / 2, 1);
  kmp_nexttouch_counters_t c0 = nt_counters();
  NT_CHECK(kmp_nexttouch(a, N * pg) == 0, "request");
  long sum = 0;
#pragma omp parallel reduction(+ : sum)
  if (omp_get_thread_num() == 0)
    for (int p = 0; p < N; p++)
      sum += a[p * pg];
  kmp_nexttouch_counters_t c = nt_counters();
  int nodes[N];
  nt_nodes_of(a, N, nodes);
  int moved = 0, stayed = 0;
  for (int p = 0; p < N; p++) {
    moved += p < N / 2 && nodes[p] == 0;
    stayed += p >= N / 2 && nodes[p] == 1;
  }
  unsigned long long armed = c.pages_armed - c0.pages_armed,
                     migrated = c.pages_migrated - c0.pages_migrated,
                     busy = c.fail_move_busy - c0.fail_move_busy,
                     local = c.pages_already_local - c0.pages_already_local;
  NT_CHECK(moved == N / 2 && stayed == N / 2, "moved %d, stayed %d", moved,
           stayed);
  NT_CHECK(armed == N && migrated == N / 2 && busy == N / 2 && local == 0,
           "armed %llu migrated %llu busy %llu local %llu", armed, migrated,
           busy, local);
  long want = 0;
  for (int p = 0; p < N; p++)
    want += (char)p;
  NT_CHECK(sum == want, "sum %ld, expected %ld", sum, want);
  if (write(go[1], "x", 1) != 1)
    return 2;
  int st;
  waitpid(pid, &st, 0);
  char what[64];
  snprintf(what, sizeof what, "guest_cow %s", name);
  return nt_done(what);
}
