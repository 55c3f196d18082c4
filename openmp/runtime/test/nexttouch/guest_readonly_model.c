// readonly_model.c in a 4-node NUMA guest (tools/numa-vm, 4 CPUs, one thread
// per node): the same seeded steps with a replica on every node, every read
// checked against the shadow copy.
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- env \
// RUN:   KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 OMP_PROC_BIND=spread \
// RUN:   OMP_PLACES=cores %t 5 %nt-stress-scale | FileCheck %s
// CHECK: readonly_model: PASS
#include "readonly_model.c"
