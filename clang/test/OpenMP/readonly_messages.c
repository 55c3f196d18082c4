// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=omp,ext -fopenmp -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=omp,ext -fopenmp -fopenmp-version=52 -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=omp,ext -fopenmp-simd -ferror-limit 100 %s -Wuninitialized
// -Wno-openmp-extensions silences the warnings (zero length; an item read
// from the original).
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=omp -fopenmp -Wno-openmp-extensions -ferror-limit 100 %s -Wuninitialized
// Without -fopenmp the clause is ignored with its construct.
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=nomp -ferror-limit 100 %s -Wuninitialized
// nomp-no-diagnostics

struct S {
  double a[8];
  double *p;
  int x;
};
double garr[16];
double *gp;
static double sarr[4];
int tp[4];
#pragma omp threadprivate(tp)
_Thread_local double tlsarr[4];

// Every construct that begins with 'parallel' takes the clause, with every
// list-item form whose base is a variable: no diagnostic.
void valid(double *p, const double *cp, void *vp, int n) {
  double arr[10];
  static double st[8];
  const double carr[3] = {1, 2, 3};
  double vla[n];
  double s = 0;
#pragma omp parallel readonly(p : n, arr, garr[1 : 4], gp : 16)
  s += p[0] + arr[0] + garr[1] + gp[0];
#pragma omp parallel readonly(cp[0 : n], vp : 8, carr, st[:], sarr : 4, vla)
  s += cp[0] + carr[0] + st[0] + sarr[0] + vla[0];
#pragma omp parallel for readonly(p : n) reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp parallel for simd readonly(p : n) reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp parallel loop readonly(p : n) reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp parallel sections readonly(arr)
  {
    s += arr[0];
#pragma omp section
    s += arr[1];
  }
#pragma omp parallel master readonly(arr)
  s += arr[0];
#pragma omp parallel masked readonly(arr)
  s += arr[0];
#pragma omp parallel master taskloop readonly(p : n)
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp parallel masked taskloop simd readonly(p : n)
  for (int i = 0; i < n; ++i)
    s += p[i];
  // Shared explicitly, read-only for the region: the promise of the clause.
#pragma omp parallel default(none) shared(p, n, s) readonly(p : n)
  s += p[n - 1];
  // Nested: each construct has its own list.
#pragma omp parallel readonly(arr)
#pragma omp parallel readonly(p : n)
  s += arr[0] + p[0];
}

// Constructs that do not begin with 'parallel' do not take it.
void wrong_construct(double *p, int n) {
  double s = 0;
#pragma omp for readonly(p : n) // omp-error {{unexpected OpenMP clause 'readonly' in directive '#pragma omp for'}}
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp task readonly(p : n) // omp-error {{unexpected OpenMP clause 'readonly' in directive '#pragma omp task'}}
  s += p[0];
#pragma omp target parallel readonly(p : n) // omp-error {{unexpected OpenMP clause 'readonly' in directive '#pragma omp target parallel'}}
  s += p[0];
#pragma omp teams distribute parallel for readonly(p : n) // omp-error {{unexpected OpenMP clause 'readonly' in directive '#pragma omp teams distribute parallel for'}}
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp nexttouch(p : n) readonly(p : n) // omp-error {{unexpected OpenMP clause 'readonly' in directive '#pragma omp nexttouch'}}
}

// The list and its items, checked as for '#pragma omp nexttouch'.
void items(double *p, int n, struct S *sp, int i) {
  double arr[10];
  double a2[4][8];
  double s = 0;
#pragma omp parallel readonly // omp-error {{expected '(' after 'readonly'}}
  s += p[0];
#pragma omp parallel readonly() // omp-error {{'readonly' clause requires a list of memory ranges}}
  s += p[0];
#pragma omp parallel readonly(i) // omp-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in 'readonly' clause}}
  s += p[0];
#pragma omp parallel readonly(i : n) // omp-error {{expected a pointer to an object before ':' in 'readonly' clause; type 'int' is not a pointer}}
  s += p[0];
#pragma omp parallel readonly(p : 1.5) // omp-error {{length of a list item in 'readonly' clause must have integer type, not 'double'}}
  s += p[0];
#pragma omp parallel readonly(p : -1) // omp-error {{length of a list item in 'readonly' clause is negative (-1)}}
  s += p[0];
#pragma omp parallel readonly(a2[0 : 2][1 : 2]) // omp-error {{array section in 'readonly' clause must have exactly one dimension}}
  s += a2[0][0];
#pragma omp parallel readonly(p : 0) // ext-warning {{list item of 'readonly' clause has zero length and is ignored}}
  s += p[0];
#pragma omp parallel readonly(p : n) readonly(arr) // omp-error {{directive '#pragma omp parallel' cannot contain more than one 'readonly' clause}}
  s += p[0];
}

// A variable is the base of one list item only.
void same_base(double *p, int n) {
  double arr[10];
  double s = 0;
#pragma omp parallel readonly(p : n, p[n : 2]) // omp-error {{'p' is the base of more than one list item of the 'readonly' clause}} omp-note {{list item of the 'readonly' clause is here}}
  s += p[0];
#pragma omp parallel readonly(arr[0 : 2], arr[4 : 2]) // omp-error {{'arr' is the base of more than one list item of the 'readonly' clause}} omp-note {{list item of the 'readonly' clause is here}}
  s += arr[0];
}

// ...and is not privatized by the construct.
void privatized(double *p, int n) {
  double arr[10];
  double s = 0;
#pragma omp parallel readonly(p : n) firstprivate(p) // omp-error {{'p' is listed in the 'readonly' clause and cannot also appear in a 'firstprivate' clause of the same construct}} omp-note {{list item of the 'readonly' clause is here}}
  s += p[0];
#pragma omp parallel private(arr) readonly(arr) // omp-error {{'arr' is listed in the 'readonly' clause and cannot also appear in a 'private' clause of the same construct}} omp-note {{list item of the 'readonly' clause is here}}
  arr[0] = 1;
#pragma omp parallel for readonly(p : n) lastprivate(p) // omp-error {{'p' is listed in the 'readonly' clause and cannot also appear in a 'lastprivate' clause of the same construct}} omp-note {{list item of the 'readonly' clause is here}}
  for (int i = 0; i < n; ++i)
    s += p[i];
#pragma omp parallel for readonly(arr) reduction(+ : arr) // omp-error {{'arr' is listed in the 'readonly' clause and cannot also appear in a 'reduction' clause of the same construct}} omp-note {{list item of the 'readonly' clause is here}}
  for (int i = 0; i < n; ++i)
    arr[0] += 1;
#pragma omp parallel for readonly(p : n) linear(p) // omp-error {{'p' is listed in the 'readonly' clause and cannot also appear in a 'linear' clause of the same construct}} omp-note {{list item of the 'readonly' clause is here}}
  for (int i = 0; i < n; ++i)
    s += p[0];
#pragma omp parallel readonly(gp : n) copyin(tp)
  s += gp[0] + tp[0];
  // A thread_local variable, like a threadprivate one, is not redirected, so
  // 'copyin' of it is no conflict.
#pragma omp parallel readonly(tlsarr) copyin(tlsarr) // ext-warning {{list item of the 'readonly' clause is write-protected but read from the original, not from a node-local replica: its base variable is threadprivate}}
  s += tlsarr[0];
  // Shared is the promise, not a conflict.
#pragma omp parallel shared(p) readonly(p : n)
  s += p[0];
}

// A global base is captured by the region like a local one: default(none)
// asks for its data-sharing attribute as for any variable.
void globals(int n) {
  double s = 0;
#pragma omp parallel default(none) shared(s) readonly(garr, gp : n) // omp-note 2 {{explicit data sharing attribute requested here}}
  s += garr[0] + gp[0]; // omp-error {{variable 'garr' must have explicitly specified data sharing attributes}} omp-error {{variable 'gp' must have explicitly specified data sharing attributes}}
#pragma omp parallel default(none) shared(s, garr, gp) readonly(garr, gp : n)
  s += garr[0] + gp[0];
}

// Members of a variable are redirected like variables ('s.a', 's.p : n'),
// once each.
void members(struct S s, int n) {
  double t = 0;
#pragma omp parallel readonly(s.a, s.p : n)
  t += s.a[0] + s.p[0];
#pragma omp parallel readonly(s.a[0 : 2], s.a[4 : 2]) // omp-error {{'a' is the base of more than one list item of the 'readonly' clause}} omp-note {{list item of the 'readonly' clause is here}}
  t += s.a[0];
}

// Other items are protected, not redirected.
struct T {
  struct S in;
};
void not_redirected(struct S *sp, struct T tt, double **pp, int n) {
  double t = 0;
#pragma omp parallel readonly(sp->p : n, tt.in.a, *pp : n, gp + 1 : n, tp) // ext-warning 5 {{list item of the 'readonly' clause is write-protected but read from the original, not from a node-local replica}}
  t += sp->p[0];
}

// Host memory only.
void in_target(double *p, int n) {
  double s = 0;
#pragma omp target map(tofrom : s) map(to : p[0 : n])
#pragma omp parallel readonly(p : n) // omp-error {{'readonly' clause is not allowed in a target region; it applies to host memory}}
  s += p[0];
}
