// stale_range.c's case that the engine still gets wrong: the program
// unmapped pages that were still armed without disarming them first, and
// made a page PROT_NONE at the same address (a guard page, a new thread's
// stack guard): its first fault is "handled" and the page opened instead of
// faulting (docs/NextTouch.rst, Guarantees and limitations).  A PROT_NONE
// page the program made cannot be told from an armed one in the fault path.
// (The "disarm" and "expiry" cases, a read-only mapping there made writable,
// are fixed and run in stale_range.c.)
// Expected to fail while the limitation stands (XFAIL): an unexpected pass
// means the engine now tells the two apart; drop the XFAIL then.
// XFAIL: *
// RUN: %libomp-compile
// RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_NEXTTOUCH_WINDOW=1 OMP_NUM_THREADS=2 \
// RUN:   %libomp-run guard | FileCheck %s
// REQUIRES: linux
// CHECK: stale_range: PASS
#include "stale_range.c"
