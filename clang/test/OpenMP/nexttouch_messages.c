// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=expected,omp5x -fopenmp -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=expected,omp45 -fopenmp -fopenmp-version=45 -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=expected,omp5x -fopenmp -fopenmp-version=52 -ferror-limit 100 %s -Wuninitialized

// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=expected,omp5x -fopenmp-simd -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=expected,omp45 -fopenmp-simd -fopenmp-version=45 -ferror-limit 100 %s -Wuninitialized

// Without -fopenmp the pragma is ignored like every other OpenMP pragma:
// silently, or with the single -Wsource-uses-openmp warning of the first one.
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=nomp -DNOOMP -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=srcomp -DNOOMP -Wsource-uses-openmp -ferror-limit 100 %s
// nomp-no-diagnostics

struct Inc; // an incomplete type expected-note {{forward declaration of 'struct Inc'}}
struct S {
  int a[8];
  int *p;
  int x;
};
extern int ext[]; // an array of unknown bound
int garr[16];
int *gp;
void fn(void);
enum E { E0, E1 };

// Not allowed where a declaration is expected.
#pragma omp nexttouch(garr) // expected-error {{unexpected OpenMP directive '#pragma omp nexttouch'}} srcomp-warning {{unexpected '#pragma omp ...' in program}}

// Every list-item form, accepted without a diagnostic.
void valid(int *p, void *vp, const double *cdp, int n, long ln,
           unsigned long un, short sh, char c, _Bool b, enum E e,
           struct S *sp, int (*pa)[4], int vn) {
  int arr[10];
  int a2[4][8];
  struct S s;
  int vla[vn];
#pragma omp nexttouch(p : n)
#pragma omp nexttouch(vp : un)
#pragma omp nexttouch(cdp : ln)
#pragma omp nexttouch(p : sh, p : c, p : b, p : e, p : E1, p : 2147483648L)
#pragma omp nexttouch(arr)
#pragma omp nexttouch(arr[2 : 3], arr[2 :], arr[: 4], arr[:])
#pragma omp nexttouch(p[1 : n], p[: n])
#pragma omp nexttouch(a2, a2[1], a2[1 : 2], a2[1][0 : 4], a2[3][5 :])
#pragma omp nexttouch(s.a, s.a[1 : 2], s.p : 2, sp->a, sp->p[0 : n], sp : 1)
#pragma omp nexttouch(arr : 5, &s.x : 1, p + 1 : n - 1, (char *)p : sizeof(int) * n)
#pragma omp nexttouch(pa : 2, *pa, pa[1], pa[0 : 2])
#pragma omp nexttouch(vla, vla[1 :], vla[: vn], vla : vn)
#pragma omp nexttouch(ext[0 : 4], ext : 4)
#pragma omp nexttouch(garr, gp : 16, (p) : (n), n ? p : gp : n)
  {
#pragma omp nexttouch(p : n)
  }
}

// Syntax of the list.
void parse(int *p, int n) {
#pragma omp nexttouch // expected-error {{'#pragma omp nexttouch' requires a list of memory ranges}}
#pragma omp nexttouch() // expected-error {{'#pragma omp nexttouch' requires a list of memory ranges}}
#pragma omp nexttouch( // expected-error {{expected ')'}} expected-note {{to match this '('}}
#pragma omp nexttouch(p : n // expected-error {{expected ')'}} expected-note {{to match this '('}}
#pragma omp nexttouch(p : // expected-error {{expected expression}} expected-error {{expected ')'}} expected-note {{to match this '('}}
#pragma omp nexttouch(p : n, // expected-error {{expected ')'}} expected-note {{to match this '('}}
#pragma omp nexttouch(p : n,) // expected-error {{expected expression}}
#pragma omp nexttouch(, p : n) // expected-error {{expected expression}}
#pragma omp nexttouch(p : n p : n) // expected-error {{expected ',' or ')' in 'nexttouch' directive}}
#pragma omp nexttouch(q : n) // expected-error {{use of undeclared identifier 'q'}}
#pragma omp nexttouch(p : m) // expected-error {{use of undeclared identifier 'm'}}
#pragma omp nexttouch(p : n) nowait // expected-error {{unexpected OpenMP clause 'nowait' in directive '#pragma omp nexttouch'}}
#pragma omp nexttouch(p : n) acq_rel // expected-error {{unexpected OpenMP clause 'acq_rel' in directive '#pragma omp nexttouch'}}
#pragma omp nexttouch(p : n) unknown // expected-warning {{extra tokens at the end of '#pragma omp nexttouch' are ignored}}
#pragma omp nexttouch(p : n) (p : n) // expected-warning {{extra tokens at the end of '#pragma omp nexttouch' are ignored}}
#pragma omp nexttouch(p : n) nexttouch(p : n) // expected-warning {{extra tokens at the end of '#pragma omp nexttouch' are ignored}}
#pragma omp nexttouch nexttouch(p : n) // expected-warning {{extra tokens at the end of '#pragma omp nexttouch' are ignored}} expected-error {{'#pragma omp nexttouch' requires a list of memory ranges}}
#pragma omp parallel nexttouch(p : n) // expected-warning {{extra tokens at the end of '#pragma omp parallel' are ignored}}
  ;
}

// Checks of the list items.
void items(int *p, void *vp, int n, int x, double d, struct S s,
           struct Inc *ip, void (*fp)(void), int (*pi)[], enum E e) {
  int arr[10];
  int a2[4][8];
  // 'ptr : len' needs an object pointer...
#pragma omp nexttouch(x : 1) // expected-error {{expected a pointer to an object before ':' in '#pragma omp nexttouch'; type 'int' is not a pointer}}
#pragma omp nexttouch(d : 1) // expected-error {{expected a pointer to an object before ':' in '#pragma omp nexttouch'; type 'double' is not a pointer}}
#pragma omp nexttouch(s : 1) // expected-error {{expected a pointer to an object before ':' in '#pragma omp nexttouch'; type 'struct S' is not a pointer}}
#pragma omp nexttouch(fp : 1) // expected-error {{pointer to function type 'void (*)(void)' is not allowed in '#pragma omp nexttouch'}}
#pragma omp nexttouch(fn : 1) // expected-error {{pointer to function type 'void (*)(void)' is not allowed in '#pragma omp nexttouch'}}
#pragma omp nexttouch(ip : 1) // expected-error {{pointer to incomplete type 'struct Inc *' is not allowed in '#pragma omp nexttouch'}}
#pragma omp nexttouch(pi : 1) // expected-error {{pointer to incomplete type 'int (*)[]' is not allowed in '#pragma omp nexttouch'}}
  // ... and an integer length,
#pragma omp nexttouch(p : d) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'double'}}
#pragma omp nexttouch(p : p) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'int *'}}
#pragma omp nexttouch(p : s) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'struct S'}}
  // not a negative constant; a zero one is ignored with a warning.
#pragma omp nexttouch(p : -1) // expected-error {{length of a list item in '#pragma omp nexttouch' is negative (-1)}}
#pragma omp nexttouch(vp : 2 - 5) // expected-error {{length of a list item in '#pragma omp nexttouch' is negative (-3)}}
#pragma omp nexttouch(p : 0) // expected-warning {{list item of '#pragma omp nexttouch' has zero length and is ignored}}
#pragma omp nexttouch(p : E0) // expected-warning {{list item of '#pragma omp nexttouch' has zero length and is ignored}}
#pragma omp nexttouch(arr[1 : 0]) // expected-warning {{list item of '#pragma omp nexttouch' has zero length and is ignored}}
  // The errors of one item do not hide those of the next.
#pragma omp nexttouch(x : 1, p : -2, p : n, arr, fp : 1) // expected-error {{type 'int' is not a pointer}} expected-error {{is negative (-2)}} expected-error {{pointer to function type}}

  // An item without a length is a section or an array: not a pointer alone,
  // a scalar, a struct, an element, an rvalue.
#pragma omp nexttouch(p) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(x) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(s) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(arr[1]) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(1) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(p + 1) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(fn) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
  // Arrays must have a known size.
#pragma omp nexttouch(ext) // expected-error {{variable of incomplete array type 'int[]' in '#pragma omp nexttouch' has no known size}}
#pragma omp nexttouch(*pi) // expected-error {{variable of incomplete array type 'int[]' in '#pragma omp nexttouch' has no known size}}
#pragma omp nexttouch(ext[1 :]) // expected-error {{section length is unspecified and cannot be inferred because subscripted value is an array of unknown bound}}
#pragma omp nexttouch(p[1 :]) // expected-error {{section length is unspecified and cannot be inferred because subscripted value is not an array}}
  // Sections: one dimension, the usual OpenMP rules.
#pragma omp nexttouch(a2[0 : 2][1 : 2]) // expected-error {{array section in '#pragma omp nexttouch' must have exactly one dimension}}
#pragma omp nexttouch(a2[0 : 2][1]) // expected-error {{array section in '#pragma omp nexttouch' must have exactly one dimension}}
#pragma omp nexttouch(arr[-1 : 2]) // expected-error {{array section must be a subset of the original array}}
#pragma omp nexttouch(arr[1 : -2]) // expected-error {{section length is evaluated to a negative value -2}}
#pragma omp nexttouch(arr[d : 2]) // expected-error {{expression must have integral or unscoped enumeration type, not 'double'}}
#pragma omp nexttouch(x[0 : 2]) // expected-error {{subscripted value is not an array or pointer}}
#pragma omp nexttouch(vp[0 : 2]) // expected-error {{section of pointer to incomplete type 'void'}}
#pragma omp nexttouch(ip[0 : 2]) // expected-error {{section of pointer to incomplete type 'struct Inc'}}
  // Sections with a stride (OpenMP 5.0) are parsed only in 'to'/'from'.
#pragma omp nexttouch(arr[0 : 4 : 2]) // expected-error {{expected ']'}} expected-note {{to match this '['}}
  // A section is not a pointer.
#pragma omp nexttouch(arr[0 : 2] : 2) // expected-error {{OpenMP array section is not allowed here}}
}

// A stand-alone directive: not an immediate substatement.
void placement(int *p, int n) {
  if (n)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  if (n) {
#pragma omp nexttouch(p : n)
  }
  if (n) {
  } else
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  while (n)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  while (n) {
#pragma omp nexttouch(p : n)
  }
#ifndef NOOMP // Without the directive, 'do' would have no body here.
  do
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  while (n);
#endif
  for (;;)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i)
  }
  switch (n)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  switch (n) {
#pragma omp nexttouch(p : n)
  case 1:
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
    break;
  default: {
#pragma omp nexttouch(p : n)
  } break;
  }
label:
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
label1: {
#pragma omp nexttouch(p : n)
}
#pragma omp parallel
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
#pragma omp task
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  ;
}

// Nesting: fine in parallel, task, worksharing, critical, single, master,
// ordered and taskgroup regions; not in simd regions (as every non-simd
// construct) and not in target regions (the ranges are host memory).
void nesting(int *p, int n) {
#pragma omp parallel
  {
#pragma omp nexttouch(p : n)
#pragma omp for ordered
    for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i)
#pragma omp ordered
      {
#pragma omp nexttouch(p : i)
      }
    }
#pragma omp sections
    {
#pragma omp nexttouch(p : n)
#pragma omp section
      {
#pragma omp nexttouch(p : n)
      }
    }
#pragma omp single
    {
#pragma omp nexttouch(p : n)
    }
#pragma omp master
    {
#pragma omp nexttouch(p : n)
    }
#pragma omp critical
    {
#pragma omp nexttouch(p : n)
    }
  }
#pragma omp task
  {
#pragma omp nexttouch(p : n)
  }
#pragma omp taskgroup
  {
#pragma omp nexttouch(p : n)
  }
#pragma omp taskloop
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i)
  }
#pragma omp simd
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i) // expected-error {{OpenMP constructs may not be nested inside a simd region}}
  }
#pragma omp parallel for simd
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i) // expected-error {{OpenMP constructs may not be nested inside a simd region}}
  }
#pragma omp target
  {
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' is not allowed in a target region; it applies to host memory}}
  }
#pragma omp target parallel
  {
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' is not allowed in a target region; it applies to host memory}}
  }
#pragma omp target
#pragma omp parallel
  {
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' is not allowed in a target region; it applies to host memory}}
  }
#pragma omp target teams
  {
#pragma omp nexttouch(p : n) // expected-error {{region cannot be closely nested inside 'target teams' region; perhaps you forget to enclose 'omp nexttouch' directive into a parallel region?}}
  }
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i) // expected-error {{'#pragma omp nexttouch' is not allowed in a target region; it applies to host memory}}
  }
#pragma omp target data map(tofrom : p[0 : n])
  {
    // 'target data' is not a target region: its body runs on the host.
#pragma omp nexttouch(p : n)
  }
}

// A parallel region with default(none) needs data-sharing attributes for the
// variables of the list, as for any other use.
void dsa(int *p, int n) {
  int arr[10];
#pragma omp parallel default(none) shared(p) // expected-note 2 {{explicit data sharing attribute requested here}}
  {
#pragma omp nexttouch(p : n, arr) // expected-error {{variable 'n' must have explicitly specified data sharing attributes}} expected-error {{variable 'arr' must have explicitly specified data sharing attributes}}
  }
#pragma omp parallel default(none) shared(p, n, arr)
  {
#pragma omp nexttouch(p : n, arr)
  }
}
