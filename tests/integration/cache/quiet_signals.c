/* Parked threads never take a signal meant for the program's threads, even though in a quiet
 * process (no handler, nothing blocked) they sleep without blocking signals
 * (src/preload/cache/quiet_signals.c): the first call that ends quietness waits until every
 * parked thread has blocked its signals.
 *  - sigwait: main blocks SIGUSR1 while parked threads sleep, then a thread waits for it with
 *    sigwait and main sends it to the process 20 times. A parked thread that had not blocked it
 *    would take it, and its default action would end the process.
 *  - handler (a child run of this program): a SIGUSR2 handler is installed while parked
 *    threads sleep; a running thread sends SIGUSR2 to the process 50 times; main blocks it
 *    through libc's own syscall(2), which no wrapper sees, so that only the running thread and
 *    the parked ones could take it. Every run of the handler must be on the running thread.
 *  - started blocked (a child run of this program, spawned with SIGUSR1 blocked, as a launcher
 *    such as perf stat starts a program): parked threads inherit the blocked mask and sleep
 *    with it, without blocking the rest. A thread sigwaits for SIGUSR1 while main sends it 20
 *    times; then main also blocks SIGUSR2, which the parked threads' masks let through, and a
 *    second thread sigwaits for it: a parked thread that had not blocked SIGUSR2 before main's
 *    call returned would take one, and its default action would end the process.
 * Without the cache there are no parked threads and all three hold trivially. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

extern char **environ;

#define PARKED 8

static void *brief(void *arg) {
  struct timespec pause = {0, 5 * 1000 * 1000}; /* overlap, so that all of them are made */
  nanosleep(&pause, NULL);
  return arg;
}

/* Leaves PARKED finished threads parked and asleep (past any spin) when the cache is loaded. */
static void park_sleepers(void) {
  pthread_t t[PARKED];
  for (int i = 0; i < PARKED; ++i) pthread_create(&t[i], NULL, brief, NULL);
  for (int i = 0; i < PARKED; ++i) pthread_join(t[i], NULL);
  struct timespec pause = {0, 100 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

static int wait_until(atomic_int *value, int want) {
  for (int i = 0; i < 2000 && atomic_load(value) < want; ++i) {
    struct timespec pause = {0, 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  return atomic_load(value) >= want;
}

/* ---- sigwait ---------------------------------------------------------------------------- */

#define SIGWAIT_ROUNDS 20
static atomic_int waited;

static void *wait_for_signal(void *sig_arg) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, (int)(intptr_t)sig_arg);
  for (int i = 0; i < SIGWAIT_ROUNDS; ++i) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0 || sig != (int)(intptr_t)sig_arg) break;
    atomic_fetch_add(&waited, 1);
  }
  return NULL;
}

/* A thread sigwaits for SIG (blocked by main already) while main sends it to the process. */
static void sigwait_rounds(int sig, const char *what) {
  atomic_store(&waited, 0);
  pthread_t waiter;
  pthread_create(&waiter, NULL, wait_for_signal, (void *)(intptr_t)sig);
  int delivered = 1;
  for (int i = 1; i <= SIGWAIT_ROUNDS && delivered; ++i) {
    kill(getpid(), sig);
    delivered = wait_until(&waited, i);
  }
  EXPECT(delivered && atomic_load(&waited) == SIGWAIT_ROUNDS, what);
  pthread_join(waiter, NULL);
}

static void block_one(int sig) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, NULL); /* new threads inherit it */
}

static void check_sigwait(void) {
  park_sleepers();
  block_one(SIGUSR1);
  sigwait_rounds(SIGUSR1,
                 "sigwait gets every signal sent to the process while parked threads exist");
}

/* ---- started blocked ---------------------------------------------------------------------- */

static int check_started_blocked(void) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  EXPECT(sigismember(&now, SIGUSR1) == 1, "the process starts with SIGUSR1 blocked");
  park_sleepers(); /* they sleep with SIGUSR1 blocked, nothing else */
  sigwait_rounds(SIGUSR1, "started blocked: sigwait gets every SIGUSR1 sent to the process");
  park_sleepers();
  block_one(SIGUSR2); /* the parked threads' masks let it through until they block it */
  sigwait_rounds(SIGUSR2, "started blocked: a signal blocked later reaches its sigwait too");
  return semantics_failures;
}

/* Runs this program with MODE in a child (started with START_BLOCKED blocked, 0: none). */
static void run_child(char *argv0, char *mode, int start_blocked, const char *what) {
  char *child_argv[] = {argv0, mode, NULL};
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (start_blocked) {
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, start_blocked);
    posix_spawnattr_setsigmask(&attr, &mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  }
  pid_t child;
  int status = 0;
  fflush(stdout);
  int spawned = posix_spawn(&child, "/proc/self/exe", NULL, &attr, child_argv, environ) == 0 &&
                waitpid(child, &status, 0) == child;
  posix_spawnattr_destroy(&attr);
  EXPECT(spawned && WIFEXITED(status) && WEXITSTATUS(status) == 0, what);
}

/* ---- handler ---------------------------------------------------------------------------- */

#define HANDLER_ROUNDS 50
static atomic_int handled, handled_elsewhere, go;
static pthread_t sender;

static void on_usr2(int sig) {
  (void)sig;
  if (!pthread_equal(pthread_self(), sender)) atomic_fetch_add(&handled_elsewhere, 1);
  atomic_fetch_add(&handled, 1);
}

static void *send_usr2(void *unused) {
  (void)unused;
  while (!atomic_load(&go)) {
    struct timespec pause = {0, 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  for (int i = 1; i <= HANDLER_ROUNDS; ++i) {
    kill(getpid(), SIGUSR2);
    if (!wait_until(&handled, i)) break;
  }
  return NULL;
}

/* Blocks SIGUSR2 in the calling thread through libc's syscall(2), past any wrapper. */
static int block_usr2_unseen(void) {
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  long (*raw)(long, ...) = libc ? (long (*)(long, ...))dlsym(libc, "syscall") : NULL;
  if (raw == NULL) return 0;
  unsigned long bits = 1UL << (SIGUSR2 - 1);
  return raw(SYS_rt_sigprocmask, SIG_BLOCK, &bits, NULL, sizeof bits) == 0;
}

static int check_handler(void) {
  park_sleepers();
  pthread_create(&sender, NULL, send_usr2, NULL); /* made before main blocks: it does not */
  EXPECT(block_usr2_unseen(), "main blocks SIGUSR2 through libc's syscall");
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_usr2;
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR2, &action, NULL);
  atomic_store(&go, 1);
  pthread_join(sender, NULL);
  EXPECT(atomic_load(&handled) == HANDLER_ROUNDS, "every SIGUSR2 sent to the process is handled");
  EXPECT(atomic_load(&handled_elsewhere) == 0,
         "the handler runs on the running thread, never on a parked one");
  return semantics_failures;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "handler") == 0) return check_handler();
  if (argc > 1 && strcmp(argv[1], "blocked") == 0) return check_started_blocked();
  /* The other checks run first, in children: each needs a process that is still quiet. */
  run_child(argv[0], "handler", 0, "handler check ends normally");
  run_child(argv[0], "blocked", SIGUSR1, "started-blocked check ends normally");
  check_sigwait();
  return semantics_failures;
}
