/*
 * placement.h -- how well an array is placed: the share of its pages that
 * are on the NUMA node of the thread that works on them under
 * schedule(static).  Call it from serial code; it runs one parallel region.
 * Linux only (move_pages(2) to ask where a page is, getcpu(2) for the
 * thread's node); no library needed.
 */
#ifndef EXAMPLE_PLACEMENT_H
#define EXAMPLE_PLACEMENT_H
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The fraction (0..1) of the pages of a[0:n] (elements of `size` bytes)
   that are on the node of the thread whose static share holds the page's
   first element. */
static double placed_fraction(const void *a, size_t size, size_t n) {
  const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t base = (uintptr_t)a;
  long local = 0, total = 0;
#pragma omp parallel reduction(+ : local, total)
  {
    unsigned cpu = 0, node = 0;
    syscall(SYS_getcpu, &cpu, &node, NULL);
    enum { BATCH = 256 };
    void *pages[BATCH];
    int status[BATCH], k = 0;
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; i++) {
      uintptr_t p = (base + i * size) & ~(pg - 1);
      if (i > 0 && ((base + (i - 1) * size) & ~(pg - 1)) == p)
        continue; /* not the page's first element */
      pages[k++] = (void *)p;
      if (k == BATCH || i + 1 == n) {
        if (syscall(SYS_move_pages, 0, k, pages, NULL, status, 0) == 0)
          for (int j = 0; j < k; j++) {
            total++;
            local += status[j] == (int)node;
          }
        k = 0;
      }
    }
    if (k && syscall(SYS_move_pages, 0, k, pages, NULL, status, 0) == 0)
      for (int j = 0; j < k; j++) {
        total++;
        local += status[j] == (int)node;
      }
  }
  return total ? (double)local / (double)total : 0.0;
}
#endif
