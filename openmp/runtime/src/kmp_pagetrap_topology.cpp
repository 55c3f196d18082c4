/*
 * kmp_pagetrap_topology.cpp -- the page-trap layer: which NUMA node each CPU
 * belongs to, and which system call moves inaccessible pages on the running
 * kernel.
 *
 * Both run once, at start-up (__kmp_pt_initialize), under __kmp_pt_lock.
 * Only __kmp_pt_node_of_current_cpu() runs in the signal handler: it reads
 * the table built here, which lives in a mapping of its own.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"

#if KMP_PAGETRAP_SUPPORTED
#include <errno.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/mman.h>
#endif

static int pt_ncpus = 0;
static int *pt_cpu_node = NULL; // cpu (OS index) -> NUMA node (OS index)

#if KMP_PAGETRAP_SUPPORTED && KMP_USE_HWLOC

static const char *pt_hwloc_why = NULL; // why loading it failed

// libomp's hwloc topology: loaded by the hwloc affinity method when that is
// in use, otherwise loaded here, once, for both (__kmp_initz_lock serialises
// it with the affinity code, which reuses a topology that is already there).
// Called before __kmp_pt_lock is taken: libomp's fork(2) prepare handler
// takes __kmp_initz_lock first and the layer's lock last.
void __kmp_pt_load_topology() {
  __kmp_acquire_bootstrap_lock(&__kmp_initz_lock);
  if (__kmp_hwloc_topology == NULL) {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) < 0) {
      pt_hwloc_why = "hwloc_topology_init() failed";
    } else if (hwloc_topology_load(t) < 0) {
      hwloc_topology_destroy(t);
      pt_hwloc_why = "hwloc_topology_load() failed";
    } else {
      __kmp_hwloc_topology = t;
    }
  }
  __kmp_release_bootstrap_lock(&__kmp_initz_lock);
}

static hwloc_topology_t pt_hwloc(const char **why) {
  hwloc_topology_t t = (hwloc_topology_t)TCR_PTR(__kmp_hwloc_topology);
  if (!t)
    *why = pt_hwloc_why ? pt_hwloc_why : "hwloc's topology is not loaded";
  return t;
}

int __kmp_pt_topology(const char **why) {
  hwloc_topology_t topo = pt_hwloc(why);
  if (!topo)
    return 1;
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
  if (n < 1 || last < 0) {
    *why = "hwloc reports no NUMA node";
    return 1;
  }
  pt_cpu_node = (int *)__kmp_pt_private_alloc(sizeof(int) * (last + 1));
  if (!pt_cpu_node) {
    *why = "out of memory";
    return 1;
  }
  pt_ncpus = last + 1;
  for (int c = 0; c < pt_ncpus; c++)
    pt_cpu_node[c] = -1;
  for (int i = 0; i < n; i++) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    unsigned cpu;
    hwloc_bitmap_foreach_begin(cpu, node->cpuset) {
      if ((int)cpu < pt_ncpus)
        pt_cpu_node[cpu] = (int)node->os_index;
    }
    hwloc_bitmap_foreach_end();
  }
  return n;
}

#else

void __kmp_pt_load_topology() {}

int __kmp_pt_topology(const char **why) {
  *why = "this libomp was built without hwloc (LIBOMP_USE_HWLOC=OFF)";
  return 1;
}

#endif

int __kmp_pt_private_table(uintptr_t *start, uintptr_t *end) {
  if (!pt_cpu_node)
    return 0;
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  *start = (uintptr_t)pt_cpu_node;
  *end = (*start + sizeof(int) * pt_ncpus + pg - 1) & ~(pg - 1);
  return 1;
}

int __kmp_pt_node_of_current_cpu() {
#if KMP_PAGETRAP_SUPPORTED
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= pt_ncpus || !pt_cpu_node)
    return -1;
  return pt_cpu_node[cpu];
#else
  return -1;
#endif
}

// What does the running kernel do with a PROT_NONE page?  move_pages() is
// cheaper and reports per page; on some kernels (6.1) it leaves PROT_NONE
// pages where they are, while mbind(MPOL_MF_MOVE) moves them.  Kernel
// behaviour changes between versions: ask, don't assume.
int __kmp_pt_probe_mechanism() {
#if KMP_PAGETRAP_SUPPORTED
  int result = kmp_pt_mech_none;
  long pgsz = __kmp_pt_page;
  char *p = (char *)mmap(NULL, pgsz, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return kmp_pt_mech_none;
  p[0] = 1;
  void *pg = p;
  int status = -1;
  if (__kmp_pt_move_pages(1, &pg, NULL, &status, 0) == 0 && status >= 0) {
    int here = status, target = -1;
    for (int c = 0; c < pt_ncpus && target < 0; c++)
      if (pt_cpu_node[c] >= 0 && pt_cpu_node[c] != here)
        target = pt_cpu_node[c];
    if (target >= 0) {
      mprotect(p, pgsz, PROT_NONE);
      status = -1;
      long r = __kmp_pt_move_pages(1, &pg, &target, &status, MPOL_MF_MOVE);
      if (r == 0 && status == target) {
        result = kmp_pt_mech_move_pages;
      } else {
        unsigned long mask[KMP_PT_MASK_WORDS] = {0};
        mask[target / (8 * sizeof(long))] |= 1UL
                                             << (target % (8 * sizeof(long)));
        if (__kmp_pt_mbind(p, pgsz, MPOL_BIND, mask, KMP_PT_MAXNODE,
                           MPOL_MF_MOVE | MPOL_MF_STRICT) == 0) {
          __kmp_pt_mbind(p, pgsz, MPOL_DEFAULT, NULL, 0, 0);
          mprotect(p, pgsz, PROT_READ | PROT_WRITE);
          status = -1;
          if (__kmp_pt_move_pages(1, &pg, NULL, &status, 0) == 0 &&
              status == target && p[0] == 1)
            result = kmp_pt_mech_mbind;
        }
      }
    }
  }
  munmap(p, pgsz);
  return result;
#else
  return kmp_pt_mech_none;
#endif
}
