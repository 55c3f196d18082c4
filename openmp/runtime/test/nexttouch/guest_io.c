// I/O as the next touch, in a NUMA guest (tools/numa-vm, 2 nodes, 2 CPUs,
// one thread per node with OMP_PROC_BIND=spread): a buffer initialised
// serially on the last node is requested, and in the next region each
// thread fills its half with system calls only -- read() from a pipe into
// the first quarter of its half, recv() of a datagram into the second.  The
// kernel's copy into armed pages would fail with EFAULT (and the datagram
// would be lost); libomp's wrappers touch the pages as the calling thread
// first, so each half moves to its thread's node (recorded with
// sched_getcpu), every byte arrives, and the counters agree.
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- \
// RUN:   env OMP_NUM_THREADS=2 OMP_PROC_BIND=spread %t | FileCheck %s
//
// CHECK: guest_io: 2 nodes
// CHECK: guest_io: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <sys/socket.h>

#define U64(x) ((unsigned long long)(x))

enum { H = 16, Q = 8 }; // pages per thread's half; per call

int main(void) {
  long pg = nt_pagesize();
  int nodes = numa_max_node() + 1, last = nodes - 1;
  printf("guest_io: %d nodes\n", nodes);
  if (nodes < 2) {
    printf("FAIL: needs 2 nodes\n");
    return 1;
  }
  char *buf = nt_map(2 * H * pg), *src = nt_map(2 * H * pg);
  for (long i = 0; i < 2 * H * pg; i++) {
    buf[i] = 0;
    src[i] = (char)(i * 13 + 5);
  }
  {
    void *pages[2 * H];
    int target[2 * H], st[2 * H];
    for (int p = 0; p < 2 * H; p++) {
      pages[p] = buf + p * pg;
      target[p] = last;
    }
    NT_CHECK(
        syscall(SYS_move_pages, 0, 2 * H, pages, target, st, MPOL_MF_MOVE) == 0,
        "initial move_pages");
  }
  // Per thread: a pipe holding Q pages, and a datagram of H - Q pages.
  int pfd[2][2], sv[2][2];
  for (int t = 0; t < 2; t++) {
    NT_CHECK(pipe2(pfd[t], O_NONBLOCK) == 0 &&
                 fcntl(pfd[t][1], F_SETPIPE_SZ, 1 << 20) > 0,
             "pipe");
    NT_CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv[t]) == 0, "socketpair");
    char *part = src + (long)t * H * pg;
    NT_CHECK(write(pfd[t][1], part, Q * pg) == Q * pg, "fill pipe %d", t);
    NT_CHECK(send(sv[t][0], part + Q * pg, (H - Q) * pg, 0) == (H - Q) * pg,
             "send %d", t);
  }
  kmp_reset_nexttouch_counters();
  NT_CHECK(kmp_nexttouch(buf, 2 * H * pg) == 0, "request");
  int node_of[2] = {-1, -1}, ok[2] = {0, 0};
#pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    node_of[t] = numa_node_of_cpu(sched_getcpu());
    char *half = buf + (long)t * H * pg;
    ssize_t r1 = read(pfd[t][0], half, Q * pg);
    ssize_t r2 = recv(sv[t][1], half + Q * pg, (H - Q) * pg, MSG_DONTWAIT);
    ok[t] = r1 == Q * pg && r2 == (H - Q) * pg;
  }
  NT_CHECK(ok[0] && ok[1], "calls: %d %d", ok[0], ok[1]);
  NT_CHECK(node_of[0] != node_of[1], "threads on nodes %d and %d", node_of[0],
           node_of[1]);
  NT_CHECK(!memcmp(buf, src, 2 * H * pg), "data");
  int where[2 * H];
  nt_nodes_of(buf, 2 * H, where);
  int wrong = 0;
  for (int p = 0; p < 2 * H; p++)
    if (where[p] != node_of[p / H]) {
      if (!wrong)
        printf("page %d on node %d, its thread on %d\n", p, where[p],
               node_of[p / H]);
      wrong++;
    }
  NT_CHECK(wrong == 0, "%d of %d pages not on their thread's node", wrong,
           2 * H);
  kmp_nexttouch_counters_t c = nt_counters();
  int on_last = (node_of[0] == last) + (node_of[1] == last);
  NT_CHECK(c.pages_armed == 2 * H &&
               c.pages_migrated == (unsigned long long)(2 - on_last) * H &&
               c.pages_already_local == (unsigned long long)on_last * H,
           "armed %llu migrated %llu local %llu", U64(c.pages_armed),
           U64(c.pages_migrated), U64(c.pages_already_local));
  return nt_done("guest_io");
}
