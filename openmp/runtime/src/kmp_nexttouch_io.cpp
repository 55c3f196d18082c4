/*
 * kmp_nexttouch_io.cpp -- affinity-on-next-touch: system calls that copy into
 * or out of armed memory.
 *
 * Armed pages are PROT_NONE.  A thread's own load or store faults and the
 * engine's handler migrates the page, but the kernel's copy in read(),
 * recv() or write() does not fault: the call fails with EFAULT, and a
 * datagram (UDP, AF_UNIX SOCK_DGRAM) read that way is dropped by the kernel,
 * lost.  libomp therefore wraps the C library's calls that hand a user
 * buffer to the kernel.  While nothing is armed a wrapper costs one load and
 * calls the C library's function; otherwise it first touches the armed
 * pages of the buffers as the calling thread (__kmp_nt_touch_range): in a
 * team they move to the caller's node -- the caller is their next toucher --
 * in serial code they are opened where they are.
 *
 * The readonly engine's cached list items are write-protected between
 * regions, which the kernel's copy does not fault on either: the wrappers
 * of the calls that write into a buffer (read, recv, fread, ...) first ask
 * it (__kmp_ro_io_write) to open their pages, and fail with EFAULT, before
 * the kernel writes anything, into an item a running region lists.  The
 * write side changes items too: a write to /proc/<pid>/mem (whose offsets
 * are addresses) writes whatever the protection, and a write to a file
 * changes what its private mappings show where their pages are not yet
 * copied on write.  Those wrappers tell the engine which items the kernel
 * changes (__kmp_ro_forced_write, __kmp_ro_file_write), and so do the
 * wrappers of process_vm_readv/process_vm_writev on the calling process.
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

#include "kmp_nexttouch.h"

#if KMP_NEXTTOUCH_SUPPORTED
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

// Touch [p, p+n) if anything is armed.  A range that wraps is left alone:
// the call fails anyway, and no armed page beyond the buffer is touched.
static inline void nt_io_buf(const void *p, size_t n) {
  if (!TCR_4(__kmp_nexttouch_armed) || !p || !n)
    return;
  uintptr_t a = (uintptr_t)p, e = a + n;
  if (e > a)
    __kmp_nt_touch_range(a, e);
}

static inline void nt_io_iov(const struct iovec *iov, long cnt) {
  if (!TCR_4(__kmp_nexttouch_armed) || !iov || cnt <= 0)
    return;
  for (long i = 0; i < cnt; i++)
    nt_io_buf(iov[i].iov_base, iov[i].iov_len);
}

static inline void nt_io_msg(const struct msghdr *m) {
  if (!TCR_4(__kmp_nexttouch_armed) || !m)
    return;
  nt_io_buf(m->msg_name, m->msg_namelen);
  nt_io_iov(m->msg_iov, (long)m->msg_iovlen);
  nt_io_buf(m->msg_control, m->msg_controllen);
}

// stdio's n items of size bytes at p.
static inline void nt_io_items(const void *p, size_t size, size_t n) {
  if (!n || size <= SIZE_MAX / n) // an overflowing product touches nothing
    nt_io_buf(p, size * n);
}

// A call about to write into [p, p+n): readonly list items there first
// (EFAULT: the call must fail, an item a running region lists is there),
// then the armed pages.  A range that wraps is left alone.
static inline int nt_io_into(void *p, size_t n) {
  if (TCR_4(__kmp_ro_live) && p && n) {
    uintptr_t a = (uintptr_t)p, e = a + n;
    if (e > a && __kmp_ro_io_write(a, e))
      return EFAULT;
  }
  nt_io_buf(p, n);
  return 0;
}

static inline int nt_io_into_iov(const struct iovec *iov, long cnt) {
  for (long i = 0; iov && i < cnt; i++)
    if (nt_io_into(iov[i].iov_base, iov[i].iov_len))
      return EFAULT;
  return 0;
}

static inline int nt_io_into_msg(struct msghdr *m) {
  if (!m)
    return 0;
  return nt_io_into(m->msg_name, m->msg_namelen) ||
                 nt_io_into_iov(m->msg_iov, (long)m->msg_iovlen) ||
                 nt_io_into(m->msg_control, m->msg_controllen)
             ? EFAULT
             : 0;
}

static inline int nt_io_into_items(void *p, size_t size, size_t n) {
  if (n && size > SIZE_MAX / n)
    return 0; // an overflowing product: left alone
  return nt_io_into(p, size * n);
}

// A buffer and the peer address a call fills in.
static inline int nt_io_into_from(void *buf, size_t n, void *from,
                                  const socklen_t *fromlen) {
  return nt_io_into(buf, n) || nt_io_into(from, fromlen ? *fromlen : 0)
             ? EFAULT
             : 0;
}

// The device of procfs, whose mem files write at addresses (0: not known).
static dev_t nt_io_proc_dev() {
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

// A call about to write n bytes through fd, at `off` or (off < 0) at fd's
// file position: the cached readonly items the kernel changes without a
// fault.  A procfs file (/proc/<pid>/mem) writes at the address `off`,
// whatever the protection (EFAULT: an item a running region lists is
// there); a regular file changes its private mappings' pages that are not
// yet copied on write.
static int nt_io_file_slow(int fd, off64_t off, size_t n) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return 0;
  dev_t proc = nt_io_proc_dev();
  if (proc && st.st_dev == proc) {
    if (off < 0 && (off = lseek64(fd, 0, SEEK_CUR)) < 0)
      return 0;
    uintptr_t a = (uintptr_t)off, e = a + n;
    return e > a && __kmp_ro_forced_write(a, e) ? EFAULT : 0;
  }
  __kmp_ro_file_write((kmp_uint64)st.st_ino);
  return 0;
}

static inline int nt_io_file(int fd, off64_t off, size_t n) {
  return TCR_4(__kmp_ro_live) && n ? nt_io_file_slow(fd, off, n) : 0;
}

static inline size_t nt_io_iov_bytes(const struct iovec *iov, long cnt) {
  size_t n = 0;
  for (long i = 0; iov && i < cnt; i++)
    n = iov[i].iov_len > SIZE_MAX - n ? SIZE_MAX : n + iov[i].iov_len;
  return n;
}

static inline int nt_io_file_iov(int fd, off64_t off, const struct iovec *iov,
                                 long cnt) {
  return TCR_4(__kmp_ro_live) ? nt_io_file(fd, off, nt_io_iov_bytes(iov, cnt))
                              : 0;
}

// stdio's stream: its buffered bytes reach the file when it is written or
// flushed (fflush(NULL): every stream, any file).
static inline void nt_io_stream(FILE *fp) {
  if (!TCR_4(__kmp_ro_live))
    return;
  int fd = fp ? fileno(fp) : -1;
  if (fd >= 0)
    nt_io_file(fd, -1, 1);
  else if (!fp)
    __kmp_ro_file_write(0);
}

// The calling process's memory through process_vm_readv/_writev: pid is the
// caller's (or 0, which the kernel rejects).
static inline int nt_io_self(pid_t pid) { return pid == getpid(); }

// A wrapper's TOUCH for a call that writes into memory: fails the call with
// EFAULT (returning `failed`) if `check` says so.
#define KMP_NT_IO_INTO(check, failed)                                          \
  if (check) {                                                                 \
    errno = EFAULT;                                                            \
    return failed;                                                             \
  }

void *__kmp_nt_next(void *volatile *cache, const char *name) {
  void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!f) {
    f = dlsym(RTLD_NEXT, name);
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
  }
  return f;
}

// Define `name` with C linkage: touch the buffers (TOUCH), then call the
// next definition.  A missing one fails with ENOSYS.
#define KMP_NT_IO_WRAP(ret, name, params, args, TOUCH)                         \
  extern "C" ret name params {                                                 \
    static void *volatile next;                                                \
    typedef ret(*fn_t) params;                                                 \
    fn_t f = (fn_t)__kmp_nt_next(&next, #name);                                \
    if (!f) {                                                                  \
      errno = ENOSYS;                                                          \
      return static_cast<ret>(-1);                                             \
    }                                                                          \
    TOUCH;                                                                     \
    return f args;                                                             \
  }

// Into the buffer.
KMP_NT_IO_WRAP(ssize_t, read, (int fd, void *buf, size_t n), (fd, buf, n),
               KMP_NT_IO_INTO(nt_io_into(buf, n), -1))
KMP_NT_IO_WRAP(ssize_t, pread, (int fd, void *buf, size_t n, off_t off),
               (fd, buf, n, off), KMP_NT_IO_INTO(nt_io_into(buf, n), -1))
KMP_NT_IO_WRAP(ssize_t, pread64, (int fd, void *buf, size_t n, off64_t off),
               (fd, buf, n, off), KMP_NT_IO_INTO(nt_io_into(buf, n), -1))
KMP_NT_IO_WRAP(ssize_t, readv, (int fd, const struct iovec *iov, int cnt),
               (fd, iov, cnt), KMP_NT_IO_INTO(nt_io_into_iov(iov, cnt), -1))
KMP_NT_IO_WRAP(ssize_t, preadv,
               (int fd, const struct iovec *iov, int cnt, off_t off),
               (fd, iov, cnt, off),
               KMP_NT_IO_INTO(nt_io_into_iov(iov, cnt), -1))
KMP_NT_IO_WRAP(ssize_t, preadv64,
               (int fd, const struct iovec *iov, int cnt, off64_t off),
               (fd, iov, cnt, off),
               KMP_NT_IO_INTO(nt_io_into_iov(iov, cnt), -1))
KMP_NT_IO_WRAP(ssize_t, recv, (int fd, void *buf, size_t n, int flags),
               (fd, buf, n, flags), KMP_NT_IO_INTO(nt_io_into(buf, n), -1))
KMP_NT_IO_WRAP(ssize_t, recvfrom,
               (int fd, void *buf, size_t n, int flags, struct sockaddr *from,
                socklen_t *fromlen),
               (fd, buf, n, flags, from, fromlen),
               KMP_NT_IO_INTO(nt_io_into_from(buf, n, from, fromlen), -1))
KMP_NT_IO_WRAP(ssize_t, recvmsg, (int fd, struct msghdr *msg, int flags),
               (fd, msg, flags), KMP_NT_IO_INTO(nt_io_into_msg(msg), -1))
KMP_NT_IO_WRAP(int, recvmmsg,
               (int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
                struct timespec *timeout),
               (fd, vec, vlen, flags, timeout),
               for (unsigned i = 0; vec && i < vlen; i++)
                   KMP_NT_IO_INTO(nt_io_into_msg(&vec[i].msg_hdr), -1))
KMP_NT_IO_WRAP(size_t, fread, (void *p, size_t size, size_t n, FILE *fp),
               (p, size, n, fp),
               KMP_NT_IO_INTO(nt_io_into_items(p, size, n), 0))
KMP_NT_IO_WRAP(size_t, fread_unlocked,
               (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp),
               KMP_NT_IO_INTO(nt_io_into_items(p, size, n), 0))

// Out of the buffer: no data is lost there, but the call would fail.  Into
// the file: see nt_io_file.
KMP_NT_IO_WRAP(ssize_t, write, (int fd, const void *buf, size_t n),
               (fd, buf, n), nt_io_buf(buf, n);
               KMP_NT_IO_INTO(nt_io_file(fd, -1, n), -1))
KMP_NT_IO_WRAP(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t off),
               (fd, buf, n, off), nt_io_buf(buf, n);
               KMP_NT_IO_INTO(nt_io_file(fd, off < 0 ? 0 : off, n), -1))
KMP_NT_IO_WRAP(ssize_t, pwrite64,
               (int fd, const void *buf, size_t n, off64_t off),
               (fd, buf, n, off), nt_io_buf(buf, n);
               KMP_NT_IO_INTO(nt_io_file(fd, off < 0 ? 0 : off, n), -1))
KMP_NT_IO_WRAP(ssize_t, writev, (int fd, const struct iovec *iov, int cnt),
               (fd, iov, cnt), nt_io_iov(iov, cnt);
               KMP_NT_IO_INTO(nt_io_file_iov(fd, -1, iov, cnt), -1))
KMP_NT_IO_WRAP(ssize_t, pwritev,
               (int fd, const struct iovec *iov, int cnt, off_t off),
               (fd, iov, cnt, off), nt_io_iov(iov, cnt);
               KMP_NT_IO_INTO(
                   nt_io_file_iov(fd, off < 0 ? 0 : off, iov, cnt), -1))
KMP_NT_IO_WRAP(ssize_t, pwritev64,
               (int fd, const struct iovec *iov, int cnt, off64_t off),
               (fd, iov, cnt, off), nt_io_iov(iov, cnt);
               KMP_NT_IO_INTO(
                   nt_io_file_iov(fd, off < 0 ? 0 : off, iov, cnt), -1))
KMP_NT_IO_WRAP(ssize_t, send, (int fd, const void *buf, size_t n, int flags),
               (fd, buf, n, flags), nt_io_buf(buf, n))
KMP_NT_IO_WRAP(ssize_t, sendto,
               (int fd, const void *buf, size_t n, int flags,
                const struct sockaddr *to, socklen_t tolen),
               (fd, buf, n, flags, to, tolen), nt_io_buf(buf, n))
KMP_NT_IO_WRAP(ssize_t, sendmsg, (int fd, const struct msghdr *msg, int flags),
               (fd, msg, flags), nt_io_msg(msg))
KMP_NT_IO_WRAP(int, sendmmsg,
               (int fd, struct mmsghdr *vec, unsigned int vlen, int flags),
               (fd, vec, vlen, flags),
               for (unsigned i = 0; vec && i < vlen; i++)
                   nt_io_msg(&vec[i].msg_hdr))
KMP_NT_IO_WRAP(size_t, fwrite, (const void *p, size_t size, size_t n, FILE *fp),
               (p, size, n, fp), nt_io_items(p, size, n); nt_io_stream(fp))
KMP_NT_IO_WRAP(size_t, fwrite_unlocked,
               (const void *p, size_t size, size_t n, FILE *fp),
               (p, size, n, fp), nt_io_items(p, size, n); nt_io_stream(fp))
KMP_NT_IO_WRAP(int, fflush, (FILE * fp), (fp), nt_io_stream(fp))
KMP_NT_IO_WRAP(int, fclose, (FILE * fp), (fp), nt_io_stream(fp))

// Another process's memory, or the caller's own: its local buffers as
// read()/write() buffers, the remote ones of the calling process as well.
KMP_NT_IO_WRAP(ssize_t, process_vm_readv,
               (pid_t pid, const struct iovec *local, unsigned long lcnt,
                const struct iovec *remote, unsigned long rcnt,
                unsigned long flags),
               (pid, local, lcnt, remote, rcnt, flags),
               KMP_NT_IO_INTO(nt_io_into_iov(local, (long)lcnt), -1);
               if (nt_io_self(pid)) nt_io_iov(remote, (long)rcnt))
KMP_NT_IO_WRAP(ssize_t, process_vm_writev,
               (pid_t pid, const struct iovec *local, unsigned long lcnt,
                const struct iovec *remote, unsigned long rcnt,
                unsigned long flags),
               (pid, local, lcnt, remote, rcnt, flags),
               nt_io_iov(local, (long)lcnt);
               KMP_NT_IO_INTO(nt_io_self(pid) &&
                                  nt_io_into_iov(remote, (long)rcnt),
                              -1))

// What a program built with _FORTIFY_SOURCE calls instead.
KMP_NT_IO_WRAP(ssize_t, __read_chk,
               (int fd, void *buf, size_t n, size_t buflen),
               (fd, buf, n, buflen),
               KMP_NT_IO_INTO(nt_io_into(buf, n < buflen ? n : buflen), -1))
KMP_NT_IO_WRAP(ssize_t, __pread_chk,
               (int fd, void *buf, size_t n, off_t off, size_t buflen),
               (fd, buf, n, off, buflen),
               KMP_NT_IO_INTO(nt_io_into(buf, n < buflen ? n : buflen), -1))
KMP_NT_IO_WRAP(ssize_t, __pread64_chk,
               (int fd, void *buf, size_t n, off64_t off, size_t buflen),
               (fd, buf, n, off, buflen),
               KMP_NT_IO_INTO(nt_io_into(buf, n < buflen ? n : buflen), -1))
KMP_NT_IO_WRAP(ssize_t, __recv_chk,
               (int fd, void *buf, size_t n, size_t buflen, int flags),
               (fd, buf, n, buflen, flags),
               KMP_NT_IO_INTO(nt_io_into(buf, n < buflen ? n : buflen), -1))
KMP_NT_IO_WRAP(ssize_t, __recvfrom_chk,
               (int fd, void *buf, size_t n, size_t buflen, int flags,
                struct sockaddr *from, socklen_t *fromlen),
               (fd, buf, n, buflen, flags, from, fromlen),
               KMP_NT_IO_INTO(
                   nt_io_into_from(buf, n < buflen ? n : buflen, from, fromlen),
                   -1))
KMP_NT_IO_WRAP(size_t, __fread_chk,
               (void *p, size_t plen, size_t size, size_t n, FILE *fp),
               (p, plen, size, n, fp),
               KMP_NT_IO_INTO(nt_io_into_items(p, size, n), 0))
KMP_NT_IO_WRAP(size_t, __fread_unlocked_chk,
               (void *p, size_t plen, size_t size, size_t n, FILE *fp),
               (p, plen, size, n, fp),
               KMP_NT_IO_INTO(nt_io_into_items(p, size, n), 0))

#endif // KMP_NEXTTOUCH_SUPPORTED
