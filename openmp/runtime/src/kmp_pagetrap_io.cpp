/*
 * kmp_pagetrap_io.cpp -- the page-trap layer: system calls that copy into
 * or out of the program's memory.
 *
 * The kernel's own copy in read(), recv() or write() does not fault on a
 * protected page: the call fails with EFAULT (a datagram read that way is
 * dropped by the kernel, lost), or, on a write-protected page that a region
 * does not use, it writes without anybody seeing it.  libomp therefore
 * wraps the C library's calls that hand a buffer to the kernel, and asks the
 * engines that watch (kmp_pt_engine::buffer) before the call: next-touch
 * touches its armed pages there as the calling thread (in a team they move
 * to the caller's node -- the caller is their next toucher -- in serial code
 * they are opened where they are); readonly opens the write-protected pages
 * of its cached items a call writes into, or fails the call with EFAULT,
 * before the kernel writes anything, if a running region lists the item.
 * The write side changes memory too: a write to /proc/<pid>/mem (whose
 * offsets are addresses) writes whatever the protection (forced_write), and
 * a write to a file changes what its private mappings show where their
 * pages are not yet copied on write (file_write); so do
 * process_vm_readv/process_vm_writev on the calling process.  While no
 * engine watches, a wrapper costs two loads, the call of the C library's
 * function and a look at its result.
 *
 * The wrappers are exported (exports_so.txt), so a program linked with
 * libomp binds its calls to them; libraries linked against the C library
 * alone, the C library's internal calls (stdio's own reads are covered by
 * the fread/fwrite wrappers) and raw syscall(2) are not covered (see
 * docs/NextTouch.rst, "Guarantees and limitations").
 *
 * Runs in the calling thread, and inside signal handlers that call read()
 * or write() (async-signal-safe: no locks, no allocation once the C
 * library's function has been looked up).
 */

//===----------------------------------------------------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

// The wrappers define the C library's names: no inline fortified versions.
#undef _FORTIFY_SOURCE

#include "kmp_pagetrap.h"

#if KMP_PAGETRAP_SUPPORTED
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

// ---------------------------------------------------------------------------
// Buffers in flight.  A buffer is touched (its pages opened) before the call,
// but an engine in another thread may protect them again before the kernel
// copies (a region's arming): the copy would fail with EFAULT.  So a wrapped
// call lists its buffers here, for its duration, before it touches them; an
// engine that is about to protect pages it has claimed looks here after the
// claim (__kmp_pt_io_busy) and leaves alone what a call has in flight.  The
// slot's store and the engine's claim are both sequentially consistent:
// either the engine sees the buffer, or the touch sees the claim and waits.

// The buffers of one wrapped call, listed while it runs (a signal handler's
// call inside it has its own).
struct pt_io_call {
  enum { MAX = 4 };
  int slot[MAX];
  int n;
  pt_io_call *prev;
  pt_io_call();
  ~pt_io_call();
};
static __thread pt_io_call *pt_tls_call
    __attribute__((tls_model("initial-exec")));

pt_io_call::pt_io_call() : n(0), prev(pt_tls_call) { pt_tls_call = this; }

pt_io_call::~pt_io_call() {
  for (int i = 0; i < n; i++) {
    __atomic_store_n(&__kmp_pt_io_slots[slot[i]].start, (uintptr_t)0,
                     __ATOMIC_RELEASE);
    __atomic_fetch_sub(&__kmp_pt_io_used, 1, __ATOMIC_RELEASE);
  }
  pt_tls_call = prev;
}

// Lists [a, e) for the running call (if there is room; without it the call
// goes on as before, open to the race).
static void pt_io_listed(uintptr_t a, uintptr_t e) {
  pt_io_call *c = pt_tls_call;
  if (!c || c->n == pt_io_call::MAX)
    return;
  for (int i = 0; i < KMP_PT_IO_SLOTS; i++) {
    uintptr_t zero = 0;
    if (!__atomic_compare_exchange_n(&__kmp_pt_io_slots[i].start, &zero,
                                     (uintptr_t)1, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_RELAXED))
      continue;
    __atomic_fetch_add(&__kmp_pt_io_used, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&__kmp_pt_io_slots[i].end, e, __ATOMIC_SEQ_CST);
    __atomic_store_n(&__kmp_pt_io_slots[i].start, a, __ATOMIC_SEQ_CST);
    c->slot[c->n++] = i;
    return;
  }
}

// The engines that watch, in order; into: the kernel writes [a, e).
// EFAULT if one refuses the call.  The range is listed first.
static int pt_io_range(uintptr_t a, uintptr_t e, int into) {
  if (a < 2)
    a = 2; // 0 and 1 mark free and reserved slots
  pt_io_listed(a, e);
  return __kmp_pt_buffer(a, e, into);
}

// The kernel reads [p, p+n).  A range that wraps is left alone: the call
// fails anyway, and no protected page beyond the buffer is touched.
static inline void pt_io_buf(const void *p, size_t n) {
  if (!TCR_4(__kmp_pt_watch) || !p || !n)
    return;
  uintptr_t a = (uintptr_t)p, e = a + n;
  if (e > a)
    pt_io_range(a, e, 0);
}

static inline void pt_io_iov(const struct iovec *iov, long cnt) {
  if (!TCR_4(__kmp_pt_watch) || !iov || cnt <= 0)
    return;
  for (long i = 0; i < cnt; i++)
    pt_io_buf(iov[i].iov_base, iov[i].iov_len);
}

static inline void pt_io_msg(const struct msghdr *m) {
  if (!TCR_4(__kmp_pt_watch) || !m)
    return;
  pt_io_buf(m, sizeof *m);
  pt_io_buf(m->msg_name, m->msg_namelen);
  pt_io_iov(m->msg_iov, (long)m->msg_iovlen);
  pt_io_buf(m->msg_control, m->msg_controllen);
}

// stdio's n items of size bytes at p.
static inline void pt_io_items(const void *p, size_t size, size_t n) {
  if (!n || size <= SIZE_MAX / n) // an overflowing product touches nothing
    pt_io_buf(p, size * n);
}

// A call about to write into [p, p+n): EFAULT if an engine refuses it.  A
// range that wraps is left alone.
static inline int pt_io_into(void *p, size_t n) {
  if (!TCR_4(__kmp_pt_watch) || !p || !n)
    return 0;
  uintptr_t a = (uintptr_t)p, e = a + n;
  return e > a ? pt_io_range(a, e, 1) : 0;
}

static inline int pt_io_into_iov(const struct iovec *iov, long cnt) {
  for (long i = 0; iov && i < cnt; i++)
    if (pt_io_into(iov[i].iov_base, iov[i].iov_len))
      return EFAULT;
  return 0;
}

// recvmsg: the kernel reads the header and writes its lengths and flags back.
static inline int pt_io_into_msg(struct msghdr *m) {
  if (!m)
    return 0;
  return pt_io_into(m, sizeof *m) || pt_io_into(m->msg_name, m->msg_namelen) ||
                 pt_io_into_iov(m->msg_iov, (long)m->msg_iovlen) ||
                 pt_io_into(m->msg_control, m->msg_controllen)
             ? EFAULT
             : 0;
}

// recvmmsg and sendmmsg write each entry's msg_len back.
static inline int pt_io_into_vec(struct mmsghdr *vec, unsigned n) {
  if (!vec)
    return 0;
  return pt_io_into(vec, n * sizeof *vec);
}

static inline int pt_io_into_mmsg(struct mmsghdr *vec, unsigned n) {
  if (pt_io_into_vec(vec, n))
    return EFAULT;
  for (unsigned i = 0; vec && i < n; i++)
    if (pt_io_into_msg(&vec[i].msg_hdr))
      return EFAULT;
  return 0;
}

// A stream's own buffer, which the C library's read() fills.
static inline int pt_io_into_stream(FILE *fp) {
  if (!TCR_4(__kmp_pt_watch) || !fp || !fp->_IO_buf_base)
    return 0;
  return pt_io_into(fp->_IO_buf_base, fp->_IO_buf_end - fp->_IO_buf_base);
}

// ... and writes out of.
static inline void pt_io_out_stream(FILE *fp) {
  if (TCR_4(__kmp_pt_watch) && fp && fp->_IO_write_base)
    pt_io_buf(fp->_IO_write_base, fp->_IO_write_ptr - fp->_IO_write_base);
}

static inline int pt_io_into_items(void *p, size_t size, size_t n) {
  if (n && size > SIZE_MAX / n)
    return 0; // an overflowing product: left alone
  return pt_io_into(p, size * n);
}

// A buffer and the peer address a call fills in.
static inline int pt_io_into_from(void *buf, size_t n, void *from,
                                  const socklen_t *fromlen) {
  return pt_io_into(buf, n) || pt_io_into(from, fromlen ? *fromlen : 0) ? EFAULT
                                                                        : 0;
}

static int pt_forced_write(uintptr_t a, uintptr_t e) {
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
    const kmp_pt_engine *en =
        __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
    if (en && en->forced_write && __kmp_pt_watched(id) &&
        en->forced_write(a, e))
      return EFAULT;
  }
  return 0;
}

static void pt_file_write(kmp_uint64 ino) {
  for (int id = 0; id < KMP_PT_MAX_ENGINES; id++) {
    const kmp_pt_engine *en =
        __atomic_load_n(&__kmp_pt_engines[id], __ATOMIC_ACQUIRE);
    if (en && en->file_write && __kmp_pt_watched(id))
      en->file_write(ino);
  }
}

// The device of procfs, whose mem files write at addresses (0: not known).
static dev_t pt_io_proc_dev() {
  static volatile dev_t dev;
  static volatile int known;
  if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
    struct stat st;
    dev_t d = stat("/proc/self/mem", &st) == 0 ? st.st_dev : 0;
    __atomic_store_n(&dev, d, __ATOMIC_RELAXED);
    __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(&dev, __ATOMIC_RELAXED);
}

// A procfs mem file was opened (pt_io_opened): a write through some file
// descriptor may write at addresses.
static volatile int pt_proc_mem_opened;

// The engines that want to know what the kernel writes through files now:
// a write can matter only to an engine that holds file-backed memory, or
// through a procfs mem file.
static inline int pt_file_watch() {
  int w = TCR_4(__kmp_pt_watch) & TCR_4(__kmp_pt_file_engines);
  return w && (TCR_4(pt_proc_mem_opened) || (w & TCR_4(__kmp_pt_file_watch)));
}

// A call about to write n bytes through fd, at `off` or (off < 0) at fd's
// file position: what the kernel changes without a fault.  A procfs file
// (/proc/<pid>/mem) writes at the address `off`, whatever the protection
// (EFAULT if an engine refuses it); a regular file changes its private
// mappings' pages that are not yet copied on write.
static int pt_io_file_slow(int fd, off64_t off, size_t n) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return 0;
  dev_t proc = pt_io_proc_dev();
  if (proc && st.st_dev == proc) {
    if (!TCR_4(pt_proc_mem_opened))
      return 0;
    if (off < 0 && (off = lseek64(fd, 0, SEEK_CUR)) < 0)
      return 0;
    uintptr_t a = (uintptr_t)off, e = a + n;
    return e > a ? pt_forced_write(a, e) : 0;
  }
  if (TCR_4(__kmp_pt_watch) & TCR_4(__kmp_pt_file_watch))
    pt_file_write((kmp_uint64)st.st_ino);
  return 0;
}

static inline int pt_io_file(int fd, off64_t off, size_t n) {
  return pt_file_watch() && n ? pt_io_file_slow(fd, off, n) : 0;
}

static inline size_t pt_io_iov_bytes(const struct iovec *iov, long cnt) {
  size_t n = 0;
  for (long i = 0; iov && i < cnt; i++)
    n = iov[i].iov_len > SIZE_MAX - n ? SIZE_MAX : n + iov[i].iov_len;
  return n;
}

static inline int pt_io_file_iov(int fd, off64_t off, const struct iovec *iov,
                                 long cnt) {
  return pt_file_watch() ? pt_io_file(fd, off, pt_io_iov_bytes(iov, cnt)) : 0;
}

// stdio's stream: its buffered bytes reach the file when it is written or
// flushed (fflush(NULL): every stream, any file).
static inline void pt_io_stream(FILE *fp) {
  if (!pt_file_watch())
    return;
  int fd = fp ? fileno(fp) : -1;
  if (fd >= 0)
    pt_io_file(fd, -1, 1);
  else if (!fp && (TCR_4(__kmp_pt_watch) & TCR_4(__kmp_pt_file_watch)))
    pt_file_write(0);
}

// The calling process's memory through process_vm_readv/_writev: pid is the
// caller's (or 0, which the kernel rejects).
static inline int pt_io_self(pid_t pid) { return pid == getpid(); }

// A wrapper's TOUCH for a call that writes into memory: fails the call with
// EFAULT (returning `failed`) if `check` says so.
#define KMP_PT_IO_INTO(check, failed)                                          \
  if (check) {                                                                 \
    errno = EFAULT;                                                            \
    return failed;                                                             \
  }

// The body of a wrapper's out-of-line path: look the C library's function
// up (into `next`) if need be, then call it, the watching way if an engine
// watches: the buffers listed for the call's duration, then touched.  IDLE
// calls it while none watches (it returns, or goes on the watching way).
#define KMP_PT_IO_SLOW(ret, name, next, args, TOUCH, IDLE)                     \
  void *next_fn = __atomic_load_n(&next, __ATOMIC_ACQUIRE);                    \
  if (!next_fn)                                                                \
    next_fn = __kmp_pt_next(&next, #name);                                     \
  pt_fn_##name f = (pt_fn_##name)next_fn;                                      \
  if (!f) {                                                                    \
    errno = ENOSYS;                                                            \
    return static_cast<ret>(-1);                                               \
  }                                                                            \
  if (!TCR_4(__kmp_pt_watch)) {                                                \
    IDLE;                                                                      \
  }                                                                            \
  pt_io_call call; /* the buffers stay listed until the call returns */        \
  TOUCH;                                                                       \
  return f args;

// Define `name` with C linkage: touch the buffers (TOUCH), then call the
// next definition.  A missing one fails with ENOSYS.
// The wrapper itself is the idle path: two loads and a call of the C
// library's function.  The rest (the first look-up, the buffers while an
// engine watches) is out of line.  An arming that begins after the idle
// path's look and reaches the buffer before the kernel does stops the
// kernel's copy at the first protected page: with EFAULT if it is the
// first, and the call is then made again the watching way (buffers listed,
// then touched); else with the bytes copied before it, and a call that
// returns a count (KMP_PT_IO_WRAP_SSIZE) transfers the rest the watching
// way where the C library would not have stopped (pt_io_rest).  A datagram
// the kernel dropped on such a failure stays lost (a recv* from a datagram
// socket); a stream's bytes, a pipe's and a file's are not consumed by it.
#define KMP_PT_IO_WRAP(ret, name, params, args, TOUCH)                         \
  typedef ret(*pt_fn_##name) params;                                           \
  static void *volatile pt_next_##name;                                        \
  static __attribute__((noinline)) ret pt_slow_##name params {                 \
    KMP_PT_IO_SLOW(ret, name, pt_next_##name, args, TOUCH, return f args)      \
  }                                                                            \
  extern "C" ret name params {                                                 \
    pt_fn_##name f =                                                           \
        (pt_fn_##name)__atomic_load_n(&pt_next_##name, __ATOMIC_ACQUIRE);      \
    if (__builtin_expect(f && !TCR_4(__kmp_pt_watch), 1)) {                    \
      ret r = f args;                                                          \
      if (__builtin_expect(r != static_cast<ret>(-1), 1) || errno != EFAULT || \
          !TCR_4(__kmp_pt_watch))                                              \
        return r;                                                              \
    }                                                                          \
    return pt_slow_##name args;                                                \
  }

#define KMP_PT_UNPAREN(...) __VA_ARGS__

// Did the kernel stop short of the count because it met a page that an
// engine began to protect during the call (the idle path's call, made while
// no engine watched)?  next: the first byte not transferred.  Out of the
// buffer: its page cannot be read now.  Into it: the file is a regular one,
// whose read stops short only at its end (reading on there costs one call
// that returns 0); a pipe's or a socket's short read is one the C library
// may give too, and what it did not copy stays queued.
static int pt_io_cut(int fd, uintptr_t next, int into) {
  if (!TCR_4(__kmp_pt_watch))
    return 0;
  if (!into)
    return !__kmp_pt_readable(next & ~((uintptr_t)__kmp_pt_page - 1));
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

// r of the n bytes at buf were transferred by the idle path's call: the
// rest the watching way (more(done)) if an arming cut it short.  The count
// is the sum; errno is the first call's.
template <typename F>
static ssize_t pt_io_rest(int fd, ssize_t r, const void *buf, size_t n,
                          int into, F more) {
  if (r < 0 || (size_t)r >= n || !pt_io_cut(fd, (uintptr_t)buf + r, into))
    return r;
  int e = errno;
  ssize_t k = more((size_t)r);
  errno = e;
  return k > 0 ? r + k : r;
}

// The same for the buffers iov[0..cnt): more(v, c, done) transfers the c
// buffers at v, the first of them what a cut one has left.
template <typename F>
static ssize_t pt_io_rest_iov(int fd, ssize_t r, const struct iovec *iov,
                              long cnt, int into, F more) {
  if (r < 0 || !iov || cnt <= 0)
    return r;
  size_t left = (size_t)r;
  long i = 0;
  while (i < cnt && left >= iov[i].iov_len)
    left -= iov[i++].iov_len;
  if (i == cnt || !pt_io_cut(fd, (uintptr_t)iov[i].iov_base + left, into))
    return r;
  int e = errno;
  struct iovec first = {(char *)iov[i].iov_base + left, iov[i].iov_len - left};
  ssize_t done = r, k = more(&first, 1, (size_t)done);
  if (k > 0) {
    done += k;
    if ((size_t)k == first.iov_len && i + 1 < cnt &&
        (k = more(iov + i + 1, (int)(cnt - i - 1), (size_t)done)) > 0)
      done += k;
  }
  errno = e;
  return done;
}

// sendmsg's rest: the same header with the buffers left, without the
// ancillary data (sent with the first part).
static ssize_t pt_io_sendmsg_rest(ssize_t (*again)(int, const struct msghdr *,
                                                   int),
                                  int fd, const struct msghdr *msg,
                                  const struct iovec *v, int c, int flags) {
  struct msghdr m = *msg;
  m.msg_iov = (struct iovec *)v;
  m.msg_iovlen = c;
  m.msg_control = NULL;
  m.msg_controllen = 0;
  return again(fd, &m, flags);
}

// __kmp_pt_io_rest_<name>(r, arguments): the count of a successful idle
// call of name made while an engine watches now (REST: an expression of r,
// the arguments and `again`, the call the watching way).
// clang-format off (macros that define functions)
#define KMP_PT_IO_REST_DECL(name, params)                                      \
  __attribute__((visibility("hidden"))) ssize_t __kmp_pt_io_rest_##name(       \
      ssize_t r, KMP_PT_UNPAREN params)
// The idle call of a wrapper that returns a count: a success while an
// engine watches now goes to rest_, an EFAULT then the watching way.
#define KMP_PT_IO_IDLE(name, args)                                             \
  ssize_t r = f args;                                                          \
  if (r != -1)                                                                 \
    return __builtin_expect(!TCR_4(__kmp_pt_watch), 1)                         \
               ? r                                                             \
               : __kmp_pt_io_rest_##name(r, KMP_PT_UNPAREN args);              \
  if (errno != EFAULT || !TCR_4(__kmp_pt_watch))                               \
  return r
#define KMP_PT_IO_REST(name, params, slow, REST)                               \
  __attribute__((visibility("hidden"), used)) ssize_t __kmp_pt_io_rest_##name( \
      ssize_t r, KMP_PT_UNPAREN params) {                                      \
    pt_fn_##name again = slow;                                                 \
    (void)again;                                                               \
    return REST;                                                               \
  }
// clang-format on

// The same for a function that returns ssize_t and takes at most six
// arguments (all in registers).  On x86-64 the idle path is in assembly: the
// C library's function is called with the arguments kept on the stack, and
// on success the wrapper goes back to its caller with an indirect jump, not
// a return.  A return after a system call is often mispredicted (the kernel
// fills the return stack buffer on the way back to user space): the C
// library's own return is, and a second one in the wrapper costs as much
// again (about 8 % of a write() to /dev/null).  On failure the arguments are
// restored and the C code decides whether to call again (retry_*); on
// success while an engine watches now, whether to transfer the rest
// (rest_*, called with the result first, then the arguments); without the
// function or while an engine watched at the start, the C code does the
// call (slow_*).
// With shadow stacks (CET) enabled, incsspq drops the wrapper's own entry,
// as its return would; rdsspq, a no-op without them, tells.  Not for x32
// (ILP32 on x86-64: 4-byte pointers), which keeps the C path.
#if KMP_ARCH_X86_64 && !defined(__ILP32__)
#define KMP_PT_IO_FAST(name)                                                   \
  __asm__(".text\n"                                                            \
          ".globl " #name "\n"                                                 \
          ".type " #name ", @function\n"                                       \
          ".p2align 4\n" #name ":\n"                                           \
          ".cfi_startproc\n"                                                   \
          "mov __kmp_pt_io_next_" #name "(%rip), %rax\n"                       \
          "test %rax, %rax\n"                                                  \
          "jz 2f\n"                                                            \
          "mov __kmp_pt_watch@GOTPCREL(%rip), %r10\n"                          \
          "cmpl $0, (%r10)\n"                                                  \
          "jne 2f\n"                                                           \
          "push %rdi\n.cfi_adjust_cfa_offset 8\n"                              \
          "push %rsi\n.cfi_adjust_cfa_offset 8\n"                              \
          "push %rdx\n.cfi_adjust_cfa_offset 8\n"                              \
          "push %rcx\n.cfi_adjust_cfa_offset 8\n"                              \
          "push %r8\n.cfi_adjust_cfa_offset 8\n"                               \
          "push %r9\n.cfi_adjust_cfa_offset 8\n"                               \
          "sub $8, %rsp\n.cfi_adjust_cfa_offset 8\n"                           \
          "call *%rax\n"                                                       \
          "cmp $-1, %rax\n"                                                    \
          "je 1f\n"                                                            \
          "mov __kmp_pt_watch@GOTPCREL(%rip), %r10\n"                          \
          "cmpl $0, (%r10)\n"                                                  \
          "jne 4f\n"                                                           \
          ".cfi_remember_state\n"                                              \
          "add $56, %rsp\n.cfi_adjust_cfa_offset -56\n"                        \
          "pop %rcx\n.cfi_adjust_cfa_offset -8\n"                              \
          ".cfi_register %rip, %rcx\n"                                         \
          "xor %r11d, %r11d\n"                                                 \
          "rdsspq %r11\n"                                                      \
          "test %r11, %r11\n"                                                  \
          "jz 3f\n"                                                            \
          "mov $1, %r11d\n"                                                    \
          "incsspq %r11\n"                                                     \
          "3:\n"                                                               \
          "jmp *%rcx\n"                                                        \
          "1:\n"                                                               \
          ".cfi_restore_state\n"                                               \
          ".cfi_remember_state\n"                                              \
          "add $8, %rsp\n.cfi_adjust_cfa_offset -8\n"                          \
          "pop %r9\n.cfi_adjust_cfa_offset -8\n"                               \
          "pop %r8\n.cfi_adjust_cfa_offset -8\n"                               \
          "pop %rcx\n.cfi_adjust_cfa_offset -8\n"                              \
          "pop %rdx\n.cfi_adjust_cfa_offset -8\n"                              \
          "pop %rsi\n.cfi_adjust_cfa_offset -8\n"                              \
          "pop %rdi\n.cfi_adjust_cfa_offset -8\n"                              \
          "jmp __kmp_pt_io_retry_" #name "\n"                                  \
          "4:\n"                                                               \
          ".cfi_restore_state\n"                                               \
          "mov 8(%rsp), %r11\n"                                                \
          "mov %r11, (%rsp)\n"                                                 \
          "mov 16(%rsp), %r9\n"                                                \
          "mov 24(%rsp), %r8\n"                                                \
          "mov 32(%rsp), %rcx\n"                                               \
          "mov 40(%rsp), %rdx\n"                                               \
          "mov 48(%rsp), %rsi\n"                                               \
          "mov %rax, %rdi\n"                                                   \
          "call __kmp_pt_io_rest_" #name "\n"                                  \
          "add $56, %rsp\n.cfi_adjust_cfa_offset -56\n"                        \
          "ret\n"                                                              \
          "2:\n"                                                               \
          "jmp __kmp_pt_io_slow_" #name "\n"                                   \
          ".cfi_endproc\n"                                                     \
          ".size " #name ", . - " #name "\n");
// clang-format off
#define KMP_PT_IO_WRAP_SSIZE(name, params, args, TOUCH, REST)                  \
  typedef ssize_t(*pt_fn_##name) params;                                       \
  extern "C" {                                                                 \
  KMP_PT_IO_REST_DECL(name, params);                                           \
  __attribute__((visibility("hidden"))) void *volatile __kmp_pt_io_next_##name \
      = nullptr;                                                               \
  __attribute__((visibility("hidden"), used)) ssize_t                          \
      __kmp_pt_io_slow_##name params {                                         \
    KMP_PT_IO_SLOW(ssize_t, name, __kmp_pt_io_next_##name, args, TOUCH,        \
                   KMP_PT_IO_IDLE(name, args))                                 \
  }                                                                            \
  KMP_PT_IO_REST(name, params, __kmp_pt_io_slow_##name, REST)                  \
  __attribute__((visibility("hidden"), used)) ssize_t                          \
      __kmp_pt_io_retry_##name params {                                        \
    if (errno != EFAULT || !TCR_4(__kmp_pt_watch))                             \
      return -1;                                                               \
    return __kmp_pt_io_slow_##name args;                                       \
  }                                                                            \
  }                                                                            \
  KMP_PT_IO_FAST(name)
#else
#define KMP_PT_IO_WRAP_SSIZE(name, params, args, TOUCH, REST)                  \
  typedef ssize_t(*pt_fn_##name) params;                                       \
  static void *volatile pt_next_##name;                                        \
  extern "C" KMP_PT_IO_REST_DECL(name, params);                                \
  static __attribute__((noinline)) ssize_t pt_slow_##name params {             \
    KMP_PT_IO_SLOW(ssize_t, name, pt_next_##name, args, TOUCH,                 \
                   KMP_PT_IO_IDLE(name, args))                                 \
  }                                                                            \
  extern "C" {                                                                 \
  KMP_PT_IO_REST(name, params, pt_slow_##name, REST)                           \
  }                                                                            \
  extern "C" ssize_t name params {                                             \
    pt_fn_##name f =                                                           \
        (pt_fn_##name)__atomic_load_n(&pt_next_##name, __ATOMIC_ACQUIRE);      \
    if (__builtin_expect(f && !TCR_4(__kmp_pt_watch), 1)) {                    \
      KMP_PT_IO_IDLE(name, args);                                              \
    }                                                                          \
    return pt_slow_##name args;                                                \
  }
// clang-format on
#endif

// Into the buffer.
KMP_PT_IO_WRAP_SSIZE(read, (int fd, void *buf, size_t n), (fd, buf, n),
                     KMP_PT_IO_INTO(pt_io_into(buf, n), -1),
                     pt_io_rest(fd, r, buf, n, 1, [&](size_t d) {
                       return again(fd, (char *)buf + d, n - d);
                     }))
KMP_PT_IO_WRAP_SSIZE(pread, (int fd, void *buf, size_t n, off_t off),
                     (fd, buf, n, off), KMP_PT_IO_INTO(pt_io_into(buf, n), -1),
                     pt_io_rest(fd, r, buf, n, 1, [&](size_t d) {
                       return again(fd, (char *)buf + d, n - d, off + (off_t)d);
                     }))
KMP_PT_IO_WRAP_SSIZE(pread64, (int fd, void *buf, size_t n, off64_t off),
                     (fd, buf, n, off), KMP_PT_IO_INTO(pt_io_into(buf, n), -1),
                     pt_io_rest(fd, r, buf, n, 1, [&](size_t d) {
                       return again(fd, (char *)buf + d, n - d,
                                    off + (off64_t)d);
                     }))
KMP_PT_IO_WRAP_SSIZE(readv, (int fd, const struct iovec *iov, int cnt),
                     (fd, iov, cnt),
                     KMP_PT_IO_INTO(pt_io_into_iov(iov, cnt), -1),
                     pt_io_rest_iov(fd, r, iov, cnt, 1,
                                    [&](const struct iovec *v, int c, size_t) {
                                      return again(fd, v, c);
                                    }))
KMP_PT_IO_WRAP_SSIZE(
    preadv, (int fd, const struct iovec *iov, int cnt, off_t off),
    (fd, iov, cnt, off), KMP_PT_IO_INTO(pt_io_into_iov(iov, cnt), -1),
    pt_io_rest_iov(fd, r, iov, cnt, 1,
                   [&](const struct iovec *v, int c, size_t d) {
                     return again(fd, v, c, off + (off_t)d);
                   }))
KMP_PT_IO_WRAP_SSIZE(
    preadv64, (int fd, const struct iovec *iov, int cnt, off64_t off),
    (fd, iov, cnt, off), KMP_PT_IO_INTO(pt_io_into_iov(iov, cnt), -1),
    pt_io_rest_iov(fd, r, iov, cnt, 1,
                   [&](const struct iovec *v, int c, size_t d) {
                     return again(fd, v, c, off + (off64_t)d);
                   }))
KMP_PT_IO_WRAP_SSIZE(recv, (int fd, void *buf, size_t n, int flags),
                     (fd, buf, n, flags),
                     KMP_PT_IO_INTO(pt_io_into(buf, n), -1), r)
KMP_PT_IO_WRAP_SSIZE(recvfrom,
                     (int fd, void *buf, size_t n, int flags,
                      struct sockaddr *from, socklen_t *fromlen),
                     (fd, buf, n, flags, from, fromlen),
                     KMP_PT_IO_INTO(pt_io_into_from(buf, n, from, fromlen), -1),
                     r)
KMP_PT_IO_WRAP_SSIZE(recvmsg, (int fd, struct msghdr *msg, int flags),
                     (fd, msg, flags), KMP_PT_IO_INTO(pt_io_into_msg(msg), -1),
                     r)
KMP_PT_IO_WRAP(int, recvmmsg,
               (int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
                struct timespec *timeout),
               (fd, vec, vlen, flags, timeout),
               KMP_PT_IO_INTO(pt_io_into_mmsg(vec, vlen), -1))
KMP_PT_IO_WRAP(
    size_t, fread, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp),
    KMP_PT_IO_INTO(pt_io_into_items(p, size, n) || pt_io_into_stream(fp), 0))
KMP_PT_IO_WRAP(size_t, fread_unlocked,
               (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp),
               KMP_PT_IO_INTO(pt_io_into_items(p, size, n) ||
                                  pt_io_into_stream(fp),
                              0))

// Out of the buffer: no data is lost there, but the call would fail.  Into
// the file: see pt_io_file.
KMP_PT_IO_WRAP_SSIZE(write, (int fd, const void *buf, size_t n), (fd, buf, n),
                     pt_io_buf(buf, n);
                     KMP_PT_IO_INTO(pt_io_file(fd, -1, n), -1),
                     pt_io_rest(fd, r, buf, n, 0, [&](size_t d) {
                       return again(fd, (const char *)buf + d, n - d);
                     }))
KMP_PT_IO_WRAP_SSIZE(pwrite, (int fd, const void *buf, size_t n, off_t off),
                     (fd, buf, n, off), pt_io_buf(buf, n);
                     KMP_PT_IO_INTO(pt_io_file(fd, off < 0 ? 0 : off, n), -1),
                     pt_io_rest(fd, r, buf, n, 0, [&](size_t d) {
                       return again(fd, (const char *)buf + d, n - d,
                                    off + (off_t)d);
                     }))
KMP_PT_IO_WRAP_SSIZE(pwrite64, (int fd, const void *buf, size_t n, off64_t off),
                     (fd, buf, n, off), pt_io_buf(buf, n);
                     KMP_PT_IO_INTO(pt_io_file(fd, off < 0 ? 0 : off, n), -1),
                     pt_io_rest(fd, r, buf, n, 0, [&](size_t d) {
                       return again(fd, (const char *)buf + d, n - d,
                                    off + (off64_t)d);
                     }))
KMP_PT_IO_WRAP_SSIZE(writev, (int fd, const struct iovec *iov, int cnt),
                     (fd, iov, cnt), pt_io_iov(iov, cnt);
                     KMP_PT_IO_INTO(pt_io_file_iov(fd, -1, iov, cnt), -1),
                     pt_io_rest_iov(fd, r, iov, cnt, 0,
                                    [&](const struct iovec *v, int c, size_t) {
                                      return again(fd, v, c);
                                    }))
KMP_PT_IO_WRAP_SSIZE(
    pwritev, (int fd, const struct iovec *iov, int cnt, off_t off),
    (fd, iov, cnt, off), pt_io_iov(iov, cnt);
    KMP_PT_IO_INTO(pt_io_file_iov(fd, off < 0 ? 0 : off, iov, cnt), -1),
    pt_io_rest_iov(fd, r, iov, cnt, 0,
                   [&](const struct iovec *v, int c, size_t d) {
                     return again(fd, v, c, off + (off_t)d);
                   }))
KMP_PT_IO_WRAP_SSIZE(
    pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t off),
    (fd, iov, cnt, off), pt_io_iov(iov, cnt);
    KMP_PT_IO_INTO(pt_io_file_iov(fd, off < 0 ? 0 : off, iov, cnt), -1),
    pt_io_rest_iov(fd, r, iov, cnt, 0,
                   [&](const struct iovec *v, int c, size_t d) {
                     return again(fd, v, c, off + (off64_t)d);
                   }))
KMP_PT_IO_WRAP_SSIZE(send, (int fd, const void *buf, size_t n, int flags),
                     (fd, buf, n, flags), pt_io_buf(buf, n),
                     pt_io_rest(fd, r, buf, n, 0, [&](size_t d) {
                       return again(fd, (const char *)buf + d, n - d, flags);
                     }))
KMP_PT_IO_WRAP_SSIZE(sendto,
                     (int fd, const void *buf, size_t n, int flags,
                      const struct sockaddr *to, socklen_t tolen),
                     (fd, buf, n, flags, to, tolen), pt_io_buf(buf, n),
                     pt_io_rest(fd, r, buf, n, 0, [&](size_t d) {
                       return again(fd, (const char *)buf + d, n - d, flags, to,
                                    tolen);
                     }))
KMP_PT_IO_WRAP_SSIZE(
    sendmsg, (int fd, const struct msghdr *msg, int flags), (fd, msg, flags),
    pt_io_msg(msg),
    msg ? pt_io_rest_iov(fd, r, msg->msg_iov, (long)msg->msg_iovlen, 0,
                         [&](const struct iovec *v, int c, size_t) {
                           return pt_io_sendmsg_rest(again, fd, msg, v, c,
                                                     flags);
                         })
        : r)
KMP_PT_IO_WRAP(int, sendmmsg,
               (int fd, struct mmsghdr *vec, unsigned int vlen, int flags),
               (fd, vec, vlen, flags),
               KMP_PT_IO_INTO(pt_io_into_vec(vec, vlen), -1);
               for (unsigned i = 0; vec && i < vlen; i++)
                   pt_io_msg(&vec[i].msg_hdr))
KMP_PT_IO_WRAP(size_t, fwrite, (const void *p, size_t size, size_t n, FILE *fp),
               (p, size, n, fp), pt_io_items(p, size, n);
               pt_io_out_stream(fp); pt_io_stream(fp))
KMP_PT_IO_WRAP(size_t, fwrite_unlocked,
               (const void *p, size_t size, size_t n, FILE *fp),
               (p, size, n, fp), pt_io_items(p, size, n);
               pt_io_out_stream(fp); pt_io_stream(fp))
KMP_PT_IO_WRAP(int, fflush, (FILE * fp), (fp), pt_io_out_stream(fp);
               pt_io_stream(fp))
KMP_PT_IO_WRAP(int, fclose, (FILE * fp), (fp), pt_io_out_stream(fp);
               pt_io_stream(fp))

// Another process's memory, or the caller's own: its local buffers as
// read()/write() buffers, the remote ones of the calling process as well.
KMP_PT_IO_WRAP_SSIZE(process_vm_readv,
                     (pid_t pid, const struct iovec *local, unsigned long lcnt,
                      const struct iovec *remote, unsigned long rcnt,
                      unsigned long flags),
                     (pid, local, lcnt, remote, rcnt, flags),
                     KMP_PT_IO_INTO(pt_io_into_iov(local, (long)lcnt), -1);
                     if (pt_io_self(pid)) pt_io_iov(remote, (long)rcnt), r)
KMP_PT_IO_WRAP_SSIZE(
    process_vm_writev,
    (pid_t pid, const struct iovec *local, unsigned long lcnt,
     const struct iovec *remote, unsigned long rcnt, unsigned long flags),
    (pid, local, lcnt, remote, rcnt, flags), pt_io_iov(local, (long)lcnt);
    KMP_PT_IO_INTO(pt_io_self(pid) && pt_io_into_iov(remote, (long)rcnt), -1),
    r)

// Calls that consume before they copy out: the wait family reaps the
// child, then writes its status; a failed copy would lose it.  Whatever an
// engine does with the memory meanwhile (a region's arming may protect it
// while the call waits), the kernel writes into the wrapper's own variables,
// and the wrapper copies them out with ordinary stores, which fault like
// any access of the program.  A readonly item a running region lists is
// refused first (EFAULT, nothing consumed).
#define KMP_PT_WAIT_BODY(call, ...)                                            \
  if (!__kmp_pt_enabled()) /* no engine may ever protect anything */           \
    return f(__VA_ARGS__);                                                     \
  KMP_PT_IO_INTO(pt_io_into(status, sizeof(int)) ||                            \
                     pt_io_into(ru, ru ? sizeof *ru : 0),                      \
                 -1)                                                           \
  int st = 0;                                                                  \
  struct rusage r;                                                             \
  pid_t rc = call;                                                             \
  if (rc > 0) {                                                                \
    if (status)                                                                \
      *status = st;                                                            \
    if (ru)                                                                    \
      *ru = r;                                                                 \
  }                                                                            \
  return rc;

extern "C" pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru) {
  typedef pid_t (*fn_t)(pid_t, int *, int, struct rusage *);
  KMP_PT_NEXT(fn_t, "wait4", -1)
  KMP_PT_WAIT_BODY(f(pid, status ? &st : NULL, options, ru ? &r : NULL), pid,
                   status, options, ru)
}

extern "C" pid_t wait3(int *status, int options, struct rusage *ru) {
  typedef pid_t (*fn_t)(int *, int, struct rusage *);
  KMP_PT_NEXT(fn_t, "wait3", -1)
  KMP_PT_WAIT_BODY(f(status ? &st : NULL, options, ru ? &r : NULL), status,
                   options, ru)
}

extern "C" pid_t waitpid(pid_t pid, int *status, int options) {
  typedef pid_t (*fn_t)(pid_t, int *, int);
  KMP_PT_NEXT(fn_t, "waitpid", -1)
  struct rusage *ru = NULL;
  KMP_PT_WAIT_BODY(f(pid, status ? &st : NULL, options), pid, status, options)
}

extern "C" pid_t wait(int *status) {
  typedef pid_t (*fn_t)(int *);
  KMP_PT_NEXT(fn_t, "wait", -1)
  struct rusage *ru = NULL;
  KMP_PT_WAIT_BODY(f(status ? &st : NULL), status)
}

extern "C" int waitid(idtype_t type, id_t id, siginfo_t *info, int options) {
  typedef int (*fn_t)(idtype_t, id_t, siginfo_t *, int);
  KMP_PT_NEXT(fn_t, "waitid", -1)
  if (!__kmp_pt_enabled() || !info)
    return f(type, id, info, options);
  KMP_PT_IO_INTO(pt_io_into(info, sizeof *info), -1)
  siginfo_t si;
  memset(&si, 0, sizeof si);
  int rc = f(type, id, &si, options);
  if (rc == 0)
    *info = si;
  return rc;
}

// posix_spawn's child shares the parent's memory until it runs the program
// and reads the path, the arguments and the environment there with every
// handler reset: a page an engine protects (or protects again, arming in
// another thread meanwhile) would kill it.  While an engine may protect
// pages, they are copied into a private mapping of the layer, which no engine
// protects, and the child reads them there; the pid is written back with an
// ordinary store.
static size_t pt_spawn_size(char *const *v, size_t *n) {
  size_t bytes = 0;
  *n = 0;
  for (; v && v[*n]; (*n)++)
    bytes += strlen(v[*n]) + 1;
  return bytes;
}

static char **pt_spawn_copy(char *const *v, size_t n, char ***slot,
                            char **text) {
  if (!v)
    return NULL;
  char **out = *slot;
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(v[i]) + 1;
    memcpy(*text, v[i], l);
    out[i] = *text;
    *text += l;
  }
  out[n] = NULL;
  *slot += n + 1;
  return out;
}

typedef int (*pt_spawn_fn)(pid_t *, const char *,
                           const posix_spawn_file_actions_t *,
                           const posix_spawnattr_t *, char *const[],
                           char *const[]);

static int pt_spawn(pt_spawn_fn f, pid_t *pid, const char *path,
                    const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[],
                    char *const envp[]) {
  if (!__kmp_pt_enabled() || !path)
    return f(pid, path, fa, attr, argv, envp);
  if (pt_io_into(pid, pid ? sizeof *pid : 0))
    return EFAULT;
  size_t na, ne;
  size_t bytes =
      strlen(path) + 1 + pt_spawn_size(argv, &na) + pt_spawn_size(envp, &ne);
  size_t ptrs = (na + 1 + ne + 1) * sizeof(char *);
  size_t len = (ptrs + bytes + __kmp_pt_page - 1) & ~(__kmp_pt_page - 1);
  char *m = (char *)__kmp_pt_private_alloc(len);
  if (!m)
    return ENOMEM;
  char **slot = (char **)m, *text = m + ptrs;
  char *p = text;
  memcpy(p, path, strlen(path) + 1);
  text += strlen(path) + 1;
  char **a = pt_spawn_copy(argv, na, &slot, &text);
  char **e = pt_spawn_copy(envp, ne, &slot, &text);
  pid_t child = 0;
  int rc = f(&child, p, fa, attr, a, e);
  __kmp_pt_private_free(m, len);
  if (rc == 0 && pid)
    *pid = child;
  return rc;
}

#define KMP_PT_SPAWN(name)                                                     \
  extern "C" int name(                                                         \
      pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,      \
      const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) { \
    static void *volatile next;                                                \
    pt_spawn_fn f = (pt_spawn_fn)__kmp_pt_next(&next, #name);                  \
    if (!f)                                                                    \
      return ENOSYS;                                                           \
    return pt_spawn(f, pid, path, fa, attr, argv, envp);                       \
  }
KMP_PT_SPAWN(posix_spawn)
KMP_PT_SPAWN(posix_spawnp)

// Opening files: a procfs mem file (/proc/<pid>/mem, whose offsets are
// addresses) is noted once, so that writes look at their file descriptor
// only in a process that has opened one.  Costs a look at the name's last
// component.
static void pt_io_opened(const char *path, int fd) {
  if (fd < 0 || !path || TCR_4(pt_proc_mem_opened))
    return;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "mem") != 0)
    return;
  struct stat st;
  dev_t proc = pt_io_proc_dev();
  if (proc && fstat(fd, &st) == 0 && st.st_dev == proc)
    __atomic_store_n(&pt_proc_mem_opened, 1, __ATOMIC_RELEASE);
}

// What the open family's wrappers return: fd, after a look at it (errno
// kept).
static int pt_io_open_done(const char *path, int fd) {
  int e = errno;
  pt_io_opened(path, fd);
  errno = e;
  return fd;
}

// open and openat: the mode is read only with O_CREAT or O_TMPFILE, as the C
// library does.
#define KMP_PT_OPEN(name, params, args)                                        \
  extern "C" int name params {                                                 \
    typedef int(*fn_t) params;                                                 \
    KMP_PT_NEXT(fn_t, #name, -1)                                               \
    mode_t mode = 0;                                                           \
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {               \
      va_list ap;                                                              \
      va_start(ap, flags);                                                     \
      mode = va_arg(ap, mode_t);                                               \
      va_end(ap);                                                              \
    }                                                                          \
    return pt_io_open_done(path, f args);                                      \
  }
KMP_PT_OPEN(open, (const char *path, int flags, ...), (path, flags, mode))
KMP_PT_OPEN(open64, (const char *path, int flags, ...), (path, flags, mode))
KMP_PT_OPEN(openat, (int dir, const char *path, int flags, ...),
            (dir, path, flags, mode))
KMP_PT_OPEN(openat64, (int dir, const char *path, int flags, ...),
            (dir, path, flags, mode))

// What a program built with _FORTIFY_SOURCE calls instead.
#define KMP_PT_OPEN_CHK(name, params, args)                                    \
  extern "C" int name params {                                                 \
    typedef int(*fn_t) params;                                                 \
    KMP_PT_NEXT(fn_t, #name, -1)                                               \
    return pt_io_open_done(path, f args);                                      \
  }
KMP_PT_OPEN_CHK(__open_2, (const char *path, int flags), (path, flags))
KMP_PT_OPEN_CHK(__open64_2, (const char *path, int flags), (path, flags))
KMP_PT_OPEN_CHK(__openat_2, (int dir, const char *path, int flags),
                (dir, path, flags))
KMP_PT_OPEN_CHK(__openat64_2, (int dir, const char *path, int flags),
                (dir, path, flags))

#define KMP_PT_FOPEN(name, params, args)                                       \
  extern "C" FILE *name params {                                               \
    typedef FILE *(*fn_t)params;                                               \
    KMP_PT_NEXT(fn_t, #name, NULL)                                             \
    FILE *opened = f args;                                                     \
    if (opened)                                                                \
      pt_io_open_done(path, fileno(opened));                                   \
    return opened;                                                             \
  }
KMP_PT_FOPEN(fopen, (const char *path, const char *mode), (path, mode))
KMP_PT_FOPEN(fopen64, (const char *path, const char *mode), (path, mode))
KMP_PT_FOPEN(freopen, (const char *path, const char *mode, FILE *fp),
             (path, mode, fp))
KMP_PT_FOPEN(freopen64, (const char *path, const char *mode, FILE *fp),
             (path, mode, fp))

// What a program built with _FORTIFY_SOURCE calls instead.
KMP_PT_IO_WRAP_SSIZE(__read_chk, (int fd, void *buf, size_t n, size_t buflen),
                     (fd, buf, n, buflen),
                     KMP_PT_IO_INTO(pt_io_into(buf, n < buflen ? n : buflen),
                                    -1),
                     pt_io_rest(fd, r, buf, n, 1, [&](size_t d) {
                       return again(fd, (char *)buf + d, n - d,
                                    buflen > d ? buflen - d : 0);
                     }))
KMP_PT_IO_WRAP_SSIZE(__pread_chk,
                     (int fd, void *buf, size_t n, off_t off, size_t buflen),
                     (fd, buf, n, off, buflen),
                     KMP_PT_IO_INTO(pt_io_into(buf, n < buflen ? n : buflen),
                                    -1),
                     pt_io_rest(fd, r, buf, n, 1, [&](size_t d) {
                       return again(fd, (char *)buf + d, n - d, off + (off_t)d,
                                    buflen > d ? buflen - d : 0);
                     }))
KMP_PT_IO_WRAP_SSIZE(
    __pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen),
    (fd, buf, n, off, buflen),
    KMP_PT_IO_INTO(pt_io_into(buf, n < buflen ? n : buflen), -1),
    pt_io_rest(fd, r, buf, n, 1, [&](size_t d) {
      return again(fd, (char *)buf + d, n - d, off + (off64_t)d,
                   buflen > d ? buflen - d : 0);
    }))
KMP_PT_IO_WRAP_SSIZE(
    __recv_chk, (int fd, void *buf, size_t n, size_t buflen, int flags),
    (fd, buf, n, buflen, flags),
    KMP_PT_IO_INTO(pt_io_into(buf, n < buflen ? n : buflen), -1), r)
KMP_PT_IO_WRAP(ssize_t, __recvfrom_chk,
               (int fd, void *buf, size_t n, size_t buflen, int flags,
                struct sockaddr *from, socklen_t *fromlen),
               (fd, buf, n, buflen, flags, from, fromlen),
               KMP_PT_IO_INTO(pt_io_into_from(buf, n < buflen ? n : buflen,
                                              from, fromlen),
                              -1))
KMP_PT_IO_WRAP(size_t, __fread_chk,
               (void *p, size_t plen, size_t size, size_t n, FILE *fp),
               (p, plen, size, n, fp),
               KMP_PT_IO_INTO(pt_io_into_items(p, size, n), 0))
KMP_PT_IO_WRAP(size_t, __fread_unlocked_chk,
               (void *p, size_t plen, size_t size, size_t n, FILE *fp),
               (p, plen, size, n, fp),
               KMP_PT_IO_INTO(pt_io_into_items(p, size, n), 0))

#endif // KMP_PAGETRAP_SUPPORTED
