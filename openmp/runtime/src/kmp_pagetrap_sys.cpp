/*
 * kmp_pagetrap_sys.cpp -- the page-trap layer: raw system calls, the
 * layer's and the engines' private mappings, the readability probe, the
 * fault's access type, the engines' buffer hooks (__kmp_pt_buffer) and the
 * buffers in flight in system calls, the walks of /proc/self/maps through a
 * small buffer (__kmp_pt_none_vma, __kmp_pt_mprotect_mapped), and the C
 * library's next definitions of the wrapped functions (__kmp_pt_next).
 *
 * RUNS IN THE SIGSEGV HANDLER (the fault paths call it): async-signal-safe
 * code only -- raw system calls, no locks, no allocation, no stdio, no libomp
 * data structures (__kmp_pt_next's first call per function aside, which the
 * wrappers make before anything is protected).
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "kmp_pagetrap.h"

#if KMP_PAGETRAP_SUPPORTED
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

long __kmp_pt_move_pages(unsigned long count, void **pages, const int *nodes,
                         int *status, int flags) {
  return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}
long __kmp_pt_mbind(void *addr, unsigned long len, int mode,
                    const unsigned long *mask, unsigned long maxnode,
                    unsigned flags) {
  // Every argument as a full register: the kernel reads mode as unsigned long.
  return syscall(SYS_mbind, addr, len, (unsigned long)mode, mask, maxnode,
                 (unsigned long)flags);
}
long __kmp_pt_get_mempolicy(int *mode, unsigned long *mask,
                            unsigned long maxnode, void *addr,
                            unsigned long flags) {
  return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

int __kmp_pt_mprotect(void *addr, size_t len, int prot) {
  return (int)syscall(SYS_mprotect, addr, len, (unsigned long)prot);
}

kmp_uint64 __kmp_pt_now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (kmp_uint64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void *__kmp_pt_private_alloc(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}
// Without the C library's munmap: the engines' own memory does not go
// through the wrapper of kmp_pagetrap_mm.cpp.
void __kmp_pt_private_free(void *p, size_t bytes) {
  syscall(SYS_munmap, p, bytes);
  __kmp_pt_maps_changed();
}

void __kmp_pt_private_retire(void *p, size_t bytes) {
  syscall(
      SYS_mmap, p, bytes, (unsigned long)PROT_NONE,
      (unsigned long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE),
      -1L, 0L);
  __kmp_pt_maps_changed();
}

// process_vm_readv() on ourselves asks the kernel, without faulting.
int __kmp_pt_readable(uintptr_t page) {
  char byte;
  struct iovec local = {&byte, 1}, remote = {(void *)page, 1};
  return syscall(SYS_process_vm_readv, (long)getpid(), &local, 1UL, &remote,
                 1UL, 0UL) == 1;
}

int __kmp_pt_fault_is_write(const void *uc) {
#if KMP_ARCH_X86_64 && defined(REG_ERR)
  const ucontext_t *ctx = (const ucontext_t *)uc;
  if (!ctx)
    return -1;
  return (ctx->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)uc;
  return -1;
#endif
}

static int pt_hexval(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : 0;
}

// Call fn(start, end, perms) for each VMA of /proc/self/maps in order
// until it returns nonzero; read through a small buffer, since the
// handler may run on a small alternate stack.  Returns 0, or -1 if the maps
// cannot be read.
template <typename Fn> static int pt_walk_vmas(Fn fn) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buf[256], perm[4] = {0, 0, 0, 0};
  uintptr_t a = 0, b = 0;
  int field = 0, k = 0, done = 0; // fields: start, end, perms, rest
  while (!done) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    for (ssize_t i = 0; i < r && !done; i++) {
      char c = buf[i];
      if (field == 0) {
        if (c == '-')
          field = 1;
        else
          a = a * 16 + pt_hexval(c);
      } else if (field == 1) {
        if (c == ' ')
          field = 2, k = 0;
        else
          b = b * 16 + pt_hexval(c);
      } else if (field == 2) {
        perm[k++] = c;
        if (k == 4)
          field = 3;
      } else if (c == '\n') {
        done = fn(a, b, perm);
        a = b = 0;
        field = 0;
      }
    }
  }
  close(fd);
  return 0;
}

int __kmp_pt_none_vma(uintptr_t addr, uintptr_t *lo, uintptr_t *hi) {
  int found = 0;
  pt_walk_vmas([&](uintptr_t a, uintptr_t b, const char *perm) {
    if (b <= addr)
      return 0;
    if (a <= addr) {
      found =
          perm[0] == '-' && perm[1] == '-' && perm[2] == '-' && perm[3] == 'p';
      *lo = a;
      *hi = b;
    }
    return 1;
  });
  return found;
}

int __kmp_pt_mprotect_mapped(uintptr_t start, uintptr_t end, int prot) {
  int rc = 0;
  if (pt_walk_vmas([&](uintptr_t a, uintptr_t b, const char *) {
        if (b <= start)
          return 0;
        if (a >= end)
          return 1;
        uintptr_t s = a > start ? a : start, e = b < end ? b : end;
        if (__kmp_pt_mprotect((void *)s, e - s, prot) != 0)
          rc = -1;
        return 0;
      }) != 0)
    rc = -1;
  return rc;
}

// The calls made while the C library's are looked up in the same thread:
// dlsym may call the program's malloc and free, and a malloc replacement
// maps and unmaps with the mapping calls; a signal handler that interrupted
// the look-up may call any wrapper.  The C library's functions are these
// system calls too.
static void *pt_raw_mmap(void *p, size_t len, int prot, int flags, int fd,
                         off_t off) {
  if (off & (__kmp_pt_page - 1)) {
    errno = EINVAL;
    return MAP_FAILED;
  }
  return (void *)syscall(SYS_mmap, p, len, prot, flags, fd, off);
}
static int pt_raw_munmap(void *p, size_t len) {
  return (int)syscall(SYS_munmap, p, len);
}
static int pt_raw_mprotect(void *p, size_t len, int prot) {
  return (int)syscall(SYS_mprotect, p, len, prot);
}
static int pt_raw_madvise(void *p, size_t len, int advice) {
  return (int)syscall(SYS_madvise, p, len, advice);
}
static void *pt_raw_mremap(void *old, size_t old_len, size_t len, int flags,
                           ...) {
  va_list ap;
  va_start(ap, flags);
  void *to = va_arg(ap, void *);
  va_end(ap);
  return (void *)syscall(SYS_mremap, old, old_len, len, flags, to);
}

// The calls that are one system call each, for a signal handler that
// interrupted its thread inside dlsym: it cannot call dlsym again (the
// loader's lock), and the C library's function is this system call.
static ssize_t pt_raw_read(int fd, void *b, size_t n) {
  return syscall(SYS_read, fd, b, n);
}
static ssize_t pt_raw_write(int fd, const void *b, size_t n) {
  return syscall(SYS_write, fd, b, n);
}
static ssize_t pt_raw_pread(int fd, void *b, size_t n, off_t off) {
  return syscall(SYS_pread64, fd, b, n, off);
}
static ssize_t pt_raw_pwrite(int fd, const void *b, size_t n, off_t off) {
  return syscall(SYS_pwrite64, fd, b, n, off);
}
static ssize_t pt_raw_readv(int fd, const struct iovec *v, int cnt) {
  return syscall(SYS_readv, fd, v, cnt);
}
static ssize_t pt_raw_writev(int fd, const struct iovec *v, int cnt) {
  return syscall(SYS_writev, fd, v, cnt);
}
// The kernel takes the offset as two halves (low, high).
static ssize_t pt_raw_preadv(int fd, const struct iovec *v, int cnt,
                             off_t off) {
  return syscall(SYS_preadv, fd, v, cnt, (long)off,
                 (long)((unsigned long long)off >> 32));
}
static ssize_t pt_raw_pwritev(int fd, const struct iovec *v, int cnt,
                              off_t off) {
  return syscall(SYS_pwritev, fd, v, cnt, (long)off,
                 (long)((unsigned long long)off >> 32));
}
static ssize_t pt_raw_recvfrom(int fd, void *b, size_t n, int flags,
                               struct sockaddr *from, socklen_t *len) {
  return syscall(SYS_recvfrom, fd, b, n, flags, from, len);
}
static ssize_t pt_raw_recv(int fd, void *b, size_t n, int flags) {
  return pt_raw_recvfrom(fd, b, n, flags, NULL, NULL);
}
static ssize_t pt_raw_sendto(int fd, const void *b, size_t n, int flags,
                             const struct sockaddr *to, socklen_t len) {
  return syscall(SYS_sendto, fd, b, n, flags, to, len);
}
static ssize_t pt_raw_send(int fd, const void *b, size_t n, int flags) {
  return pt_raw_sendto(fd, b, n, flags, NULL, 0);
}
static ssize_t pt_raw_recvmsg(int fd, struct msghdr *m, int flags) {
  return syscall(SYS_recvmsg, fd, m, flags);
}
static ssize_t pt_raw_sendmsg(int fd, const struct msghdr *m, int flags) {
  return syscall(SYS_sendmsg, fd, m, flags);
}
// pthread_sigmask and sigprocmask: the kernel's set is 8 bytes.
static int pt_raw_pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  return syscall(SYS_rt_sigprocmask, how, set, old, 8) ? errno : 0;
}
static int pt_raw_sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  return (int)syscall(SYS_rt_sigprocmask, how, set, old, 8);
}
static int pt_raw_sigpending(sigset_t *set) {
  return (int)syscall(SYS_rt_sigpending, set, 8);
}

static void *pt_raw_fallback(const char *name) {
  static const struct {
    const char *name;
    void *fn;
  } raw[] = {{"mmap", (void *)pt_raw_mmap},
             {"mmap64", (void *)pt_raw_mmap},
             {"munmap", (void *)pt_raw_munmap},
             {"mprotect", (void *)pt_raw_mprotect},
             {"madvise", (void *)pt_raw_madvise},
             {"mremap", (void *)pt_raw_mremap},
             {"read", (void *)pt_raw_read},
             {"write", (void *)pt_raw_write},
             {"pread", (void *)pt_raw_pread},
             {"pread64", (void *)pt_raw_pread},
             {"pwrite", (void *)pt_raw_pwrite},
             {"pwrite64", (void *)pt_raw_pwrite},
             {"readv", (void *)pt_raw_readv},
             {"writev", (void *)pt_raw_writev},
             {"preadv", (void *)pt_raw_preadv},
             {"preadv64", (void *)pt_raw_preadv},
             {"pwritev", (void *)pt_raw_pwritev},
             {"pwritev64", (void *)pt_raw_pwritev},
             {"recv", (void *)pt_raw_recv},
             {"recvfrom", (void *)pt_raw_recvfrom},
             {"recvmsg", (void *)pt_raw_recvmsg},
             {"send", (void *)pt_raw_send},
             {"sendto", (void *)pt_raw_sendto},
             {"sendmsg", (void *)pt_raw_sendmsg},
             {"pthread_sigmask", (void *)pt_raw_pthread_sigmask},
             {"sigprocmask", (void *)pt_raw_sigprocmask},
             {"sigpending", (void *)pt_raw_sigpending}};
  for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
    if (!strcmp(raw[i].name, name))
      return raw[i].fn;
  return NULL;
}

static __thread int pt_tls_looking_up
    __attribute__((tls_model("initial-exec")));

void *__kmp_pt_next(void *volatile *cache, const char *name) {
  void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (f)
    return f;
  if (pt_tls_looking_up)
    return pt_raw_fallback(name); // called back from inside dlsym
  pt_tls_looking_up = 1;
  f = dlsym(RTLD_NEXT, name);
  pt_tls_looking_up = 0;
  __atomic_store_n(cache, f, __ATOMIC_RELEASE);
  return f;
}

// ---------------------------------------------------------------------------
// System calls' buffers

int __kmp_pt_buffer(uintptr_t a, uintptr_t e, int into) {
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
    const kmp_pt_engine *en =
        __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
    if (en && en->buffer && __kmp_pt_watched(id) && en->buffer(a, e, into))
      return EFAULT;
  }
  return 0;
}

// The buffers that wrapped calls have in flight (kmp_pagetrap_io.cpp lists
// them; see there).
kmp_pt_io_slot __kmp_pt_io_slots[KMP_PT_IO_SLOTS];
volatile int __kmp_pt_io_used;

int __kmp_pt_io_busy(uintptr_t a, uintptr_t e) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (!__atomic_load_n(&__kmp_pt_io_used, __ATOMIC_SEQ_CST))
    return 0;
  for (int i = 0; i < KMP_PT_IO_SLOTS; i++) {
    uintptr_t s =
        __atomic_load_n(&__kmp_pt_io_slots[i].start, __ATOMIC_SEQ_CST);
    if (!s)
      continue;
    uintptr_t t = __atomic_load_n(&__kmp_pt_io_slots[i].end, __ATOMIC_SEQ_CST);
    if (s == 1 || (s < e && t > a))
      return 1; // being filled: taken as busy
  }
  return 0;
}

#endif // KMP_PAGETRAP_SUPPORTED
