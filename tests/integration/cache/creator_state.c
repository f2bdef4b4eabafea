/* A new thread is a clone of its creator: clone(2) copies the creator's per-thread state
 * (credentials, groups, capabilities and their bounding set, keepcaps and securebits, seccomp
 * filters, the Landlock domain, namespaces, an unshared fs (cwd, umask) or fd table, I/O
 * priority, personality, memory policy, rseq registration, the FPU control state, the cgroup)
 * into the new thread. Under the thread cache a create may be served by a thread cloned earlier
 * from someone else: each row here changes one item in the creator and checks that the thread
 * it then creates sees the creator's value, not the value of a parked thread.
 *
 * Each row runs in a process of its own (this program executed again with "row N MODE"), so a
 * row that leaks cannot make another differ:
 *  - MODE main: main changes the item and creates the observer;
 *  - MODE thread: a thread of main changes it and creates the observer; then main creates
 *    another observer, which must see main's value (the changed thread's children, parked, must
 *    not serve main either).
 * Before the change the process has parked threads (the cache preloaded): made in main by
 * warm_cache, or, with CACHE_TEST_PREMAIN=1 in the environment, by a constructor that creates
 * and joins threads before main runs.
 *
 * Each observation is the whole snapshot below (every item, not only the row's), compared with
 * the creator's own snapshot taken just before the create. A row that needs root or a kernel
 * feature this machine lacks prints "ok ... (skipped: reason)" in both runs. Against the
 * library before "sound by construction" every row but nnp, the reset items and the skipped
 * ones failed. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/fsuid.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "semantics.h"

extern int capget(cap_user_header_t header, cap_user_data_t data);
extern int capset(cap_user_header_t header, const cap_user_data_t data);
/* glibc 2.35+: where this thread's rseq area lies (0 size: glibc registers none). */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* ---- the snapshot ---------------------------------------------------------------------- */

struct snapshot {
  char status[1024]; /* the credential, capability, seccomp and umask lines of status */
  char cgroup[512];
  char uts_ns[64], hostname[65], cwd[256];
  int probe_fd_valid, keepcaps, securebits, personality, mempolicy, rseq_registered;
  long ioprio;
  int round;
  char third[32]; /* 1.0/3.0 in hex: the rounding mode at work */
  unsigned mxcsr_control;
  int landlock_errno;
  char name[16];
  unsigned long slack;
  unsigned long mask_word;
};

static int probe_fd = -1; /* an fd the creator opened in an unshared table (row files) */

static void read_file(const char *path, char *out, size_t size) {
  memset(out, 0, size);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(out, size, "(%s: errno %d)", path, errno);
    return;
  }
  size_t have = 0;
  ssize_t n;
  while (have < size - 1 && (n = read(fd, out + have, size - 1 - have)) > 0) have += (size_t)n;
  close(fd);
}

static void status_lines(char *out, size_t size) {
  static const char *const keep[] = {
      "Umask:",           "Uid:",    "Gid:",    "Groups:", "NoNewPrivs:", "Seccomp:",
      "Seccomp_filters:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:",     "CapAmb:"};
  char all[4096];
  read_file("/proc/thread-self/status", all, sizeof all);
  size_t used = 0;
  out[0] = 0;
  for (char *line = all; line && *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = 0;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; ++i)
      if (strncmp(line, keep[i], strlen(keep[i])) == 0 && used + strlen(line) + 2 < size)
        used += (size_t)snprintf(out + used, size - used, "%s;", line);
    line = end ? end + 1 : NULL;
  }
}

static int rseq_registered(void) {
  if (&__rseq_size == NULL || __rseq_size == 0) return -2;
  const volatile int32_t *cpu_id =
      (const volatile int32_t *)((char *)__builtin_thread_pointer() + __rseq_offset + 4);
  return *cpu_id >= 0;
}

static void snap(struct snapshot *s) {
  memset(s, 0, sizeof *s);
  status_lines(s->status, sizeof s->status);
  read_file("/proc/thread-self/cgroup", s->cgroup, sizeof s->cgroup);
  if (readlink("/proc/thread-self/ns/uts", s->uts_ns, sizeof s->uts_ns - 1) < 0)
    snprintf(s->uts_ns, sizeof s->uts_ns, "errno %d", errno);
  gethostname(s->hostname, sizeof s->hostname - 1);
  if (getcwd(s->cwd, sizeof s->cwd) == NULL) snprintf(s->cwd, sizeof s->cwd, "errno %d", errno);
  s->probe_fd_valid = probe_fd < 0 ? -1 : fcntl(probe_fd, F_GETFD) >= 0;
  s->keepcaps = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
  s->securebits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  s->personality = personality(0xffffffff);
  int mode = -1;
  s->mempolicy = syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0) == 0 ? mode : -errno;
  s->rseq_registered = rseq_registered();
  s->ioprio = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0);
  s->round = fegetround();
  volatile double one = 1.0, three = 3.0;
  snprintf(s->third, sizeof s->third, "%a", one / three);
#if defined(__x86_64__) || defined(__i386__)
  s->mxcsr_control = _mm_getcsr() & 0xffc0u; /* DAZ, masks, rounding, FTZ; not the flags */
#endif
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  s->landlock_errno = fd < 0 ? errno : 0;
  if (fd >= 0) close(fd);
  prctl(PR_GET_NAME, s->name, 0, 0, 0);
  s->slack = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  memcpy(&s->mask_word, &mask, sizeof s->mask_word);
}

/* Names the first field that differs ("" when none). */
static const char *differs(const struct snapshot *a, const struct snapshot *b) {
#define FIELD(f) \
  if (memcmp(&a->f, &b->f, sizeof a->f) != 0) return #f
  FIELD(status);
  FIELD(cgroup);
  FIELD(uts_ns);
  FIELD(hostname);
  FIELD(cwd);
  FIELD(probe_fd_valid);
  FIELD(keepcaps);
  FIELD(securebits);
  FIELD(personality);
  FIELD(mempolicy);
  FIELD(rseq_registered);
  FIELD(ioprio);
  FIELD(round);
  FIELD(third);
  FIELD(mxcsr_control);
  FIELD(landlock_errno);
  FIELD(name);
  FIELD(slack);
  FIELD(mask_word);
#undef FIELD
  return "";
}

/* ---- the rows ---------------------------------------------------------------------------- */

/* The system call a row makes: through libc's syscall(2), or, with CACHE_TEST_INLINE_ASM=1 in
 * the environment, with the instruction itself, where no wrapper sees it (run so with
 * TM_CACHE_VERIFY_MS=0: the cache then compares a fingerprint of the readable state). */
static long change_call(long number, long a1, long a2, long a3, long a4) {
#if defined(__x86_64__)
  if (getenv("CACHE_TEST_INLINE_ASM")) {
    register long r10 __asm__("r10") = a4;
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
                     : "rcx", "r11", "memory");
    if (r < 0 && r > -4096) {
      errno = (int)-r;
      return -1;
    }
    return r;
  }
#endif
  return syscall(number, a1, a2, a3, a4);
}

/* Each change returns 0 when made, or a reason to skip the row (a static string). */
typedef const char *(*change_fn)(void);

static const char *need_root(void) { return geteuid() == 0 ? NULL : "needs root"; }

static const char *set_caps_effective_zero(int raw) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capget, &h, d) != 0) return "capget failed";
  d[0].effective = d[1].effective = 0;
  int r = raw ? (int)change_call(SYS_capset, (long)&h, (long)d, 0, 0) : capset(&h, d);
  return r == 0 ? NULL : "capset failed";
}

static const char *row_setresuid(void) {
  const char *skip = need_root();
  if (skip) return skip;
  return change_call(SYS_setresuid, -1, 65534, -1, 0) == 0 ? NULL : "setresuid failed";
}

static const char *row_setfsuid(void) {
  const char *skip = need_root();
  if (skip) return skip;
  setfsuid(65534);
  return NULL;
}

static const char *row_setgroups(void) {
  const char *skip = need_root();
  if (skip) return skip;
  gid_t one = 4242;
  return change_call(SYS_setgroups, 1, (long)&one, 0, 0) == 0 ? NULL : "setgroups failed";
}

static const char *row_capset_glibc(void) {
  const char *skip = need_root();
  return skip ? skip : set_caps_effective_zero(0);
}

static const char *row_capset_raw(void) {
  const char *skip = need_root();
  return skip ? skip : set_caps_effective_zero(1);
}

static const char *row_capbset(void) {
  const char *skip = need_root();
  if (skip) return skip;
  return prctl(PR_CAPBSET_DROP, CAP_CHOWN, 0, 0, 0) == 0 ? NULL : "PR_CAPBSET_DROP failed";
}

static const char *row_keepcaps(void) {
  return prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0 ? NULL : "PR_SET_KEEPCAPS failed";
}

static const char *row_securebits(void) {
  const char *skip = need_root();
  if (skip) return skip;
  return prctl(PR_SET_SECUREBITS, 1 << 2 /* SECBIT_NO_SETUID_FIXUP */, 0, 0, 0) == 0
             ? NULL
             : "PR_SET_SECUREBITS failed";
}

static struct sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
static struct sock_fprog allow_prog = {1, allow_all};

static const char *row_seccomp_prctl(void) {
  const char *skip = need_root(); /* without no_new_privs a filter needs CAP_SYS_ADMIN */
  if (skip) return skip;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &allow_prog, 0, 0) == 0
             ? NULL
             : "seccomp filters unavailable";
}

static const char *row_seccomp_raw(void) {
  const char *skip = need_root();
  if (skip) return skip;
  return change_call(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&allow_prog, 0) == 0
             ? NULL
             : "seccomp filters unavailable";
}

static const char *row_landlock(void) {
  const char *skip = need_root(); /* without no_new_privs restrict_self needs CAP_SYS_ADMIN */
  if (skip) return skip;
#ifdef SYS_landlock_create_ruleset
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return "Landlock not enabled in this kernel";
  struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_READ_DIR};
  int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) return "landlock_create_ruleset failed";
  long r = syscall(SYS_landlock_restrict_self, fd, 0);
  close(fd);
  return r == 0 ? NULL : "landlock_restrict_self failed";
#else
  return "no Landlock system calls in these headers";
#endif
}

static const char *row_unshare_uts(void) {
  const char *skip = need_root();
  if (skip) return skip;
  if (unshare(CLONE_NEWUTS) != 0) return "unshare(CLONE_NEWUTS) failed";
  return sethostname("tm-creator", 10) == 0 ? NULL : "sethostname failed";
}

static const char *row_setns_uts(void) {
  const char *skip = need_root();
  if (skip) return skip;
  /* A namespace to join: one a helper process makes (it waits on the pipe, then ends). */
  int ready[2], hold[2];
  if (pipe(ready) != 0 || pipe(hold) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(hold[1]);
    char c = unshare(CLONE_NEWUTS) == 0 && sethostname("tm-joined", 9) == 0 ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1 || read(hold[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  close(hold[0]);
  char c = 'n';
  if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'y') return "helper namespace failed";
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/uts", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  int r = fd >= 0 ? setns(fd, CLONE_NEWUTS) : -1;
  if (fd >= 0) close(fd);
  close(hold[1]);
  waitpid(pid, NULL, 0);
  return r == 0 ? NULL : "setns failed";
}

static const char *row_unshare_fs(void) {
  if (unshare(CLONE_FS) != 0) return "unshare(CLONE_FS) refused";
  if (chdir("/tmp") != 0) return "chdir failed";
  umask(077);
  return NULL;
}

static const char *row_unshare_files(void) {
  if (unshare(CLONE_FILES) != 0) return "unshare(CLONE_FILES) refused";
  probe_fd = open("/dev/null", O_RDONLY | O_CLOEXEC); /* only in the creator's new table */
  return probe_fd >= 0 ? NULL : "open failed";
}

static const char *row_ioprio(void) {
  long r = change_call(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, (2 << 13) | 7, 0);
  return r == 0 ? NULL : "ioprio_set refused";
}

static pid_t parked_tids[3];

static void *record_tid(void *slot) {
  *(pid_t *)slot = gettid();
  return NULL;
}

/* Another thread's state changed by the creator: threads that ran and parked (under the
 * cache) get the idle I/O class by tid; the creator's own stays, so must its new thread's. */
static const char *row_ioprio_other(void) {
  for (int i = 0; i < 3; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, record_tid, &parked_tids[i]) != 0) return "create failed";
    pthread_join(t, NULL);
  }
  settle();
  for (int i = 0; i < 3; ++i)
    syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, parked_tids[i], 3 << 13 /* idle */);
  return NULL;
}

static const char *row_personality(void) {
  return personality(ADDR_NO_RANDOMIZE) != -1 ? NULL : "personality failed";
}

static const char *row_mempolicy(void) {
  unsigned long node0 = 1;
  long r =
      change_call(SYS_set_mempolicy, 1 /* MPOL_PREFERRED */, (long)&node0, 8 * sizeof node0, 0);
  return r == 0 ? NULL : "set_mempolicy refused (no NUMA?)";
}

static const char *row_rseq(void) {
  if (&__rseq_size == NULL || __rseq_size == 0) return "glibc registers no rseq area";
  if (rseq_registered() != 1) return "rseq not registered";
  void *area = (char *)__builtin_thread_pointer() + __rseq_offset;
  /* glibc registers 32 bytes (struct rseq) with the signature of its architecture. */
#if defined(__x86_64__) || defined(__i386__)
  const unsigned sig = 0x53053053;
#elif defined(__aarch64__)
  const unsigned sig = 0xd428bc00;
#else
  return "rseq signature unknown here";
#endif
  return change_call(SYS_rseq, (long)area, 32, 1 /* RSEQ_FLAG_UNREGISTER */, sig) == 0
             ? NULL
             : "unregister failed";
}

static const char *row_fesetround(void) {
  return fesetround(FE_UPWARD) == 0 ? NULL : "fesetround failed";
}

static const char *row_mxcsr(void) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(_mm_getcsr() | 0x8040u); /* FTZ and DAZ, no system call at all */
  return NULL;
#else
  return "no MXCSR on this architecture";
#endif
}

static char cgroup_dir[128];

/* The v1 cpu hierarchy (per-thread "tasks") or a v2 threaded cgroup; the directory is made by
 * the parent (main_rows) and removed after the row's process ends. */
static const char *row_cgroup(void) {
  if (cgroup_dir[0] == 0) return "no writable cgroup hierarchy for threads";
  char path[192];
  snprintf(path, sizeof path, "%s/tasks", cgroup_dir);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open the cgroup's tasks";
  char tid[32];
  int n = snprintf(tid, sizeof tid, "%d\n", (int)gettid());
  ssize_t w = write(fd, tid, (size_t)n);
  close(fd);
  return w == n ? NULL : "cannot move the thread";
}

static const char *row_nnp(void) {
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? NULL : "PR_SET_NO_NEW_PRIVS failed";
}

static const char *row_reset_items(void) { /* reset on reuse: passed before the redesign too */
  pthread_setname_np(pthread_self(), "tm-creator");
  prctl(PR_SET_TIMERSLACK, 123456, 0, 0, 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  return NULL;
}

static const struct {
  const char *name;
  change_fn change;
} rows[] = {
    {"syscall(SYS_setresuid, -1, 65534, -1)", row_setresuid},
    {"setfsuid(65534)", row_setfsuid},
    {"syscall(SYS_setgroups)", row_setgroups},
    {"capset dropping the effective set", row_capset_glibc},
    {"syscall(SYS_capset) dropping the effective set", row_capset_raw},
    {"PR_CAPBSET_DROP", row_capbset},
    {"PR_SET_KEEPCAPS", row_keepcaps},
    {"PR_SET_SECUREBITS", row_securebits},
    {"seccomp filter (prctl)", row_seccomp_prctl},
    {"seccomp filter (syscall)", row_seccomp_raw},
    {"Landlock domain", row_landlock},
    {"unshare(CLONE_NEWUTS)", row_unshare_uts},
    {"setns(CLONE_NEWUTS)", row_setns_uts},
    {"unshare(CLONE_FS), chdir, umask", row_unshare_fs},
    {"unshare(CLONE_FILES)", row_unshare_files},
    {"syscall(SYS_ioprio_set)", row_ioprio},
    {"syscall(SYS_ioprio_set) of threads that ended (by tid)", row_ioprio_other},
    {"personality(ADDR_NO_RANDOMIZE)", row_personality},
    {"syscall(SYS_set_mempolicy)", row_mempolicy},
    {"rseq unregistered", row_rseq},
    {"fesetround(FE_UPWARD)", row_fesetround},
    {"MXCSR FTZ and DAZ", row_mxcsr},
    {"moved into another cgroup", row_cgroup},
    {"PR_SET_NO_NEW_PRIVS", row_nnp},
    {"name, timer slack, signal mask", row_reset_items},
};
#define ROWS ((int)(sizeof rows / sizeof rows[0]))

/* ---- running a row ------------------------------------------------------------------------ */

static void *observe(void *out) {
  snap(out);
  return NULL;
}

struct creator_job {
  int row;
  int failed;
  const char *skip;
  char detail[128];
};

/* Changes the row's item and creates an observer; the observer must see the creator's state. */
static void *creator(void *arg) {
  struct creator_job *job = arg;
  job->skip = rows[job->row].change();
  if (job->skip) return NULL;
  struct snapshot mine, theirs;
  snap(&mine);
  pthread_t o;
  if (pthread_create(&o, NULL, observe, &theirs) != 0) {
    job->failed = 1;
    snprintf(job->detail, sizeof job->detail, "pthread_create failed");
    return NULL;
  }
  pthread_join(o, NULL);
  const char *field = differs(&mine, &theirs);
  if (*field) {
    job->failed = 1;
    snprintf(job->detail, sizeof job->detail, "the new thread's %s is not its creator's", field);
  }
  return NULL;
}

static int run_row(int row, int by_thread) {
  if (getenv("CACHE_TEST_PREMAIN") == NULL) warm_cache();
  struct creator_job job = {row, 0, NULL, ""};
  const char *who = by_thread ? "a thread" : "main";
  if (by_thread) {
    pthread_t c;
    if (pthread_create(&c, NULL, creator, &job) != 0) return 99;
    pthread_join(c, NULL);
  } else {
    creator(&job);
  }
  if (job.skip) {
    printf("ok %s, then %s creates (skipped: %s)\n", rows[row].name, who, job.skip);
    return 0;
  }
  if (job.failed) {
    printf("FAIL %s, then %s creates: %s\n", rows[row].name, who, job.detail);
    return 1;
  }
  printf("ok %s, then %s creates: the new thread has its creator's state\n", rows[row].name, who);
  if (by_thread) { /* the changed thread's children, parked now, must not serve main */
    settle();
    struct snapshot mine, theirs;
    snap(&mine);
    pthread_t o;
    if (pthread_create(&o, NULL, observe, &theirs) != 0) return 99;
    pthread_join(o, NULL);
    const char *field = differs(&mine, &theirs);
    if (*field) {
      printf("FAIL %s in a thread, then main creates: the new thread's %s is not main's\n",
             rows[row].name, field);
      return 1;
    }
    printf("ok %s in a thread, then main creates: the new thread has main's state\n",
           rows[row].name);
  }
  return 0;
}

/* A cgroup directory a thread can be moved into, or "" (v1 "tasks" takes single threads). */
static void make_cgroup_dir(void) {
  static const char *const roots[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct",
                                      "/sys/fs/cgroup/pids"};
  cgroup_dir[0] = 0;
  if (geteuid() != 0) return;
  for (size_t i = 0; i < sizeof roots / sizeof roots[0]; ++i) {
    char tasks[160];
    snprintf(tasks, sizeof tasks, "%s/tasks", roots[i]);
    if (access(tasks, W_OK) != 0) continue;
    snprintf(cgroup_dir, sizeof cgroup_dir, "%s/tm-creator-%d", roots[i], (int)getpid());
    if (mkdir(cgroup_dir, 0755) == 0) return;
    cgroup_dir[0] = 0;
  }
}

__attribute__((constructor)) static void park_before_main(void) {
  if (getenv("CACHE_TEST_PREMAIN") == NULL) return;
  for (int i = 0; i < 3; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, semantics_nothing, NULL) == 0) pthread_join(t, NULL);
  }
  settle();
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "row") == 0) {
    snprintf(cgroup_dir, sizeof cgroup_dir, "%s", argv[4]);
    return run_row(atoi(argv[2]), strcmp(argv[3], "thread") == 0);
  }
  make_cgroup_dir();
  int failures = 0;
  for (int row = 0; row < ROWS; ++row) {
    for (int by_thread = 0; by_thread < 2; ++by_thread) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) {
        char number[16];
        snprintf(number, sizeof number, "%d", row);
        char *args[] = {argv[0], "row", number, by_thread ? "thread" : "main", cgroup_dir, NULL};
        execv("/proc/self/exe", args);
        _exit(98);
      }
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
          WEXITSTATUS(status) != 0) {
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 1))
          printf("FAIL %s (%s): the row's process ended with status %#x\n", rows[row].name,
                 by_thread ? "thread" : "main", status);
        ++failures;
      }
    }
  }
  if (cgroup_dir[0]) rmdir(cgroup_dir);
  warm_cache(); /* the cached run reuses a thread in this process too */
  return failures;
}
