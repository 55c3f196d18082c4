// stress.c in a 4-node NUMA guest (tools/numa-vm, 4 CPUs): many regions,
// overlapping requests from every thread, fork in between, zero corrupted
// bytes, and after one request of the whole array before the last region
// every page on its toucher's node (exact window).
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- \
// RUN:   env KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 OMP_PROC_BIND=spread \
// RUN:   OMP_PLACES=cores %t 20 %nt-stress-scale check-nodes | FileCheck %s
// CHECK: stress: {{.*}} 0 misplaced
// CHECK: stress: PASS
#include "stress.c"
