// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify -fopenmp -std=c++17 -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify -fopenmp-simd -std=c++17 -ferror-limit 100 %s -Wuninitialized

// Templates: dependent items are checked when the template is instantiated,
// once per instantiation.
template <typename T, int N> T sum(T *p, int n) {
  T arr[N];
  T s = T();
#pragma omp parallel for readonly(p : n, arr) reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += p[i] + arr[0];
  return s;
}

template <typename T> void bad_len(double *p, T len) {
  double s = 0;
#pragma omp parallel readonly(p : len) // expected-error {{length of a list item in 'readonly' clause must have integer type, not 'double'}}
  s += p[0];
}

template <typename T> void bad_ptr(T p) {
  double s = 0;
#pragma omp parallel readonly(p : 4) // expected-error {{expected a pointer to an object before ':' in 'readonly' clause; type 'int' is not a pointer}}
  s += 1;
}

template <typename T> void priv(T *p, int n) {
  T s = T();
#pragma omp parallel readonly(p : n) firstprivate(p) // expected-error {{'p' is listed in the 'readonly' clause and cannot also appear in a 'firstprivate' clause of the same construct}} expected-note {{list item of the 'readonly' clause is here}}
  s += p[0];
}

// Members of 'this' are redirected; those of a base class (through a
// conversion) are only protected.
struct Base {
  double b[8];
};
struct Grid : Base {
  double a[64];
  double *p;
  int n;
  double run() {
    double s = 0;
#pragma omp parallel readonly(a, this->p : n)
    s += a[0] + p[0];
    // A nested region lists the same member: a member again.
#pragma omp parallel readonly(this->p : n) reduction(+ : s)
#pragma omp parallel readonly(p : n) reduction(+ : s)
    s += p[0];
#pragma omp parallel readonly(b) // expected-warning {{list item of the 'readonly' clause is write-protected but read from the original, not from a node-local replica: its base is not a variable}}
    s += b[0];
#pragma omp parallel readonly(a[0 : 8], a[8 : 8]) // expected-error {{'a' is the base of more than one list item of the 'readonly' clause}} expected-note {{list item of the 'readonly' clause is here}}
    s += a[0];
    return s;
  }
};

// A reference is not redirected.
double by_ref(double (&ra)[8], double *&rp, int n) {
  double s = 0;
#pragma omp parallel readonly(ra, rp : n) // expected-warning 2 {{not from a node-local replica: its base variable is a reference}}
  s += ra[0] + rp[0];
  return s;
}

// const items are fine.
double consts(const double *cp, int n) {
  const double tab[4] = {1, 2, 3, 4};
  double s = 0;
#pragma omp parallel readonly(cp : n, tab)
  s += cp[0] + tab[1];
  return s;
}

// The region captures a global base like a local one; a lambda in it reads
// a global as a called function does, and captures a local as usual.
double garr[8];
double lambdas(double *p, int n) {
  double s = 0;
#pragma omp parallel readonly(garr, p : n) shared(s)
  {
    auto l = [] { return garr[0]; };
    auto m = [&] { return p[0] + garr[1]; };
    auto v = [=] { return p[1]; };
    s += l() + m() + v();
  }
  return s;
}

void use(double *p, int n) {
  sum<double, 4>(p, n);
  sum<float, 2>((float *)p, n);
  bad_len(p, 1.0); // expected-note {{in instantiation of function template specialization 'bad_len<double>' requested here}}
  bad_len(p, 2);
  bad_ptr(3); // expected-note {{in instantiation of function template specialization 'bad_ptr<int>' requested here}}
  priv(p, n); // expected-note {{in instantiation of function template specialization 'priv<double>' requested here}}
  Grid g;
  g.run();
}
