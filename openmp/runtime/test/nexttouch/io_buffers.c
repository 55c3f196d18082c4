// System calls into and out of armed buffers.  The kernel's
// own copy into a PROT_NONE page fails with EFAULT, and a datagram read that
// way is lost; libomp's wrappers of the C library's calls touch the armed
// pages of the buffer first, as the calling thread.
//  - serial code, pages still armed after a region that did not touch them:
//    recv() on an AF_UNIX SOCK_DGRAM socket (the datagram arrives whole),
//    recvfrom(), recvmsg() into two buffers, read() and readv() from a
//    pipe, pread() and a large fread() from a file (stdio reads it directly
//    into the buffer), and write(), send(), fwrite() out of armed buffers;
//  - in a region: each thread recv()s a datagram into its own part of an
//    armed buffer; every byte arrives, the pages count as touched in the
//    region (migrated or already local), not in serial code;
//  - a buffer that is not mapped still gets EFAULT, and nothing crashes;
//  - built with _FORTIFY_SOURCE the program calls __read_chk, __recv_chk and
//    __fread_chk instead; they are covered too.
// RUN: %libomp-compile && env KMP_NEXTTOUCH_FORCE=1 OMP_NUM_THREADS=4 \
// RUN:   %libomp-run | FileCheck %s
// RUN: %libomp-compile -O2 -D_FORTIFY_SOURCE=2 && env KMP_NEXTTOUCH_FORCE=1 \
// RUN:   OMP_NUM_THREADS=4 %libomp-run | FileCheck %s
// REQUIRES: linux
// CHECK: io_buffers: PASS
#include "nexttouch_test.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define U(x) ((unsigned long long)(x))
enum { NTHR = 4 };
static long pg;

static void fill(char *p, size_t n, int seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (char)(seed + i * 7);
}
static int same(const char *p, size_t n, int seed) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (char)(seed + i * 7))
      return 0;
  return 1;
}

// Request [p, p+n) and arm it with a region that does not touch it; the
// pages stay armed in serial code (the lifetime is unlimited).  The region
// has a side effect: at -O2 an empty one is deleted (OpenMPOpt).
static volatile int sink;
static void arm(char *p, size_t n, const char *what) {
  NT_CHECK(kmp_nexttouch(p, n) == 0, "%s: request", what);
#pragma omp parallel num_threads(2)
  __atomic_store_n(&sink, 1,
                   __ATOMIC_RELAXED); // volatile: kept; atomic: no race
  NT_CHECK(nt_maps_prot(p) == PROT_NONE, "%s: not armed (prot %d)", what,
           nt_maps_prot(p));
}

int main(void) {
  pg = nt_pagesize();
  char *src = nt_map(16 * pg), *buf = nt_map(16 * pg);
  fill(src, 16 * pg, 1);
  memset(buf, 0, 16 * pg);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0) {
    perror("socketpair");
    return 2;
  }

  // recv(): one datagram of 3 pages into an armed buffer.
  kmp_reset_nexttouch_counters();
  arm(buf, 16 * pg, "recv");
  NT_CHECK(send(sv[0], src, 3 * pg, 0) == 3 * pg, "send");
  ssize_t r = recv(sv[1], buf, 16 * pg, MSG_DONTWAIT);
  NT_CHECK(r == 3 * pg && same(buf, 3 * pg, 1), "recv: %zd (%s)", r,
           r < 0 ? strerror(errno) : "data");
  kmp_nexttouch_counters_t c = nt_counters();
  NT_CHECK(c.pages_touched_serial >= 3 && c.pages_migrated == 0,
           "recv: touched in serial code %llu", U(c.pages_touched_serial));

  // recvfrom() and recvmsg() into two armed buffers.
  arm(buf, 16 * pg, "recvfrom");
  NT_CHECK(send(sv[0], src + pg, 2 * pg, 0) == 2 * pg, "send 2");
  r = recvfrom(sv[1], buf + 4 * pg, 2 * pg, MSG_DONTWAIT, NULL, NULL);
  NT_CHECK(r == 2 * pg && same(buf + 4 * pg, 2 * pg, 1 + (int)(pg * 7)),
           "recvfrom: %zd", r);
  NT_CHECK(send(sv[0], src, 5 * pg, 0) == 5 * pg, "send 3");
  struct iovec iov[2] = {{buf + 8 * pg, 2 * pg}, {buf + 12 * pg, 3 * pg}};
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = iov;
  m.msg_iovlen = 2;
  r = recvmsg(sv[1], &m, MSG_DONTWAIT);
  NT_CHECK(r == 5 * pg && same(buf + 8 * pg, 2 * pg, 1) &&
               same(buf + 12 * pg, 3 * pg, 1 + (int)(2 * pg * 7)),
           "recvmsg: %zd", r);

  // read() and readv() from a pipe, write() into it from an armed buffer.
  int pfd[2];
  NT_CHECK(pipe2(pfd, O_NONBLOCK) == 0, "pipe"); // a failed test must not hang
  arm(buf, 16 * pg, "pipe");
  memcpy(src, "abcdefgh", 8);
  NT_CHECK(write(pfd[1], src, 8) == 8, "write");
  r = read(pfd[0], buf + 5 * pg + 100, 8);
  NT_CHECK(r == 8 && !memcmp(buf + 5 * pg + 100, "abcdefgh", 8), "read: %zd",
           r);
  NT_CHECK(write(pfd[1], src, 8) == 8, "write 2");
  struct iovec v2[2] = {{buf + 9 * pg - 3, 3}, {buf + 11 * pg, 5}};
  r = readv(pfd[0], v2, 2);
  NT_CHECK(r == 8 && !memcmp(buf + 9 * pg - 3, "abc", 3) &&
               !memcmp(buf + 11 * pg, "defgh", 5),
           "readv: %zd", r);
  fill(src, 16 * pg, 1);
  // Out of armed memory: write(), send().
  memcpy(src, "12345678", 8);
  arm(src, 16 * pg, "write");
  NT_CHECK(write(pfd[1], src, 8) == 8, "write from armed: %s", strerror(errno));
  char small[8];
  NT_CHECK(read(pfd[0], small, 8) == 8 && !memcmp(small, "12345678", 8),
           "pipe data");
  NT_CHECK(send(sv[0], src + 4 * pg, pg, 0) == pg, "send from armed: %s",
           strerror(errno));
  NT_CHECK(recv(sv[1], buf, pg, MSG_DONTWAIT) == pg, "recv after send");

  // A file: pread(), and stdio's large reads go straight into the buffer.
  FILE *f = tmpfile();
  fill(src, 16 * pg, 3);
  NT_CHECK(f && fwrite(src, 1, 16 * pg, f) == (size_t)(16 * pg), "fwrite");
  fflush(f);
  arm(buf, 16 * pg, "file");
  r = pread(fileno(f), buf, 2 * pg, 2 * pg);
  NT_CHECK(r == 2 * pg && same(buf, 2 * pg, 3 + (int)(2 * pg * 7)),
           "pread: %zd", r);
  rewind(f);
  size_t got = fread(buf + 2 * pg, 1, 14 * pg, f);
  NT_CHECK(got == (size_t)(14 * pg) && same(buf + 2 * pg, 14 * pg, 3),
           "fread: %zu of %ld", got, 14 * pg);
  arm(buf, 16 * pg, "fwrite");
  rewind(f);
  NT_CHECK(fwrite(buf, 1, 16 * pg, f) == (size_t)(16 * pg) && fflush(f) == 0,
           "fwrite from armed");
  fclose(f);

  // In a region: each thread receives into its own quarter.
  char *big = nt_map(NTHR * 8 * pg);
  memset(big, 0, NTHR * 8 * pg);
  NT_CHECK(kmp_nexttouch(big, NTHR * 8 * pg) == 0, "request big");
  kmp_nexttouch_counters_t c0 = nt_counters();
  int ok = 0;
#pragma omp parallel num_threads(NTHR) reduction(+ : ok)
  {
    int t = omp_get_thread_num();
    // One datagram per thread; any thread may receive any of them, so each
    // carries its sender's number in its first byte.
#pragma omp critical
    {
      src[0] = (char)t;
      send(sv[0], src, 8 * pg, 0);
    }
#pragma omp barrier
    char *mine = big + (size_t)t * 8 * pg;
    ssize_t n = recv(sv[1], mine, 8 * pg, MSG_DONTWAIT);
    ok += n == 8 * pg && same(mine + 1, 8 * pg - 1, 3 + 7);
  }
  kmp_nexttouch_counters_t c1 = nt_counters();
  NT_CHECK(ok == NTHR, "region: %d of %d datagrams intact", ok, NTHR);
  unsigned long long placed = (c1.pages_migrated - c0.pages_migrated) +
                              (c1.pages_already_local - c0.pages_already_local);
  NT_CHECK(placed == (unsigned long long)NTHR * 8 &&
               c1.pages_touched_serial == c0.pages_touched_serial,
           "region: %llu pages placed, %llu touched in serial code", placed,
           U(c1.pages_touched_serial - c0.pages_touched_serial));

  // Not mapped: still EFAULT, no crash.
  char *hole = nt_map(2 * pg);
  munmap(hole, 2 * pg);
  NT_CHECK(send(sv[0], src, 16, 0) == 16, "send 4");
  errno = 0;
  r = recv(sv[1], hole, 16, MSG_DONTWAIT);
  NT_CHECK(r == -1 && errno == EFAULT, "unmapped: %zd errno %d", r, errno);
  return nt_done("io_buffers");
}
