/*
 * kmp_nexttouch_counters.cpp -- affinity-on-next-touch: the counters, their
 * API (kmp_get_nexttouch_counters, kmp_reset_nexttouch_counters) and the
 * report at shutdown (KMP_NEXTTOUCH_COUNTERS=true).
 *
 * The counters are updated with relaxed atomic adds from everywhere,
 * including the signal handler (KMP_NT_ADD); the functions of this file do
 * not run in a signal handler.
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_nexttouch.h"
#include "kmp_i18n.h"
#include "kmp_str.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

kmp_nexttouch_counters_t __kmp_nt_cnt;

// The list in kmp_nexttouch.h names omp.h's counters in their order: each
// name exists, each follows the previous one, and together with the per-node
// array they are all the uint64 fields after `forced`.
#define NT_COUNT(f) +1
enum { nt_ncounters = 0 KMP_NEXTTOUCH_FOREACH_COUNTER(NT_COUNT) };
#undef NT_COUNT
static_assert(sizeof(kmp_nexttouch_counters_t) ==
                  offsetof(kmp_nexttouch_counters_t, requests) +
                      sizeof(uint64_t) *
                          (nt_ncounters + KMP_NEXTTOUCH_MAX_NODES),
              "KMP_NEXTTOUCH_FOREACH_COUNTER and omp.h disagree");
#define NT_OFFSET(f) offsetof(kmp_nexttouch_counters_t, f),
static const size_t nt_offsets[] = {KMP_NEXTTOUCH_FOREACH_COUNTER(NT_OFFSET)};
#undef NT_OFFSET
#define NT_NAME(f) #f,
static const char *const nt_names[] = {KMP_NEXTTOUCH_FOREACH_COUNTER(NT_NAME)};
#undef NT_NAME

static kmp_uint64 *nt_field(kmp_nexttouch_counters_t *c, int i) {
  return (kmp_uint64 *)((char *)c + nt_offsets[i]);
}

void __kmp_nt_count_moved(int node, kmp_uint64 pages) {
  if (!pages)
    return;
  KMP_NT_ADD(pages_migrated, pages);
  if (node >= KMP_NEXTTOUCH_MAX_NODES)
    node = KMP_NEXTTOUCH_MAX_NODES - 1;
  KMP_NT_ADD(migrated_to_node[node], pages);
}

extern "C" int kmp_get_nexttouch_counters(kmp_nexttouch_counters_t *c) {
  if (!c || c->size < offsetof(kmp_nexttouch_counters_t, requests))
    return EINVAL;
  __kmp_nt_initialize();
  kmp_nexttouch_counters_t t;
  memset(&t, 0, sizeof t);
  t.size = sizeof t;
  t.active = __kmp_nt_active;
  t.mechanism = __kmp_nt_active ? __kmp_nt_mech : 0;
  t.num_nodes = __kmp_nt_num_nodes;
  t.forced = __kmp_nexttouch_force;
  for (int i = 0; i < nt_ncounters; i++)
    *nt_field(&t, i) =
        __atomic_load_n(nt_field(&__kmp_nt_cnt, i), __ATOMIC_RELAXED);
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    t.migrated_to_node[i] =
        __atomic_load_n(&__kmp_nt_cnt.migrated_to_node[i], __ATOMIC_RELAXED);
  // A caller built against an older, shorter structure gets its prefix.
  size_t n = c->size < sizeof t ? c->size : sizeof t;
  memcpy((char *)c + sizeof(size_t), (char *)&t + sizeof(size_t),
         n - sizeof(size_t));
  return 0;
}

extern "C" void kmp_reset_nexttouch_counters(void) {
  for (int i = 0; i < nt_ncounters; i++)
    __atomic_store_n(nt_field(&__kmp_nt_cnt, i), 0, __ATOMIC_RELAXED);
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    __atomic_store_n(&__kmp_nt_cnt.migrated_to_node[i], 0, __ATOMIC_RELAXED);
}

// At shutdown (__kmp_nexttouch_cleanup), with KMP_NEXTTOUCH_COUNTERS=true:
// one informational message with every counter.
void __kmp_nt_report() {
  if (!__kmp_nexttouch_report)
    return;
  kmp_str_buf_t b;
  __kmp_str_buf_init(&b);
  __kmp_str_buf_print(&b, "active=%d mechanism=%s nodes=%d forced=%d",
                      __kmp_nt_active, __kmp_nt_mech_name(__kmp_nt_mech),
                      __kmp_nt_num_nodes, __kmp_nexttouch_force);
  for (int i = 0; i < nt_ncounters; i++)
    __kmp_str_buf_print(&b, " %s=%" KMP_UINT64_SPEC, nt_names[i],
                        *nt_field(&__kmp_nt_cnt, i));
  __kmp_str_buf_print(&b, " migrated_to:");
  int any = 0;
  for (int i = 0; i < KMP_NEXTTOUCH_MAX_NODES; i++)
    if (__kmp_nt_cnt.migrated_to_node[i]) {
      __kmp_str_buf_print(&b, " node%d=%" KMP_UINT64_SPEC, i,
                          __kmp_nt_cnt.migrated_to_node[i]);
      any = 1;
    }
  if (!any)
    __kmp_str_buf_print(&b, " none");
  KMP_INFORM(NextTouchCounters, b.str);
  __kmp_str_buf_free(&b);
}
