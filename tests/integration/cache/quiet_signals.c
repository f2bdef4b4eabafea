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
 * Without the cache there are no parked threads and both hold trivially. */
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

static void *wait_for_usr1(void *unused) {
  (void)unused;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  for (int i = 0; i < SIGWAIT_ROUNDS; ++i) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0 || sig != SIGUSR1) break;
    atomic_fetch_add(&waited, 1);
  }
  return NULL;
}

static void check_sigwait(void) {
  park_sleepers();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL); /* the new thread inherits it */
  pthread_t waiter;
  pthread_create(&waiter, NULL, wait_for_usr1, NULL);
  int delivered = 1;
  for (int i = 1; i <= SIGWAIT_ROUNDS && delivered; ++i) {
    kill(getpid(), SIGUSR1);
    delivered = wait_until(&waited, i);
  }
  EXPECT(delivered && atomic_load(&waited) == SIGWAIT_ROUNDS,
         "sigwait gets every signal sent to the process while parked threads exist");
  pthread_join(waiter, NULL);
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
  /* The handler check runs first, in a child: each check needs a process that is still quiet. */
  char *child_argv[] = {argv[0], "handler", NULL};
  pid_t child;
  int status = 0;
  fflush(stdout);
  int spawned = posix_spawn(&child, "/proc/self/exe", NULL, NULL, child_argv, environ) == 0 &&
                waitpid(child, &status, 0) == child;
  EXPECT(spawned && WIFEXITED(status) && WEXITSTATUS(status) == 0, "handler check ends normally");
  check_sigwait();
  return semantics_failures;
}
