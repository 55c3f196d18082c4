// readonly(list) items in MAP_HUGETLB memory (2-node guest; the test, as
// root there, reserves huge pages through /proc/sys/vm/nr_hugepages).  A
// hugetlb mapping can only be protected in whole huge pages: an item that
// is not aligned to them is served without protection (copied again at
// every region), one that is may be protected whole.  Either way every
// region reads what the program wrote last -- serial writes into the middle
// of huge pages, a pread(2) into an item -- the node without the original
// reads a replica, and nothing crashes.  Next-touch requests there arm
// nothing (fail_arm) and change no data.  "escape": a pointer into the
// replica of an item that covers its base pages whole but could not be
// protected (not aligned to huge pages), kept after the region while the
// program writes the item, stops the program instead of reading stale data.
// REQUIRES: numa-vm, linux
// RUN: %libomp-compile
// RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- env \
// RUN:   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores %t \
// RUN:   | FileCheck %s
// RUN: %not %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- env \
// RUN:   OMP_NUM_THREADS=2 KMP_READONLY_FORCE=1 %t escape 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ESCAPE
// CHECK: guest_readonly_hugetlb: PASS
// ESCAPE: OMP: Error #{{[0-9]+}}: readonly at unknown: list item 0 {{.*}} after the region ended.
// ESCAPE-NOT: NOT REACHED
#include "nexttouch_test.h"
#include <fcntl.h>

#define HUGE (2UL << 20)

static char *items[2], *shadow[2];
static size_t lens[2];

static long region(int *remote) {
  const void *p[2] = {items[0], items[1]};
  kmp_readonly_t h;
  int rc = kmp_readonly_begin(2, p, lens, NULL, &h);
  NT_CHECK(rc == 0, "begin: %d", rc);
  long bad = 0;
  int rem = 0;
#pragma omp parallel reduction(+ : bad, rem)
  for (int i = 0; i < 2; i++) {
    const char *q = (const char *)kmp_readonly_ptr(h, i);
    rem += q != items[i];
    bad += memcmp(q, shadow[i], lens[i]) != 0;
  }
  kmp_readonly_end(h);
  if (remote)
    *remote = rem;
  return bad;
}

static void escape(char *m) {
  char *item = m + 4096; // base pages whole, huge pages not
  size_t len = HUGE / 2;
  memset(item, 1, len);
  const void *p = item;
  kmp_readonly_t h;
  const char *best = NULL;
  for (int r = 0; r < 2; r++) { // the second region: the item is cached
    NT_CHECK(kmp_readonly_begin(1, &p, &len, NULL, &h) == 0, "begin");
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0)
        best = (const char *)kmp_readonly_ptr(h, 0) + 5;
    }
    kmp_readonly_end(h);
  }
  NT_CHECK(best != item + 5, "a replica");
  item[5] = 2; // no fault: the item is not protected
  printf("read %d\n", best[0]);
  printf("NOT REACHED\n");
  fflush(stdout);
  _exit(0);
}

int main(int argc, char **argv) {
  int fd = open("/proc/sys/vm/nr_hugepages", O_WRONLY);
  NT_CHECK(fd >= 0 && write(fd, "8\n", 2) == 2, "reserve huge pages");
  if (fd >= 0)
    close(fd);
  char *m = (char *)mmap(NULL, 4 * HUGE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
  NT_CHECK(m != MAP_FAILED, "MAP_HUGETLB: %d", errno);
  if (m == MAP_FAILED)
    return nt_done("guest_readonly_hugetlb");
  if (argc > 1 && !strcmp(argv[1], "escape"))
    escape(m);
  // Item 0 crosses a huge page boundary at neither end aligned; item 1 is
  // two whole huge pages.
  items[0] = m + HUGE / 2 + 100;
  lens[0] = HUGE + 5000;
  items[1] = m + 2 * HUGE;
  lens[1] = 2 * HUGE;
  for (int i = 0; i < 2; i++) {
    shadow[i] = (char *)malloc(lens[i]);
    for (size_t b = 0; b < lens[i]; b++)
      items[i][b] = shadow[i][b] = (char)(b * 13 + i);
  }
  int tmp = fileno(tmpfile());
  long bad = 0;
  int remote = 0, remote_seen = 0;
  for (int r = 0; r < 12 && !nt_failures; r++) {
    for (int i = 0; i < 2; i++) {
      size_t at = (size_t)(r * 65537 + i * 4099) % lens[i];
      items[i][at] = shadow[i][at] = (char)(r * 3 + i);
    }
    if (r % 4 == 1) { // a kernel write into both items
      char buf[256];
      memset(buf, 'a' + r, sizeof buf);
      NT_CHECK(pwrite(tmp, buf, sizeof buf, 0) == (ssize_t)sizeof buf, "pw");
      for (int i = 0; i < 2; i++) {
        size_t at = (size_t)(r * 7919) % (lens[i] - sizeof buf);
        if (pread(tmp, items[i] + at, sizeof buf, 0) == (ssize_t)sizeof buf)
          memcpy(shadow[i] + at, buf, sizeof buf);
      }
    }
    if (r == 6)
      kmp_nexttouch(items[0], lens[0]);
    bad += region(&remote);
    remote_seen |= remote > 0;
    for (int i = 0; i < 2; i++)
      NT_CHECK(memcmp(items[i], shadow[i], lens[i]) == 0,
               "round %d: item %d differs serially", r, i);
  }
  NT_CHECK(bad == 0, "%ld reads in regions differ from the shadow", bad);
  NT_CHECK(remote_seen, "the node without the original read a replica");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.readonly_replicas > 0, "replicas %llu",
           (unsigned long long)c.readonly_replicas);
  return nt_done("guest_readonly_hugetlb");
}
