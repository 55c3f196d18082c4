/*
 * kmp_pagetrap_counters.cpp -- the page-trap layer: the API over the
 * engines' counters (kmp_get_nexttouch_counters,
 * kmp_reset_nexttouch_counters) and the report at shutdown
 * (KMP_NEXTTOUCH_COUNTERS=true).  Each engine owns its counters and
 * describes them (kmp_pt_counter_set, in its kmp_pt_engine); the header of
 * kmp_nexttouch_counters_t is the layer's state.
 *
 * The engines update their counters with relaxed atomic adds from
 * everywhere, including the signal handler (KMP_PT_COUNT); the functions of
 * this file do not run in a signal handler.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"
#include "kmp_i18n.h"
#include "kmp_str.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

int __kmp_pagetrap_report = FALSE; // KMP_NEXTTOUCH_COUNTERS

// Where the engines' counters start in the public structure: after the
// layer's header, which ends with `forced` (each engine's patch adds its
// counters after it).
static const size_t pt_first = (offsetof(kmp_nexttouch_counters_t, forced) +
                                sizeof(int) + sizeof(kmp_uint64) - 1) &
                               ~(sizeof(kmp_uint64) - 1);

static kmp_uint64 *pt_own(const kmp_pt_counter_set *s, const kmp_pt_counter *c,
                          int k) {
  return (kmp_uint64 *)((char *)s->values + c->own) + k;
}

static kmp_uint64 *pt_pub(kmp_nexttouch_counters_t *t, const kmp_pt_counter *c,
                          int k) {
  return (kmp_uint64 *)((char *)t + c->pub) + k;
}

// Every registered engine's counter in turn: f(set, counter).
template <typename F> static void pt_each_counter(F f) {
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
    const kmp_pt_engine *e =
        __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
    const kmp_pt_counter_set *s = e ? e->counters : NULL;
    for (int i = 0; s && i < s->n; i++)
      f(s, &s->list[i]);
  }
}

#if KMP_DEBUG
// The engines' sets together cover every uint64 of the structure after the
// header exactly once (each engine's patch adds its fields to omp.h).
static void pt_check_sets() {
  static const size_t words =
      (sizeof(kmp_nexttouch_counters_t) - pt_first) / sizeof(kmp_uint64);
  unsigned char seen[sizeof(kmp_nexttouch_counters_t) / sizeof(kmp_uint64)];
  memset(seen, 0, sizeof seen);
  size_t covered = 0;
  pt_each_counter([&](const kmp_pt_counter_set *, const kmp_pt_counter *c) {
    KMP_DEBUG_ASSERT(c->pub >= pt_first && c->count >= 1 &&
                     c->pub % sizeof(kmp_uint64) == 0);
    for (int k = 0; k < c->count; k++) {
      size_t w = (c->pub - pt_first) / sizeof(kmp_uint64) + k;
      KMP_DEBUG_ASSERT(w < words && !seen[w]);
      seen[w] = 1;
      covered++;
    }
  });
  KMP_DEBUG_ASSERT(covered == words || !__kmp_pt_engines[0] ||
                   !__kmp_pt_engines[KMP_PT_MAX_ENGINES - 1]);
}
#endif

// The structure now: the layer's header and every registered engine's
// counters.
static void pt_fill(kmp_nexttouch_counters_t *t) {
  memset(t, 0, sizeof *t);
  t->size = sizeof *t;
  t->active = __kmp_pt_moves;
  t->mechanism = __kmp_pt_moves ? __kmp_pt_mech : 0;
  t->num_nodes = __kmp_pt_num_nodes;
  t->forced = __kmp_pt_forced;
  pt_each_counter([&](const kmp_pt_counter_set *s, const kmp_pt_counter *k) {
    for (int i = 0; i < k->count; i++)
      *pt_pub(t, k, i) = __atomic_load_n(pt_own(s, k, i), __ATOMIC_RELAXED);
  });
}

extern "C" int kmp_get_nexttouch_counters(kmp_nexttouch_counters_t *c) {
  if (!c || c->size < pt_first)
    return EINVAL;
  __kmp_pt_initialize();
#if KMP_DEBUG
  pt_check_sets();
#endif
  kmp_nexttouch_counters_t t;
  pt_fill(&t);
  // A caller built against an older, shorter structure gets its prefix.
  size_t n = c->size < sizeof t ? c->size : sizeof t;
  memcpy((char *)c + sizeof(size_t), (char *)&t + sizeof(size_t),
         n - sizeof(size_t));
  return 0;
}

extern "C" void kmp_reset_nexttouch_counters(void) {
  pt_each_counter([](const kmp_pt_counter_set *s, const kmp_pt_counter *k) {
    for (int i = 0; i < k->count; i++)
      __atomic_store_n(pt_own(s, k, i), 0, __ATOMIC_RELAXED);
  });
}

// At shutdown (__kmp_pagetrap_cleanup), with KMP_NEXTTOUCH_COUNTERS=true:
// one informational message with every counter, in the order of the
// public structure, the per-node arrays last (their nodes with a count).
void __kmp_pt_report() {
  if (!__kmp_pagetrap_report)
    return;
  kmp_nexttouch_counters_t t; // as they are: nothing is initialised now
  pt_fill(&t);
  // The counters by their place in the structure.
  const kmp_pt_counter *order[sizeof t / sizeof(kmp_uint64)];
  memset(order, 0, sizeof order);
  pt_each_counter([&](const kmp_pt_counter_set *, const kmp_pt_counter *k) {
    order[k->pub / sizeof(kmp_uint64)] = k;
  });
  kmp_str_buf_t b;
  __kmp_str_buf_init(&b);
  __kmp_str_buf_print(
      &b, "active=%d mechanism=%s nodes=%d topology=%s forced=%d",
      __kmp_pt_moves, __kmp_pt_mech_name(__kmp_pt_mech), __kmp_pt_num_nodes,
      __kmp_pt_topology_source, __kmp_pt_forced);
  for (int pass = 0; pass < 2; pass++)
    for (size_t w = 0; w < sizeof t / sizeof(kmp_uint64); w++) {
      const kmp_pt_counter *k = order[w];
      if (!k || (k->count > 1) != pass)
        continue;
      if (k->count == 1) {
        __kmp_str_buf_print(&b, " %s=%" KMP_UINT64_SPEC, k->name,
                            *pt_pub(&t, k, 0));
        continue;
      }
      __kmp_str_buf_print(&b, " %s:", k->name);
      int any = 0;
      for (int i = 0; i < k->count; i++)
        if (*pt_pub(&t, k, i)) {
          __kmp_str_buf_print(&b, " node%d=%" KMP_UINT64_SPEC, i,
                              *pt_pub(&t, k, i));
          any = 1;
        }
      if (!any)
        __kmp_str_buf_print(&b, " none");
    }
  KMP_INFORM(PageTrapCounters, b.str);
  __kmp_str_buf_free(&b);
}
