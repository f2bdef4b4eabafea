/* A test-only LD_PRELOAD library that compares, for every pthread_create, the creator's
 * kernel-visible state just before the create with the new thread's at the first instruction of
 * its start routine (glibc makes them equal: clone copies it). Listed before the thread cache in
 * LD_PRELOAD it wraps the logical start routines, so it sees what a recycled thread starts with.
 *
 * Compared: the signal mask (raw rt_sigprocmask), credentials, groups, the five capability
 * sets, no_new_privs and the seccomp mode (/proc/thread-self/status), the CPU affinity, the
 * cgroup (/proc/thread-self/cgroup), the timer slack, the name, the GS base (x86-64) and the
 * audit login uid. Two more rules of clone, checked on the new thread alone: it starts with no
 * signal pending for itself (SigPnd), and its default timer slack (what PR_SET_TIMERSLACK(0)
 * gives back, read by setting 0 and putting the slack back) is its creator's slack. A create
 * whose attr sets a signal mask or an affinity is compared without those. Each difference is
 * appended at once, one line, to TM_STATE_PROBE_FILE (a Go program ends with a raw exit_group:
 * nothing is kept for the end): state-probe pid=P tid=T item=NAME creator=... thread=...
 * tests/runtimes/run_case.sh runs every case with it, plainly and under the cache, and requires
 * the file to stay empty. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { ITEM_BYTES = 512 };
static const char *const status_keys[] = {
    "Uid:",    "Gid:",    "Groups:",  "CapInh:",     "CapPrm:",      "CapEff:",
    "CapBnd:", "CapAmb:", "Seccomp:", "NoNewPrivs:", "Cpus_allowed:"};
#define N_STATUS (sizeof status_keys / sizeof status_keys[0])
enum { I_MASK = N_STATUS, I_CGROUP, I_SLACK, I_NAME, I_GS, I_LOGINUID, N_ITEMS };
static const char *const extra_names[] = {"sigmask", "cgroup", "timerslack",
                                          "name",    "gsbase", "loginuid"};
static const char no_pending[] = "SigPnd:\t0000000000000000";

/* System calls through the instruction: libc's syscall(2) is the cache's wrapper, which must
 * not see the probe (it would count the probe's reads as the program's). */
static long raw3(long number, long a1, long a2, long a3, long a4) {
  long ret;
#if defined(__x86_64__)
  register long r10 __asm__("r10") = a4;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
                   : "rcx", "r11", "memory");
#else
  ret = syscall(number, a1, a2, a3, a4);
#endif
  return ret;
}

struct snapshot {
  char item[N_ITEMS][ITEM_BYTES];
};

static void read_file(const char *path, char *buf, size_t size) {
  buf[0] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  buf[n > 0 ? n : 0] = 0;
}

/* The "SigPnd:" line of the calling thread (its own pending set) into OUT. */
static void own_pending(const char *status, char *out) {
  out[0] = 0;
  const char *at = strstr(status, "\nSigPnd:");
  if (at == NULL) return;
  ++at;
  size_t len = strcspn(at, "\n");
  if (len >= ITEM_BYTES) len = ITEM_BYTES - 1;
  memcpy(out, at, len);
  out[len] = 0;
}

static __thread char status[8192];

static void take(struct snapshot *s) {
  read_file("/proc/thread-self/status", status, sizeof status);
  for (size_t k = 0; k < N_STATUS; ++k) {
    s->item[k][0] = 0;
    const char *at = strstr(status, status_keys[k]);
    if (at == NULL) continue;
    const char *end = strchr(at, '\n');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    if (len >= ITEM_BYTES) len = ITEM_BYTES - 1;
    memcpy(s->item[k], at, len);
    s->item[k][len] = 0;
  }
  unsigned long long mask = 0;
  raw3(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&mask, sizeof mask);
  snprintf(s->item[I_MASK], ITEM_BYTES, "%llx", mask);
  read_file("/proc/thread-self/cgroup", s->item[I_CGROUP], ITEM_BYTES);
  snprintf(s->item[I_SLACK], ITEM_BYTES, "%ld", raw3(SYS_prctl, PR_GET_TIMERSLACK, 0, 0, 0));
  char name[17] = {0};
  raw3(SYS_prctl, PR_GET_NAME, (long)name, 0, 0);
  snprintf(s->item[I_NAME], ITEM_BYTES, "%s", name);
  unsigned long gs = 0;
#if defined(__x86_64__)
  raw3(SYS_arch_prctl, 0x1004 /* ARCH_GET_GS */, (long)&gs, 0, 0);
#endif
  snprintf(s->item[I_GS], ITEM_BYTES, "%lx", gs);
  read_file("/proc/thread-self/loginuid", s->item[I_LOGINUID], ITEM_BYTES);
}

struct start {
  void *(*fn)(void *);
  void *arg;
  int skip_mask, skip_affinity;
  struct snapshot creator;
};

static void report(const char *item, const char *creator, const char *thread) {
  const char *path = getenv("TM_STATE_PROBE_FILE");
  if (path == NULL) return;
  char line[2 * ITEM_BYTES + 128];
  int n = snprintf(line, sizeof line, "state-probe pid=%d tid=%ld item=%s creator=%s thread=%s\n",
                   (int)getpid(), raw3(SYS_gettid, 0, 0, 0, 0), item, creator, thread);
  for (int i = 0; i < n - 1; ++i)
    if (line[i] == '\n') line[i] = ' ';
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* nothing more to do */
  }
  close(fd);
}

static void *probed(void *arg) {
  struct start *st = arg;
  struct snapshot *now = malloc(sizeof *now);
  if (now) {
    take(now);
    /* A real-time thread (an explicit attr) has no timer slack: the kernel keeps it at 0. */
    int policy = (int)raw3(SYS_sched_getscheduler, 0, 0, 0, 0) & ~SCHED_RESET_ON_FORK;
    int realtime = policy == SCHED_FIFO || policy == SCHED_RR || policy == 6 /* DEADLINE */;
    char pending[ITEM_BYTES];
    own_pending(status, pending); /* the status take() read */
    if (pending[0] && strcmp(pending, no_pending) != 0) report("pending", no_pending, pending);
    if (!realtime) {
      long slack = raw3(SYS_prctl, PR_GET_TIMERSLACK, 0, 0, 0);
      raw3(SYS_prctl, PR_SET_TIMERSLACK, 0, 0, 0);
      long by_default = raw3(SYS_prctl, PR_GET_TIMERSLACK, 0, 0, 0);
      raw3(SYS_prctl, PR_SET_TIMERSLACK, slack, 0, 0);
      char got[32];
      snprintf(got, sizeof got, "%ld", by_default);
      if (strcmp(got, st->creator.item[I_SLACK]) != 0)
        report("default-timerslack", st->creator.item[I_SLACK], got);
    }
    for (int k = 0; k < N_ITEMS; ++k) {
      if ((k == I_MASK && st->skip_mask) || (k == N_STATUS - 1 && st->skip_affinity) ||
          (k == I_SLACK && realtime))
        continue;
      if (strcmp(now->item[k], st->creator.item[k]) != 0)
        report(k < (int)N_STATUS ? status_keys[k] : extra_names[k - N_STATUS], st->creator.item[k],
               now->item[k]);
    }
    free(now);
  }
  void *(*fn)(void *) = st->fn;
  void *a = st->arg;
  free(st);
  return fn(a);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*next)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (next == NULL) *(void **)&next = dlsym(RTLD_NEXT, "pthread_create");
  struct start *st = malloc(sizeof *st);
  if (st == NULL) return next(thread, attr, fn, arg);
  st->fn = fn;
  st->arg = arg;
  sigset_t m;
  cpu_set_t cpus;
  /* The attr's mask or affinity, or the process's default ones (pthread_setattr_default_np)
   * for a NULL attr: the new thread gets those, not its creator's. */
  pthread_attr_t defaults;
  const pthread_attr_t *a = attr;
  int have_defaults = attr == NULL && pthread_getattr_default_np(&defaults) == 0;
  if (have_defaults) a = &defaults;
  st->skip_mask = a != NULL && pthread_attr_getsigmask_np(a, &m) == 0;
  st->skip_affinity = a != NULL && pthread_attr_getaffinity_np(a, sizeof cpus, &cpus) == 0 &&
                      CPU_COUNT(&cpus) != CPU_SETSIZE;
  if (have_defaults) pthread_attr_destroy(&defaults);
  take(&st->creator);
  int r = next(thread, attr, probed, st);
  if (r != 0) free(st);
  return r;
}
