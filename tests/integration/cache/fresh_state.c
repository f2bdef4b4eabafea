/* A new thread starts as a fresh one would, whatever the previous thread on a recycled
 * physical thread did: signal mask from the creator (or the attr), nothing pending, no
 * alternate signal stack, the creator's CPU affinity, name, timer slack and nice value,
 * scheduling from the attr (explicit) or the creator, the global locale. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <locale.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "semantics.h"

struct state {
  sigset_t mask;
  sigset_t pending;
  stack_t altstack;
  cpu_set_t affinity;
  char name[16];
  unsigned long slack;
  int nice;
  int policy;
  struct sched_param param;
  locale_t locale;
  int cancel_state, cancel_type;
};

static void read_state(struct state *s) {
  pthread_sigmask(SIG_BLOCK, NULL, &s->mask);
  sigpending(&s->pending);
  sigaltstack(NULL, &s->altstack);
  sched_getaffinity(0, sizeof s->affinity, &s->affinity);
  prctl(PR_GET_NAME, s->name, 0, 0, 0);
  s->slack = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  errno = 0;
  s->nice = getpriority(PRIO_PROCESS, 0);
  s->policy = sched_getscheduler(0);
  sched_getparam(0, &s->param);
  s->locale = uselocale((locale_t)0);
  /* Read by setting (the only way), then put back. */
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &s->cancel_state);
  pthread_setcancelstate(s->cancel_state, NULL);
  pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &s->cancel_type);
  pthread_setcanceltype(s->cancel_type, NULL);
}

static char altstack_memory[1 << 16];
static locale_t c_locale;

static void *dirty_everything(void *arg) {
  (void)arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  sigaddset(&set, SIGWINCH);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_kill(pthread_self(), SIGWINCH); /* stays pending (blocked) when the thread exits */
  stack_t ss = {.ss_sp = altstack_memory, .ss_size = sizeof altstack_memory, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one);
  prctl(PR_SET_NAME, "dirty", 0, 0, 0);
  prctl(PR_SET_TIMERSLACK, 123456UL, 0, 0, 0);
  uselocale(c_locale);
  return NULL;
}

/* Changes nothing but its cancellation state and type, so that its thread is reused. No
 * pthread_cancel in this program: the cache resets them only because it saw the calls. */
static void *leaves_cancel_changed(void *arg) {
  (void)arg;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  return NULL;
}

/* Irreversible per-thread changes: a filesystem context of its own (unshare CLONE_FS) with
 * another working directory, no_new_privs, an allow-all seccomp filter. */
static void *changes_for_good(void *arg) {
  (void)arg;
  if (unshare(CLONE_FS) == 0 && chdir("/") != 0) return (void *)1;
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {.len = 1, .filter = &allow};
  prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  return NULL;
}

struct irreversible {
  char cwd[256];
  int no_new_privs;
  int seccomp;
};

static void *observe_irreversible(void *arg) {
  struct irreversible *s = arg;
  if (getcwd(s->cwd, sizeof s->cwd) == NULL) s->cwd[0] = 0;
  s->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  s->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
  return NULL;
}

static void *renices(void *arg) {
  (void)arg;
  setpriority(PRIO_PROCESS, 0, 7);
  return NULL;
}

static void *observe(void *arg) {
  read_state(arg);
  return NULL;
}

static int same_mask(const sigset_t *a, const sigset_t *b) {
  for (int s = 1; s < SIGRTMIN; ++s)
    if (sigismember(a, s) != sigismember(b, s)) return 0;
  return 1;
}

int main(void) {
  c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  warm_cache();
  sigset_t creator_mask;
  sigemptyset(&creator_mask);
  sigaddset(&creator_mask, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &creator_mask, NULL);
  prctl(PR_SET_NAME, "creator", 0, 0, 0);
  struct state mine;
  read_state(&mine);
  for (int round = 0; round < 3; ++round) {
    pthread_t t;
    pthread_create(&t, NULL, dirty_everything, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, renices, NULL);
    pthread_join(t, NULL);
    settle();
    struct state seen;
    pthread_create(&t, NULL, observe, &seen);
    pthread_join(t, NULL);
    EXPECT(same_mask(&seen.mask, &mine.mask), "signal mask is the creator's");
    EXPECT(sigismember(&seen.mask, SIGUSR1) == 1, "...including SIGUSR1 blocked by the creator");
    EXPECT(!sigismember(&seen.pending, SIGWINCH), "no signal pending from a previous thread");
    EXPECT(seen.altstack.ss_flags == SS_DISABLE, "no alternate signal stack");
    EXPECT(CPU_EQUAL(&seen.affinity, &mine.affinity), "CPU affinity is the creator's");
    EXPECT(strcmp(seen.name, "creator") == 0, "name is the creator's");
    EXPECT(seen.slack == mine.slack, "timer slack is the creator's");
    EXPECT(seen.nice == mine.nice, "nice value is the creator's");
    EXPECT(seen.policy == mine.policy && seen.param.sched_priority == mine.param.sched_priority,
           "scheduling is inherited");
    EXPECT(seen.locale == LC_GLOBAL_LOCALE, "the global locale is in use");

    pthread_create(&t, NULL, leaves_cancel_changed, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, observe, &seen);
    pthread_join(t, NULL);
    EXPECT(
        seen.cancel_state == PTHREAD_CANCEL_ENABLE && seen.cancel_type == PTHREAD_CANCEL_DEFERRED,
        "cancellation enabled and deferred");

    char cwd[256];
    if (getcwd(cwd, sizeof cwd) == NULL) cwd[0] = 0;
    pthread_create(&t, NULL, changes_for_good, NULL);
    pthread_join(t, NULL);
    settle();
    struct irreversible irr;
    pthread_create(&t, NULL, observe_irreversible, &irr);
    pthread_join(t, NULL);
    EXPECT(strcmp(irr.cwd, cwd) == 0, "working directory is the process's (unshare undone)");
    EXPECT(irr.no_new_privs == 0, "no_new_privs is not set");
    EXPECT(irr.seccomp == 0, "no seccomp filter");

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    sigset_t attr_mask;
    sigemptyset(&attr_mask);
    sigaddset(&attr_mask, SIGHUP);
    pthread_attr_setsigmask_np(&attr, &attr_mask);
    cpu_set_t cpu0;
    CPU_ZERO(&cpu0);
    CPU_SET(0, &cpu0);
    pthread_attr_setaffinity_np(&attr, sizeof cpu0, &cpu0);
    pthread_create(&t, &attr, observe, &seen);
    pthread_join(t, NULL);
    EXPECT(same_mask(&seen.mask, &attr_mask), "signal mask from the attr");
    EXPECT(CPU_EQUAL(&seen.affinity, &cpu0), "affinity from the attr");
    pthread_attr_destroy(&attr);

    pthread_attr_init(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_RR);
    struct sched_param one = {.sched_priority = 1};
    pthread_attr_setschedparam(&attr, &one);
    int r = pthread_create(&t, &attr, observe, &seen);
    EXPECT(r == 0 || r == EPERM, "explicit SCHED_RR: created, or EPERM without privilege");
    if (r == 0) {
      pthread_join(t, NULL);
      EXPECT(seen.policy == SCHED_RR && seen.param.sched_priority == 1,
             "explicit scheduling policy applied");
    }
    pthread_attr_destroy(&attr);
    settle();
  }
  return semantics_failures;
}
