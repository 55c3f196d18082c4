/*
 * kmp_pagetrap_counters.cpp -- the page-trap layer: the counters of both
 * engines, their API (kmp_get_nexttouch_counters,
 * kmp_reset_nexttouch_counters) and the report at shutdown
 * (KMP_NEXTTOUCH_COUNTERS=true).
 *
 * The counters are updated with relaxed atomic adds from everywhere,
 * including the signal handler (KMP_PT_ADD); the functions of this file do
 * not run in a signal handler.
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

// The list in kmp_pagetrap.h names omp.h's counters in their order: each
// name exists, each follows the previous one, and together with the per-node
// array they are all the uint64 fields after `forced`.
#define PT_COUNT(f) +1
enum { pt_ncounters = 0 KMP_PT_FOREACH_COUNTER(PT_COUNT) };
#undef PT_COUNT
static_assert(sizeof(kmp_nexttouch_counters_t) ==
                  offsetof(kmp_nexttouch_counters_t, requests) +
                      sizeof(uint64_t) *
                          (pt_ncounters + KMP_NEXTTOUCH_MAX_NODES),
              "KMP_PT_FOREACH_COUNTER and omp.h disagree");
#define PT_OFFSET(f) offsetof(kmp_nexttouch_counters_t, f),
static const size_t pt_offsets[] = {KMP_PT_FOREACH_COUNTER(PT_OFFSET)};
#undef PT_OFFSET
#define PT_NAME(f) #f,
static const char *const pt_names[] = {KMP_PT_FOREACH_COUNTER(PT_NAME)};
#undef PT_NAME

int __kmp_pagetrap_report = FALSE; // KMP_NEXTTOUCH_COUNTERS

static kmp_uint64 *pt_field(kmp_nexttouch_counters_t *c, int i) {
  return (kmp_uint64 *)((char *)c + pt_offsets[i]);
}

void __kmp_pt_count_moved(int node, kmp_uint64 pages) {
  if (!pages)
    return;
  KMP_PT_ADD(pages_migrated, pages);
  if (node >= KMP_NEXTTOUCH_MAX_NODES)
    node = KMP_NEXTTOUCH_MAX_NODES - 1;
  KMP_PT_ADD(migrated_to_node[node], pages);
}

extern "C" int kmp_get_nexttouch_counters(kmp_nexttouch_counters_t *c) {
  if (!c || c->size < offsetof(kmp_nexttouch_counters_t, requests))
    return EINVAL;
  __kmp_pt_initialize();
  kmp_nexttouch_counters_t t;
  memset(&t, 0, sizeof t);
  t.size = sizeof t;
  t.active = __kmp_pt_moves;
  t.mechanism = __kmp_pt_moves ? __kmp_pt_mech : 0;
  t.num_nodes = __kmp_pt_num_nodes;
  t.forced = __kmp_pt_forced;
  for (int i = 0; i < pt_ncounters; i++)
    *pt_field(&t, i) =
        __atomic_load_n(pt_field(&__kmp_pt_cnt, i), __ATOMIC_RELAXED);
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    t.migrated_to_node[i] =
        __atomic_load_n(&__kmp_pt_cnt.migrated_to_node[i], __ATOMIC_RELAXED);
  // A caller built against an older, shorter structure gets its prefix.
  size_t n = c->size < sizeof t ? c->size : sizeof t;
  memcpy((char *)c + sizeof(size_t), (char *)&t + sizeof(size_t),
         n - sizeof(size_t));
  return 0;
}

extern "C" void kmp_reset_nexttouch_counters(void) {
  for (int i = 0; i < pt_ncounters; i++)
    __atomic_store_n(pt_field(&__kmp_pt_cnt, i), 0, __ATOMIC_RELAXED);
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    __atomic_store_n(&__kmp_pt_cnt.migrated_to_node[i], 0, __ATOMIC_RELAXED);
}

// At shutdown (__kmp_pagetrap_cleanup), with KMP_NEXTTOUCH_COUNTERS=true:
// one informational message with every counter.
void __kmp_pt_report() {
  if (!__kmp_pagetrap_report)
    return;
  kmp_str_buf_t b;
  __kmp_str_buf_init(&b);
  __kmp_str_buf_print(
      &b, "active=%d mechanism=%s nodes=%d topology=%s forced=%d",
      __kmp_pt_moves, __kmp_pt_mech_name(__kmp_pt_mech), __kmp_pt_num_nodes,
      __kmp_pt_topology_source, __kmp_pt_forced);
  for (int i = 0; i < pt_ncounters; i++)
    __kmp_str_buf_print(&b, " %s=%" KMP_UINT64_SPEC, pt_names[i],
                        *pt_field(&__kmp_pt_cnt, i));
  __kmp_str_buf_print(&b, " migrated_to:");
  int any = 0;
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    if (__kmp_pt_cnt.migrated_to_node[i]) {
      __kmp_str_buf_print(&b, " node%d=%" KMP_UINT64_SPEC, i,
                          __kmp_pt_cnt.migrated_to_node[i]);
      any = 1;
    }
  if (!any)
    __kmp_str_buf_print(&b, " none");
  KMP_INFORM(NextTouchCounters, b.str);
  __kmp_str_buf_free(&b);
}
