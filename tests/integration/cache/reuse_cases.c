/* Reuse where nothing is carried (run by reuse_cases.sh, which reads TM_CACHE_STATS=FILE):
 * each mode creates and joins threads in a loop; a thread is retired only for what a fresh
 * thread of its creator would not have.
 *   sigchld-shared    SIGCHLD blocked everywhere and pending for the process (a shared
 *                     signal: a fresh thread sees the same set): threads are reused
 *   fork-reaped       each thread forks a child and reaps it before it ends (no child left
 *                     to get a parent-death signal): reused
 *   fork-alive        each thread leaves a running child: retired (cause fork)
 *   popen-closed      each thread runs a command with popen and pclose: reused
 *   popen-open        each thread leaves its popen'ed command running (main pcloses it later):
 *                     retired (cause fork: the command's parent is that thread)
 *   mempolicy         each thread sets a memory policy and restores MPOL_DEFAULT: reused
 *   altstack          each thread sets an alternate signal stack and disables it again, as
 *                     Rust's threads do at exit: reused (and the cache adds no sigaltstack
 *                     call of its own: reuse_cases.sh counts them with strace)
 * Prints one line (its output is compared with the plain run by the script). Under the library
 * before "reuse where nothing is carried" the first four were not reused (0-5%). */
#define _GNU_SOURCE 1
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

static const char *mode;
static int keep_alive[2];
static FILE *open_pipes[20];
static int n_open_pipes;

static void *work(void *arg) {
  (void)arg;
  if (strcmp(mode, "fork-reaped") == 0 || strcmp(mode, "fork-alive") == 0) {
    int alive = strcmp(mode, "fork-alive") == 0;
    pid_t pid = fork();
    if (pid == 0) {
      char c;
      close(keep_alive[1]);
      if (alive && read(keep_alive[0], &c, 1) < 0) _exit(1); /* until main closes the pipe */
      _exit(0);
    }
    if (!alive && pid > 0) waitpid(pid, NULL, 0);
  } else if (strcmp(mode, "popen-closed") == 0) {
    FILE *f = popen("exit 0", "r");
    if (f) pclose(f);
  } else if (strcmp(mode, "popen-open") == 0) {
    FILE *f = popen("read line", "w"); /* waits for main's pclose */
    if (f && n_open_pipes < 20) open_pipes[n_open_pipes++] = f;
  } else if (strcmp(mode, "mempolicy") == 0) {
    unsigned long node0 = 1;
    syscall(SYS_set_mempolicy, 1 /* MPOL_PREFERRED */, &node0, 8 * sizeof node0);
    syscall(SYS_set_mempolicy, 0 /* MPOL_DEFAULT */, NULL, 0);
  } else if (strcmp(mode, "syscall-reads") == 0) {
    /* Numbers that also write, called so that they only read (syscall_policy.c). */
    syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -2 /* KEY_SPEC_PROCESS_KEYRING */, 0);
#ifdef SYS_landlock_create_ruleset
    syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
#endif
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd >= 0) close((int)fd);
    char name[16];
    syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0);
  } else if (strcmp(mode, "altstack") == 0) {
    static __thread char stack[1 << 16];
    stack_t on = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&on, NULL);
    sigaltstack(&off, NULL);
  }
  return NULL;
}

/* syscall-beside: a thread that lives through the whole loop makes, once per round, a call
 * that changes its own identity only (a personality query, not on the harmless list): the
 * creates of main must keep their reuse (it once renewed every thread's identity). */
static _Atomic int beside_turn; /* 1: main asks for a call; 0: made; -1: stop */
static void *beside(void *arg) {
  (void)arg;
  for (;;) {
    int v = atomic_load(&beside_turn);
    if (v < 0) return NULL;
    if (v == 1) {
      syscall(SYS_personality, 0xffffffffL);
      atomic_store(&beside_turn, 0);
    }
    sched_yield();
  }
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  mode = argv[1];
  if (pipe(keep_alive) != 0) return 99;
  if (strcmp(mode, "sigchld-shared") == 0) {
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &chld, NULL); /* before any thread: blocked everywhere */
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, NULL, 0); /* reaped; its SIGCHLD stays pending for the process */
  }
  int rounds = strcmp(mode, "fork-alive") == 0 || strncmp(mode, "popen", 5) == 0 ? 20 : 200;
  int failed = 0;
  int with_beside = strcmp(mode, "syscall-beside") == 0;
  pthread_t beside_thread;
  if (with_beside && pthread_create(&beside_thread, NULL, beside, NULL) != 0) return 99;
  for (int i = 0; i < rounds; ++i) {
    pthread_t t;
    if (with_beside) {
      atomic_store(&beside_turn, 1);
      while (atomic_load(&beside_turn) == 1) sched_yield();
    }
    if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, NULL) != 0) ++failed;
  }
  if (with_beside) {
    atomic_store(&beside_turn, -1);
    pthread_join(beside_thread, NULL);
  }
  close(keep_alive[1]);
  for (int i = 0; i < n_open_pipes; ++i) pclose(open_pipes[i]);
  while (wait(NULL) > 0) {
  }
  printf("%s: %d rounds, %d failed\n", mode, rounds, failed);
  return failed != 0;
}
