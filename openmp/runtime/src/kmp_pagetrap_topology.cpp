/*
 * kmp_pagetrap_topology.cpp -- the page-trap layer: which NUMA nodes have
 * memory (from the kernel's node list, or from libomp's hwloc topology when
 * libomp holds one), the node of the CPU a thread runs on, and which system
 * call moves inaccessible pages on the running kernel.
 *
 * The table is built once, at start-up, under __kmp_initz_lock (before
 * __kmp_pt_initialize takes __kmp_pt_lock: the affinity code takes
 * __kmp_initz_lock first); the mechanism probe runs under __kmp_pt_lock.  Only
 * __kmp_pt_node_of_current_cpu() runs in the signal handler: it reads the table
 * built here, which lives in a mapping of its own.
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
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

// The NUMA nodes that have memory (the only places pages can move to), in a
// mapping of its own: the signal handler reads it.  A CPU's node is the
// kernel's (getcpu(2)); CPUs of a node without memory have no node here.
static unsigned long *pt_mem_nodes = NULL;

const char *__kmp_pt_topology_source = "none";

#if KMP_PAGETRAP_SUPPORTED
static const unsigned pt_word_bits = 8 * sizeof(unsigned long);

static int pt_is_mem_node(unsigned node) {
  return node < KMP_PT_MAXNODE &&
         ((pt_mem_nodes[node / pt_word_bits] >> (node % pt_word_bits)) & 1);
}
#endif

#if KMP_PAGETRAP_SUPPORTED

// The kernel's list of the nodes that have memory: one small file.  Loading
// an hwloc topology reads the whole of /sys and /proc/cpuinfo (milliseconds
// natively, tens of milliseconds in an emulated guest), which the layer does
// only when this file cannot be read.  Needs no hwloc.
static const char pt_has_memory[] = "/sys/devices/system/node/has_memory";
static unsigned long pt_sysfs_nodes[KMP_PT_MASK_WORDS]; // the list, once read
static int pt_sysfs_read = 0; // 1: read; -1: could not be read

// Reads the list file `path` ("0-3,8,10-11", possibly empty) into words
// (nodes from KMP_PT_MAXNODE on are left out).  0, or -1.
static int pt_read_list(const char *path, unsigned long *words) {
  char buf[4096];
  int n = __kmp_pt_read_file(path, buf, sizeof(buf));
  if (n < 0 || n >= (int)sizeof(buf) - 1)
    return -1; // missing, or cut short
  memset(words, 0, sizeof(unsigned long) * KMP_PT_MASK_WORDS);
  for (const char *p = buf; *p && *p != '\n';) {
    char *e;
    unsigned long lo = strtoul(p, &e, 10), hi = lo;
    if (e == p)
      return -1;
    if (*e == '-') {
      p = e + 1;
      hi = strtoul(p, &e, 10);
      if (e == p || hi < lo)
        return -1;
    }
    for (unsigned long i = lo; i <= hi && i < KMP_PT_MAXNODE; i++)
      words[i / pt_word_bits] |= 1UL << (i % pt_word_bits);
    p = *e == ',' ? e + 1 : e;
    if (*e && *e != ',' && *e != '\n')
      return -1;
  }
  return 0;
}

// The table of nodes with memory, from `words`; returns their number.
static int pt_set_mem_nodes(const unsigned long *words, const char **why) {
  int n = 0;
  for (int i = 0; i < KMP_PT_MASK_WORDS; i++)
    n += __builtin_popcountl(words[i]);
  if (n < 1) {
    *why = "the kernel reports no NUMA node with memory";
    return 1;
  }
  pt_mem_nodes = (unsigned long *)__kmp_pt_private_alloc(sizeof(unsigned long) *
                                                         KMP_PT_MASK_WORDS);
  if (!pt_mem_nodes) {
    *why = "out of memory";
    return 1;
  }
  memcpy(pt_mem_nodes, words, sizeof(unsigned long) * KMP_PT_MASK_WORDS);
  return n;
}

#endif // KMP_PAGETRAP_SUPPORTED

#if KMP_PAGETRAP_SUPPORTED && KMP_USE_HWLOC

static const char *pt_hwloc_why = NULL; // why loading it failed

// The kernel's list of nodes, else libomp's hwloc topology: loaded by the
// hwloc affinity method when that is in use, otherwise loaded here, once,
// for both (__kmp_initz_lock serialises it with the affinity code, which
// reuses a topology that is already there).
// Called before __kmp_pt_lock is taken: libomp's fork(2) prepare handler
// takes __kmp_initz_lock first and the layer's lock last.
void __kmp_pt_load_topology() {
  __kmp_acquire_bootstrap_lock(&__kmp_initz_lock);
  if (__kmp_hwloc_topology == NULL && pt_sysfs_read == 0)
    pt_sysfs_read = pt_read_list(pt_has_memory, pt_sysfs_nodes) == 0 ? 1 : -1;
  if (__kmp_hwloc_topology == NULL && pt_sysfs_read < 0) {
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

int __kmp_pt_topology(const char **why) {
  hwloc_topology_t topo = (hwloc_topology_t)TCR_PTR(__kmp_hwloc_topology);
  if (topo) {
    // hwloc lists nodes without memory too (local_memory 0); they are left
    // out as the kernel's list leaves them out, unless hwloc knows the
    // memory of none.
    unsigned long words[KMP_PT_MASK_WORDS];
    memset(words, 0, sizeof words);
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), sized = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < n; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
        int mem = node->attr && node->attr->numanode.local_memory;
        if (pass == 0)
          sized |= mem;
        else if ((mem || !sized) && node->os_index < KMP_PT_MAXNODE)
          words[node->os_index / pt_word_bits] |=
              1UL << (node->os_index % pt_word_bits);
      }
    n = pt_set_mem_nodes(words, why);
    if (!*why)
      __kmp_pt_topology_source = "hwloc";
    return n;
  }
  if (pt_sysfs_read > 0) {
    int n = pt_set_mem_nodes(pt_sysfs_nodes, why);
    if (!*why)
      __kmp_pt_topology_source = "sysfs";
    return n;
  }
  *why = pt_hwloc_why ? pt_hwloc_why : "hwloc's topology is not loaded";
  return 1;
}

#elif KMP_PAGETRAP_SUPPORTED

// Without hwloc (LIBOMP_USE_HWLOC=OFF): the kernel's list only.
void __kmp_pt_load_topology() {
  __kmp_acquire_bootstrap_lock(&__kmp_initz_lock);
  if (pt_sysfs_read == 0)
    pt_sysfs_read = pt_read_list(pt_has_memory, pt_sysfs_nodes) == 0 ? 1 : -1;
  __kmp_release_bootstrap_lock(&__kmp_initz_lock);
}

int __kmp_pt_topology(const char **why) {
  if (pt_sysfs_read > 0) {
    int n = pt_set_mem_nodes(pt_sysfs_nodes, why);
    if (!*why)
      __kmp_pt_topology_source = "sysfs";
    return n;
  }
  *why = "the kernel's list of nodes with memory cannot be read, and this "
         "libomp was built without hwloc (LIBOMP_USE_HWLOC=OFF)";
  return 1;
}

#else

void __kmp_pt_load_topology() {}

int __kmp_pt_topology(const char **why) {
  *why = "not supported on this system";
  return 1;
}

#endif

int __kmp_pt_private_table(uintptr_t *start, uintptr_t *end) {
  if (!pt_mem_nodes)
    return 0;
  uintptr_t pg = (uintptr_t)__kmp_pt_page;
  *start = (uintptr_t)pt_mem_nodes;
  *end =
      (*start + sizeof(unsigned long) * KMP_PT_MASK_WORDS + pg - 1) & ~(pg - 1);
  return 1;
}

#if KMP_PAGETRAP_SUPPORTED
// The C library's getcpu uses the vDSO where there is one (no system call);
// glibc has it from 2.29.
#if defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 29)
#define KMP_PT_HAVE_GETCPU 1
#endif
#endif
static int pt_getcpu(unsigned *cpu, unsigned *node) {
#ifdef KMP_PT_HAVE_GETCPU
  return getcpu(cpu, node);
#else
  return syscall(SYS_getcpu, cpu, node, NULL) == 0 ? 0 : -1;
#endif
}
#endif

int __kmp_pt_node_of_current_cpu() {
#if KMP_PAGETRAP_SUPPORTED
  unsigned cpu, node;
  if (pt_getcpu(&cpu, &node) != 0)
    return -1;
  return pt_mem_nodes && pt_is_mem_node(node) ? (int)node : -1;
#else
  return -1;
#endif
}

// What does the running kernel do with a PROT_NONE page?  move_pages() is
// cheaper and reports per page; on some kernels (6.1) it leaves PROT_NONE
// pages where they are, while mbind(MPOL_MF_MOVE) moves them.  Kernel
// behaviour changes between versions: ask, don't assume.  The question is
// asked without moving anything (a move drains the per-CPU page lists of
// every CPU, which costs milliseconds in a guest whose other vCPUs are
// busy): move_pages() finds a page for a move as it finds it for a query
// (the same page-table lookup, follow_page() and later folio_walk_start()),
// so a query that reports the node of a PROT_NONE page means that a move
// would take it, and -ENOENT that it would not.  A wrong answer costs
// speed, not placement: where a move fails, the engine's fault path moves
// the pages once they are accessible again (its fix-up).  No mechanism where
// move_pages() cannot say where an ordinary page is (no NUMA support,
// or a filter that refuses the call).
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
  if (__kmp_pt_move_pages(1, &pg, NULL, &status, 0) == 0 && status >= 0 &&
      mprotect(p, pgsz, PROT_NONE) == 0) {
    status = -1;
    result = __kmp_pt_move_pages(1, &pg, NULL, &status, 0) == 0 && status >= 0
                 ? kmp_pt_mech_move_pages
                 : kmp_pt_mech_mbind;
  }
  munmap(p, pgsz);
  return result;
#else
  return kmp_pt_mech_none;
#endif
}
