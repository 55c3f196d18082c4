// stale_range.c's cases where the program unmapped pages that were still
// armed without disarming them first (docs/NextTouch.rst, limitations: the
// engine "may later restore the protection it recorded on such pages").
// Since armed pages now outlive their region and free() of a large buffer
// unmaps it, this is easy to hit; what it breaks:
//   disarm: kmp_nexttouch_disarm(NULL, 0) makes a read-only mapping at the
//           old address writable;
//   expiry: so does KMP_NEXTTOUCH_LIFETIME's disarming at a join;
//   guard:  a page the program makes PROT_NONE there (a guard page, a new
//           thread's stack guard) is "handled" and opened on its first
//           fault instead of faulting.
// Expected to fail while the limitation stands (XFAIL): an unexpected pass
// means the engine now re-validates what it disarms; drop the XFAIL then.
// XFAIL: *
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run disarm | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 KMP_NEXTTOUCH_LIFETIME=1 \
// RUN:   OMP_NUM_THREADS=2 %libomp-run expiry | FileCheck %s
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run guard | FileCheck %s
// REQUIRES: linux
// CHECK: stale_range: PASS
#include "stale_range.c"
