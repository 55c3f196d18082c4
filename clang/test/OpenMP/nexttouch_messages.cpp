// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify -fopenmp -std=c++14 -fexceptions -fcxx-exceptions -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify -fopenmp -std=c++20 -fexceptions -fcxx-exceptions -ferror-limit 100 %s -Wuninitialized
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify -fopenmp-simd -std=c++20 -fexceptions -fcxx-exceptions -ferror-limit 100 %s -Wuninitialized

// Without -fopenmp the pragma is ignored like every other OpenMP pragma.
// RUN: %clang_cc1 -triple x86_64-unknown-unknown -verify=nomp -std=c++20 -fexceptions -fcxx-exceptions -ferror-limit 100 %s -Wuninitialized
// nomp-no-diagnostics

typedef __SIZE_TYPE__ size_t;

struct Inc;                                // incomplete
template <class T> struct Box { T v[4]; }; // Box<int> is not instantiated yet
enum class SE { A, B };
enum UE { U0, U1 };
struct Conv {
  operator int *() const;
  operator int() const;
};
void fn();

class C { // expected-note {{declared here}}
  int arr[8];
  int *data;
  int size;
  // Not allowed where a member declaration is expected.
#pragma omp nexttouch(arr) // expected-error {{unexpected OpenMP directive '#pragma omp nexttouch'}}

public:
  void member() {
#pragma omp nexttouch(arr, data : size, this->arr[1 : 2], data[0 : size], this : 1)
  }
  static void smember(C &c) {
#pragma omp nexttouch(c.arr, c.data : c.size)
  }
};

// Accepted without a diagnostic.
void valid(int *p, int n, int *&rp, int (&ra)[10], UE ue, Box<int> *bp,
           const Conv &cv, size_t sz) {
  int arr[10];
#pragma omp nexttouch(rp : n, ra, ra[2 :], p : ue, p : U1, p : sizeof(arr), p : sz)
  // A pointer to a class template specialization that was never needed
  // complete so far: it is completed (instantiated) by the check.
#pragma omp nexttouch(bp : 1)
#pragma omp nexttouch(static_cast<void *>(p) : n * sizeof(int), reinterpret_cast<char *>(p) : n)
#pragma omp nexttouch(p : true, p : static_cast<int>(cv), static_cast<int *>(cv) : 1)
  for (int x : arr) {
#pragma omp nexttouch(p : x)
  }
}

void items(int *p, int n, SE se, Conv cv, Inc *ip, int C::*mp) {
#pragma omp nexttouch(nullptr : 1) // expected-error {{expected a pointer to an object before ':' in '#pragma omp nexttouch'; type 'std::nullptr_t' is not a pointer}}
#pragma omp nexttouch(cv : 1) // expected-error {{expected a pointer to an object before ':' in '#pragma omp nexttouch'; type 'Conv' is not a pointer}}
#pragma omp nexttouch(mp : 1) // expected-error {{expected a pointer to an object before ':' in '#pragma omp nexttouch'; type 'int C::*' is not a pointer}}
#pragma omp nexttouch(ip : n) // expected-error {{pointer to incomplete type 'Inc *' is not allowed in '#pragma omp nexttouch'}}
#pragma omp nexttouch(fn : 1) // expected-error {{pointer to function type 'void (*)()' is not allowed in '#pragma omp nexttouch'}}
#pragma omp nexttouch(&items : 1) // expected-error {{pointer to function type 'void (*)(int *, int, SE, Conv, Inc *, int C::*)' is not allowed in '#pragma omp nexttouch'}}
#pragma omp nexttouch(p : se) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'SE'}}
#pragma omp nexttouch(p : cv) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'Conv'}}
#pragma omp nexttouch(p : 1.0) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'double'}}
#pragma omp nexttouch(p : nullptr) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'std::nullptr_t'}}
#pragma omp nexttouch(p : -sizeof(int)) // no error: unsigned, the runtime reports the huge length
#pragma omp nexttouch(p : U0) // expected-warning {{list item of '#pragma omp nexttouch' has zero length and is ignored}}
#pragma omp nexttouch(p) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(cv) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(n) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
#pragma omp nexttouch(C) // expected-error {{'C' does not refer to a value}}
}

void placement(int *p, int n) {
  int arr[4];
  for (int x : arr)
#pragma omp nexttouch(p : x) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  if (n)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  while (n)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  for (;;)
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' cannot be an immediate substatement}}
  try {
#pragma omp nexttouch(p : n)
  } catch (...) {
#pragma omp nexttouch(p : n)
  }
}

// Templates: dependent items are checked when instantiated.
template <class T>
void tptr(T p, int n) {
#pragma omp nexttouch(p : n) // expected-error {{type 'int' is not a pointer}} expected-error {{pointer to function type 'void (*)()' is not allowed}} expected-error {{pointer to incomplete type 'Inc *' is not allowed}}
}

template <class L>
void tlen(int *p, L len) {
#pragma omp nexttouch(p : len) // expected-error {{must have integer type, not 'double'}} expected-error {{must have integer type, not 'SE'}}
}

template <int N>
void tconst(int *p) {
  int a[10];
#pragma omp nexttouch(p : N) // expected-error {{length of a list item in '#pragma omp nexttouch' is negative (-1)}} expected-warning {{list item of '#pragma omp nexttouch' has zero length and is ignored}}
#pragma omp nexttouch(a[0 : N]) // expected-error {{section length is evaluated to a negative value -1}} expected-warning {{list item of '#pragma omp nexttouch' has zero length and is ignored}}
#pragma omp nexttouch(a[N :]) // expected-error {{array section must be a subset of the original array}}
}

template <class T>
void tarr(T &a) {
#pragma omp nexttouch(a) // expected-error {{expected a pointer with a length ('ptr : len'), an array section, or a variable of array type in '#pragma omp nexttouch'}}
}

template <class T, int N>
void tsec(T *p, T (&a)[N], int n) {
#pragma omp nexttouch(p[0 : n], a, a[1 :], a[: N - 1], p : N)
}

// Errors in non-dependent items are reported once, in the template.
template <class T>
void tnondep(T t, double d, int *q) {
#pragma omp nexttouch(d : 1, t : 1) // expected-error {{type 'double' is not a pointer}}
#pragma omp nexttouch(q : -1, t : 2) // expected-error {{length of a list item in '#pragma omp nexttouch' is negative (-1)}}
}

template <class T, int N>
struct Buf {
  T data[N];
  T *ptr;
  void touch(int n) {
#pragma omp nexttouch(data, ptr : n, data[1 :], this->data[0 : N])
  }
  template <class U> void touch2(U *u, int n) {
#pragma omp nexttouch(u : n, data : N) // expected-error {{pointer to incomplete type 'Inc *' is not allowed}}
  }
};

template <class T>
void tlambda(T *p, int n) {
  [&]() {
#pragma omp nexttouch(p : n)
  }();
  // Explicit captures: in clang 19 a generic lambda in a template cannot
  // implicitly capture a variable used only in an OpenMP directive (the same
  // happens with 'flush(p)').
  auto g = [&p, &n](auto *q, auto len) {
#pragma omp nexttouch(p : n, q : len)
  };
  g(p, n);
}

void use_templates(int *p, int n, Inc *ip) {
  int a[10];
  tptr(p, n);
  // 'ptr : len' is checked again as such, not as the section 'p[:n]' that
  // it stands for in the AST (an error for 'void *').
  tptr(static_cast<void *>(p), n);
  tptr(static_cast<const volatile void *>(p), n);
  tptr(n, n); // expected-note {{in instantiation of function template specialization 'tptr<int>' requested here}}
  tptr(fn, n); // expected-note {{in instantiation of function template specialization 'tptr<void (*)()>' requested here}}
  tptr(ip, n); // expected-note {{in instantiation of function template specialization 'tptr<Inc *>' requested here}}
  tlen(p, 1L);
  tlen(p, 'c');
  tlen(p, 1.0); // expected-note {{in instantiation of function template specialization 'tlen<double>' requested here}}
  tlen(p, SE::A); // expected-note {{in instantiation of function template specialization 'tlen<SE>' requested here}}
  tconst<3>(p);
  tconst<0>(p); // expected-note {{in instantiation of function template specialization 'tconst<0>' requested here}}
  tconst<-1>(p); // expected-note {{in instantiation of function template specialization 'tconst<-1>' requested here}}
  tarr(a);
  tarr(n); // expected-note {{in instantiation of function template specialization 'tarr<int>' requested here}}
  tsec(p, a, n);
  tnondep(p, 1.0, p);
  Buf<double, 4> b;
  b.touch(n);
  b.touch2(p, n);
  b.touch2(ip, n); // expected-note {{in instantiation of function template specialization 'Buf<double, 4>::touch2<Inc>' requested here}}
  tlambda(p, n);
}

// Lambdas.
void lambdas(int *p, int n) { // expected-note {{'p' declared here}}
  int arr[10];
  auto l1 = [&]() {
#pragma omp nexttouch(p : n, arr, arr[1 : 2])
  };
  auto l2 = [=]() {
#pragma omp nexttouch(p : n, arr)
  };
  auto l3 = []() { // expected-note {{lambda expression begins here}} expected-note 2 {{capture 'p' by}} expected-note 2 {{default capture by}}
#pragma omp nexttouch(p : 1) // expected-error {{variable 'p' cannot be implicitly captured in a lambda with no capture-default specified}}
  };
  auto gl = [&](auto *q, auto len) {
#pragma omp nexttouch(q : len) // expected-error {{length of a list item in '#pragma omp nexttouch' must have integer type, not 'float'}}
  };
  gl(p, n);
  gl(p, 1.0f); // expected-note {{in instantiation of function template specialization}}
  l1();
  l2();
  l3();
#pragma omp parallel
  {
    [&]() {
#pragma omp nexttouch(p : n)
    }();
  }
}

// Nesting.
template <class T>
void tnest(T *p, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i)
  }
#pragma omp for simd
  for (int i = 0; i < n; ++i) {
#pragma omp nexttouch(p : i) // expected-error {{OpenMP constructs may not be nested inside a simd region}}
  }
#pragma omp target
  {
#pragma omp nexttouch(p : n) // expected-error {{'#pragma omp nexttouch' is not allowed in a target region; it applies to host memory}}
  }
}

void nest(int *p, int n) {
  tnest(p, n);
}
