// readonly(list) on members, compiled by our Clang: a member array and a
// member pointer of 'this' (in a member function: 'a', 'this->p : n') and of
// a variable ('m.a', 'm.p : n').  With KMP_READONLY_FORCE=1 (one node, every
// node a replica) each thread's members designate replicas inside the region
// (another address, the same offset in the page), the sums are right, and the
// object is unchanged after the region; a write to a member of 'this' in the
// region is trapped with the member's spelling.
// RUN: %libomp-cxx-compile
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=4 %libomp-run read | FileCheck %s --check-prefix=READ
// RUN: env OMP_NUM_THREADS=4 %libomp-run read | FileCheck %s --check-prefix=READ
// RUN: env KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %not --crash %libomp-run write 2>&1 | FileCheck %s --check-prefix=WRITE
// REQUIRES: linux
//
// READ: readonly_clause_members: PASS
// WRITE: OMP: Error #{{[0-9]+}}: readonly at {{.*}}readonly_clause_members.cpp:{{[0-9]+}}:1 (Grid::poke): list item 0 'this->a' {{.*}} in its replica on node 0
#include "nexttouch_test.h"

enum { NA = 4096, NP = 20000 };

static double sum(const double *v, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += v[i];
  return s;
}

struct Grid {
  double a[NA];
  double *p;
  long n;

  // Per thread: did 'a' and 'p' designate other memory than the object's,
  // at the same offset in the page, with the same data?
  int check(int forced) {
    const double *a0 = a, *p0 = p;
    double wa = sum(a, NA), wp = sum(p, n);
    int bad = 0;
#pragma omp parallel readonly(a, this->p : n) reduction(+ : bad)
    {
      bad += (a != a0) != forced || (p != p0) != forced;
      bad += ((uintptr_t)a - (uintptr_t)a0) % nt_pagesize() != 0;
      bad += sum(a, NA) != wa || sum(p, n) != wp;
    }
    bad += a != a0 || p != p0;
    return bad;
  }

  void poke() {
#pragma omp parallel readonly(a)
    if (omp_get_thread_num() == 1)
      a[NA / 2] = 1;
  }
};

static Grid m;

int main(int argc, char **argv) {
  int forced = getenv("KMP_READONLY_FORCE") != nullptr;
  m.n = NP;
  m.p = (double *)malloc(NP * sizeof(double));
  for (long i = 0; i < NA; i++)
    m.a[i] = i % 9;
  for (long i = 0; i < NP; i++)
    m.p[i] = i % 4;
  if (argc > 1 && !strcmp(argv[1], "write")) {
    m.poke();
    printf("NOT REACHED\n");
    return 0;
  }
  NT_CHECK(m.check(forced) == 0, "members of this");
  const double *a0 = m.a, *p0 = m.p;
  double wa = sum(m.a, NA), wp = sum(m.p, NP);
  int bad = 0;
#pragma omp parallel readonly(m.a, m.p : NP) reduction(+ : bad)
  {
    bad += (m.a != a0) != forced || (m.p != p0) != forced;
    bad += sum(m.a, NA) != wa || sum(m.p, NP) != wp;
  }
  NT_CHECK(bad == 0, "members of a variable: %d", bad);
  NT_CHECK(m.p == p0, "the object changed");
  return nt_done("readonly_clause_members");
}
