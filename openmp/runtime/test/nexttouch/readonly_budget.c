// KMP_READONLY_BUDGET=auto: a quarter of the memory the process may use (the
// machine's, or its memory cgroup's limit where lower), shared by the MPI
// ranks on the node as the launcher says (OMPI_COMM_WORLD_LOCAL_SIZE,
// MPI_LOCALNRANKS, MV2_COMM_WORLD_LOCAL_SIZE, PALS_LOCAL_SIZE, Slurm's
// SLURM_STEP_TASKS_PER_NODE with SLURM_NODEID); OMP_DISPLAY_ENV=verbose says
// what it chose.  The program runs itself with each setting and reads what
// the child's OMP_DISPLAY_ENV printed:
//   ranks    each launcher's variable (4 ranks: a sixteenth of the memory;
//            the budget in whole MiB),
//            Slurm's compressed list for two nodes, a variable that is not
//            a number (ignored), a size given (printed as it is);
//   cgroup   (in the guest, as root) the ranks part, then a cgroup v2 with
//            memory.max 256M, and a group inside it without a limit: a
//            quarter of 256M; with 4 ranks a sixteenth.
// RUN: %libomp-compile && %libomp-run ranks | FileCheck %s --check-prefix=RANKS
// RUN: %numa-vm --nodes 2 --cpus 2 -- %t cgroup | FileCheck %s \
// RUN:   --check-prefixes=RANKS,CGROUP
// REQUIRES: linux
// RANKS: readonly_budget ranks: PASS
// CGROUP: readonly_budget cgroup: PASS
// CHECK-NOT: FAIL
#include "nexttouch_test.h"
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

// A quarter of `memory` among `ranks`, in whole MiB.
static unsigned long long quarter(unsigned long long memory, int ranks) {
  unsigned long long b = memory / 4 / ranks;
  return b >= (1ull << 20) ? b & ~((1ull << 20) - 1) : b;
}

// The child's "KMP_READONLY_BUDGET='...'" text, from OMP_DISPLAY_ENV.
static int child_budget(char *const envp[], const char *cgroup, char *out,
                        size_t cap) {
  int p[2];
  NT_CHECK(pipe(p) == 0, "pipe");
  pid_t pid = fork();
  NT_CHECK(pid >= 0, "fork");
  if (pid == 0) {
    if (cgroup) {
      char path[256], me[32];
      snprintf(path, sizeof path, "%s/cgroup.procs", cgroup);
      int fd = open(path, O_WRONLY);
      snprintf(me, sizeof me, "%d", (int)getpid());
      if (fd < 0 || write(fd, me, strlen(me)) < 0)
        _exit(3);
      close(fd);
    }
    dup2(p[1], 2);
    close(p[0]);
    char *argv[] = {(char *)"readonly_budget", (char *)"show", NULL};
    execve("/proc/self/exe", argv, envp);
    _exit(4);
  }
  close(p[1]);
  char buf[65536];
  size_t n = 0;
  ssize_t r;
  while (n + 1 < sizeof buf &&
         (r = read(p[0], buf + n, sizeof buf - 1 - n)) > 0)
    n += r;
  buf[n] = 0;
  close(p[0]);
  int st;
  waitpid(pid, &st, 0);
  NT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
  const char *k = strstr(buf, "KMP_READONLY_BUDGET='");
  out[0] = 0;
  if (!k)
    return -1;
  k += strlen("KMP_READONLY_BUDGET='");
  size_t i = 0;
  while (k[i] && k[i] != '\'' && i + 1 < cap) {
    out[i] = k[i];
    i++;
  }
  out[i] = 0;
  return 0;
}

// "1536M" -> bytes.
static unsigned long long size_of(const char *s) {
  char *e;
  unsigned long long v = strtoull(s, &e, 10);
  const char *u = "kMGTP";
  const char *at = *e ? strchr(u, *e) : NULL;
  for (int i = 0; at && i <= at - u; i++)
    v *= 1024;
  return v;
}

// What the child with extra environment `extra` (NULL-terminated) says:
// the budget, and the memory it is a quarter of (0 if not auto).
static unsigned long long budget(const char *const *extra, const char *cgroup,
                                 unsigned long long *memory, char *text,
                                 size_t cap) {
  // The environment (LD_LIBRARY_PATH finds libomp) without what says
  // anything about the budget, then `extra`.
  static const char *const ours[] = {"OMPI_COMM_WORLD_LOCAL_SIZE=",
                                     "MPI_LOCALNRANKS=",
                                     "MV2_COMM_WORLD_LOCAL_SIZE=",
                                     "PALS_LOCAL_SIZE=",
                                     "SLURM_STEP_TASKS_PER_NODE=",
                                     "SLURM_NODEID=",
                                     "KMP_READONLY_BUDGET=",
                                     "OMP_DISPLAY_ENV=",
                                     "OMP_NUM_THREADS="};
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 500; e++) {
    int skip = 0;
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
      skip |= strncmp(*e, ours[i], strlen(ours[i])) == 0;
    if (!skip)
      envp[n++] = *e;
  }
  envp[n++] = (char *)"OMP_DISPLAY_ENV=verbose";
  envp[n++] = (char *)"OMP_NUM_THREADS=1";
  for (int i = 0; extra && extra[i] && n < 511; i++)
    envp[n++] = (char *)extra[i];
  envp[n] = NULL;
  if (child_budget(envp, cgroup, text, cap) != 0)
    return 0;
  *memory = 0;
  if (strncmp(text, "auto: ", 6) != 0)
    return size_of(text);
  const char *q = strstr(text, "a quarter of ");
  if (q)
    *memory = size_of(q + strlen("a quarter of "));
  return size_of(text + 6);
}

static void ranks(void) {
  char t[512];
  unsigned long long mem, mem1;
  unsigned long long one = budget(NULL, NULL, &mem1, t, sizeof t);
  NT_CHECK(one && one == quarter(mem1, 1), "auto: %s", t);
  NT_CHECK(!strstr(t, "ranks"), "no launcher: %s", t);
  long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
  NT_CHECK(mem1 <= (unsigned long long)pages * pg, "more than the machine: %s",
           t);
  NT_CHECK(strstr(t, "the memory of the machine") ||
               (strstr(t, "cgroup") && mem1 < (unsigned long long)pages * pg),
           "where the memory comes from: %s", t);
  static const char *const vars[] = {
      "OMPI_COMM_WORLD_LOCAL_SIZE=4", "MPI_LOCALNRANKS=4",
      "MV2_COMM_WORLD_LOCAL_SIZE=4", "PALS_LOCAL_SIZE=4"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *e[] = {vars[i], NULL};
    unsigned long long b = budget(e, NULL, &mem, t, sizeof t);
    char name[64];
    snprintf(name, sizeof name, "(%.*s)", (int)strcspn(vars[i], "="), vars[i]);
    NT_CHECK(b == quarter(mem1, 4) && mem == mem1 && strstr(t, "4 ranks") &&
                 strstr(t, name),
             "%s: %s", vars[i], t);
  }
  // Slurm: nodes 0-2 run 3 tasks each, node 3 runs 1.
  const char *s1[] = {"SLURM_STEP_TASKS_PER_NODE=3(x3),1", "SLURM_NODEID=1",
                      NULL};
  NT_CHECK(budget(s1, NULL, &mem, t, sizeof t) == quarter(mem1, 3) &&
               strstr(t, "3 ranks"),
           "slurm node 1: %s", t);
  const char *s3[] = {"SLURM_STEP_TASKS_PER_NODE=3(x3),1", "SLURM_NODEID=3",
                      NULL};
  NT_CHECK(budget(s3, NULL, &mem, t, sizeof t) == one && !strstr(t, "ranks"),
           "slurm node 3: %s", t);
  const char *junk[] = {"OMPI_COMM_WORLD_LOCAL_SIZE=many", NULL};
  NT_CHECK(budget(junk, NULL, &mem, t, sizeof t) == one, "not a number: %s", t);
  const char *fixed[] = {"KMP_READONLY_BUDGET=64M",
                         "OMPI_COMM_WORLD_LOCAL_SIZE=4", NULL};
  NT_CHECK(budget(fixed, NULL, &mem, t, sizeof t) == 64ull << 20 &&
               strcmp(t, "64M") == 0,
           "a size given: %s", t);
  printf("readonly_budget ranks: %s\n", nt_failures ? "FAIL" : "PASS");
}

static void put(const char *path, const char *s) {
  int fd = open(path, O_WRONLY);
  NT_CHECK(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s),
           "%s <- %s: %s", path, s, strerror(errno));
  if (fd >= 0)
    close(fd);
}

static void cgroup(void) {
  const char *top = "/sys/fs/cgroup";
  struct stat st;
  if (stat("/sys/fs/cgroup/cgroup.controllers", &st) != 0) {
    mkdir(top, 0755);
    NT_CHECK(mount("none", top, "cgroup2", 0, NULL) == 0, "mount cgroup2: %s",
             strerror(errno));
  }
  put("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
  mkdir("/sys/fs/cgroup/nt", 0755);
  put("/sys/fs/cgroup/nt/memory.max", "268435456");
  // "inner" without the memory controller (a group with processes may
  // not give controllers to its children): no memory.max of its own.
  mkdir("/sys/fs/cgroup/nt/inner", 0755);
  char t[512];
  unsigned long long mem;
  unsigned long long b = budget(NULL, "/sys/fs/cgroup/nt", &mem, t, sizeof t);
  NT_CHECK(b == 64ull << 20 && mem == 256ull << 20 &&
               strstr(t, "the limit of its memory cgroup"),
           "cgroup 256M: %s", t);
  b = budget(NULL, "/sys/fs/cgroup/nt/inner", &mem, t, sizeof t);
  NT_CHECK(b == 64ull << 20 && mem == 256ull << 20,
           "inside a group of 256M: %s", t);
  const char *four[] = {"OMPI_COMM_WORLD_LOCAL_SIZE=4", NULL};
  b = budget(four, "/sys/fs/cgroup/nt", &mem, t, sizeof t);
  NT_CHECK(b == 16ull << 20 && strstr(t, "4 ranks"), "cgroup, 4 ranks: %s", t);
  rmdir("/sys/fs/cgroup/nt/inner");
  rmdir("/sys/fs/cgroup/nt");
  printf("readonly_budget cgroup: %s\n", nt_failures ? "FAIL" : "PASS");
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ranks";
  if (strcmp(mode, "show") == 0) {
#pragma omp parallel
    {
    }
    return 0;
  }
  ranks();
  if (strcmp(mode, "cgroup") == 0)
    cgroup();
  return nt_failures != 0;
}
