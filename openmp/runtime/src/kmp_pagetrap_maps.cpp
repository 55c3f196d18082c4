/*
 * kmp_pagetrap_maps.cpp -- the page-trap layer: the process's VMAs as
 * /proc/self/maps (or smaps, for AnonHugePages) lists them, the calling
 * thread's stack, and which threads block SIGSEGV (/proc/self/task).
 *
 * Runs when the engines need the maps (a next-touch request or arming, a
 * join while pages are armed, a readonly region's start); never in a signal
 * handler (the handler's own reader is __kmp_pt_none_vma).
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uintptr_t pt_hex(const char *&s) {
  uintptr_t v = 0;
  for (;; s++) {
    int c = *s;
    if (c >= '0' && c <= '9')
      v = v * 16 + (c - '0');
    else if (c >= 'a' && c <= 'f')
      v = v * 16 + (c - 'a' + 10);
    else
      return v;
  }
}

int __kmp_pt_read_file(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t r, n = 0;
  while (n < (ssize_t)size - 1 && ((r = read(fd, buf + n, size - 1 - n)) > 0 ||
                                   (r < 0 && errno == EINTR)))
    if (r > 0)
      n += r;
  close(fd);
  buf[n] = 0;
  return (int)n;
}

// The whole file in one buffer (KMP_INTERNAL_MALLOC, not cleared: only the
// pages it fills are faulted in).  The kernel reads into a buffer on the
// stack, and memcpy moves the bytes: the heap may hold pages an engine
// protects (a cached readonly item the program freed), which a write from
// user space opens through the fault path, and which read() would fail on.
static char *pt_slurp(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = (char *)KMP_INTERNAL_MALLOC(cap);
  char part[4096];
  while (buf) {
    ssize_t r = read(fd, part, sizeof part);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    if (len + r + 1 > cap) {
      char *nb = (char *)KMP_INTERNAL_REALLOC(buf, cap * 2);
      if (!nb)
        KMP_INTERNAL_FREE(buf);
      buf = nb;
      if (!buf)
        break;
      cap *= 2;
    }
    memcpy(buf + len, part, r);
    len += r;
  }
  close(fd);
  if (buf)
    buf[len] = 0;
  return buf;
}

int __kmp_pt_read_maps(kmp_pt_vma **out, int smaps) {
  char *buf = pt_slurp(smaps ? "/proc/self/smaps" : "/proc/self/maps");
  if (!buf)
    return -1;
  // A VMA is a line that starts with its address (smaps adds field lines).
  int n = 0, cap = 1;
  for (const char *s = buf; s; s = strchr(s, '\n'), s = s ? s + 1 : s)
    cap += (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f');
  kmp_pt_vma *v = (kmp_pt_vma *)KMP_INTERNAL_MALLOC(sizeof(kmp_pt_vma) * cap);
  if (!v) {
    KMP_INTERNAL_FREE(buf);
    return -1;
  }
  for (const char *s = buf; *s;) {
    const char *eol = strchr(s, '\n');
    if (!eol)
      eol = s + strlen(s);
    if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) {
      // An smaps field of the last VMA ("AnonHugePages:    2048 kB").
      if (n && !strncmp(s, "AnonHugePages:", 14)) {
        const char *t = s + 14;
        while (*t == ' ')
          t++;
        uintptr_t kb = 0;
        while (*t >= '0' && *t <= '9')
          kb = kb * 10 + (*t++ - '0');
        v[n - 1].thp_bytes = kb << 10;
      }
      s = *eol ? eol + 1 : eol;
      continue;
    }
    kmp_pt_vma m;
    m.thp_bytes = 0;
    m.start = pt_hex(s);
    if (*s == '-')
      s++;
    m.end = pt_hex(s);
    while (*s == ' ')
      s++;
    m.prot = 0;
    m.shared = 0;
    m.offset = m.inode = 0;
    if (eol - s >= 4) {
      if (s[0] == 'r')
        m.prot |= PROT_READ;
      if (s[1] == 'w')
        m.prot |= PROT_WRITE;
      if (s[2] == 'x')
        m.prot |= PROT_EXEC;
      m.shared = s[3] == 's';
      // "rw-p 00001000 08:01 1234 /path": offset, device, inode.
      const char *f = s + 4;
      while (f < eol && *f == ' ')
        f++;
      m.offset = pt_hex(f);
      while (f < eol && *f == ' ')
        f++;
      while (f < eol && *f != ' ') // the device
        f++;
      while (f < eol && *f == ' ')
        f++;
      for (; f < eol && *f >= '0' && *f <= '9'; f++)
        m.inode = m.inode * 10 + (*f - '0');
    }
    const char *t = eol;
    while (t > s && t[-1] == ' ')
      t--;
    m.stack = t - s >= 7 && !strncmp(t - 7, "[stack]", 7);
    v[n++] = m;
    s = *eol ? eol + 1 : eol;
  }
  KMP_INTERNAL_FREE(buf);
  *out = v;
  return n;
}

void __kmp_pt_free_maps(kmp_pt_vma *v) {
  if (v)
    KMP_INTERNAL_FREE(v);
}

// The calling thread's stack, guard included.  The initial thread's
// reaches below its [stack] VMA only where nothing is mapped (the C
// library's answer ends at the mapping below, or the stack's limit).
void __kmp_pt_my_stack(uintptr_t *lo, uintptr_t *hi, const kmp_pt_vma *v,
                       int n) {
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
  for (int i = 0; i < n; i++)
    if (v[i].stack && v[i].start <= sp && sp < v[i].end) {
      *lo = v[i].start;
      *hi = v[i].end;
      return;
    }
  pthread_attr_t attr;
  void *addr;
  size_t size, guard = 0;
  *lo = *hi = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    pthread_attr_getguardsize(&attr, &guard);
    *lo = (uintptr_t)addr - guard;
    *hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

// ---------------------------------------------------------------------------
// Threads that block SIGSEGV.  The kernel cannot deliver a fault's SIGSEGV
// to a thread that blocks it: it resets the action to SIG_DFL and kills the
// process, without running any handler.  Such a thread must never touch an
// armed page; the engine can only see it here, in each thread's SigBlk.

// Does thread `tid` block SIGSEGV now?  Its name in name[len] if so.
static int pt_task_blocks_segv(const char *tid, char *name, size_t len) {
  char path[64], buf[2048];
  KMP_SNPRINTF(path, sizeof path, "/proc/self/task/%s/status", tid);
  if (__kmp_pt_read_file(path, buf, sizeof buf) < 0)
    return 0; // the thread has exited
  const char *blk = strstr(buf, "\nSigBlk:");
  if (!blk)
    return 0;
  blk += 9;
  while (*blk == ' ' || *blk == '\t')
    blk++;
  uintptr_t mask = pt_hex(blk); // the low 64 signals
  if (!(mask & ((uintptr_t)1 << (SIGSEGV - 1))))
    return 0;
  // glibc's own signal (SIGCANCEL, the first real-time signal) cannot be
  // blocked through its API: blocked with SIGSEGV, it says glibc blocked
  // every signal itself, for a moment.
  int internal = (mask >> 31) & 1;
  if (len && !strncmp(buf, "Name:", 5)) {
    const char *t = buf + 5;
    while (*t == ' ' || *t == '\t')
      t++;
    size_t k = 0;
    for (; t[k] && t[k] != '\n' && k + 1 < len; k++)
      name[k] = t[k];
    name[k] = 0;
  }
  return internal ? 2 : 1;
}

int __kmp_pt_segv_blocker(char *name, size_t len) {
  if (len)
    name[0] = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return 0;
  int found = 0;
  while (!found) {
    struct dirent *e = readdir(d);
    if (!e)
      break;
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    // glibc blocks every signal itself for a moment in a thread it is
    // starting (until the thread first runs, which can take a while on a
    // loaded machine) and in one that creates a thread, forks or spawns: a
    // thread blocks SIGSEGV only if it still does 2 ms later with a mask of
    // the program's, or 100 ms later with one of glibc's.
    int blocks = pt_task_blocks_segv(e->d_name, name, len);
    for (int i = 0; blocks && i < (blocks == 2 ? 2000 : 40); i++) {
      struct timespec ts = {0, 50000};
      nanosleep(&ts, NULL);
      blocks = pt_task_blocks_segv(e->d_name, name, len);
    }
    if (blocks)
      found = atoi(e->d_name);
  }
  closedir(d);
  return found;
}

#endif // KMP_PAGETRAP_SUPPORTED
