/* A fixed number of create+join cycles from one creator, nothing else: what the hand-off costs
 * in counts rather than time (instructions under callgrind, system calls under strace -c,
 * context switches from /proc), where a timed loop would give a count that depends on speed.
 *
 *   threadmap-handoff-loop N          N create+join cycles of a thread that returns at once
 *   threadmap-handoff-loop N floor    N hand-offs between two threads through a futex word
 *                                     (the floor: what a perfect cache could not go below)
 *
 * Prints the process's voluntary and involuntary context switches (all its threads, ended ones
 * too) on one line: "cycles=N ctxt=V+I".
 * bench/cache/count_handoff.sh runs it and divides. */
#define _GNU_SOURCE 1
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *nothing(void *arg) { return arg; }

static _Atomic unsigned turn; /* the floor's futex word: whose turn it is */
static long floor_cycles;

static void futex_wait_for(unsigned want) {
  unsigned v;
  while ((v = atomic_load(&turn)) != want)
    syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void handoff(unsigned next) {
  atomic_store(&turn, next);
  syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *floor_partner(void *arg) {
  (void)arg;
  for (long i = 0; i < floor_cycles; ++i) {
    futex_wait_for(1);
    handoff(0);
  }
  return NULL;
}

/* Voluntary and involuntary context switches of every thread the process had, ended ones
 * included (getrusage(RUSAGE_SELF) sums them; /proc/self/status counts the leader only). */
static void switches(long long *voluntary, long long *involuntary) {
  struct rusage u;
  memset(&u, 0, sizeof u);
  getrusage(RUSAGE_SELF, &u);
  *voluntary = u.ru_nvcsw;
  *involuntary = u.ru_nivcsw;
}

/* Starts again with no signal blocked when started with some (perf stat blocks SIGWINCH in
 * its child): a process that starts with signals blocked makes the cache park "loud", with
 * two rt_sigprocmask per hand-off (docs/thread-cache.md, "Signals while parked"), and the
 * counts would measure the launcher, not the hand-off. HANDOFF_KEEP_MASK=1 keeps the mask it
 * was started with (to count that case). */
static void start_unblocked(char **argv) {
  if (getenv("HANDOFF_KEEP_MASK")) return; /* measure the blocked start itself */
  sigset_t now, none;
  sigemptyset(&none);
  sigprocmask(SIG_BLOCK, NULL, &now);
  for (int sig = 1; sig < SIGRTMAX; ++sig) {
    if (sigismember(&now, sig) != 1) continue;
    sigprocmask(SIG_SETMASK, &none, NULL);
    execv("/proc/self/exe", argv);
    return; /* cannot: count as it is */
  }
}

int main(int argc, char **argv) {
  start_unblocked(argv);
  if (argc < 2) {
    fprintf(stderr, "usage: threadmap-handoff-loop N [floor]\n");
    return 2;
  }
  long n = strtol(argv[1], NULL, 10);
  if (argc > 2 && strcmp(argv[2], "floor") == 0) {
    floor_cycles = n;
    pthread_t partner;
    if (pthread_create(&partner, NULL, floor_partner, NULL) != 0) return 1;
    for (long i = 0; i < n; ++i) {
      handoff(1);
      futex_wait_for(0);
    }
    pthread_join(partner, NULL);
    long long v, inv;
    switches(&v, &inv);
    printf("cycles=%ld ctxt=%lld+%lld\n", n, v, inv);
    return 0;
  }
  for (long i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
  }
  long long v, inv;
  switches(&v, &inv);
  printf("cycles=%ld ctxt=%lld+%lld\n", n, v, inv);
  return 0;
}
