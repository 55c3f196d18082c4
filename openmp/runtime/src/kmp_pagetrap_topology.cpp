/*
 * kmp_pagetrap_topology.cpp -- the page-trap layer: which NUMA node each CPU
 * belongs to (from the kernel's node files, or from libomp's hwloc topology
 * when libomp holds one), and which system call moves inaccessible pages on
 * the running kernel.
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
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

static int pt_ncpus = 0;
static int *pt_cpu_node = NULL; // cpu (OS index) -> NUMA node (OS index)

const char *__kmp_pt_topology_source = "none";

#if KMP_PAGETRAP_SUPPORTED && KMP_USE_HWLOC

static const char *pt_hwloc_why = NULL; // why loading it failed

// The kernel's own lists: the nodes that have memory, and each node's CPUs.
// Reading them is a few system calls; loading an hwloc topology reads the
// whole of /sys and /proc/cpuinfo (milliseconds natively, tens of
// milliseconds in an emulated guest), which the layer does only when these
// files are not there.
static const char pt_node_dir[] = "/sys/devices/system/node";

// Reads the list file `path` ("0-3,8,10-11", possibly empty) into `set`.
static int pt_read_list(const char *path, hwloc_bitmap_t set) {
  char buf[4096];
  FILE *f = fopen(path, "re");
  if (!f)
    return -1;
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  int complete = feof(f) && !ferror(f);
  fclose(f);
  if (!complete)
    return -1;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    n--;
  buf[n] = '\0';
  if (n == 0) {
    hwloc_bitmap_zero(set);
    return 0;
  }
  return hwloc_bitmap_list_sscanf(set, buf);
}

static int pt_have_node_files() {
  char path[64];
  KMP_SNPRINTF(path, sizeof(path), "%s/has_memory", pt_node_dir);
  return access(path, R_OK) == 0;
}

// libomp's hwloc topology: loaded by the hwloc affinity method when that is
// in use, otherwise loaded here, once, for both (__kmp_initz_lock serialises
// it with the affinity code, which reuses a topology that is already there),
// unless the kernel's node files answer the layer's question.
// Called before __kmp_pt_lock is taken: libomp's fork(2) prepare handler
// takes __kmp_initz_lock first and the layer's lock last.
void __kmp_pt_load_topology() {
  if (TCR_PTR(__kmp_hwloc_topology) == NULL && pt_have_node_files())
    return;
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

static int pt_alloc_table(int ncpus, const char **why) {
  pt_cpu_node = (int *)__kmp_pt_private_alloc(sizeof(int) * ncpus);
  if (!pt_cpu_node) {
    *why = "out of memory";
    return 0;
  }
  pt_ncpus = ncpus;
  for (int c = 0; c < pt_ncpus; c++)
    pt_cpu_node[c] = -1;
  return 1;
}

static int pt_topology_hwloc(hwloc_topology_t topo, const char **why) {
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
  if (n < 1 || last < 0) {
    *why = "hwloc reports no NUMA node";
    return 1;
  }
  if (!pt_alloc_table(last + 1, why))
    return 1;
  for (int i = 0; i < n; i++) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    unsigned cpu;
    hwloc_bitmap_foreach_begin(cpu, node->cpuset) {
      if ((int)cpu < pt_ncpus)
        pt_cpu_node[cpu] = (int)node->os_index;
    }
    hwloc_bitmap_foreach_end();
  }
  __kmp_pt_topology_source = "hwloc";
  return n;
}

// The nodes with memory (the only places pages can move to) and their CPUs;
// CPUs of memory-less nodes stay unknown, as in hwloc's view.
static int pt_topology_sysfs(const char **why) {
  const char *unreadable = "the kernel's NUMA node files cannot be read";
  char path[96];
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  KMP_SNPRINTF(path, sizeof(path), "%s/has_memory", pt_node_dir);
  int n =
      nodes && pt_read_list(path, nodes) == 0 ? hwloc_bitmap_weight(nodes) : -1;
  hwloc_bitmap_t *cpus =
      n > 0 ? (hwloc_bitmap_t *)KMP_INTERNAL_CALLOC(n, sizeof(hwloc_bitmap_t))
            : NULL;
  int i = 0, last = -1, ok = cpus != NULL;
  unsigned node;
  if (ok) {
    hwloc_bitmap_foreach_begin(node, nodes) {
      KMP_SNPRINTF(path, sizeof(path), "%s/node%u/cpulist", pt_node_dir, node);
      cpus[i] = hwloc_bitmap_alloc();
      if (!cpus[i] || pt_read_list(path, cpus[i]) < 0)
        ok = 0;
      else if (hwloc_bitmap_last(cpus[i]) > last)
        last = hwloc_bitmap_last(cpus[i]);
      i++;
    }
    hwloc_bitmap_foreach_end();
  }
  int result = 1;
  if (!ok)
    *why = unreadable;
  else if (last < 0)
    *why = "the kernel reports no NUMA node with memory and CPUs";
  else if (pt_alloc_table(last + 1, why)) {
    i = 0;
    hwloc_bitmap_foreach_begin(node, nodes) {
      unsigned cpu;
      hwloc_bitmap_foreach_begin(cpu, cpus[i]) { pt_cpu_node[cpu] = (int)node; }
      hwloc_bitmap_foreach_end();
      i++;
    }
    hwloc_bitmap_foreach_end();
    __kmp_pt_topology_source = "sysfs";
    result = n;
  }
  for (i = 0; cpus && i < n; i++)
    hwloc_bitmap_free(cpus[i]);
  KMP_INTERNAL_FREE(cpus);
  hwloc_bitmap_free(nodes);
  return result;
}

int __kmp_pt_topology(const char **why) {
  hwloc_topology_t topo = (hwloc_topology_t)TCR_PTR(__kmp_hwloc_topology);
  if (topo)
    return pt_topology_hwloc(topo, why);
  if (pt_have_node_files())
    return pt_topology_sysfs(why);
  *why = pt_hwloc_why ? pt_hwloc_why : "hwloc's topology is not loaded";
  return 1;
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
