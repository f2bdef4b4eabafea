/* Every way a thread's state can change, followed at once (no pause, so a recycled thread
 * inside the cache's verification interval serves the next create) by a thread that must see
 * what a fresh thread sees. The cache keeps this state as a shadow instead of asking the kernel
 * on each recycle (docs/thread-cache.md, "Shadow state"); each path below is one way it learns
 * of a change: a libc wrapper, syscall(2), another thread's call, a longjmp or setcontext that
 * restores a saved mask, a signal sent from inside, and changes made by another process (seen
 * by the periodic verification, or at once when the thread runs on a CPU its shadow excludes).
 * Registered twice: with the default verification interval, and with TM_CACHE_VERIFY_MS=3600000
 * where only the interposed calls, the epochs and the CPU check can catch a change (the
 * cases that need the periodic verification print "skip" in both runs alike). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "semantics.h"

struct state {
  unsigned long mask; /* the kernel's 64 signals */
  unsigned long pending;
  int altstack_disabled;
  cpu_set_t affinity;
  char name[16];
  unsigned long slack;
  int nice;
};

static unsigned long kernel_word(const sigset_t *set) {
  unsigned long w = 0;
  for (int s = 1; s <= 64; ++s)
    if (s != 32 && s != 33 && sigismember(set, s) == 1) w |= 1UL << (s - 1);
  return w;
}

static void read_state(struct state *s) {
  sigset_t m, p;
  sigemptyset(&m);
  sigemptyset(&p);
  pthread_sigmask(SIG_BLOCK, NULL, &m);
  sigpending(&p);
  s->mask = kernel_word(&m);
  s->pending = kernel_word(&p);
  stack_t ss;
  s->altstack_disabled = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE);
  sched_getaffinity(0, sizeof s->affinity, &s->affinity);
  memset(s->name, 0, sizeof s->name);
  prctl(PR_GET_NAME, s->name, 0, 0, 0);
  s->slack = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  errno = 0;
  s->nice = getpriority(PRIO_PROCESS, 0);
}

static void *observe(void *arg) {
  read_state(arg);
  return NULL;
}

/* Runs FN on a new thread and joins it, with no pause (the next create reuses its thread). */
static void cycle(void *(*fn)(void *), void *arg) {
  pthread_t t;
  if (pthread_create(&t, NULL, fn, arg) == 0) pthread_join(t, NULL);
}

static void expect_fresh(const char *what) {
  struct state want, seen;
  read_state(&want);
  cycle(observe, &seen);
  char line[160];
  snprintf(line, sizeof line, "%s: signal mask is the creator's", what);
  EXPECT(seen.mask == want.mask, line);
  snprintf(line, sizeof line, "%s: nothing pending", what);
  EXPECT(seen.pending == 0, line);
  snprintf(line, sizeof line, "%s: no alternate signal stack", what);
  EXPECT(seen.altstack_disabled, line);
  snprintf(line, sizeof line, "%s: affinity is the creator's", what);
  EXPECT(CPU_EQUAL(&seen.affinity, &want.affinity), line);
  snprintf(line, sizeof line, "%s: name is the creator's", what);
  EXPECT(strcmp(seen.name, want.name) == 0, line);
  snprintf(line, sizeof line, "%s: timer slack is the creator's", what);
  EXPECT(seen.slack == want.slack, line);
  snprintf(line, sizeof line, "%s: nice value is the creator's", what);
  EXPECT(seen.nice == want.nice, line);
}

static sigset_t one_signal(int sig) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  return s;
}

static int cpus_allowed(cpu_set_t *set) {
  sched_getaffinity(0, sizeof *set, set);
  return CPU_COUNT(set);
}

static cpu_set_t start_affinity; /* the process's CPUs, read before anything is pinned */

/* The first of the process's CPUs other than EXCEPT (or EXCEPT when it is the only one). */
static int other_cpu(int except) {
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &start_affinity) && c != except) return c;
  return except;
}

static void pin_self(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}

/* ---- a logical thread changes its own state ----------------------------------------------- */

static void *mask_by_pthread_sigmask(void *arg) {
  sigset_t s = one_signal(SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
  return arg;
}
static void *mask_by_sigprocmask(void *arg) {
  sigset_t s = one_signal(SIGPROF);
  sigprocmask(SIG_SETMASK, &s, NULL);
  return arg;
}
static void *mask_by_syscall(void *arg) {
  sigset_t s = one_signal(SIGURG);
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &s, NULL, _NSIG / 8);
  return arg;
}
static void *mask_by_siglongjmp(void *arg) {
  sigset_t prof = one_signal(SIGPROF);
  pthread_sigmask(SIG_BLOCK, &prof, NULL);
  sigjmp_buf env;
  if (sigsetjmp(env, 1) == 0) { /* saved with SIGPROF blocked */
    pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
    siglongjmp(env, 1); /* blocks SIGPROF again, behind the wrappers' back */
  }
  return arg;
}
static void *mask_by_setcontext(void *arg) {
  sigset_t prof = one_signal(SIGPROF);
  pthread_sigmask(SIG_BLOCK, &prof, NULL);
  ucontext_t uc;
  volatile int returned = 0;
  getcontext(&uc); /* saves the mask with SIGPROF blocked */
  if (!returned) {
    returned = 1;
    pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
    setcontext(&uc);
  }
  return arg;
}
static void *affinity_by_sched_setaffinity(void *arg) {
  pin_self(other_cpu(sched_getcpu()));
  return arg;
}
static void *affinity_by_pthread(void *arg) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(other_cpu(-1), &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  return arg;
}
static void *affinity_by_syscall(void *arg) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(other_cpu(-1), &one);
  syscall(SYS_sched_setaffinity, 0, sizeof one, &one);
  return arg;
}
static void *name_by_pthread(void *arg) {
  pthread_setname_np(pthread_self(), "by-pthread");
  return arg;
}
static void *name_by_prctl(void *arg) {
  prctl(PR_SET_NAME, "by-prctl", 0, 0, 0);
  return arg;
}
static void *name_by_syscall(void *arg) {
  syscall(SYS_prctl, PR_SET_NAME, "by-syscall", 0, 0, 0);
  return arg;
}
static void *slack_by_prctl(void *arg) {
  prctl(PR_SET_TIMERSLACK, 777000UL, 0, 0, 0);
  return arg;
}
static void *slack_by_syscall(void *arg) {
  syscall(SYS_prctl, PR_SET_TIMERSLACK, 888000UL, 0, 0, 0);
  return arg;
}
static void *nice_by_setpriority(void *arg) {
  setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 2);
  return arg;
}
static void *nice_by_syscall(void *arg) {
  syscall(SYS_setpriority, PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 3);
  return arg;
}
static char altstack_memory[1 << 16];
static void *altstack_by_sigaltstack(void *arg) {
  stack_t ss = {.ss_sp = altstack_memory, .ss_size = sizeof altstack_memory, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  return arg;
}
static void *altstack_by_syscall(void *arg) {
  stack_t ss = {.ss_sp = altstack_memory, .ss_size = sizeof altstack_memory, .ss_flags = 0};
  syscall(SYS_sigaltstack, &ss, NULL);
  return arg;
}
static void block_usr2(void) {
  sigset_t s = one_signal(SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
}
static void *pending_by_pthread_kill(void *arg) {
  block_usr2();
  pthread_kill(pthread_self(), SIGUSR2);
  return arg;
}
static void *pending_by_raise(void *arg) {
  block_usr2();
  raise(SIGUSR2);
  return arg;
}
static void *pending_by_tgkill(void *arg) {
  block_usr2();
  tgkill(getpid(), gettid(), SIGUSR2);
  return arg;
}
static void *pending_by_syscall(void *arg) {
  block_usr2();
  syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2);
  return arg;
}
static void *pending_by_sigqueue(void *arg) {
  block_usr2();
  union sigval v = {.sival_int = 1};
  pthread_sigqueue(pthread_self(), SIGUSR2, v);
  return arg;
}

static const struct {
  const char *what;
  void *(*fn)(void *);
} own_changes[] = {
    {"mask by pthread_sigmask", mask_by_pthread_sigmask},
    {"mask by sigprocmask", mask_by_sigprocmask},
    {"mask by syscall(rt_sigprocmask)", mask_by_syscall},
    {"mask by siglongjmp", mask_by_siglongjmp},
    {"mask by setcontext", mask_by_setcontext},
    {"affinity by sched_setaffinity", affinity_by_sched_setaffinity},
    {"affinity by pthread_setaffinity_np", affinity_by_pthread},
    {"affinity by syscall(sched_setaffinity)", affinity_by_syscall},
    {"name by pthread_setname_np", name_by_pthread},
    {"name by prctl", name_by_prctl},
    {"name by syscall(prctl)", name_by_syscall},
    {"timer slack by prctl", slack_by_prctl},
    {"timer slack by syscall(prctl)", slack_by_syscall},
    {"nice by setpriority", nice_by_setpriority},
    {"nice by syscall(setpriority)", nice_by_syscall},
    {"altstack by sigaltstack", altstack_by_sigaltstack},
    {"altstack by syscall(sigaltstack)", altstack_by_syscall},
    {"pending by pthread_kill", pending_by_pthread_kill},
    {"pending by raise", pending_by_raise},
    {"pending by tgkill", pending_by_tgkill},
    {"pending by syscall(tgkill)", pending_by_syscall},
    {"pending by pthread_sigqueue", pending_by_sigqueue},
};

/* ---- another thread of the process changes the creator ------------------------------------ */

struct target {
  pthread_t handle;
  pid_t tid;
  int how;
};

static void *change_creator(void *arg) {
  struct target *t = arg;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(other_cpu(-1), &one);
  if (t->how == 0) pthread_setaffinity_np(t->handle, sizeof one, &one);
  if (t->how == 1) sched_setaffinity(t->tid, sizeof one, &one);
  if (t->how == 2) pthread_setname_np(t->handle, "renamed");
  if (t->how == 3) syscall(SYS_sched_setaffinity, t->tid, sizeof one, &one);
  return NULL;
}

/* ---- another process changes the creator, or a finished thread's id ----------------------- */

static void in_child(void (*fn)(pid_t), pid_t tid) {
  pid_t pid = fork();
  if (pid == 0) {
    fn(tid);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
}

static int outside_cpu;
static void set_affinity_from_outside(pid_t tid) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(outside_cpu, &one);
  sched_setaffinity(tid, sizeof one, &one);
}
static void *note_tid(void *arg) {
  *(pid_t *)arg = gettid();
  return NULL;
}

int main(void) {
  const char *verify = getenv("TM_CACHE_VERIFY_MS");
  int long_verify = verify && atol(verify) > 1000;
  warm_cache();
  int cpus = cpus_allowed(&start_affinity);
  prctl(PR_SET_NAME, "creator", 0, 0, 0);

  for (size_t i = 0; i < sizeof own_changes / sizeof own_changes[0]; ++i) {
    cycle(own_changes[i].fn, NULL);
    expect_fresh(own_changes[i].what);
  }

  /* The creator changes itself, then creates at once. */
  sigset_t s = one_signal(SIGTERM);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
  expect_fresh("creator blocked SIGTERM by pthread_sigmask");
  s = one_signal(SIGHUP);
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &s, NULL, _NSIG / 8);
  expect_fresh("creator blocked SIGHUP by syscall");
  pin_self(other_cpu(-1));
  expect_fresh("creator pinned itself by sched_setaffinity");
  sched_setaffinity(0, sizeof start_affinity, &start_affinity);
  expect_fresh("creator unpinned itself");
  prctl(PR_SET_NAME, "creator-2", 0, 0, 0);
  expect_fresh("creator renamed itself by prctl");
  syscall(SYS_prctl, PR_SET_TIMERSLACK, 654000UL, 0, 0, 0);
  expect_fresh("creator set its timer slack by syscall");

  /* Another thread changes the creator. */
  struct target target = {pthread_self(), gettid(), 0};
  const char *cross[] = {"creator's affinity set by another thread (pthread)",
                         "creator's affinity set by another thread (tid)",
                         "creator renamed by another thread",
                         "creator's affinity set by another thread (syscall)"};
  for (int how = 0; how < 4; ++how) {
    sched_setaffinity(0, sizeof start_affinity, &start_affinity);
    expect_fresh("creator unpinned again");
    target.how = how;
    cycle(change_creator, &target);
    expect_fresh(cross[how]);
  }
  sched_setaffinity(0, sizeof start_affinity, &start_affinity);
  prctl(PR_SET_NAME, "creator", 0, 0, 0);

  /* The creator is pinned to one CPU; another process moves it to another one: waiting for
   * that process puts the creator to sleep, and it wakes on a CPU its shadow excludes. */
  if (cpus >= 2) {
    int first = other_cpu(-1);
    pin_self(first);
    expect_fresh("creator pinned to one CPU"); /* its shadow knows that CPU now */
    outside_cpu = other_cpu(first);
    in_child(set_affinity_from_outside, gettid());
    expect_fresh("creator pinned away by another process");
    sched_setaffinity(0, sizeof start_affinity, &start_affinity);
  } else {
    printf("skip creator pinned away by another process (1 CPU)\n");
  }

  /* Changes from outside that nothing in the process sees: caught by the verification. */
  if (!long_verify) {
    expect_fresh("creator before changes from another process"); /* its shadow is read */
    outside_cpu = other_cpu(-1);
    in_child(set_affinity_from_outside, gettid());
    settle();
    expect_fresh("creator pinned by another process, later");
    sched_setaffinity(0, sizeof start_affinity, &start_affinity);
    prctl(PR_SET_NAME, "creator", 0, 0, 0);
    pid_t finished = 0;
    cycle(note_tid, &finished); /* with the cache its thread now waits for the next create */
    in_child(set_affinity_from_outside, finished);
    settle();
    expect_fresh("a finished thread's id pinned by another process");
  } else {
    printf("skip changes from another process (verification interval %s ms)\n", verify);
  }
  return semantics_failures;
}
