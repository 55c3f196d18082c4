// stale_range.c's "guard" case: the program unmapped pages that were still
// armed without disarming them first, and made a page PROT_NONE at the same
// address (a guard page, a new thread's stack guard).  Its faults must stay
// real faults (SIGSEGV, or the program's handler), not be "handled" and the
// page opened.  The engine tells the two apart by the mark it puts on the
// pages it protects (the VMA policy MPOL_LOCAL; docs/NextTouch.rst,
// Guarantees and limitations), which a new mapping does not have; without
// it, the guard page's first fault would be taken for a touch.
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run guard | FileCheck %s
// REQUIRES: linux
// CHECK: stale_range: PASS
#include "stale_range.c"
