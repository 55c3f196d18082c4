// Self-test of the emulated NUMA machine that tools/numa-vm boots: topology
// as seen by sysfs, libnuma and hwloc, page migration, numa_balancing, and
// the kernel the guest runs (the one make check-guest-kernels asked for).
//
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile -lnuma -lhwloc
// RUN: %numa-vm --nodes 2 --cpus 2 -- %t 2 2 0 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N2 -DKERNEL=%guest-kernel
// RUN: %numa-vm --nodes 4 --cpus 4 -- %t 4 4 0 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N4 -DKERNEL=%guest-kernel
// RUN: %numa-vm --nodes 2 --cpus 3 --numa-balancing 1 -- %t 2 3 1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,N2C3 -DKERNEL=%guest-kernel
// A wrong expectation must make it fail.
// RUN: %not %numa-vm --nodes 2 --cpus 2 -- %t 4 4 0 \
// RUN:   | FileCheck %s --check-prefix=WRONG
//
// CHECK: numa-vm selftest: expecting {{[0-9]+}} nodes, {{[0-9]+}} cpus
// CHECK-NEXT: kernel: Linux [[KERNEL]].{{[0-9]+}}
// N2: sysfs: node 0 cpus 0
// N2-NEXT: sysfs: node 1 cpus 1
// N4: sysfs: node 0 cpus 0
// N4-NEXT: sysfs: node 1 cpus 1
// N4-NEXT: sysfs: node 2 cpus 2
// N4-NEXT: sysfs: node 3 cpus 3
// N2C3: sysfs: node 0 cpus 0
// N2C3-NEXT: sysfs: node 1 cpus 1-2
// CHECK: libnuma: {{[0-9]+}} nodes, {{[0-9]+}} cpus, cpu->node as expected
// CHECK: hwloc: {{[0-9]+}} NUMA nodes, {{[0-9]+}} PUs, cpusets as expected
// N2: move_pages: {{[0-9]+}} pages to node 1: all on node 1
// N4: move_pages: {{[0-9]+}} pages to node 3: all on node 3
// CHECK: move_pages: {{[0-9]+}} pages to node 0: all on node 0
// CHECK: numa_balancing: [[BAL:[01]]] as expected
// CHECK: numa-vm selftest: PASS
//
// WRONG: FAIL: sysfs: {{.*}}
// WRONG: numa-vm selftest: FAILED

#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <numa.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

static int failures;

static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL: ");
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
  failures++;
}

static int expected_node(int cpu, int nodes, int cpus) {
  // Node i holds CPUs i*M/N .. (i+1)*M/N-1.
  for (int i = 0; i < nodes; i++)
    if (cpu >= i * cpus / nodes && cpu < (i + 1) * cpus / nodes)
      return i;
  return -1;
}

static int read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  if (!fgets(buf, (int)len, f)) {
    fclose(f);
    return -1;
  }
  fclose(f);
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

// Parse a kernel cpulist ("0-2,5") into a bitmask array of size max.
static int parse_cpulist(const char *s, char *mask, int max) {
  while (*s) {
    char *end;
    long lo = strtol(s, &end, 10), hi = lo;
    if (end == s)
      return -1;
    if (*end == '-') {
      s = end + 1;
      hi = strtol(s, &end, 10);
      if (end == s)
        return -1;
    }
    for (long c = lo; c <= hi; c++) {
      if (c < 0 || c >= max)
        return -1;
      mask[c] = 1;
    }
    s = end;
    if (*s == ',')
      s++;
    else if (*s)
      return -1;
  }
  return 0;
}

static void check_sysfs(int nodes, int cpus) {
  char buf[256], want[64], path[128];
  snprintf(want, sizeof want, nodes == 1 ? "0" : "0-%d", nodes - 1);
  if (read_line("/sys/devices/system/node/online", buf, sizeof buf))
    fail("sysfs: cannot read /sys/devices/system/node/online");
  else if (strcmp(buf, want))
    fail("sysfs: nodes online are '%s', expected '%s'", buf, want);
  snprintf(want, sizeof want, cpus == 1 ? "0" : "0-%d", cpus - 1);
  if (read_line("/sys/devices/system/cpu/online", buf, sizeof buf))
    fail("sysfs: cannot read /sys/devices/system/cpu/online");
  else if (strcmp(buf, want))
    fail("sysfs: cpus online are '%s', expected '%s'", buf, want);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n != cpus)
    fail("sysfs: sysconf(_SC_NPROCESSORS_ONLN) = %ld, expected %d", n, cpus);
  // Every node that exists must be an expected one, with its CPU block.
  for (int node = 0; node < 64; node++) {
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist",
             node);
    if (read_line(path, buf, sizeof buf)) {
      if (node < nodes)
        fail("sysfs: node %d missing (%s)", node, path);
      continue;
    }
    printf("sysfs: node %d cpus %s\n", node, buf);
    if (node >= nodes) {
      fail("sysfs: unexpected node %d", node);
      continue;
    }
    char mask[1024] = {0};
    if (parse_cpulist(buf, mask, 1024)) {
      fail("sysfs: cannot parse cpulist '%s' of node %d", buf, node);
      continue;
    }
    for (int c = 0; c < 1024; c++) {
      int want_here = c < cpus && expected_node(c, nodes, cpus) == node;
      if (mask[c] != want_here)
        fail("sysfs: cpu %d %s node %d, expected %s", c,
             mask[c] ? "is on" : "is not on", node,
             want_here ? "on it" : "elsewhere");
    }
  }
}

static void check_libnuma(int nodes, int cpus) {
  if (numa_available() < 0) {
    fail("libnuma: numa_available() < 0");
    return;
  }
  int maxnode = numa_max_node(), conf_nodes = numa_num_configured_nodes();
  int conf_cpus = numa_num_configured_cpus();
  if (maxnode + 1 != nodes || conf_nodes != nodes)
    fail("libnuma: numa_max_node()+1 = %d, configured nodes %d, expected %d",
         maxnode + 1, conf_nodes, nodes);
  if (conf_cpus != cpus)
    fail("libnuma: %d configured cpus, expected %d", conf_cpus, cpus);
  int bad = 0;
  for (int c = 0; c < cpus; c++) {
    int got = numa_node_of_cpu(c), want = expected_node(c, nodes, cpus);
    if (got != want) {
      fail("libnuma: numa_node_of_cpu(%d) = %d, expected %d", c, got, want);
      bad++;
    }
  }
  for (int node = 0; node < nodes && node <= maxnode; node++) {
    long long free_b;
    long long size = numa_node_size64(node, &free_b);
    printf("libnuma: node %d: %lld MiB, %lld MiB free\n", node, size >> 20,
           free_b >> 20);
    if (size <= 0)
      fail("libnuma: node %d has no memory", node);
  }
  if (!bad && maxnode + 1 == nodes && conf_cpus == cpus)
    printf("libnuma: %d nodes, %d cpus, cpu->node as expected\n", nodes, cpus);
}

static void check_hwloc(int nodes, int cpus) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
    fail("hwloc: cannot load the topology");
    return;
  }
  int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  int ok = 1;
  if (nn != nodes) {
    fail("hwloc: %d NUMA nodes, expected %d", nn, nodes);
    ok = 0;
  }
  if (npu != cpus) {
    fail("hwloc: %d PUs, expected %d", npu, cpus);
    ok = 0;
  }
  for (int i = 0; i < nn; i++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    hwloc_bitmap_t want = hwloc_bitmap_alloc();
    for (int c = 0; c < cpus; c++)
      if (expected_node(c, nodes, cpus) == (int)obj->os_index)
        hwloc_bitmap_set(want, c);
    char *got_s, *want_s;
    hwloc_bitmap_list_asprintf(&got_s, obj->cpuset);
    hwloc_bitmap_list_asprintf(&want_s, want);
    printf("hwloc: NUMA node L#%d P#%u cpuset %s, %llu MiB\n", i, obj->os_index,
           got_s, (unsigned long long)(obj->attr->numanode.local_memory >> 20));
    if (!hwloc_bitmap_isequal(obj->cpuset, want)) {
      fail("hwloc: NUMA node P#%u has cpuset %s, expected %s", obj->os_index,
           got_s, want_s);
      ok = 0;
    }
    free(got_s);
    free(want_s);
    hwloc_bitmap_free(want);
  }
  if (ok)
    printf("hwloc: %d NUMA nodes, %d PUs, cpusets as expected\n", nn, npu);
  hwloc_topology_destroy(topo);
}

static int node_of_addr(void *p) {
  int node = -1;
  if (get_mempolicy(&node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR))
    return -1 - errno;
  return node;
}

static void check_move_pages(int nodes) {
  long page = sysconf(_SC_PAGESIZE);
  enum { SIZE = 4 << 20 };
  unsigned long count = SIZE / page;
  char *buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) {
    fail("mmap: %s", strerror(errno));
    return;
  }
  madvise(buf, SIZE, MADV_NOHUGEPAGE); // page-by-page behaviour, no THP
  memset(buf, 1, SIZE);
  void **pages = malloc(count * sizeof *pages);
  int *target = malloc(count * sizeof *target);
  int *status = malloc(count * sizeof *status);
  for (unsigned long i = 0; i < count; i++)
    pages[i] = buf + i * page;
  // Each node in turn, ending on node 0.
  for (int step = 1; step <= nodes; step++) {
    int node = step % nodes;
    for (unsigned long i = 0; i < count; i++) {
      target[i] = node;
      status[i] = -12345;
    }
    long r = move_pages(0, count, pages, target, status, MPOL_MF_MOVE);
    if (r != 0) {
      fail("move_pages to node %d returned %ld (%s)", node, r,
           r < 0 ? strerror(errno) : "pages not moved");
      continue;
    }
    unsigned long bad_status = 0, bad_policy = 0, bad_query = 0;
    for (unsigned long i = 0; i < count; i++) {
      if (status[i] != node)
        bad_status++;
      if (node_of_addr(pages[i]) != node)
        bad_policy++;
    }
    // A second query through move_pages(nodes == NULL).
    if (move_pages(0, count, pages, NULL, status, 0) != 0)
      bad_query = count;
    else
      for (unsigned long i = 0; i < count; i++)
        if (status[i] != node)
          bad_query++;
    if (bad_status || bad_policy || bad_query)
      fail("move_pages to node %d: %lu pages with wrong status, %lu reported "
           "elsewhere by get_mempolicy, %lu by move_pages query (of %lu; "
           "first page status %d, node %d)",
           node, bad_status, bad_policy, bad_query, count, status[0],
           node_of_addr(pages[0]));
    else
      printf("move_pages: %lu pages to node %d: all on node %d\n", count, node,
             node);
    if (buf[page * (count - 1)] != 1 || buf[0] != 1)
      fail("move_pages to node %d: page contents changed", node);
  }

  // Informational: what this kernel does with PROT_NONE pages (the
  // next-touch runtime relies on it; it is not a pass/fail criterion).
  if (nodes > 1) {
    int other = nodes - 1;
    unsigned long n = count < 64 ? count : 64;
    mprotect(buf, n * page, PROT_NONE);
    for (unsigned long i = 0; i < n; i++)
      target[i] = other;
    long r = move_pages(0, n, pages, target, status, MPOL_MF_MOVE);
    unsigned long moved = 0;
    for (unsigned long i = 0; i < n; i++)
      moved += status[i] == other;
    printf("info: move_pages of %lu PROT_NONE pages to node %d: returned %ld, "
           "%lu moved, first status %d%s\n",
           n, other, r, moved, status[0],
           status[0] == -ENOENT ? " (-ENOENT)" : "");
    unsigned long mask[4] = {0};
    mask[other / (8 * sizeof(long))] |= 1UL << (other % (8 * sizeof(long)));
    r = mbind(buf, n * page, MPOL_BIND, mask, 8 * sizeof mask,
              MPOL_MF_MOVE | MPOL_MF_STRICT);
    int mbind_errno = r ? errno : 0;
    mprotect(buf, n * page, PROT_READ | PROT_WRITE);
    moved = 0;
    for (unsigned long i = 0; i < n; i++)
      moved += node_of_addr(pages[i]) == other;
    printf(
        "info: mbind(MPOL_BIND, MPOL_MF_MOVE|MPOL_MF_STRICT) of %lu PROT_NONE "
        "pages to node %d: returned %ld%s%s, %lu now on node %d\n",
        n, other, r, r ? " errno " : "", r ? strerror(mbind_errno) : "", moved,
        other);
    mbind(buf, n * page, MPOL_DEFAULT, NULL, 0, 0);
  }
  munmap(buf, SIZE);
  free(pages);
  free(target);
  free(status);
}

static void check_numa_balancing(int want) {
  char buf[64];
  if (read_line("/proc/sys/kernel/numa_balancing", buf, sizeof buf)) {
    fail("numa_balancing: cannot read /proc/sys/kernel/numa_balancing");
    return;
  }
  if (atoi(buf) != want)
    fail("numa_balancing: %s, expected %d", buf, want);
  else
    printf("numa_balancing: %d as expected\n", want);
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s NODES CPUS [NUMA_BALANCING]\n", argv[0]);
    return 2;
  }
  int nodes = atoi(argv[1]), cpus = atoi(argv[2]);
  int balancing = argc > 3 ? atoi(argv[3]) : 0;
  if (nodes < 1 || cpus < nodes) {
    fprintf(stderr, "%s: need 1 <= NODES <= CPUS\n", argv[0]);
    return 2;
  }
  printf("numa-vm selftest: expecting %d nodes, %d cpus, numa_balancing %d\n",
         nodes, cpus, balancing);
  struct utsname un;
  if (uname(&un) == 0)
    printf("kernel: %s %s\n", un.sysname, un.release);
  fflush(stdout);
  check_sysfs(nodes, cpus);
  check_libnuma(nodes, cpus);
  check_hwloc(nodes, cpus);
  check_move_pages(nodes);
  check_numa_balancing(balancing);
  if (failures) {
    printf("numa-vm selftest: FAILED (%d problems)\n", failures);
    return 1;
  }
  printf("numa-vm selftest: PASS\n");
  return 0;
}
