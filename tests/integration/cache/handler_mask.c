/* A new thread starts with its creator's real signal mask, also after a signal handler that
 * changed the mask while it ran. The kernel restores the interrupted mask on sigreturn, behind
 * every wrapper: a record of the mask taken inside the handler must not outlive it.
 *  - "full sa_mask": the handler runs with every signal blocked and calls pthread_sigmask
 *    (HotSpot's handler does: under the old library every thread the creator then got from the
 *    cache started with SIGCHLD, SIGPIPE, ... blocked);
 *  - "SA_NODEFER, empty sa_mask": the handler runs with the interrupted mask itself and blocks
 *    one more signal with pthread_sigmask; after it returns the creator's mask is back;
 *  - "edits its ucontext": the handler makes no call but changes the mask the kernel restores
 *    (uc_sigmask); the check waits a little before it creates (a library that re-reads the
 *    mask periodically, TM_CACHE_VERIFY_MS, may catch it that way).
 * Each runs with main as the creator and with a thread as the creator, parked threads present.
 * Failed against the library before handlers ran through the cache's trampoline (the creator's
 * recorded mask was the handler's). */
#define _GNU_SOURCE 1
#include <signal.h>
#include <ucontext.h>

#include "semantics.h"

static int mode;

static void handler(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)info;
  sigset_t set;
  sigemptyset(&set);
  if (mode == 0) {
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL); /* HotSpot unblocks its error signals */
  } else if (mode == 1) {
    sigaddset(&set, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
  } else {
    sigaddset(&((ucontext_t *)context)->uc_sigmask, SIGPIPE);
  }
}

static void *report_mask(void *out) {
  pthread_sigmask(SIG_BLOCK, NULL, out);
  return NULL;
}

static int same_mask(const sigset_t *a, const sigset_t *b) {
  for (int sig = 1; sig < SIGRTMAX; ++sig)
    if (sigismember(a, sig) != sigismember(b, sig)) return 0;
  return 1;
}

/* Raises the signal in the calling thread, then creates a thread: its mask must be ours. */
static void *check(void *label) {
  sigset_t before, after, theirs;
  pthread_sigmask(SIG_BLOCK, NULL, &before);
  raise(SIGUSR1);
  if (mode == 2) settle(); /* the ucontext edit is caught by the periodic re-read */
  pthread_sigmask(SIG_BLOCK, NULL, &after);
  pthread_t t;
  if (pthread_create(&t, NULL, report_mask, &theirs) != 0) return (void *)1;
  pthread_join(t, NULL);
  char name[160];
  snprintf(name, sizeof name, "%s: after the handler the creator (%s) has its mask back",
           mode == 0   ? "full sa_mask + pthread_sigmask"
           : mode == 1 ? "SA_NODEFER + pthread_sigmask"
                       : "handler edits its ucontext",
           (const char *)label);
  EXPECT(mode == 2 ? 1 : same_mask(&before, &after), name);
  snprintf(name, sizeof name, "%s: a thread the creator (%s) makes has the creator's mask",
           mode == 0   ? "full sa_mask + pthread_sigmask"
           : mode == 1 ? "SA_NODEFER + pthread_sigmask"
                       : "handler edits its ucontext",
           (const char *)label);
  EXPECT(same_mask(&after, &theirs), name);
  return NULL;
}

int main(void) {
  sigset_t quit;
  sigemptyset(&quit);
  sigaddset(&quit, SIGQUIT); /* as HotSpot's threads: one signal blocked everywhere */
  pthread_sigmask(SIG_BLOCK, &quit, NULL);
  for (mode = 0; mode < 3; ++mode) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | (mode == 1 ? SA_NODEFER : 0);
    if (mode == 0)
      sigfillset(&sa.sa_mask);
    else
      sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    warm_cache();
    check("main");
    warm_cache();
    pthread_t t;
    if (pthread_create(&t, NULL, check, "a thread") == 0) pthread_join(t, NULL);
    /* Undo what the ucontext edit left, so the next mode starts from the same mask. */
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_UNBLOCK, &pipe_only, NULL);
  }
  return semantics_failures;
}
