/*
 * kmp_readonly.cpp -- readonly(list): list items promised read-only by a
 * parallel region are write-protected while it runs, and each NUMA node's
 * threads read them from a replica in their node's memory, kept across
 * regions.  This file: the compiler's entry points (__kmpc_readonly_begin,
 * _ptrs, _end), the user API (kmp_readonly_begin, _ptr, _ptrs, _end,
 * _release), the budget, start-up, the engine's counters (__kmp_ro_cnt,
 * described to the layer), and the hooks the engine registers with the
 * page-trap layer (region start and end are kmp_readonly_region.cpp, the
 * item cache kmp_readonly_items.cpp).
 *
 * None of this file runs in a signal handler (the fault path is
 * kmp_readonly_fault.cpp, the replicas kmp_readonly_replica.cpp).  Locks:
 * __kmp_ro_lock for the item table; no other engine's lock is taken while
 * it is held (kmp_pagetrap.cpp says in which order they nest).  See
 * docs/Design.rst.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_readonly.h"
#include "kmp_i18n.h"
#include "kmp_str.h"

#include <errno.h>
#include <string.h>
#if KMP_PAGETRAP_SUPPORTED
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

// Settings (kmp_settings.cpp parses and prints them).
int __kmp_readonly = TRUE; // KMP_READONLY
int __kmp_readonly_force = FALSE; // KMP_READONLY_FORCE
int __kmp_readonly_writes = kmp_readonly_writes_fatal; // KMP_READONLY_WRITES
size_t __kmp_readonly_budget = KMP_READONLY_BUDGET_AUTO; // KMP_READONLY_BUDGET
int __kmp_readonly_written_bits = TRUE; // KMP_READONLY_WRITTEN_BITS

#if KMP_PAGETRAP_SUPPORTED
// ---------------------------------------------------------------------------
// KMP_READONLY_BUDGET=auto: a quarter of the memory this process may use --
// the machine's, or its memory cgroup's limit where that is lower (a batch
// job's, a container's) -- shared by the MPI ranks on the node, as their
// launchers say (the local-size variables).  Worked out once.

// Does the comma-separated list s (up to end) hold the word w?
static int ro_has_word(const char *s, const char *end, const char *w) {
  size_t n = strlen(w);
  for (const char *p = s; p < end;) {
    const char *q = p;
    while (q < end && *q != ',')
      q++;
    if ((size_t)(q - p) == n && strncmp(p, w, n) == 0)
      return 1;
    p = q + 1;
  }
  return 0;
}

// A limit file's value: 0 for none ("max"; cgroup v1 says none with a
// number near 2^63).
static size_t ro_limit_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  unsigned long long v = 0;
  int ok = fscanf(f, "%llu", &v) == 1;
  fclose(f);
  return ok && v < (1ULL << 62) ? (size_t)v : 0;
}

// The lowest limit in `file` from the cgroup `path` of the hierarchy
// mounted at `mnt` (whose root is `root`) up to that mount; 0 if none.
static size_t ro_limit_up(const char *path, const char *root, const char *mnt,
                          const char *file) {
  size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
  if (rl && (strncmp(path, root, rl) != 0 || (path[rl] && path[rl] != '/')))
    return 0; // outside the part of the hierarchy mounted here
  char dir[PATH_MAX];
  size_t ml = strlen(mnt);
  if (snprintf(dir, sizeof dir, "%s%s", mnt, path + rl) >= (int)sizeof dir)
    return 0;
  size_t best = 0;
  for (;;) {
    char f[PATH_MAX + 32];
    snprintf(f, sizeof f, "%s/%s", dir, file);
    size_t v = ro_limit_file(f);
    if (v && (!best || v < best))
      best = v;
    char *slash = strrchr(dir, '/');
    if (!slash || (size_t)(slash - dir) < ml)
      break;
    *slash = 0;
  }
  return best;
}

static size_t ro_cgroup_limit() {
  // /proc/self/cgroup: "0::/path" (v2), "N:a,memory,b:/path" (v1).
  char v2[PATH_MAX] = "", v1[PATH_MAX] = "", line[PATH_MAX + 64];
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f)
    return 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2 || strlen(c2 + 1) >= PATH_MAX)
      continue;
    if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1)
      strcpy(v2, c2 + 1);
    else if (ro_has_word(c1 + 1, c2, "memory"))
      strcpy(v1, c2 + 1);
  }
  fclose(f);
  // /proc/self/mountinfo: "id parent dev root mountpoint opts ... - type
  // source superopts".
  size_t best = 0;
  f = fopen("/proc/self/mountinfo", "r");
  if (!f)
    return 0;
  while (fgets(line, sizeof line, f)) {
    char root[PATH_MAX], mnt[PATH_MAX], type[32], opts[256];
    const char *sep = strstr(line, " - ");
    if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
        sscanf(sep + 3, "%31s %*s %255s", type, opts) != 2)
      continue;
    size_t v = 0;
    if (v2[0] && strcmp(type, "cgroup2") == 0)
      v = ro_limit_up(v2, root, mnt, "memory.max");
    else if (v1[0] && strcmp(type, "cgroup") == 0 &&
             ro_has_word(opts, opts + strlen(opts), "memory"))
      v = ro_limit_up(v1, root, mnt, "memory.limit_in_bytes");
    if (v && (!best || v < best))
      best = v;
  }
  fclose(f);
  return best;
}

// Slurm's tasks per node of a step, "2(x3),1": node `node`'s count.
static int ro_slurm_tasks(const char *list, int node) {
  for (const char *p = list; *p;) {
    char *e;
    long n = strtol(p, &e, 10), rep = 1;
    if (e == p || n <= 0)
      return 0;
    if (strncmp(e, "(x", 2) == 0) {
      rep = strtol(e + 2, &e, 10);
      if (rep <= 0 || *e != ')')
        return 0;
      e++;
    }
    if (node < rep)
      return (int)n;
    node -= (int)rep;
    if (*e != ',')
      return 0;
    p = e + 1;
  }
  return 0;
}

// Ranks on this node, as the launcher says (1 if none does); *from: the
// variable.
static int ro_local_ranks(const char **from) {
  static const char *const vars[] = {
      "OMPI_COMM_WORLD_LOCAL_SIZE", // Open MPI
      "MPI_LOCALNRANKS", // MPICH's and Intel MPI's Hydra
      "MV2_COMM_WORLD_LOCAL_SIZE", // MVAPICH
      "PALS_LOCAL_SIZE", // HPE Cray PALS
  };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    long n = v ? strtol(v, NULL, 10) : 0;
    if (n > 0 && n < (1 << 20)) {
      *from = vars[i];
      return (int)n;
    }
  }
  const char *tasks = getenv("SLURM_STEP_TASKS_PER_NODE"),
             *node = getenv("SLURM_NODEID");
  int n = tasks && node ? ro_slurm_tasks(tasks, atoi(node)) : 0;
  if (n > 0) {
    *from = "SLURM_STEP_TASKS_PER_NODE";
    return n;
  }
  *from = NULL;
  return 1;
}

struct kmp_ro_budget_auto {
  size_t bytes; // the budget
  size_t memory; // what it is a quarter of
  int cgroup; // memory is the cgroup's limit
  int ranks; // that share it
  const char *ranks_from; // the variable that says so (NULL: none)
};

// Worked out once and kept; a thread that asks while another works it out
// (or in a child forked meanwhile) works it out for itself: no lock.
static kmp_ro_budget_auto ro_budget_auto() {
  static kmp_ro_budget_auto a;
  static volatile int state; // 0: not yet, 1: being worked out, 2: in a
  if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2)
    return a;
  kmp_ro_budget_auto b = {0, (size_t)1 << 32, 0, 1, NULL};
  long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pg > 0)
    b.memory = (size_t)pages * (size_t)pg;
  size_t cg = ro_cgroup_limit();
  if (cg && cg < b.memory) {
    b.memory = cg;
    b.cgroup = 1;
  }
  b.ranks = ro_local_ranks(&b.ranks_from);
  b.bytes = b.memory / 4 / (size_t)b.ranks;
  if (b.bytes >= ((size_t)1 << 20)) // whole MiB, as a person would say it
    b.bytes &= ~(((size_t)1 << 20) - 1);
  int idle = 0;
  if (__atomic_compare_exchange_n(&state, &idle, 1, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    a = b;
    __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
  }
  return b;
}

#endif // KMP_PAGETRAP_SUPPORTED

size_t __kmp_readonly_budget_bytes(void) {
  if (__kmp_readonly_budget != KMP_READONLY_BUDGET_AUTO)
    return __kmp_readonly_budget;
#if KMP_PAGETRAP_SUPPORTED
  return ro_budget_auto().bytes;
#else
  return (size_t)1 << 30;
#endif
}

void __kmp_readonly_budget_describe(kmp_str_buf_t *buf) {
#if KMP_PAGETRAP_SUPPORTED
  if (__kmp_readonly_budget != KMP_READONLY_BUDGET_AUTO) {
    __kmp_str_buf_print_size(buf, __kmp_readonly_budget);
    return;
  }
  kmp_ro_budget_auto a = ro_budget_auto();
  __kmp_str_buf_print(buf, "auto: ");
  __kmp_str_buf_print_size(buf, a.bytes);
  __kmp_str_buf_print(buf, " (a quarter of ");
  __kmp_str_buf_print_size(buf, a.memory);
  // No apostrophe: OMP_DISPLAY_ENV quotes the value with them.
  __kmp_str_buf_print(buf, a.cgroup ? ", the limit of its memory cgroup"
                                    : ", the memory of the machine");
  if (a.ranks > 1)
    __kmp_str_buf_print(buf, ", shared by %d ranks on the node (%s)", a.ranks,
                        a.ranks_from);
  __kmp_str_buf_print(buf, ")");
#else
  __kmp_str_buf_print_size(buf, __kmp_readonly_budget_bytes());
#endif
}

kmp_bootstrap_lock_t __kmp_ro_lock =
    KMP_BOOTSTRAP_LOCK_INITIALIZER(__kmp_ro_lock);

#if KMP_PAGETRAP_SUPPORTED

static int ro_ready = 0;
kmp_uint64 __kmp_ro_forks = 0;

// ---------------------------------------------------------------------------
// Start-up: the messages of the fault path; fork(2)

static char *ro_concat(kmp_msg_t a, kmp_msg_t b) {
  char *s = (char *)__kmp_pt_private_alloc(a.len + b.len + 1);
  if (s) {
    memcpy(s, a.str, a.len);
    memcpy(s + a.len, b.str, b.len);
    s[a.len + b.len] = 0;
  }
  __kmp_str_free(&a.str);
  __kmp_str_free(&b.str);
  return s;
}

// The catalog's text with its "%N$s" left in for the fault path to fill.
static void ro_prepare_messages() {
  kmp_msg_t m = KMP_MSG(ReadonlyWrite, "%1$s", "%2$s", "%3$s", "%4$s");
  kmp_msg_t h = KMP_HNT(ReadonlyWrites);
  kmp_msg_t f = __kmp_msg_format(kmp_i18n_fmt_Fatal, m.num, m.str);
  kmp_msg_t fh = __kmp_msg_format(kmp_i18n_fmt_Hint, h.str);
  __kmp_str_free(&m.str);
  __kmp_str_free(&h.str);
  __kmp_ro_msg_fatal = ro_concat(f, fh);
  kmp_msg_t w = KMP_MSG(ReadonlyWriteWarn, "%1$s", "%2$s", "%3$s", "%4$s");
  kmp_msg_t fw = __kmp_msg_format(kmp_i18n_fmt_Warning, w.num, w.str);
  __kmp_str_free(&w.str);
  kmp_msg_t none = {kmp_mt_dummy, 0, __kmp_str_format("%s", ""), 0};
  __kmp_ro_msg_warn = ro_concat(fw, none);
  // A pointer into a copy used after its region, or after it was dropped.
  kmp_i18n_id_t ids[2] = {kmp_i18n_msg_ReadonlyStaleCopy,
                          kmp_i18n_msg_ReadonlyDroppedCopy};
  const char **out[2] = {&__kmp_ro_msg_stale, &__kmp_ro_msg_dropped};
  for (int i = 0; i < 2; i++) {
    kmp_msg_t p = __kmp_msg_format(ids[i], "%1$s", "%2$s", "%3$s", "%4$s");
    kmp_msg_t ph = KMP_HNT(ReadonlyPointers);
    kmp_msg_t pf = __kmp_msg_format(kmp_i18n_fmt_Fatal, p.num, p.str);
    kmp_msg_t pfh = __kmp_msg_format(kmp_i18n_fmt_Hint, ph.str);
    __kmp_str_free(&p.str);
    __kmp_str_free(&ph.str);
    *out[i] = ro_concat(pf, pfh);
  }
}

static void ro_atfork(int phase) {
  if (phase == 0) {
    __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
    __kmp_acquire_bootstrap_lock(&__kmp_ro_copies_lock);
    return;
  }
  if (phase == 1) {
    __kmp_release_bootstrap_lock(&__kmp_ro_copies_lock);
    __kmp_release_bootstrap_lock(&__kmp_ro_lock);
    return;
  }
  // The child's only thread: preparations and openings of absent threads
  // are forgotten (a chunk half opened is opened).  The regions running at
  // the fork do not run in the child, whose memory is its own: their items
  // are no longer in use (a write by the child is a serial write), their
  // replicas are the child's to write (the thread that forked may be in the
  // region's code, reading one), and their ends in the child change nothing.
  __kmp_ro_forks++;
  __kmp_ro_copies.atfork_child();
  __kmp_init_bootstrap_lock(&__kmp_ro_copies_lock);
  for (int i = 0; i < __kmp_ro_table.size(); i++) {
    kmp_ro_item *it = __kmp_ro_table.at(i);
    __kmp_ro_replicas_atfork_child(it);
    // The parent's written bits are not the child's: tracked again at the
    // item's next region start (__kmp_ro_enter), not here (a child that
    // execs or exits pays nothing).
    if (it->tracked)
      it->tracked = KMP_RO_RETRACK;
    for (size_t c = 0; c < it->nchunks; c++)
      if (it->chunks[c] == KMP_RO_OPENING) {
        it->chunks[c] = KMP_RO_CLOSED;
        __kmp_ro_open_chunks(it, c, c + 1);
      }
    if (__kmp_ro_in_use(it)) {
      it->users = 0;
      __kmp_ro_replicas_disown(it);
      if (it->kind & KMP_RO_NOKEEP) // as at the end of its region
        __kmp_ro_open_chunks(it, 0, it->nchunks);
    }
  }
  __kmp_ro_lists_idle();
  __kmp_ro_table.atfork_child();
  __kmp_init_bootstrap_lock(&__kmp_ro_lock);
}

// Once, before the first item, without __kmp_ro_lock.
void __kmp_ro_initialize() {
  __kmp_pt_initialize(); // page size, topology
  if (TCR_4(ro_ready))
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  if (!ro_ready) {
    ro_prepare_messages();
    TCW_4(ro_ready, 1);
  }
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
}

// ---------------------------------------------------------------------------
// The hooks the engine registers

// Another engine takes [start, end) (a next-touch request): the cached items
// there that no region uses are dropped; EBUSY if a running region lists
// one.  (A change of the mapping by the program goes to
// __kmp_ro_mapping_change instead.)
static int ro_yield(uintptr_t start, uintptr_t end) {
  if (!__kmp_ro_live() || start >= end)
    return 0;
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  // Only the pages the items cover whole are the engine's: the next-touch
  // engine may take the pages an item shares with other data.
  int rc = __kmp_ro_release(start, end, 1);
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
  return rc;
}

static int ro_buffer(uintptr_t a, uintptr_t e, int into) {
  return into ? __kmp_ro_io_write(a, e) : 0;
}

// The items', the replicas' and the graves' mappings.
static int ro_private_ranges(kmp_pt_range *out, int max) {
  int k = 0;
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  // Counts what does not fit: the layer asks again with room for it.
  auto add = [&](uintptr_t lo, uintptr_t hi) {
    if (k < max)
      out[k] = {lo, hi};
    k++;
  };
  if (__kmp_ro_graves) {
    size_t pg = (size_t)__kmp_pt_page;
    add((uintptr_t)__kmp_ro_graves,
        (uintptr_t)__kmp_ro_graves +
            ((sizeof(kmp_ro_grave) * KMP_RO_GRAVES + pg - 1) & ~(pg - 1)));
  }
  // The pool of items, the replicas' mappings, the two indexes' arrays.
  k += __kmp_ro_pool_ranges(out + (k < max ? k : max), k < max ? max - k : 0);
  __kmp_ro_copies.enter();
  const kmp_pt_index<kmp_ro_copy>::snap *copies = __kmp_ro_copies.get();
  for (int i = 0; copies && i < copies->n; i++)
    add(copies->e[i]->base, copies->e[i]->end);
  __kmp_ro_copies.leave();
  kmp_pt_range arrays[4];
  for (int i = 0, n = __kmp_ro_table.ranges(arrays); i < n; i++)
    add(arrays[i].start, arrays[i].end);
  __kmp_acquire_bootstrap_lock(&__kmp_ro_copies_lock);
  for (int i = 0, n = __kmp_ro_copies.ranges(arrays); i < n; i++)
    add(arrays[i].start, arrays[i].end);
  __kmp_release_bootstrap_lock(&__kmp_ro_copies_lock);
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
  return k;
}

// Shutdown: every item is dropped (protection restored, replicas freed).
static void ro_cleanup() {
  if (!TCR_4(ro_ready))
    return;
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  for (int i = 0; i < __kmp_ro_table.size(); i++)
    __kmp_ro_table.at(i)->users = 0; // no region runs any more
  __kmp_ro_lists_idle();
  __kmp_ro_release(0, 0, 0);
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
}

kmp_ro_counters __kmp_ro_cnt;

#define RO_COUNTER(f) KMP_PT_COUNTER(kmp_ro_counters, f),
static const kmp_pt_counter ro_counter_list[] = {
    KMP_RO_FOREACH_COUNTER(RO_COUNTER)};
#undef RO_COUNTER
static const kmp_pt_counter_set ro_counters = {
    &__kmp_ro_cnt, ro_counter_list,
    (int)(sizeof ro_counter_list / sizeof ro_counter_list[0])};

static const kmp_pt_engine ro_engine = {
    &__kmp_readonly,
    &__kmp_readonly_force,
    /*mechanism=*/NULL, // replicas are bound, not moved
    __kmp_ro_fault,
    ro_buffer,
    __kmp_ro_forced_write,
    __kmp_ro_file_write,
    __kmp_ro_mapping_change,
    ro_yield,
    ro_private_ranges,
    ro_atfork,
    ro_cleanup,
    &ro_counters,
};

int __kmp_ro_engine_id = KMP_PT_NO_ENGINE;

// While libomp initialises, before the engine's lock is ever taken: fork(2)
// takes the locks of the registered engines.  Before next-touch: the layer
// asks readonly first about a system call's buffer, since it may refuse the
// call (EFAULT) before next-touch touches the buffer.
void __kmp_readonly_register() {
  __kmp_ro_engine_id = __kmp_pt_register(&ro_engine);
}

#else

void __kmp_readonly_register() {}

#endif // KMP_PAGETRAP_SUPPORTED

// ---------------------------------------------------------------------------
// The compiler's entry points

static kmp_i18n_id_t ro_reason(int e) {
  switch (e) {
  case EINVAL:
    return kmp_i18n_str_ReadonlyEINVAL;
  case EOVERFLOW:
    return kmp_i18n_str_NextTouchEOVERFLOW;
  case EFAULT:
    return kmp_i18n_str_NextTouchEFAULT;
  case EACCES:
    return kmp_i18n_str_ReadonlyEACCES;
  case EBUSY:
    return kmp_i18n_str_ReadonlyEBUSY;
  default:
    return kmp_i18n_str_NextTouchENOMEM;
  }
}

void *__kmpc_readonly_begin(ident_t *loc, kmp_int32 gtid, kmp_int32 nitems,
                            const kmp_memory_range_t *items,
                            const char *const *names) {
  (void)gtid;
  int n = nitems > 0 && items ? nitems : 0;
  void **ptrs = (void **)__kmp_allocate(
      (sizeof(void *) + sizeof(size_t) + sizeof(char *) + sizeof(int)) *
      (n ? n : 1));
  size_t *lens = (size_t *)(ptrs + (n ? n : 1));
  const char **name = (const char **)(lens + (n ? n : 1));
  int *codes = (int *)(name + (n ? n : 1));
  for (int i = 0; i < n; i++) {
    ptrs[i] = items[i].base;
    name[i] = names ? names[i] : NULL;
    codes[i] =
        __kmp_pt_item_bytes(items[i].count, items[i].elem_size, &lens[i]);
  }
  kmp_readonly_region *h = __kmp_ro_begin(loc, n, ptrs, lens, name, codes);
  // One warning per item that is read from the original without protection.
  static volatile int warnings = 0;
  for (int i = 0; i < n; i++)
    if (codes[i])
      __kmp_pt_warn_item(&warnings, kmp_i18n_msg_ReadonlyItemIgnored, loc, i,
                         name[i], items[i].base, items[i].count,
                         items[i].elem_size, ro_reason(codes[i]));
  __kmp_free(ptrs);
  return h;
}

void **__kmpc_readonly_ptrs(ident_t *loc, kmp_int32 gtid, void *handle) {
  (void)loc;
  (void)gtid;
  kmp_readonly_region *h = (kmp_readonly_region *)handle;
  static void *none[1];
  if (!h) // never from __kmpc_readonly_begin: no items
    return none;
  return __kmp_ro_ptrs(h);
}

void __kmpc_readonly_end(ident_t *loc, kmp_int32 gtid, void *handle) {
  (void)loc;
  (void)gtid;
  if (handle)
    __kmp_ro_end((kmp_readonly_region *)handle);
}

// ---------------------------------------------------------------------------
// The user API (omp.h)

extern "C" int kmp_readonly_begin(int n, const void *const *ptrs,
                                  const size_t *lens, const char *const *names,
                                  kmp_readonly_t *handle) {
  if (!handle)
    return EINVAL;
  *handle = NULL;
  if (n < 0 || (n > 0 && (!ptrs || !lens)))
    return EINVAL;
  int *codes = (int *)__kmp_allocate(sizeof(int) * (n ? n : 1));
  kmp_readonly_region *h =
      __kmp_ro_begin(NULL, n, (void *const *)ptrs, lens, names, codes);
  int first = __kmp_ro_first_code(codes, n);
  __kmp_free(codes);
  *handle = h;
  return first;
}

extern "C" const void *kmp_readonly_ptr(kmp_readonly_t h, int i) {
  return __kmp_ro_ptr(h, i);
}

extern "C" const void *const *kmp_readonly_ptrs(kmp_readonly_t h) {
  return (const void *const *)__kmp_ro_node_ptrs(h);
}

extern "C" int kmp_readonly_end(kmp_readonly_t h) {
  if (!h)
    return EINVAL;
  __kmp_ro_end(h);
  return 0;
}

extern "C" int kmp_readonly_release(const void *ptr, size_t len) {
  uintptr_t p = (uintptr_t)ptr, s, e;
  if (ptr || len) {
    int rc = __kmp_pt_check_args(ptr, len, &s, &e);
    if (rc)
      return rc < 0 ? 0 : rc;
  }
#if KMP_PAGETRAP_SUPPORTED
  if (!TCR_4(ro_ready))
    return 0;
  __kmp_acquire_bootstrap_lock(&__kmp_ro_lock);
  int rc = __kmp_ro_release(p, p + len, 0);
  __kmp_release_bootstrap_lock(&__kmp_ro_lock);
  return rc;
#else
  return 0;
#endif
}
