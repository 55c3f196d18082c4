/*
 * kmp_nexttouch.cpp -- affinity-on-next-touch at user level.
 *
 * A request names byte ranges.  They wait in a pending list until the next
 * fork of a team of more than one thread; the fork hook then "arms" them:
 * the pages are made inaccessible (mprotect PROT_NONE) and described in a
 * segment table that the SIGSEGV handler reads without locks.  The first
 * access to an armed page faults; the handler claims the page (and, with the
 * adaptive window, the untouched pages that follow it) with a CAS on a
 * per-page state byte, migrates the batch to the NUMA node of the faulting
 * thread, restores the original protection and releases the pages.  Threads
 * faulting on a claimed page wait until it is released.  At the join of the
 * team that armed them, pages nobody touched are disarmed where they are.
 *
 * See docs/NextTouch.rst for the semantics and the design.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#define __KMP_IMP
#include "omp.h" // kmp_nexttouch_counters_t; first, as in kmp_csupport.cpp
#include "kmp_nexttouch.h"
#include "kmp.h"
#include "kmp_i18n.h"
#include "kmp_io.h"
#include "kmp_lock.h"
#include "kmp_settings.h"
#include "kmp_str.h"

#if KMP_OS_LINUX
#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#define NT_SUPPORTED 1
#else
#define NT_SUPPORTED 0
#endif

volatile int __kmp_nexttouch_pending = 0;
volatile int __kmp_nexttouch_armed = 0;

// ---------------------------------------------------------------------------
// Settings (KMP_NEXTTOUCH*)

enum nt_mech_t { NT_MECH_NONE = 0, NT_MECH_MOVE_PAGES = 1, NT_MECH_MBIND = 2 };
enum nt_mech_req_t { NT_REQ_AUTO = 0, NT_REQ_MOVE_PAGES, NT_REQ_MBIND };

extern bool __kmp_env_format; // kmp_settings.cpp: OMP_DISPLAY_ENV style

static int nt_enabled = 1; // KMP_NEXTTOUCH
static int nt_force = 0; // KMP_NEXTTOUCH_FORCE
static int nt_window = 0; // KMP_NEXTTOUCH_WINDOW: 0 adaptive, N fixed pages
static int nt_max_window = 512; // KMP_NEXTTOUCH_MAX_WINDOW (pages)
static int nt_thp = 1; // KMP_NEXTTOUCH_THP
static int nt_mech_req = NT_REQ_AUTO; // KMP_NEXTTOUCH_MECHANISM
static int nt_print_counters = 0; // KMP_NEXTTOUCH_COUNTERS

#define NT_MAX_WINDOW_UNITS 512

static const char *nt_mech_name(int m) {
  return m == NT_MECH_MOVE_PAGES ? "move_pages"
         : m == NT_MECH_MBIND    ? "mbind"
                                 : "none";
}

static void nt_bad_value(char const *name, char const *value,
                         char const *valid) {
  __kmp_msg(kmp_ms_warning, KMP_MSG(StgInvalidValue, name, value),
            __kmp_msg_null);
  (void)valid;
}

static void nt_parse_pages(char const *name, char const *value, int lo,
                           int hi, int *out) {
  char *end;
  long v = strtol(value, &end, 10);
  if (end == value || *end || v < lo || v > hi)
    nt_bad_value(name, value, "a number of pages");
  else
    *out = (int)v;
}

void __kmp_nexttouch_stg_parse(char const *name, char const *value,
                               void *data) {
  (void)data;
  if (!strcmp(name, "KMP_NEXTTOUCH") || !strcmp(name, "KMP_NEXTTOUCH_FORCE") ||
      !strcmp(name, "KMP_NEXTTOUCH_THP") ||
      !strcmp(name, "KMP_NEXTTOUCH_COUNTERS")) {
    int *out = !strcmp(name, "KMP_NEXTTOUCH")         ? &nt_enabled
               : !strcmp(name, "KMP_NEXTTOUCH_FORCE") ? &nt_force
               : !strcmp(name, "KMP_NEXTTOUCH_THP")   ? &nt_thp
                                                      : &nt_print_counters;
    if (__kmp_str_match_true(value))
      *out = 1;
    else if (__kmp_str_match_false(value))
      *out = 0;
    else
      __kmp_msg(kmp_ms_warning, KMP_MSG(BadBoolValue, name, value),
                KMP_HNT(ValidBoolValues), __kmp_msg_null);
  } else if (!strcmp(name, "KMP_NEXTTOUCH_WINDOW")) {
    if (__kmp_str_match("adaptive", 1, value))
      nt_window = 0;
    else
      nt_parse_pages(name, value, 1, NT_MAX_WINDOW_UNITS, &nt_window);
  } else if (!strcmp(name, "KMP_NEXTTOUCH_MAX_WINDOW")) {
    nt_parse_pages(name, value, 1, NT_MAX_WINDOW_UNITS, &nt_max_window);
  } else if (!strcmp(name, "KMP_NEXTTOUCH_MECHANISM")) {
    if (__kmp_str_match("auto", 1, value))
      nt_mech_req = NT_REQ_AUTO;
    else if (__kmp_str_match("move_pages", 1, value))
      nt_mech_req = NT_REQ_MOVE_PAGES;
    else if (__kmp_str_match("mbind", 2, value))
      nt_mech_req = NT_REQ_MBIND;
    else
      nt_bad_value(name, value, "auto, move_pages, mbind");
  }
}

void __kmp_nexttouch_stg_print(kmp_str_buf_t *buffer, char const *name,
                               void *data) {
  (void)data;
  char num[32];
  const char *value;
  if (!strcmp(name, "KMP_NEXTTOUCH"))
    value = nt_enabled ? "TRUE" : "FALSE";
  else if (!strcmp(name, "KMP_NEXTTOUCH_FORCE"))
    value = nt_force ? "TRUE" : "FALSE";
  else if (!strcmp(name, "KMP_NEXTTOUCH_THP"))
    value = nt_thp ? "TRUE" : "FALSE";
  else if (!strcmp(name, "KMP_NEXTTOUCH_COUNTERS"))
    value = nt_print_counters ? "TRUE" : "FALSE";
  else if (!strcmp(name, "KMP_NEXTTOUCH_WINDOW")) {
    if (nt_window)
      KMP_SNPRINTF(num, sizeof num, "%d", nt_window);
    value = nt_window ? num : "adaptive";
  } else if (!strcmp(name, "KMP_NEXTTOUCH_MAX_WINDOW")) {
    KMP_SNPRINTF(num, sizeof num, "%d", nt_max_window);
    value = num;
  } else if (!strcmp(name, "KMP_NEXTTOUCH_MECHANISM"))
    value = nt_mech_req == NT_REQ_MOVE_PAGES ? "move_pages"
            : nt_mech_req == NT_REQ_MBIND    ? "mbind"
                                             : "auto";
  else
    return;
  if (__kmp_env_format) {
    KMP_STR_BUF_PRINT_STR;
  } else {
    __kmp_str_buf_print(buffer, "   %s=%s\n", name, value);
  }
}

// ---------------------------------------------------------------------------
// Counters

static struct {
  kmp_uint64 requests, noop_requests, bad_requests, arms, pages_armed,
      pages_not_present, faults, batches, pages_migrated, pages_already_local,
      pages_disarmed, fail_arm, fail_move_busy, fail_move_nomem,
      fail_move_other, fail_restore, fault_ns;
  kmp_uint64 to_node[KMP_NEXTTOUCH_MAX_NODES];
  kmp_uint64 arm_ns, disarm_ns;
} nt_cnt;

#define NT_ADD(field, v) __atomic_fetch_add(&nt_cnt.field, (v), __ATOMIC_RELAXED)

// ---------------------------------------------------------------------------
// State of the engine

static kmp_bootstrap_lock_t nt_lock =
    KMP_BOOTSTRAP_LOCK_INITIALIZER(nt_lock);
static int nt_initialized = 0;
static int nt_active = 0; // requests are recorded and armed
static int nt_mech = NT_MECH_NONE;
static int nt_num_nodes = 1;
static int nt_ncpus = 0;
static int *nt_cpu_node = NULL; // cpu (OS index) -> NUMA node (OS index)
static long nt_page = 4096;

#if NT_SUPPORTED

// Per-unit state bytes.
#define NT_DONE 0x00 // not armed (never, touched, or disarmed)
#define NT_CLAIMED 0x40 // a thread is migrating / disarming it
#define NT_ARMED 0x80 // armed; low 6 bits: node at arming (0x3f unknown)
#define NT_NODE_UNKNOWN 0x3f

#define NT_MASK_WORDS 16 // nodemask of 1024 nodes for the policy calls
#define NT_MAXNODE (NT_MASK_WORDS * 8 * sizeof(unsigned long))

struct nt_segment {
  uintptr_t base, end; // unit aligned
  unsigned shift; // log2 of the unit: 12 (page) or 21 (THP)
  int prot; // protection to restore
  int pol_mode; // memory policy to restore after mbind
  unsigned long pol_mask[NT_MASK_WORDS];
  kmp_team_t *team; // disarmed at this team's join
  size_t nunits;
  unsigned char *state;
  size_t state_bytes;
};

#define NT_MAX_SEGMENTS 1024
static nt_segment *volatile nt_table[NT_MAX_SEGMENTS];
static volatile int nt_table_hwm = 0;
static volatile int nt_handlers_active = 0;
static volatile kmp_uint64 nt_gen = 1; // bumped at every arm and disarm

struct nt_range {
  uintptr_t start, end; // page aligned, end exclusive
};
static nt_range *nt_pending = NULL;
static int nt_npending = 0, nt_cap_pending = 0;

// The signal handler's per-thread memory.  Initial-exec TLS: an access is
// one %fs-relative load, never __tls_get_addr (whose DTV lives in the heap,
// which a request may have armed).
#define NT_TLS __thread __attribute__((tls_model("initial-exec")))
static NT_TLS nt_segment *nt_tls_seg;
static NT_TLS size_t nt_tls_next;
static NT_TLS int nt_tls_window;
static NT_TLS kmp_uint64 nt_tls_seg_gen;
static NT_TLS uintptr_t nt_tls_last_page;
static NT_TLS kmp_uint64 nt_tls_last_gen;
static NT_TLS int nt_tls_chaining;

static struct sigaction nt_prev_action;
static int nt_handler_installed = 0;

static long nt_move_pages(unsigned long count, void **pages, const int *nodes,
                          int *status, int flags) {
  return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}
static long nt_mbind(void *addr, unsigned long len, int mode,
                     const unsigned long *mask, unsigned long maxnode,
                     unsigned flags) {
  return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}
static long nt_get_mempolicy(int *mode, unsigned long *mask,
                             unsigned long maxnode, void *addr,
                             unsigned long flags) {
  return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

static inline kmp_uint64 nt_now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (kmp_uint64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

// Memory the fault path reads (segments, their state bytes, the cpu -> node
// table) gets mappings of its own: heap memory could share a page with a
// user's range and be armed, and the handler would then fault on itself.
static void *nt_private_alloc(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}
static void nt_private_free(void *p, size_t bytes) { munmap(p, bytes); }

// ---------------------------------------------------------------------------
// Topology and the migration probe

static void nt_topology() {
  nt_num_nodes = 1;
#if KMP_USE_HWLOC
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) == 0) {
    if (hwloc_topology_load(topo) == 0) {
      int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
      int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
      if (n >= 1 && last >= 0 &&
          (nt_cpu_node = (int *)nt_private_alloc(sizeof(int) * (last + 1)))) {
        nt_ncpus = last + 1;
        for (int c = 0; c < nt_ncpus; c++)
          nt_cpu_node[c] = -1;
        for (int i = 0; i < n; i++) {
          hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
          unsigned cpu;
          hwloc_bitmap_foreach_begin(cpu, node->cpuset) {
            if ((int)cpu < nt_ncpus)
              nt_cpu_node[cpu] = (int)node->os_index;
          }
          hwloc_bitmap_foreach_end();
        }
        nt_num_nodes = n;
      }
    }
    hwloc_topology_destroy(topo);
  }
#endif
}

static int nt_node_of_current_cpu() {
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= nt_ncpus || !nt_cpu_node)
    return -1;
  return nt_cpu_node[cpu];
}

// What does the running kernel do with a PROT_NONE page?  move_pages() is
// cheaper and reports per page; on some kernels (6.1) it leaves PROT_NONE
// pages where they are, while mbind(MPOL_MF_MOVE) moves them.
static int nt_probe_mechanism() {
  int result = NT_MECH_NONE;
  char *p = (char *)mmap(NULL, nt_page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NT_MECH_NONE;
  p[0] = 1;
  void *pg = p;
  int status = -1;
  if (nt_move_pages(1, &pg, NULL, &status, 0) == 0 && status >= 0) {
    int here = status, target = -1;
    for (int c = 0; c < nt_ncpus && target < 0; c++)
      if (nt_cpu_node[c] >= 0 && nt_cpu_node[c] != here)
        target = nt_cpu_node[c];
    if (target >= 0) {
      mprotect(p, nt_page, PROT_NONE);
      status = -1;
      long r = nt_move_pages(1, &pg, &target, &status, MPOL_MF_MOVE);
      if (r == 0 && status == target) {
        result = NT_MECH_MOVE_PAGES;
      } else {
        unsigned long mask[NT_MASK_WORDS] = {0};
        mask[target / (8 * sizeof(long))] |= 1UL << (target % (8 * sizeof(long)));
        if (nt_mbind(p, nt_page, MPOL_BIND, mask, NT_MAXNODE,
                     MPOL_MF_MOVE | MPOL_MF_STRICT) == 0) {
          nt_mbind(p, nt_page, MPOL_DEFAULT, NULL, 0, 0);
          mprotect(p, nt_page, PROT_READ | PROT_WRITE);
          status = -1;
          if (nt_move_pages(1, &pg, NULL, &status, 0) == 0 &&
              status == target && p[0] == 1)
            result = NT_MECH_MBIND;
        }
      }
    }
  }
  munmap(p, nt_page);
  return result;
}

static void nt_initialize_locked() {
  if (nt_initialized)
    return;
  nt_page = sysconf(_SC_PAGESIZE);
  if (nt_enabled) {
    nt_topology();
    if (nt_num_nodes > 1)
      nt_mech = nt_probe_mechanism();
    if (nt_mech_req == NT_REQ_MOVE_PAGES)
      nt_mech = NT_MECH_MOVE_PAGES;
    else if (nt_mech_req == NT_REQ_MBIND)
      nt_mech = NT_MECH_MBIND;
    if (nt_force && nt_mech == NT_MECH_NONE)
      nt_mech = NT_MECH_MOVE_PAGES; // nothing to move on one node anyway
    nt_active = nt_force || (nt_num_nodes > 1 && nt_mech != NT_MECH_NONE);
  }
  KMP_MB();
  nt_initialized = 1;
}

static void nt_initialize() {
  if (!__kmp_init_serial)
    __kmp_serial_initialize();
  if (nt_initialized)
    return;
  __kmp_acquire_bootstrap_lock(&nt_lock);
  nt_initialize_locked();
  __kmp_release_bootstrap_lock(&nt_lock);
}

// ---------------------------------------------------------------------------
// /proc/self/maps (the kernel's VMAs: which pages exist, their protection)

struct nt_vma {
  uintptr_t start, end;
  int prot;
  int stack; // the main thread's [stack]
  uintptr_t thp_bytes; // AnonHugePages (read from smaps only when wanted)
};

static uintptr_t nt_hex(const char *&s) {
  uintptr_t v = 0;
  for (;; s++) {
    int c = *s;
    if (c >= '0' && c <= '9')
      v = v * 16 + (c - '0');
    else if (c >= 'a' && c <= 'f')
      v = v * 16 + (c - 'a' + 10);
    else
      return v;
  }
}

// Returns the number of VMAs (or -1) in *out, allocated with __kmp_allocate.
// With `smaps`, /proc/self/smaps is read instead, for AnonHugePages.
static int nt_read_maps(nt_vma **out, int smaps = 0) {
  int fd = open(smaps ? "/proc/self/smaps" : "/proc/self/maps",
                O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t cap = 1 << 16, len = 0;
  char *buf = (char *)__kmp_allocate(cap);
  for (;;) {
    if (len + 4096 > cap) {
      char *nb = (char *)__kmp_allocate(cap * 2);
      memcpy(nb, buf, len);
      __kmp_free(buf);
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + len, cap - len - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    len += r;
  }
  close(fd);
  buf[len] = 0;
  int n = 0, cap_v = 64;
  nt_vma *v = (nt_vma *)__kmp_allocate(sizeof(nt_vma) * cap_v);
  for (const char *s = buf; *s;) {
    const char *eol = strchr(s, '\n');
    if (!eol)
      eol = s + strlen(s);
    if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) {
      // An smaps field of the last VMA ("AnonHugePages:    2048 kB").
      if (n && !strncmp(s, "AnonHugePages:", 14)) {
        const char *t = s + 14;
        while (*t == ' ')
          t++;
        uintptr_t kb = 0;
        while (*t >= '0' && *t <= '9')
          kb = kb * 10 + (*t++ - '0');
        v[n - 1].thp_bytes = kb << 10;
      }
      s = *eol ? eol + 1 : eol;
      continue;
    }
    nt_vma m;
    m.thp_bytes = 0;
    m.start = nt_hex(s);
    if (*s == '-')
      s++;
    m.end = nt_hex(s);
    while (*s == ' ')
      s++;
    m.prot = 0;
    if (eol - s >= 4) {
      if (s[0] == 'r')
        m.prot |= PROT_READ;
      if (s[1] == 'w')
        m.prot |= PROT_WRITE;
      if (s[2] == 'x')
        m.prot |= PROT_EXEC;
    }
    m.stack = 0;
    const char *t = eol;
    while (t > s && t[-1] == ' ')
      t--;
    if (t - s >= 7 && !strncmp(t - 7, "[stack]", 7))
      m.stack = 1;
    if (n == cap_v) {
      nt_vma *nv = (nt_vma *)__kmp_allocate(sizeof(nt_vma) * cap_v * 2);
      memcpy(nv, v, sizeof(nt_vma) * n);
      __kmp_free(v);
      v = nv;
      cap_v *= 2;
    }
    v[n++] = m;
    s = *eol ? eol + 1 : eol;
  }
  __kmp_free(buf);
  *out = v;
  return n;
}

// Can [start, end) be armed?  0, EFAULT (a hole), EACCES (not read-write, or
// executable), EINVAL (the calling thread's or the main thread's stack).
static int nt_check_range(const nt_vma *v, int n, uintptr_t start,
                          uintptr_t end) {
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
  uintptr_t at = start;
  for (int i = 0; i < n && at < end; i++) {
    if (v[i].end <= at)
      continue;
    if (v[i].start > at)
      return EFAULT;
    if ((v[i].prot & (PROT_READ | PROT_WRITE)) != (PROT_READ | PROT_WRITE) ||
        (v[i].prot & PROT_EXEC))
      return EACCES;
    if (v[i].stack || (sp >= v[i].start && sp < v[i].end))
      return EINVAL;
    at = v[i].end;
  }
  return at < end ? EFAULT : 0;
}

// ---------------------------------------------------------------------------
// Requests

static int nt_add_pending(uintptr_t start, uintptr_t end) {
  // Keep the list sorted and disjoint: merge what overlaps or touches.
  int i = 0;
  while (i < nt_npending && nt_pending[i].end < start)
    i++;
  int j = i;
  while (j < nt_npending && nt_pending[j].start <= end) {
    if (nt_pending[j].start < start)
      start = nt_pending[j].start;
    if (nt_pending[j].end > end)
      end = nt_pending[j].end;
    j++;
  }
  // Replace [i, j) by one range.
  if (i == j) {
    if (nt_npending == nt_cap_pending) {
      int cap = nt_cap_pending ? 2 * nt_cap_pending : 16;
      nt_range *n = (nt_range *)__kmp_allocate(sizeof(nt_range) * cap);
      if (!n)
        return ENOMEM;
      if (nt_pending) {
        memcpy(n, nt_pending, sizeof(nt_range) * nt_npending);
        __kmp_free(nt_pending);
      }
      nt_pending = n;
      nt_cap_pending = cap;
    }
    memmove(&nt_pending[i + 1], &nt_pending[i],
            sizeof(nt_range) * (nt_npending - i));
    nt_npending++;
  } else if (j > i + 1) {
    memmove(&nt_pending[i + 1], &nt_pending[j],
            sizeof(nt_range) * (nt_npending - j));
    nt_npending -= j - i - 1;
  }
  nt_pending[i].start = start;
  nt_pending[i].end = end;
  __kmp_nexttouch_pending = 1;
  return 0;
}

// First checks, valid whether or not the engine is active.
static int nt_check_args(void *ptr, size_t len, uintptr_t *pstart,
                         uintptr_t *pend) {
  if (len == 0)
    return -1; // no-op
  if (ptr == NULL)
    return EINVAL;
  uintptr_t p = (uintptr_t)ptr;
  if (len > (size_t)PTRDIFF_MAX || p > UINTPTR_MAX - len ||
      p + len > UINTPTR_MAX - (uintptr_t)nt_page)
    return EOVERFLOW;
  *pstart = p & ~((uintptr_t)nt_page - 1);
  *pend = (p + len + nt_page - 1) & ~((uintptr_t)nt_page - 1);
  return 0;
}

// Requests several ranges; codes[i] receives each one's result.
static int nt_request(int n, void *const *ptrs, const size_t *lens,
                      int *codes) {
  nt_initialize();
  int first = 0;
  nt_vma *vmas = NULL;
  int nvmas = -1;
  __kmp_acquire_bootstrap_lock(&nt_lock);
  for (int i = 0; i < n; i++) {
    uintptr_t start, end;
    int rc = codes[i];
    if (rc == 0) {
      rc = nt_check_args(ptrs[i], lens[i], &start, &end);
      if (rc < 0) {
        codes[i] = 0; // zero length: no-op
        continue;
      }
    }
    if (rc == 0 && !nt_active) {
      NT_ADD(noop_requests, 1);
      codes[i] = 0;
      continue;
    }
    if (rc == 0) {
      if (nvmas < 0)
        nvmas = nt_read_maps(&vmas);
      rc = nvmas < 0 ? ENOMEM : nt_check_range(vmas, nvmas, start, end);
    }
    if (rc == 0)
      rc = nt_add_pending(start, end);
    if (rc == 0)
      NT_ADD(requests, 1);
    else
      NT_ADD(bad_requests, 1);
    codes[i] = rc;
    if (rc && !first)
      first = rc;
  }
  __kmp_release_bootstrap_lock(&nt_lock);
  if (vmas)
    __kmp_free(vmas);
  return first;
}

#endif // NT_SUPPORTED

extern "C" int kmp_nexttouch(void *ptr, size_t len) {
#if NT_SUPPORTED
  int code = 0;
  return nt_request(1, &ptr, &len, &code);
#else
  return len ? ENOSYS : 0;
#endif
}

static const char *nt_errname(int e) {
  switch (e) {
  case EINVAL:
    return "EINVAL (NULL, zero element size, or a thread's stack)";
  case EOVERFLOW:
    return "EOVERFLOW (the length overflows the address space)";
  case EFAULT:
    return "EFAULT (not mapped)";
  case EACCES:
    return "EACCES (not read-write data)";
  case ENOMEM:
    return "ENOMEM (out of memory)";
  default:
    return "error";
  }
}

static int nt_warnings = 0;

static void nt_warn(ident_t *loc, int idx, const kmp_nexttouch_range_t *r,
                    int code) {
  if (__atomic_fetch_add(&nt_warnings, 1, __ATOMIC_RELAXED) >= 20)
    return;
  // psource: ";file;routine;line;column;;"
  char file[256] = "unknown", line[32] = "?", col[32] = "?", rout[128] = "?";
  if (loc && loc->psource) {
    const char *s = loc->psource;
    char *fields[4] = {file, rout, line, col};
    size_t sizes[4] = {sizeof file, sizeof rout, sizeof line, sizeof col};
    if (*s == ';')
      s++;
    for (int f = 0; f < 4 && *s; f++) {
      size_t k = 0;
      while (*s && *s != ';') {
        if (k + 1 < sizes[f])
          fields[f][k++] = *s;
        s++;
      }
      if (k)
        fields[f][k] = 0;
      if (*s == ';')
        s++;
    }
  }
  __kmp_printf("OMP: Warning: nexttouch at %s:%s:%s (%s): range %d "
               "(base %p, %zu elements of %zu bytes) ignored: %s\n",
               file, line, col, rout, idx, r->base, r->count, r->elem_size,
               nt_errname(code));
}

extern "C" kmp_int32 __kmpc_nexttouch(ident_t *loc, kmp_int32 gtid,
                                      kmp_int32 nranges,
                                      const kmp_nexttouch_range_t *ranges) {
  (void)gtid;
  if (nranges <= 0)
    return nranges == 0 ? 0 : EINVAL;
  if (!ranges)
    return EINVAL;
#if NT_SUPPORTED
  enum { CHUNK = 32 };
  int first = 0;
  for (int b = 0; b < nranges; b += CHUNK) {
    int n = nranges - b < CHUNK ? nranges - b : CHUNK;
    void *ptrs[CHUNK];
    size_t lens[CHUNK];
    int codes[CHUNK];
    for (int i = 0; i < n; i++) {
      const kmp_nexttouch_range_t *r = &ranges[b + i];
      size_t bytes = 0;
      codes[i] = 0;
      if (r->count && !r->elem_size)
        codes[i] = EINVAL;
      else if (__builtin_mul_overflow(r->count, r->elem_size, &bytes))
        codes[i] = EOVERFLOW;
      ptrs[i] = r->base;
      lens[i] = bytes;
    }
    nt_request(n, ptrs, lens, codes);
    for (int i = 0; i < n; i++)
      if (codes[i]) {
        nt_warn(loc, b + i, &ranges[b + i], codes[i]);
        if (!first)
          first = codes[i];
      }
  }
  return first;
#else
  return 0;
#endif
}

extern "C" int kmp_get_nexttouch_counters(kmp_nexttouch_counters_t *c) {
  if (!c || c->size < offsetof(kmp_nexttouch_counters_t, requests))
    return EINVAL;
#if NT_SUPPORTED
  nt_initialize();
#endif
  kmp_nexttouch_counters_t t;
  memset(&t, 0, sizeof t);
  t.size = sizeof t;
  t.active = nt_active;
  t.mechanism = nt_active ? nt_mech : 0;
  t.num_nodes = nt_num_nodes;
  t.forced = nt_force;
#define NT_GET(f) t.f = __atomic_load_n(&nt_cnt.f, __ATOMIC_RELAXED)
  NT_GET(requests);
  NT_GET(noop_requests);
  NT_GET(bad_requests);
  NT_GET(arms);
  NT_GET(pages_armed);
  NT_GET(pages_not_present);
  NT_GET(faults);
  NT_GET(batches);
  NT_GET(pages_migrated);
  NT_GET(pages_already_local);
  NT_GET(pages_disarmed);
  NT_GET(fail_arm);
  NT_GET(fail_move_busy);
  NT_GET(fail_move_nomem);
  NT_GET(fail_move_other);
  NT_GET(fail_restore);
  NT_GET(fault_ns);
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    t.migrated_to_node[i] =
        __atomic_load_n(&nt_cnt.to_node[i], __ATOMIC_RELAXED);
  NT_GET(arm_ns);
  NT_GET(disarm_ns);
#undef NT_GET
  size_t n = c->size < sizeof t ? c->size : sizeof t;
  memcpy((char *)c + sizeof(size_t), (char *)&t + sizeof(size_t),
         n - sizeof(size_t));
  return 0;
}

extern "C" void kmp_reset_nexttouch_counters(void) {
  kmp_uint64 *p = (kmp_uint64 *)&nt_cnt;
  for (size_t i = 0; i < sizeof nt_cnt / sizeof *p; i++)
    __atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
}

#if NT_SUPPORTED

// ---------------------------------------------------------------------------
// The fault path (async-signal-safe: no locks, no allocation, no stdio)

static void nt_handler(int sig, siginfo_t *si, void *uc);

static void nt_chain(int sig, siginfo_t *si, void *uc) {
  struct sigaction prev = nt_prev_action;
  if (nt_tls_chaining) // a handler chained back to us: treat as default
    prev.sa_handler = SIG_DFL, prev.sa_flags = 0;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction &&
      prev.sa_sigaction != nt_handler) {
    nt_tls_chaining = 1;
    prev.sa_sigaction(sig, si, uc);
    nt_tls_chaining = 0;
    return;
  }
  if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL &&
      prev.sa_handler != SIG_IGN) {
    nt_tls_chaining = 1;
    prev.sa_handler(sig);
    nt_tls_chaining = 0;
    return;
  }
  // Default action: die by SIGSEGV.  A fault re-executes the instruction
  // once the handler returns; a signal sent with kill() is raised again.
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  if (si->si_code <= 0)
    raise(sig);
}

// Failed moves by reason: [0] busy, [1] out of memory, [2] other.
enum { NT_FAIL_BUSY, NT_FAIL_NOMEM, NT_FAIL_OTHER, NT_FAIL_KINDS };
static int nt_move_error_kind(int err) {
  if (err == EBUSY || err == EAGAIN || err == EIO || err == EPERM)
    return NT_FAIL_BUSY;
  if (err == ENOMEM || err == ENOSPC)
    return NT_FAIL_NOMEM;
  return NT_FAIL_OTHER;
}

static void nt_count_move_errors(const kmp_uint64 *fails) {
  if (fails[NT_FAIL_BUSY])
    NT_ADD(fail_move_busy, fails[NT_FAIL_BUSY]);
  if (fails[NT_FAIL_NOMEM])
    NT_ADD(fail_move_nomem, fails[NT_FAIL_NOMEM]);
  if (fails[NT_FAIL_OTHER])
    NT_ADD(fail_move_other, fails[NT_FAIL_OTHER]);
}

static void nt_count_move_error(int err, kmp_uint64 pages) {
  kmp_uint64 fails[NT_FAIL_KINDS] = {0, 0, 0};
  fails[nt_move_error_kind(err)] = pages;
  nt_count_move_errors(fails);
}

static void nt_count_moved(int node, kmp_uint64 moved) {
  if (!moved)
    return;
  NT_ADD(pages_migrated, moved);
  NT_ADD(to_node[node < KMP_NEXTTOUCH_MAX_NODES ? node
                                                : KMP_NEXTTOUCH_MAX_NODES - 1],
         moved);
}

enum { NT_CHUNK = 32 }; // pages per move_pages call on the fault path

// Collects into pages[] (at most NT_CHUNK) the addresses of the claimed units
// from *i on, of [u, u+n), that were not on `node` when claimed; advances *i.
static int nt_gather(const nt_segment *seg, size_t u, size_t *i, size_t n,
                     const unsigned char *old, int node, void **pages) {
  int k = 0;
  for (; *i < n && k < NT_CHUNK; ++*i)
    if ((old[*i] & NT_NODE_UNKNOWN) != node)
      pages[k++] = (void *)(seg->base + ((u + *i) << seg->shift));
  return k;
}

// Migrate the claimed units [u, u+n) of seg to `node`; old[i] is the state
// each had when it was claimed.  Returns 1 if mbind failed for part of the
// run: nt_fixup() then finishes the job once the pages are accessible.
static int nt_migrate(nt_segment *seg, size_t u, size_t n,
                      const unsigned char *old, int node) {
  kmp_uint64 unit_pages = (kmp_uint64)1 << (seg->shift - 12);
  kmp_uint64 local = 0, want = 0;
  for (size_t i = 0; i < n; i++) {
    int was = old[i] & NT_NODE_UNKNOWN;
    if (node >= 0 && was == node)
      local++;
    else
      want++;
  }
  if (local)
    NT_ADD(pages_already_local, local * unit_pages);
  if (!want || node < 0) {
    if (want)
      NT_ADD(fail_move_other, want * unit_pages);
    return 0;
  }
  kmp_uint64 moved = 0;
  if (nt_mech == NT_MECH_MBIND || seg->shift > 12) {
    // One call for the run: the kernel moves only the pages that are not on
    // `node` already.  It leaves MPOL_BIND behind: restore the range's policy.
    unsigned long mask[NT_MASK_WORDS];
    for (int w = 0; w < NT_MASK_WORDS; w++)
      mask[w] = 0;
    mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
    void *a = (void *)(seg->base + (u << seg->shift));
    size_t len = n << seg->shift;
    long r = nt_mbind(a, len, MPOL_BIND, mask, NT_MAXNODE,
                      MPOL_MF_MOVE | MPOL_MF_STRICT);
    if (r) // a page may be transiently busy (e.g. still in a per-CPU LRU list)
      r = nt_mbind(a, len, MPOL_BIND, mask, NT_MAXNODE,
                   MPOL_MF_MOVE | MPOL_MF_STRICT);
    if (seg->pol_mode == MPOL_DEFAULT)
      nt_mbind(a, len, MPOL_DEFAULT, NULL, 0, 0);
    else
      nt_mbind(a, len, seg->pol_mode, seg->pol_mask, NT_MAXNODE, 0);
    if (r)
      return 1; // which pages moved is only known once they are accessible
    moved = want * unit_pages;
  } else {
    // Per page.  A kernel that does not move PROT_NONE pages says -ENOENT
    // (only if KMP_NEXTTOUCH_MECHANISM forces move_pages there): leave the
    // whole run to nt_fixup(), which counts it once the pages are accessible.
    void *pages[NT_CHUNK];
    int nodes[NT_CHUNK], status[NT_CHUNK];
    for (int j = 0; j < NT_CHUNK; j++)
      nodes[j] = node;
    // Failures are counted at the end: if the run goes to nt_fixup(), it
    // counts them there, once.
    kmp_uint64 fails[NT_FAIL_KINDS] = {0, 0, 0};
    size_t i = 0;
    while (i < n) {
      int k = nt_gather(seg, u, &i, n, old, node, pages);
      if (!k)
        continue;
      long r = nt_move_pages(k, pages, nodes, status, MPOL_MF_MOVE);
      if (r < 0) {
        if (errno == ENOENT)
          return 1;
        fails[NT_FAIL_OTHER] += k;
        continue;
      }
      for (int j = 0; j < k; j++) {
        if (status[j] == node)
          moved++;
        else if (status[j] == -ENOENT)
          return 1;
        else
          fails[nt_move_error_kind(-status[j])]++;
      }
    }
    nt_count_move_errors(fails);
  }
  nt_count_moved(node, moved);
  return 0;
}

// After a failed mbind: the run is accessible again but not yet released to
// other threads' faults.  Ask where each page is, move the others with
// move_pages (which works on accessible pages on every kernel), count.
static void nt_fixup(nt_segment *seg, size_t u, size_t n,
                     const unsigned char *old, int node) {
  void *pages[NT_CHUNK];
  int nodes[NT_CHUNK], status[NT_CHUNK];
  for (int j = 0; j < NT_CHUNK; j++)
    nodes[j] = node;
  kmp_uint64 unit_pages = (kmp_uint64)1 << (seg->shift - 12);
  kmp_uint64 moved = 0;
  size_t i = 0;
  while (i < n) {
    // Units already on `node` were counted as local by nt_migrate().
    int k = nt_gather(seg, u, &i, n, old, node, pages);
    if (!k)
      continue;
    if (nt_move_pages(k, pages, NULL, status, 0) != 0) {
      nt_count_move_error(errno, k * unit_pages);
      continue;
    }
    int m = 0; // keep the pages that are not on `node` yet
    for (int j = 0; j < k; j++) {
      if (status[j] == node)
        moved += unit_pages;
      else
        pages[m++] = pages[j];
    }
    if (!m)
      continue;
    if (nt_move_pages(m, pages, nodes, status, MPOL_MF_MOVE) < 0) {
      nt_count_move_error(errno, m * unit_pages);
      continue;
    }
    for (int j = 0; j < m; j++) {
      if (status[j] == node)
        moved += unit_pages;
      else if (status[j] < 0)
        nt_count_move_error(-status[j], unit_pages);
      else
        NT_ADD(fail_move_other, unit_pages);
    }
  }
  nt_count_moved(node, moved);
}

// Give the claimed units [u, u+n) back their protection.
static void nt_restore(nt_segment *seg, size_t u, size_t n) {
  void *a = (void *)(seg->base + (u << seg->shift));
  if (mprotect(a, n << seg->shift, seg->prot) != 0) {
    // Most likely the VMA limit (vm.max_map_count): open the whole segment;
    // its other armed pages lose next-touch but stay correct.
    mprotect((void *)seg->base, seg->end - seg->base, seg->prot);
    NT_ADD(fail_restore, 1);
  }
}

// Release them: threads waiting in the fault path may go on.
static void nt_done(nt_segment *seg, size_t u, size_t n) {
  for (size_t i = 0; i < n; i++)
    __atomic_store_n(&seg->state[u + i], NT_DONE, __ATOMIC_RELEASE);
}

static void nt_release(nt_segment *seg, size_t u, size_t n) {
  nt_restore(seg, u, n);
  nt_done(seg, u, n);
}

// Returns 1 if the fault was ours (retry the access), 0 to chain.
static int nt_fault(uintptr_t addr) {
  kmp_uint64 gen = __atomic_load_n(&nt_gen, __ATOMIC_ACQUIRE);
  uintptr_t page = addr & ~((uintptr_t)nt_page - 1);
  if (nt_tls_last_page == page && nt_tls_last_gen == gen)
    return 0; // the same fault again: not (or no longer) ours
  nt_tls_last_page = page;
  nt_tls_last_gen = gen;

  __atomic_fetch_add(&nt_handlers_active, 1, __ATOMIC_SEQ_CST);
  nt_segment *seg = NULL;
  int hwm = __atomic_load_n(&nt_table_hwm, __ATOMIC_ACQUIRE);
  for (int i = 0; i < hwm; i++) {
    nt_segment *s = __atomic_load_n(&nt_table[i], __ATOMIC_ACQUIRE);
    if (s && addr >= s->base && addr < s->end) {
      seg = s;
      break;
    }
  }
  if (!seg) {
    __atomic_fetch_sub(&nt_handlers_active, 1, __ATOMIC_SEQ_CST);
    // A segment disarmed since the fault has its protection restored: retry
    // once.  Anything else faults again at the same page and is chained.
    return gen > 1;
  }
  kmp_uint64 t0 = nt_now_ns();
  size_t u = (addr - seg->base) >> seg->shift;
  int spins = 0;
  for (;;) {
    unsigned char s = __atomic_load_n(&seg->state[u], __ATOMIC_ACQUIRE);
    if (s & NT_ARMED) {
      if (!__atomic_compare_exchange_n(&seg->state[u], &s, NT_CLAIMED, false,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        continue;
      // Ours.  Extend the batch over the following untouched units.
      unsigned char old[NT_MAX_WINDOW_UNITS];
      old[0] = s;
      int unit_pages = 1 << (seg->shift - 12);
      int w;
      if (nt_window) {
        w = nt_window;
      } else if (nt_tls_seg == seg && nt_tls_seg_gen == gen &&
                 nt_tls_next == u) {
        w = 2 * nt_tls_window; // streaming on: grow
        if (w > nt_max_window)
          w = nt_max_window;
      } else {
        w = 1;
      }
      size_t wu = (size_t)(w + unit_pages - 1) / unit_pages;
      if (wu > NT_MAX_WINDOW_UNITS)
        wu = NT_MAX_WINDOW_UNITS;
      size_t n = 1;
      while (n < wu && u + n < seg->nunits) {
        unsigned char t = __atomic_load_n(&seg->state[u + n], __ATOMIC_ACQUIRE);
        if (!(t & NT_ARMED) ||
            !__atomic_compare_exchange_n(&seg->state[u + n], &t, NT_CLAIMED,
                                         false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
          break;
        old[n++] = t;
      }
      int node = nt_node_of_current_cpu();
      int fix = nt_migrate(seg, u, n, old, node);
      nt_restore(seg, u, n);
      if (fix)
        nt_fixup(seg, u, n, old, node);
      nt_done(seg, u, n);
      nt_tls_seg = seg;
      nt_tls_seg_gen = gen;
      nt_tls_next = u + n;
      nt_tls_window = w;
      NT_ADD(batches, 1);
      break;
    }
    if (s == NT_CLAIMED) { // another thread migrates it: wait for it
      if (++spins < 1000)
        KMP_CPU_PAUSE();
      else
        sched_yield();
      continue;
    }
    break; // released meanwhile
  }
  NT_ADD(faults, 1);
  NT_ADD(fault_ns, nt_now_ns() - t0);
  __atomic_fetch_sub(&nt_handlers_active, 1, __ATOMIC_SEQ_CST);
  return 1;
}

static void nt_handler(int sig, siginfo_t *si, void *uc) {
  int saved_errno = errno;
  if (sig == SIGSEGV && si && si->si_code == SEGV_ACCERR && !nt_tls_chaining &&
      nt_fault((uintptr_t)si->si_addr)) {
    errno = saved_errno;
    return;
  }
  errno = saved_errno;
  nt_chain(sig, si, uc);
}

// Put our handler first; whatever was there becomes the one we chain to.
static void nt_install_handler() {
  struct sigaction cur;
  if (sigaction(SIGSEGV, NULL, &cur) != 0)
    return;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == nt_handler)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = nt_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  nt_prev_action = cur;
  KMP_MB();
  if (sigaction(SIGSEGV, &sa, NULL) == 0)
    nt_handler_installed = 1;
}

// ---------------------------------------------------------------------------
// Arming and disarming (primary thread of the forking/joining team)

static void nt_free_segment(nt_segment *seg) {
  if (seg->state)
    munmap(seg->state, seg->state_bytes);
  nt_private_free(seg, sizeof(nt_segment));
}

// Arm [start, end) (page aligned, read-write, one VMA's worth at most).
static void nt_arm_piece(uintptr_t start, uintptr_t end, int prot,
                         kmp_team_t *team, void **pages, int *status,
                         unsigned shift) {
  nt_segment *seg = (nt_segment *)nt_private_alloc(sizeof(nt_segment));
  if (!seg) {
    NT_ADD(fail_arm, (end - start) / nt_page);
    return;
  }
  seg->base = start;
  seg->end = end;
  seg->shift = shift;
  seg->prot = prot;
  seg->team = team;
  seg->nunits = (end - start) >> seg->shift;
  seg->state_bytes = (seg->nunits + nt_page - 1) & ~((size_t)nt_page - 1);
  seg->state = (unsigned char *)mmap(NULL, seg->state_bytes,
                                     PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (seg->state == MAP_FAILED) {
    seg->state = NULL;
    NT_ADD(fail_arm, seg->nunits);
    nt_free_segment(seg);
    return;
  }
  seg->pol_mode = MPOL_DEFAULT;
  if (nt_get_mempolicy(&seg->pol_mode, seg->pol_mask, NT_MAXNODE, (void *)start,
                       MPOL_F_ADDR) != 0)
    seg->pol_mode = MPOL_DEFAULT;

  // Where is each page now?  Not populated pages are left alone: their first
  // touch allocates them on the toucher's node anyway.
  enum { CHUNK = 1024 };
  size_t armed = 0, absent = 0;
  for (size_t u = 0; u < seg->nunits; u += CHUNK) {
    size_t k = seg->nunits - u < CHUNK ? seg->nunits - u : CHUNK;
    for (size_t i = 0; i < k; i++) {
      pages[i] = (void *)(start + ((u + i) << seg->shift));
      status[i] = -ENOENT;
    }
    if (nt_move_pages(k, pages, NULL, status, 0) != 0)
      for (size_t i = 0; i < k; i++)
        status[i] = NT_NODE_UNKNOWN;
    for (size_t i = 0; i < k; i++) {
      if (status[i] < 0) {
        seg->state[u + i] = NT_DONE;
        absent++;
      } else {
        int nd = status[i] < NT_NODE_UNKNOWN ? status[i] : NT_NODE_UNKNOWN;
        seg->state[u + i] = (unsigned char)(NT_ARMED | nd);
        armed++;
      }
    }
  }
  NT_ADD(pages_not_present, absent);
  if (!armed) {
    nt_free_segment(seg);
    return;
  }
  // Publish, then protect: a fault always finds its segment.
  int slot = -1;
  for (int i = 0; i < NT_MAX_SEGMENTS; i++)
    if (!nt_table[i]) {
      slot = i;
      break;
    }
  if (slot < 0) {
    NT_ADD(fail_arm, armed);
    nt_free_segment(seg);
    return;
  }
  __atomic_store_n(&nt_table[slot], seg, __ATOMIC_RELEASE);
  if (slot >= nt_table_hwm)
    __atomic_store_n(&nt_table_hwm, slot + 1, __ATOMIC_RELEASE);
  __kmp_nexttouch_armed = 1;
  for (size_t u = 0; u < seg->nunits;) {
    if (!(seg->state[u] & NT_ARMED)) {
      u++;
      continue;
    }
    size_t e = u;
    while (e < seg->nunits && (seg->state[e] & NT_ARMED))
      e++;
    if (mprotect((void *)(start + (u << seg->shift)), (e - u) << seg->shift,
                 PROT_NONE) != 0) {
      for (size_t i = u; i < e; i++)
        seg->state[i] = NT_DONE;
      NT_ADD(fail_arm, e - u);
      armed -= e - u;
    }
    u = e;
  }
  NT_ADD(pages_armed, armed << (seg->shift - 12));
}

#define NT_THP_SHIFT 21

// Arm the part [at, e) of VMA m.  Where the VMA is backed by transparent huge
// pages (its AnonHugePages covers every 2 MB block of it that lies inside the
// range), the aligned 2 MB blocks are armed as units of their own: they are
// protected, migrated (mbind) and released whole, so the kernel keeps them
// huge.  Otherwise 4 KB units; mprotect then splits huge mappings.
static void nt_arm_vma_piece(const nt_vma *m, uintptr_t at, uintptr_t e,
                             kmp_team_t *team, void **pages, int *status) {
  unsigned shift = 12;
  while ((1L << shift) < nt_page)
    shift++;
  uintptr_t huge = (uintptr_t)1 << NT_THP_SHIFT;
  uintptr_t a = (at + huge - 1) & ~(huge - 1), b = e & ~(huge - 1);
  uintptr_t va = (m->start + huge - 1) & ~(huge - 1), vb = m->end & ~(huge - 1);
  if (nt_thp && a < b && vb > va && m->thp_bytes >= vb - va) {
    if (at < a)
      nt_arm_piece(at, a, m->prot, team, pages, status, shift);
    nt_arm_piece(a, b, m->prot, team, pages, status, NT_THP_SHIFT);
    if (b < e)
      nt_arm_piece(b, e, m->prot, team, pages, status, shift);
    return;
  }
  nt_arm_piece(at, e, m->prot, team, pages, status, shift);
}

// Is transparent huge page support on at all (else smaps is not read)?
static int nt_thp_possible() {
  static int possible = -1;
  if (possible < 0) {
    possible = 0;
    int fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
                  O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[128];
      ssize_t r = read(fd, buf, sizeof buf - 1);
      if (r > 0) {
        buf[r] = 0;
        possible = !strstr(buf, "[never]");
      }
      close(fd);
    }
  }
  return possible;
}

void __kmp_nexttouch_fork(ident_t *loc, int gtid, kmp_team_t *team) {
  (void)loc;
  if (!team || team->t.t_nproc <= 1)
    return;
  // The hidden helper team forks once and joins at shutdown: it is not a
  // region of the program, requests wait for the program's next one.
  if (KMP_HIDDEN_HELPER_THREAD(gtid))
    return;
  __kmp_acquire_bootstrap_lock(&nt_lock);
  if (!nt_npending) {
    __kmp_release_bootstrap_lock(&nt_lock);
    return;
  }
  kmp_uint64 t0 = nt_now_ns();
  nt_install_handler();
  // smaps (AnonHugePages) only if some pending range holds a 2 MB block.
  int want_thp = 0;
  if (nt_thp && nt_thp_possible())
    for (int r = 0; r < nt_npending; r++)
      if (nt_pending[r].end - nt_pending[r].start >= (2u << NT_THP_SHIFT))
        want_thp = 1;
  nt_vma *vmas = NULL;
  int nvmas = nt_read_maps(&vmas, want_thp);
  void **pages = (void **)__kmp_allocate(sizeof(void *) * 1024);
  int *status = (int *)__kmp_allocate(sizeof(int) * 1024);
  __atomic_fetch_add(&nt_gen, 1, __ATOMIC_ACQ_REL);
  for (int r = 0; r < nt_npending; r++) {
    uintptr_t start = nt_pending[r].start, end = nt_pending[r].end;
    // Pages armed already (a request inside a region whose ranges are still
    // armed) stay with their segment.
    while (start < end) {
      uintptr_t stop = end;
      int skip = 0;
      for (int i = 0; i < nt_table_hwm; i++) {
        nt_segment *s = nt_table[i];
        if (!s || s->end <= start || s->base >= stop)
          continue;
        if (s->base <= start) {
          skip = 1;
          stop = s->end < stop ? s->end : stop;
        } else {
          stop = s->base;
        }
      }
      if (!skip) {
        // Split the piece along the VMAs.
        uintptr_t at = start;
        for (int i = 0; i < nvmas && at < stop; i++) {
          if (vmas[i].end <= at)
            continue;
          if (vmas[i].start > at) {
            uintptr_t hole = vmas[i].start < stop ? vmas[i].start : stop;
            NT_ADD(fail_arm, (hole - at) / nt_page); // unmapped since
            at = hole;
            if (at >= stop)
              break;
          }
          uintptr_t e = vmas[i].end < stop ? vmas[i].end : stop;
          if ((vmas[i].prot & (PROT_READ | PROT_WRITE)) ==
                  (PROT_READ | PROT_WRITE) &&
              !(vmas[i].prot & PROT_EXEC) && !vmas[i].stack)
            nt_arm_vma_piece(&vmas[i], at, e, team, pages, status);
          else
            NT_ADD(fail_arm, (e - at) / nt_page);
          at = e;
        }
        if (at < stop)
          NT_ADD(fail_arm, (stop - at) / nt_page);
      }
      start = stop;
    }
  }
  nt_npending = 0;
  __kmp_nexttouch_pending = 0;
  NT_ADD(arms, 1);
  __kmp_free(pages);
  __kmp_free(status);
  if (vmas)
    __kmp_free(vmas);
  NT_ADD(arm_ns, nt_now_ns() - t0);
  __kmp_release_bootstrap_lock(&nt_lock);
}

static void nt_disarm_segment(nt_segment *seg) {
  // Claim what is still armed so that no fault migrates it meanwhile, give
  // it its protection back where it is, then release it.
  kmp_uint64 left = 0;
  for (size_t u = 0; u < seg->nunits;) {
    unsigned char s = __atomic_load_n(&seg->state[u], __ATOMIC_ACQUIRE);
    if (!(s & NT_ARMED) ||
        !__atomic_compare_exchange_n(&seg->state[u], &s, NT_CLAIMED, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      u++;
      continue;
    }
    size_t e = u + 1;
    for (; e < seg->nunits; e++) {
      unsigned char t = __atomic_load_n(&seg->state[e], __ATOMIC_ACQUIRE);
      if (!(t & NT_ARMED) ||
          !__atomic_compare_exchange_n(&seg->state[e], &t, NT_CLAIMED, false,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        break;
    }
    left += e - u;
    nt_release(seg, u, e - u);
    u = e;
  }
  NT_ADD(pages_disarmed, left << (seg->shift - 12));
}

void __kmp_nexttouch_join(ident_t *loc, int gtid, kmp_team_t *team) {
  (void)loc;
  (void)gtid;
  __kmp_acquire_bootstrap_lock(&nt_lock);
  kmp_uint64 t0 = nt_now_ns();
  nt_segment *gone[NT_MAX_SEGMENTS > 64 ? 64 : NT_MAX_SEGMENTS];
  int ngone = 0, remaining = 0;
  for (int i = 0; i < nt_table_hwm; i++) {
    nt_segment *s = nt_table[i];
    if (!s)
      continue;
    if (s->team != team) {
      remaining++;
      continue;
    }
    nt_disarm_segment(s);
    __atomic_store_n(&nt_table[i], (nt_segment *)NULL, __ATOMIC_RELEASE);
    if (ngone == 64) { // free in groups
      __atomic_fetch_add(&nt_gen, 1, __ATOMIC_ACQ_REL);
      while (__atomic_load_n(&nt_handlers_active, __ATOMIC_SEQ_CST))
        KMP_CPU_PAUSE();
      for (int j = 0; j < ngone; j++)
        nt_free_segment(gone[j]);
      ngone = 0;
    }
    gone[ngone++] = s;
  }
  if (ngone) {
    __atomic_fetch_add(&nt_gen, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&nt_handlers_active, __ATOMIC_SEQ_CST))
      KMP_CPU_PAUSE();
    for (int j = 0; j < ngone; j++)
      nt_free_segment(gone[j]);
  }
  while (nt_table_hwm > 0 && !nt_table[nt_table_hwm - 1])
    nt_table_hwm--;
  if (!remaining)
    __kmp_nexttouch_armed = 0;
  NT_ADD(disarm_ns, nt_now_ns() - t0);
  __kmp_release_bootstrap_lock(&nt_lock);
}

#else // !NT_SUPPORTED

void __kmp_nexttouch_fork(ident_t *, int, kmp_team_t *) {}
void __kmp_nexttouch_join(ident_t *, int, kmp_team_t *) {}

#endif // NT_SUPPORTED

// ---------------------------------------------------------------------------
// Counters at exit (KMP_NEXTTOUCH_COUNTERS=true)

__attribute__((destructor)) static void nt_print_at_exit() {
  if (!nt_print_counters)
    return;
  kmp_nexttouch_counters_t c;
  c.size = sizeof c;
  if (kmp_get_nexttouch_counters(&c))
    return;
  char nodes[512];
  int len = 0;
  nodes[0] = 0;
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES && len < (int)sizeof nodes - 32;
       i++)
    if (c.migrated_to_node[i])
      len += KMP_SNPRINTF(nodes + len, sizeof nodes - len, " node%d=%llu", i,
                          (unsigned long long)c.migrated_to_node[i]);
  fprintf(stderr,
          "OMP: nexttouch: active=%d mechanism=%s nodes=%d forced=%d\n"
          "OMP: nexttouch: requests=%llu noop_requests=%llu bad_requests=%llu "
          "arms=%llu pages_armed=%llu pages_not_present=%llu\n"
          "OMP: nexttouch: faults=%llu batches=%llu pages_migrated=%llu "
          "pages_already_local=%llu pages_disarmed=%llu\n"
          "OMP: nexttouch: fail_arm=%llu fail_move_busy=%llu "
          "fail_move_nomem=%llu fail_move_other=%llu fail_restore=%llu\n"
          "OMP: nexttouch: fault_path_us=%llu arm_us=%llu disarm_us=%llu "
          "migrated_to:%s\n",
          c.active, nt_mech_name(c.mechanism), c.num_nodes, c.forced,
          (unsigned long long)c.requests, (unsigned long long)c.noop_requests,
          (unsigned long long)c.bad_requests, (unsigned long long)c.arms,
          (unsigned long long)c.pages_armed,
          (unsigned long long)c.pages_not_present,
          (unsigned long long)c.faults, (unsigned long long)c.batches,
          (unsigned long long)c.pages_migrated,
          (unsigned long long)c.pages_already_local,
          (unsigned long long)c.pages_disarmed,
          (unsigned long long)c.fail_arm,
          (unsigned long long)c.fail_move_busy,
          (unsigned long long)c.fail_move_nomem,
          (unsigned long long)c.fail_move_other,
          (unsigned long long)c.fail_restore,
          (unsigned long long)(c.fault_ns / 1000),
          (unsigned long long)(c.arm_ns / 1000),
          (unsigned long long)(c.disarm_ns / 1000), len ? nodes : " none");
}
