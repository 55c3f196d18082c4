// Hybrid MPI + OpenMP in a 4-node NUMA guest (tools/numa-vm) with Debian's
// Open MPI: 2 ranks x 2 threads under mpirun, rank r's threads bound to the
// CPUs of nodes 2r and 2r+1 (mpirun --bind-to none; OMP_PLACES per rank
// through mpirun's MPMD syntax).  Each rank, with MPI_THREAD_MULTIPLE:
//
//  1. compute: '#pragma omp nexttouch' on data placed on the other rank's
//     node, a parallel loop touches it: every page on its toucher's node.
//     Then MPI_Sendrecv out of it and into another next-touched (touched)
//     buffer: data intact, nothing moves.
//  2. armed-serial: two buffers requested and armed (PROT_NONE, checked in
//     /proc/self/maps) by a region that does not touch them, then
//     MPI_Sendrecv from one into the other and MPI_Allreduce into an armed
//     buffer, from serial code: data intact, the pages stay where they were
//     (serial touches, pages_touched_serial).
//  3. armed-region: MPI inside the parallel region that arms the buffers:
//     each thread MPI_Sendrecv's its half of an armed buffer into its half of
//     another; then the primary thread alone MPI_Allreduce's into an armed
//     buffer.  Data intact; every page on one of the rank's own nodes (Open
//     MPI's progress engine copies a message in whichever thread polls), the
//     Allreduce result on the primary thread's node.
//  4. shared window: MPI_Win_allocate_shared (Open MPI's osc/sm segment,
//     mapped by both ranks).  Each rank requests its own segment after the
//     other rank mapped it, its threads touch it: pages mapped by two
//     processes cannot be moved (move_pages without MPOL_MF_MOVE_ALL) and
//     must stay where they are, be counted as failed moves, and stay shared
//     (the other rank's later writes are seen).
//
// Transport: Open MPI's shared-memory BTL (vader) copies through a shared
// segment with memcpy, which faults on armed pages like any user code.  Its
// single-copy mechanism CMA (process_vm_readv/writev, the default for
// messages above the eager limit) makes the kernel copy into or out of the
// peer's buffer: on an armed page that is EFAULT, not a fault.  The "cma" run
// records what Open MPI does then, receiving into and sending out of an
// armed buffer (see docs/NextTouch.rst, "Guarantees and limitations").  The
// phases above run twice: with the default (CMA) and with
// btl_vader_single_copy_mechanism=none, which never hands an armed page to
// the kernel.  The "segv" run checks that Open MPI's own SIGSEGV handler
// (installed by MPI_Init, before libomp's) still reports a genuine fault
// after next-touch has run, and that the program still sees it as SIGSEGV's
// action (sigaction) while libomp's is the kernel's.
//
// REQUIRES: numa-vm, linux, openmpi
// RUN: %libomp-compile %mpi-flags -lnuma
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 --timeout 400 \
// RUN:   %mpi-guest-files --file %t -- sh -c \
// RUN:   '%mpirun-guest %t cma; echo "cma run: exit $?"; \
// RUN:    %mpirun-guest %t all; echo "all run (cma): exit $?"; \
// RUN:    OMPI_MCA_btl_vader_single_copy_mechanism=none %mpirun-guest %t all; \
// RUN:    echo "all run (none): exit $?"; \
// RUN:    OMPI_MCA_btl_vader_single_copy_mechanism=none %mpirun-guest %t segv; \
// RUN:    echo "segv run: exit $?"' | FileCheck %s
//
// The cma run (Open MPI 4.1.4): process_vm_readv() fails with EFAULT on the
// armed page, the vader BTL says so on stderr ("Read -1, ... errno = 14") and
// the ob1 PML falls back to copying through the shared segment, whose memcpy
// faults like any serial touch: the data arrive intact, the pages stay.
// CHECK-DAG: guest_mpi cma: rank 0 receives 262144 bytes into an armed buffer (armed: yes)
// CHECK-DAG: Read -1, expected 262144, errno = 14
// CHECK-DAG: guest_mpi cma: MPI_Recv into the armed buffer returns 0, 0 words wrong
// CHECK-DAG: guest_mpi cma: rank 1 sends 262144 bytes out of an armed buffer (armed: yes)
// CHECK-DAG: Read -1, expected 262144, errno = 14
// CHECK-DAG: guest_mpi cma: MPI_Recv from the armed send buffer returns 0, 0 words wrong
// CHECK-DAG: guest_mpi cma: MPI_Send out of the armed buffer returns 0
// CHECK-DAG: guest_mpi rank 0: cma: counters faults 64 migrated 0 already_local 0 touched_serial 64
// CHECK-DAG: guest_mpi rank 1: cma: counters faults 64 migrated 0 already_local 0 touched_serial 64
// CHECK: cma run: exit 0
//
// CHECK-DAG: guest_mpi rank 0: nodes 0 1
// CHECK-DAG: guest_mpi rank 1: nodes 2 3
// CHECK-DAG: guest_mpi rank 0: compute: PASS
// CHECK-DAG: guest_mpi rank 1: compute: PASS
// CHECK-DAG: guest_mpi rank 0: armed-serial: PASS
// CHECK-DAG: guest_mpi rank 1: armed-serial: PASS
// CHECK-DAG: guest_mpi rank 0: armed-region: PASS
// CHECK-DAG: guest_mpi rank 1: armed-region: PASS
// CHECK-DAG: guest_mpi rank 0: shared-window: PASS
// CHECK-DAG: guest_mpi rank 1: shared-window: PASS
// CHECK-DAG: guest_mpi rank 0: PASS
// CHECK-DAG: guest_mpi rank 1: PASS
// CHECK: all run (cma): exit 0
//
// CHECK-DAG: guest_mpi rank 0: nodes 0 1
// CHECK-DAG: guest_mpi rank 1: nodes 2 3
// CHECK-DAG: guest_mpi rank 0: compute: PASS
// CHECK-DAG: guest_mpi rank 1: compute: PASS
// CHECK-DAG: guest_mpi rank 0: armed-serial: PASS
// CHECK-DAG: guest_mpi rank 1: armed-serial: PASS
// CHECK-DAG: guest_mpi rank 0: armed-region: PASS
// CHECK-DAG: guest_mpi rank 1: armed-region: PASS
// CHECK-DAG: guest_mpi rank 0: shared-window: PASS
// CHECK-DAG: guest_mpi rank 1: shared-window: PASS
// CHECK-DAG: guest_mpi rank 0: PASS
// CHECK-DAG: guest_mpi rank 1: PASS
// CHECK: all run (none): exit 0
//
// CHECK-DAG: guest_mpi segv: rank 1: SIGSEGV handler after MPI_Init in libopen-pal
// CHECK-DAG: guest_mpi segv: rank 1: SIGSEGV handler after next-touch in libopen-pal, the kernel's in libomp
// CHECK-DAG: guest_mpi segv: rank 1 writes through NULL
// CHECK-DAG: Signal: Segmentation fault (11)
// CHECK-DAG: exited on signal 11
// CHECK: segv run: exit {{[1-9]}}
#include "nexttouch_test.h"
#include <dlfcn.h>
#include <mpi.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <signal.h>

enum { NP = 64 }; // pages per buffer

static int rank, nranks, peer;
static long pg;
static size_t ipp; // longs per page

static long pattern(int who, int round, size_t i) {
  return (long)who * 1000003L + (long)round * 7919L + (long)i;
}

static void fill(long *b, int who, int round) {
  for (size_t i = 0; i < NP * ipp; i++)
    b[i] = pattern(who, round, i);
}

// Mismatches of b against pattern(who, round, .).
static long bad_words(const long *b, int who, int round) {
  long bad = 0;
  for (size_t i = 0; i < NP * ipp; i++)
    bad += b[i] != pattern(who, round, i);
  return bad;
}

static void move_all(void *b, size_t npages, int node) {
  void *pages[NP];
  int target[NP], st[NP];
  for (size_t p = 0; p < npages; p++)
    pages[p] = (char *)b + p * pg, target[p] = node;
  long r = syscall(SYS_move_pages, 0, npages, pages, target, st, MPOL_MF_MOVE);
  NT_CHECK(r == 0, "move_pages to node %d: %ld", node, r);
}

static int my_node(void) { return numa_node_of_cpu(sched_getcpu()); }

static void print_counters(const char *phase, kmp_nexttouch_counters_t c) {
  printf("guest_mpi rank %d: %s: counters faults %llu migrated %llu "
         "already_local %llu touched_serial %llu fail_move_busy %llu "
         "fail_move_other %llu fail_arm %llu\n",
         rank, phase, (unsigned long long)c.faults,
         (unsigned long long)c.pages_migrated,
         (unsigned long long)c.pages_already_local,
         (unsigned long long)c.pages_touched_serial,
         (unsigned long long)c.fail_move_busy,
         (unsigned long long)c.fail_move_other, (unsigned long long)c.fail_arm);
}

static int phase_done(const char *phase, int failures_before) {
  int ok = nt_failures == failures_before;
  printf("guest_mpi rank %d: %s: %s\n", rank, phase, ok ? "PASS" : "FAILED");
  fflush(stdout);
  return ok;
}

// Nodes of the rank's two threads (thread t on node 2 * rank + t), checked.
static int home[2];

// 1. Next-touch by computation, then MPI out of and into touched buffers.
static void phase_compute(void) {
  int f0 = nt_failures, other = 2 * peer, nodes[NP];
  long *a = (long *)nt_map(NP * pg), *b = (long *)nt_map(NP * pg);
  fill(a, rank, 1);
  fill(b, -1, 0);
  move_all(a, NP, other);
  move_all(b, NP, other);
#pragma omp nexttouch(a : NP *ipp, b : NP *ipp)
#pragma omp parallel for schedule(static) num_threads(2)
  for (int p = 0; p < NP; p++) {
    a[p * ipp] += 0;
    b[p * ipp] = pattern(-1, 0, p * ipp);
  }
  nt_nodes_of((char *)a, NP, nodes);
  for (int p = 0; p < NP; p++)
    NT_CHECK(nodes[p] == home[p >= NP / 2],
             "compute: a page %d on node %d, "
             "toucher's node %d",
             p, nodes[p], home[p >= NP / 2]);
  // Out of one next-touched buffer into another (both touched already).
  int r = MPI_Sendrecv(a, NP * ipp, MPI_LONG, peer, 1, b, NP * ipp, MPI_LONG,
                       peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  NT_CHECK(r == MPI_SUCCESS, "compute: MPI_Sendrecv %d", r);
  NT_CHECK(bad_words(a, rank, 1) == 0, "compute: a changed");
  NT_CHECK(bad_words(b, peer, 1) == 0, "compute: b received wrong data");
  nt_nodes_of((char *)b, NP, nodes);
  for (int p = 0; p < NP; p++)
    NT_CHECK(nodes[p] == home[p >= NP / 2],
             "compute: b page %d on node %d "
             "after MPI, expected %d",
             p, nodes[p], home[p >= NP / 2]);
  munmap(a, NP * pg);
  munmap(b, NP * pg);
  phase_done("compute", f0);
}

// 2. MPI from serial code on armed buffers: serial touches, nothing moves.
static void phase_armed_serial(void) {
  int f0 = nt_failures, other = 2 * peer, nodes[NP];
  long *s = (long *)nt_map(NP * pg), *d = (long *)nt_map(NP * pg);
  long *sum = (long *)nt_map(NP * pg), *one = (long *)nt_map(NP * pg);
  fill(s, rank, 2);
  fill(d, -1, 0);
  fill(sum, -1, 0);
  for (size_t i = 0; i < NP * ipp; i++)
    one[i] = (long)(rank + 1) * (long)i;
  move_all(s, NP, other);
  move_all(d, NP, other);
  move_all(sum, NP, other);
  kmp_nexttouch_counters_t c0 = nt_counters();
#pragma omp nexttouch(s : NP *ipp, d : NP *ipp, sum : NP *ipp)
#pragma omp parallel num_threads(2)
  { // arms the three buffers, touches none
  }
  NT_CHECK(nt_maps_prot(s) == PROT_NONE && nt_maps_prot(d) == PROT_NONE &&
               nt_maps_prot(sum) == PROT_NONE,
           "armed-serial: buffers not armed (%d %d %d)", nt_maps_prot(s),
           nt_maps_prot(d), nt_maps_prot(sum));
  int r = MPI_Sendrecv(s, NP * ipp, MPI_LONG, peer, 2, d, NP * ipp, MPI_LONG,
                       peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  NT_CHECK(r == MPI_SUCCESS, "armed-serial: MPI_Sendrecv %d", r);
  r = MPI_Allreduce(one, sum, NP * ipp, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  NT_CHECK(r == MPI_SUCCESS, "armed-serial: MPI_Allreduce %d", r);
  NT_CHECK(bad_words(s, rank, 2) == 0, "armed-serial: send buffer changed");
  NT_CHECK(bad_words(d, peer, 2) == 0, "armed-serial: received wrong data");
  long bad = 0;
  for (size_t i = 0; i < NP * ipp; i++)
    bad += sum[i] != 3L * (long)i; // (0 + 1) * i + (1 + 1) * i
  NT_CHECK(bad == 0, "armed-serial: Allreduce result wrong in %ld words", bad);
  kmp_nexttouch_counters_t c1 = nt_counters();
  print_counters("armed-serial", c1);
  NT_CHECK(
      c1.pages_touched_serial - c0.pages_touched_serial == 3 * NP &&
          c1.pages_migrated == c0.pages_migrated,
      "armed-serial: %llu serial touches, %llu migrated (want %d, 0)",
      (unsigned long long)(c1.pages_touched_serial - c0.pages_touched_serial),
      (unsigned long long)(c1.pages_migrated - c0.pages_migrated), 3 * NP);
  long *bufs[3] = {s, d, sum};
  for (int k = 0; k < 3; k++) {
    nt_nodes_of((char *)bufs[k], NP, nodes);
    for (int p = 0; p < NP; p++)
      NT_CHECK(nodes[p] == other,
               "armed-serial: buffer %d page %d moved to "
               "node %d by serial MPI",
               k, p, nodes[p]);
  }
  munmap(s, NP * pg);
  munmap(d, NP * pg);
  munmap(sum, NP * pg);
  munmap(one, NP * pg);
  phase_done("armed-serial", f0);
}

// 3. MPI inside the region that arms the buffers.
static void phase_armed_region(void) {
  int f0 = nt_failures, other = 2 * peer, nodes[NP];
  long *s = (long *)nt_map(NP * pg), *d = (long *)nt_map(NP * pg);
  long *sum = (long *)nt_map(NP * pg), *one = (long *)nt_map(NP * pg);
  fill(s, rank, 3);
  fill(d, -1, 0);
  fill(sum, -1, 0);
  for (size_t i = 0; i < NP * ipp; i++)
    one[i] = (long)(rank + 1) * (long)i;
  move_all(s, NP, other);
  move_all(d, NP, other);
  move_all(sum, NP, other);
  kmp_nexttouch_counters_t c0 = nt_counters();
  int err[2] = {0, 0};
  size_t half = NP / 2 * ipp;
#pragma omp nexttouch(s : NP *ipp, d : NP *ipp)
#pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    err[t] = MPI_Sendrecv(s + t * half, half, MPI_LONG, peer, 10 + t,
                          d + t * half, half, MPI_LONG, peer, 10 + t,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  NT_CHECK(err[0] == MPI_SUCCESS && err[1] == MPI_SUCCESS,
           "armed-region: MPI_Sendrecv %d %d", err[0], err[1]);
  NT_CHECK(bad_words(s, rank, 3) == 0, "armed-region: send buffer changed");
  NT_CHECK(bad_words(d, peer, 3) == 0, "armed-region: received wrong data");
  long *bufs[2] = {s, d};
  int own = 0;
  for (int k = 0; k < 2; k++) {
    nt_nodes_of((char *)bufs[k], NP, nodes);
    for (int p = 0; p < NP; p++) {
      NT_CHECK(nodes[p] == home[0] || nodes[p] == home[1],
               "armed-region: buffer %d page %d on node %d, not the rank's "
               "(%d, %d)",
               k, p, nodes[p], home[0], home[1]);
      own += nodes[p] == home[p >= NP / 2];
    }
  }
  printf("guest_mpi rank %d: armed-region: %d of %d pages on the node of the "
         "thread whose half they are\n",
         rank, own, 2 * NP);
#pragma omp nexttouch(sum : NP *ipp)
#pragma omp parallel num_threads(2)
  {
#pragma omp masked
    err[0] =
        MPI_Allreduce(one, sum, NP * ipp, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  NT_CHECK(err[0] == MPI_SUCCESS, "armed-region: MPI_Allreduce %d", err[0]);
  long bad = 0;
  for (size_t i = 0; i < NP * ipp; i++)
    bad += sum[i] != 3L * (long)i;
  NT_CHECK(bad == 0, "armed-region: Allreduce result wrong in %ld words", bad);
  nt_nodes_of((char *)sum, NP, nodes);
  for (int p = 0; p < NP; p++)
    NT_CHECK(nodes[p] == home[0],
             "armed-region: Allreduce page %d on node "
             "%d, the primary thread's is %d",
             p, nodes[p], home[0]);
  kmp_nexttouch_counters_t c1 = nt_counters();
  print_counters("armed-region", c1);
  NT_CHECK(c1.pages_migrated - c0.pages_migrated == 3 * NP,
           "armed-region: %llu pages migrated, want %d",
           (unsigned long long)(c1.pages_migrated - c0.pages_migrated), 3 * NP);
  munmap(s, NP * pg);
  munmap(d, NP * pg);
  munmap(sum, NP * pg);
  munmap(one, NP * pg);
  phase_done("armed-region", f0);
}

// 4. Open MPI's shared-memory window: pages mapped by both ranks.
static void phase_shared_window(void) {
  int f0 = nt_failures, before[NP], after[NP];
  char *mine0, *theirs0;
  MPI_Win win;
  MPI_Aint sz;
  int du;
  // osc/sm puts a header before each segment: use its page-aligned part.
  int r = MPI_Win_allocate_shared((NP + 1) * pg, 1, MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &mine0, &win);
  NT_CHECK(r == MPI_SUCCESS, "shared-window: MPI_Win_allocate_shared %d", r);
  if (r != MPI_SUCCESS)
    return;
  MPI_Win_shared_query(win, peer, &sz, &du, &theirs0);
  long *mine = (long *)(mine0 + (pg - (uintptr_t)mine0 % pg) % pg);
  long *theirs = (long *)(theirs0 + (pg - (uintptr_t)theirs0 % pg) % pg);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  fill(mine, rank, 4); // allocated here, by the primary thread: node home[0]
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  // The peer maps (reads) every page of this rank's segment.
  NT_CHECK(bad_words(theirs, peer, 4) == 0, "shared-window: peer's data");
  MPI_Barrier(MPI_COMM_WORLD);
  nt_nodes_of((char *)mine, NP, before);
  int elsewhere = 0; // pages not on their toucher's node: cannot move
  for (int p = 0; p < NP; p++)
    elsewhere += before[p] != home[p >= NP / 2];
  kmp_nexttouch_counters_t c0 = nt_counters();
  int rq = kmp_nexttouch(mine, NP * pg);
  NT_CHECK(rq == 0, "shared-window: kmp_nexttouch on the segment: %d", rq);
  long sum = 0;
#pragma omp parallel for schedule(static) num_threads(2) reduction(+ : sum)
  for (int p = 0; p < NP; p++)
    sum += mine[p * ipp];
  NT_CHECK(bad_words(mine, rank, 4) == 0, "shared-window: data changed");
  nt_nodes_of((char *)mine, NP, after);
  int moved = 0;
  for (int p = 0; p < NP; p++)
    moved += after[p] != before[p];
  kmp_nexttouch_counters_t c1 = nt_counters();
  print_counters("shared-window", c1);
  unsigned long long busy = c1.fail_move_busy - c0.fail_move_busy;
  unsigned long long other = (c1.fail_move_nomem - c0.fail_move_nomem) +
                             (c1.fail_move_other - c0.fail_move_other) +
                             (c1.fail_arm - c0.fail_arm);
  unsigned long long local = c1.pages_already_local - c0.pages_already_local;
  unsigned long long migrated = c1.pages_migrated - c0.pages_migrated;
  printf(
      "guest_mpi rank %d: shared-window: %d pages moved, %llu fail_move_busy,"
      " %llu other failures, %llu already local, %llu counted as migrated\n",
      rank, moved, busy, other, local, migrated);
  NT_CHECK(moved == 0, "shared-window: %d shared pages moved", moved);
  NT_CHECK(busy == (unsigned long long)elsewhere &&
               local == (unsigned long long)(NP - elsewhere) && migrated == 0 &&
               other == 0,
           "shared-window: want %d busy, %d local, 0 migrated, 0 other",
           elsewhere, NP - elsewhere);
  NT_CHECK(elsewhere > 0, "shared-window: every page local, nothing tested");
  // Still shared: the peer's writes are seen.
  MPI_Barrier(MPI_COMM_WORLD);
  fill(theirs, peer, 5);
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  NT_CHECK(bad_words(mine, rank, 5) == 0, "shared-window: peer's writes lost");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  phase_done("shared-window", f0);
}

// Armed buffers with Open MPI's default transport (vader with CMA single
// copy for messages above its eager limit): rank 1 sends into an armed
// receive buffer of rank 0, then sends out of an armed buffer of its own.
// Prints what happens; Open MPI may abort the job.
static void run_cma(void) {
  long *b = (long *)nt_map(NP * pg);
  fill(b, rank == 0 ? -1 : 1, 6);
  if (rank == 0)
    kmp_nexttouch(b, NP * pg);
#pragma omp parallel num_threads(2)
  { // arms b in rank 0
  }
  if (rank == 0) {
    printf("guest_mpi cma: rank 0 receives %ld bytes into an armed buffer "
           "(armed: %s)\n",
           (long)(NP * pg), nt_maps_prot(b) == PROT_NONE ? "yes" : "no");
    fflush(stdout);
    int r = MPI_Recv(b, NP * ipp, MPI_LONG, 1, 6, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    printf("guest_mpi cma: MPI_Recv into the armed buffer returns %d, %ld "
           "words wrong\n",
           r, bad_words(b, 1, 6));
  } else {
    MPI_Send(b, NP * ipp, MPI_LONG, 0, 6, MPI_COMM_WORLD);
  }
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  fill(b, rank == 0 ? -1 : 1, 7);
  if (rank == 1)
    kmp_nexttouch(b, NP * pg);
#pragma omp parallel num_threads(2)
  { // arms b in rank 1
  }
  if (rank == 1) {
    printf("guest_mpi cma: rank 1 sends %ld bytes out of an armed buffer "
           "(armed: %s)\n",
           (long)(NP * pg), nt_maps_prot(b) == PROT_NONE ? "yes" : "no");
    fflush(stdout);
    int r = MPI_Send(b, NP * ipp, MPI_LONG, 0, 7, MPI_COMM_WORLD);
    printf("guest_mpi cma: MPI_Send out of the armed buffer returns %d\n", r);
    fflush(stdout);
  } else {
    int r = MPI_Recv(b, NP * ipp, MPI_LONG, 1, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    printf("guest_mpi cma: MPI_Recv from the armed send buffer returns %d, "
           "%ld words wrong\n",
           r, bad_words(b, 1, 7));
  }
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  print_counters("cma", nt_counters());
  fflush(stdout);
}

// The shared object that holds the current SIGSEGV handler (its base name
// up to the first '.', "SIG_DFL" or "SIG_IGN").
// kernel: the kernel's action (the raw system call), not the program's.
static const char *segv_handler_owner(int kernel) {
  static char name[2][64];
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  if (kernel) {
    void *k[4]; // the kernel's struct sigaction: handler, flags, ...
    syscall(SYS_rt_sigaction, SIGSEGV, NULL, k, 8);
    sa.sa_handler = (void (*)(int))k[0];
  } else {
    sigaction(SIGSEGV, NULL, &sa);
  }
  void *h = (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction
                                       : (void *)sa.sa_handler;
  if (sa.sa_handler == SIG_DFL)
    return "SIG_DFL";
  if (sa.sa_handler == SIG_IGN)
    return "SIG_IGN";
  Dl_info info;
  if (!dladdr(h, &info) || !info.dli_fname)
    return "unknown";
  const char *base = strrchr(info.dli_fname, '/');
  char *n = name[kernel];
  snprintf(n, sizeof name[0], "%s", base ? base + 1 : info.dli_fname);
  n[strcspn(n, ".")] = 0;
  return n;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  // Before any OpenMP construct: Open MPI's handler (opal_signal).
  const char *segv_owner = strdup(segv_handler_owner(0));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  pg = nt_pagesize();
  ipp = pg / sizeof(long);
  peer = 1 - rank;
  if (nranks != 2 || provided != MPI_THREAD_MULTIPLE || numa_max_node() != 3) {
    printf("guest_mpi rank %d: needs 2 ranks (%d), MPI_THREAD_MULTIPLE (%d) "
           "and 4 nodes (%d)\n",
           rank, nranks, provided, numa_max_node() + 1);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Each thread must run on its own node: OMP_PLACES of this rank.
#pragma omp parallel num_threads(2)
  home[omp_get_thread_num()] = my_node();
  if (!strcmp(mode, "cma")) {
    run_cma();
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "segv")) {
    printf("guest_mpi segv: rank %d: SIGSEGV handler after MPI_Init in %s\n",
           rank, segv_owner);
    phase_compute(); // next-touch in use: libomp's handler goes first now
    printf("guest_mpi segv: rank %d: SIGSEGV handler after next-touch in %s, "
           "the kernel's in %s\n",
           rank, segv_handler_owner(0), segv_handler_owner(1));
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      printf("guest_mpi segv: rank 1 writes through NULL\n");
      fflush(stdout);
      int *volatile null = NULL;
      *null = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD); // rank 0 waits here until mpirun ends it
    MPI_Finalize();
    return 0;
  }
  printf("guest_mpi rank %d: nodes %d %d\n", rank, home[0], home[1]);
  NT_CHECK(home[0] == 2 * rank && home[1] == 2 * rank + 1,
           "rank %d's threads run on nodes %d %d", rank, home[0], home[1]);
  fflush(stdout);
  phase_compute();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_armed_serial();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_armed_region();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_shared_window();
  MPI_Barrier(MPI_COMM_WORLD);
  char name[32];
  snprintf(name, sizeof name, "guest_mpi rank %d", rank);
  int rc = nt_done(name);
  MPI_Finalize();
  return rc;
}
