/* pthread_once under the cache (src/preload/cache/once.c replaces glibc's): what a program
 * relies on, identical with and without the preload.
 *  - racing callers: the routine runs once; every caller returns only after it finished
 *    (callers that came while it ran slept on the word and were woken);
 *  - many words at once: each routine once;
 *  - a routine left by cancellation or pthread_exit: the word is free again, and a caller that
 *    slept while it ran is woken and runs its own routine; also when the routine has no unwind
 *    tables (once_no_unwind.c, as glibc's tst-oncey3);
 *  - fork while a routine runs in another thread: the child (which does not have that thread)
 *    runs the routine itself, and so does a grandchild (the generation changes at every fork);
 *  - callers on recycled threads.
 * `--count-wakes`: prints how many FUTEX_WAKE calls one uncontended pthread_once made on its
 * word (seccomp traps them; 77 where that cannot be counted); once_wakes.sh checks it. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>

#include "once_no_unwind.h"
#include "semantics.h"

static void pause_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

/* ---- racing callers --------------------------------------------------------------------- */
static pthread_once_t race_word = PTHREAD_ONCE_INIT;
static _Atomic int race_runs, race_done;
static pthread_barrier_t race_start;
static void race_routine(void) {
  ++race_runs;
  pause_ms(50); /* long enough that the other callers come while it runs, and sleep */
  race_done = 1;
}
static void *race_caller(void *arg) {
  pthread_barrier_wait(&race_start);
  pthread_once(&race_word, race_routine);
  *(int *)arg = race_done; /* must already be 1 */
  return NULL;
}

/* ---- many words ------------------------------------------------------------------------- */
#define WORDS 256
static pthread_once_t words[WORDS];
/* Every caller calls every word: WORDS runs in all means each word's routine ran exactly once. */
static _Atomic int word_runs;
static void count_routine(void) { ++word_runs; }
static void *many_caller(void *arg) {
  int stride = (int)(intptr_t)arg;
  for (int i = 0; i < WORDS; ++i) pthread_once(&words[(i * stride) % WORDS], count_routine);
  return NULL;
}

/* ---- a routine that does not return ----------------------------------------------------- */
static pthread_once_t left_word = PTHREAD_ONCE_INIT;
static _Atomic int left_started, left_second_ran;
static void cancelled_routine(void) {
  left_started = 1;
  for (;;) pause_ms(10); /* nanosleep is a cancellation point */
}
static void exiting_routine(void) {
  left_started = 1;
  pthread_exit((void *)42);
}
static void second_routine(void) { left_second_ran = 1; }
static void *cancelled_runner(void *word) {
  pthread_once(word, cancelled_routine);
  return NULL; /* not reached */
}
static void *exiting_runner(void *word) {
  pthread_once(word, exiting_routine);
  return NULL; /* not reached */
}
static void *left_waiter(void *arg) {
  (void)arg;
  pthread_once(&left_word, second_routine);
  return (void *)(intptr_t)left_second_ran;
}

/* RUNNER calls pthread_once(&left_word, a routine that sets *STARTED and never returns). */
static void check_left(const char *how, void *(*runner_function)(void *), _Atomic int *started,
                       int cancel) {
  char name[128];
  left_word = (pthread_once_t)PTHREAD_ONCE_INIT;
  *started = left_second_ran = 0;
  pthread_t runner, waiter;
  pthread_create(&runner, NULL, runner_function, &left_word);
  while (!*started) pause_ms(1);
  void *runner_result = NULL, *waiter_result = NULL;
  if (cancel) {
    pthread_create(&waiter, NULL, left_waiter, NULL);
    pause_ms(30); /* the waiter sleeps on the word by now */
    pthread_cancel(runner);
    pthread_join(runner, &runner_result);
    snprintf(name, sizeof name, "%s: the runner ends cancelled", how);
    EXPECT(runner_result == PTHREAD_CANCELED, name);
  } else {
    pthread_join(runner, &runner_result);
    snprintf(name, sizeof name, "%s: the runner's exit value arrives", how);
    EXPECT(runner_result == (void *)42, name);
    pthread_create(&waiter, NULL, left_waiter, NULL);
  }
  pthread_join(waiter, &waiter_result);
  snprintf(name, sizeof name, "%s: the next caller runs its own routine", how);
  EXPECT(waiter_result == (void *)1, name);
  left_second_ran = 0;
  pthread_once(&left_word, second_routine);
  snprintf(name, sizeof name, "%s: then the word is done", how);
  EXPECT(left_second_ran == 0, name);
}

/* ---- fork while a routine runs ---------------------------------------------------------- */
static pthread_once_t fork_word = PTHREAD_ONCE_INIT;
static _Atomic int fork_started, fork_release, fork_child_ran;
static void held_routine(void) {
  fork_started = 1;
  while (!fork_release) pause_ms(1);
}
static void child_routine(void) { fork_child_ran = 1; }
static void *fork_runner(void *arg) {
  (void)arg;
  pthread_once(&fork_word, held_routine);
  return NULL;
}

/* In a process where FORK_WORD is held by another thread: a forked child must run its own
 * routine. Returns the child's exit status (0: ran; 1: ran not; killed: hung). DEPTH > 0 makes
 * the child do the same again, one level down. */
static int fork_while_running(int depth);

static int child_checks(int depth) {
  alarm(10); /* a hang is a failure, not a stuck test */
  pthread_once(&fork_word, child_routine);
  if (!fork_child_ran) return 1;
  if (depth == 0) return 0;
  fork_word = (pthread_once_t)PTHREAD_ONCE_INIT;
  return fork_while_running(depth - 1) == 0 ? 0 : 2;
}

static int fork_while_running(int depth) {
  fork_started = fork_release = fork_child_ran = 0;
  pthread_t runner;
  if (pthread_create(&runner, NULL, fork_runner, NULL) != 0) return 3;
  while (!fork_started) pause_ms(1);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) _exit(child_checks(depth));
  int status = -1;
  waitpid(child, &status, 0);
  fork_release = 1;
  pthread_join(runner, NULL);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* ---- --count-wakes ---------------------------------------------------------------------- */
static pthread_once_t watched_word = PTHREAD_ONCE_INIT;
static volatile sig_atomic_t wakes;
static void nothing_routine(void) {}

static void on_sigsys(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)info;
  ++wakes;
  ucontext_t *uc = context;
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_RAX] = 0; /* "woke nobody", which is true: nobody sleeps */
#elif defined(__aarch64__)
  uc->uc_mcontext.regs[0] = 0;
#endif
}

static int count_wakes(void) {
#if !defined(__x86_64__) && !defined(__aarch64__)
  printf("skipped: no register map for this architecture\n");
  return 77;
#else
  uint64_t address = (uint64_t)(uintptr_t)&watched_word;
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 7),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)address, 0, 5),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(address >> 32), 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, FUTEX_CMD_MASK),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAKE, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
  };
  struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
  struct sigaction action = {0};
  action.sa_sigaction = on_sigsys;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSYS, &action, NULL) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    printf("skipped: cannot install a seccomp filter (%s)\n", strerror(errno));
    return 77;
  }
  pthread_once(&watched_word, nothing_routine);
  printf("%d\n", (int)wakes);
  return 0;
#endif
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--count-wakes") == 0) return count_wakes();
  warm_cache();

  enum { RACERS = 8 };
  pthread_t racers[RACERS];
  int saw_done[RACERS] = {0};
  pthread_barrier_init(&race_start, NULL, RACERS);
  for (int i = 0; i < RACERS; ++i) pthread_create(&racers[i], NULL, race_caller, &saw_done[i]);
  for (int i = 0; i < RACERS; ++i) pthread_join(racers[i], NULL);
  int all_done = 1;
  for (int i = 0; i < RACERS; ++i) all_done &= saw_done[i];
  EXPECT(race_runs == 1, "racing callers: the routine ran once");
  EXPECT(all_done, "racing callers: each returned after the routine finished");

  enum { MANY = 4 };
  pthread_t many[MANY];
  static const int strides[MANY] = {1, 7, 37, 255}; /* odd: each visits every word */
  for (int i = 0; i < MANY; ++i)
    pthread_create(&many[i], NULL, many_caller, (void *)(intptr_t)strides[i]);
  for (int i = 0; i < MANY; ++i) pthread_join(many[i], NULL);
  EXPECT(word_runs == WORDS, "many words, many callers: each routine ran once");

  check_left("cancelled in the routine", cancelled_runner, &left_started, 1);
  check_left("pthread_exit in the routine", exiting_runner, &left_started, 0);
  check_left("cancelled in a routine without unwind tables", no_unwind_runner, &no_unwind_started,
             1);
  EXPECT(no_unwind_cleanup_ran, "cancelled without unwind tables: the caller's cleanup ran");

  int child = fork_while_running(1);
  EXPECT(child == 0, "fork while a routine runs: the child and a grandchild run it themselves");
  return semantics_failures;
}
