// model.c in a 4-node NUMA guest (tools/numa-vm, 4 CPUs, one thread per
// node): the same seeded steps, and after every step every accessible page
// must be on the node the model says (a page armed when a region touched it
// on its toucher's node, every other page where it was).  Exact window.
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile
// RUN: %numa-vm --nodes 4 --cpus 4 --numa-balancing 0 -- env NT_MODEL_NODES=1 \
// RUN:   KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=4 OMP_PROC_BIND=spread \
// RUN:   OMP_PLACES=cores %t 11 120 exact %nt-stress-scale | FileCheck %s
// CHECK: nodes checked
// CHECK: model: PASS
#include "model.c"
