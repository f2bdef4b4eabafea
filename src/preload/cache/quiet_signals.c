/* Parked threads that sleep without blocking signals, while that cannot be seen (so that a
 * recycle makes no system call at many creators too).
 *
 * A parked thread is no logical thread: a signal sent to the process must not be handled there.
 * Blocking every signal before it sleeps and restoring its creator's mask at the next hand-off
 * costs two rt_sigprocmask per recycle. Which thread takes a signal makes no difference while
 * the process is QUIET:
 *  - no signal has a handler other than those of the fault signals below (a disposition of
 *    SIG_DFL or SIG_IGN acts on the whole process, whichever thread takes the signal: it
 *    terminates, dumps core, stops, continues or discards), and
 *  - no thread has blocked a signal (so nobody waits for one to stay pending, with sigwait,
 *    sigwaitinfo or a signalfd, that a parked thread could take first).
 * The fault signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT) go to the thread
 * that faulted or aborted; their handlers (crash reporters, sanitizers, runtimes that catch
 * their own faults) keep the process quiet. Decided: kill(2) of one of them to the process may
 * run its handler on a parked thread (it would run on an arbitrary thread with glibc too).
 * glibc's SIGCANCEL and SIGSETXID are thread-directed and never count.
 *
 * While the process is quiet, a worker that goes to sleep parked keeps its (empty) mask and
 * counts as an OPEN sleeper. The first call that would end quietness (a handler installed, a
 * signal blocked, a thread created with a mask) ends it first: it marks the process loud, pokes
 * every open sleeper and waits until each has blocked its signals; only then does the call go
 * on. A sleeper adds itself to tm__open_sleepers and then reads the state; the caller writes
 * the state and then reads the count (sequentially consistent): one of them sees the other.
 * A loud process stays loud (the decision is made once; the parking then is what it was).
 *
 * What is seen how (shadow_interpose.c has the wrappers):
 *  - handlers installed with sigaction, signal, bsd_signal, sysv_signal, ssignal, sigset and
 *    syscall(SYS_rt_sigaction): before the call;
 *  - signals blocked with pthread_sigmask, sigprocmask, sighold, sigset(SIG_HOLD), setcontext,
 *    swapcontext, syscall(SYS_rt_sigprocmask), a create's attr mask or the default attr's
 *    mask: before the call; the mask the process started with: at its first create (startup.c);
 *  - what a thread does without libc (an inline system call, a runtime's raw rt_sigaction):
 *    handlers by reading every disposition (no file descriptor) before the first open sleep
 *    and again when a thread goes to sleep open and the last read is older than
 *    TM_CACHE_VERIFY_MS; a logical thread's mask when its end is verified (reset.c). Between
 *    two reads, a handler installed unseen may run once on a parked thread.
 * With TM_CACHE_VERIFY_MS=0 (check everything always) parked threads always block signals. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "options.h"
#include "shadow.h"

enum { TM_QUIET_UNKNOWN, TM_QUIET_YES, TM_QUIET_NO };

static _Atomic int tm__quiet = TM_QUIET_UNKNOWN;
/* When the dispositions were last read (0: never), and 1 while a thread reads them. */
static _Atomic uint64_t tm__quiet_read_ns;
static _Atomic int tm__quiet_reading;
/* Sleepers with an open mask; the futex a caller ending quietness waits on. */
static struct { TM_OWN_LINES _Atomic uint32_t n; } tm__open_sleepers;
static uint64_t tm__quiet_verify_ns;

static int tm__fault_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
         sig == SIGSYS || sig == SIGABRT;
}

/* Signals that have (or had: a handler put back to SIG_DFL keeps its bit) a handler that
 * counts, bit SIG-1: every install through a wrapper asks tm__quiet_handler_counts first, and
 * every read of the dispositions adds what was installed unseen. */
static _Atomic unsigned long long tm__handled_bits;
static _Atomic uint64_t tm__handled_read_ns; /* when the dispositions were last read (0: never) */

int tm__quiet_handler_counts(int sig, void (*handler)(int)) {
  int counts = handler != SIG_DFL && handler != SIG_IGN && handler != SIG_HOLD &&
               !tm__fault_signal(sig) && sig != SIGKILL && sig != SIGSTOP;
  if (counts && sig >= 1 && sig <= 64)
    atomic_fetch_or_explicit(&tm__handled_bits, 1ULL << (sig - 1), memory_order_relaxed);
  return counts;
}

int tm__quiet_mask_counts(int how, const sigset_t *set) {
  if (set == NULL || (how != SIG_BLOCK && how != SIG_SETMASK)) return 0;
  sigset_t m = *set;
  tm__shadow_filter_mask(&m);
  return !sigisemptyset(&m);
}

void tm__quiet_init(const sigset_t *initial_mask) {
  long long ms = tm__option(TM_OPT_VERIFY_MS);
  tm__quiet_verify_ns = (uint64_t)ms * 1000000ULL;
  sigset_t m = *initial_mask;
  tm__shadow_filter_mask(&m);
  if (ms == 0 || !sigisemptyset(&m)) atomic_store(&tm__quiet, TM_QUIET_NO);
}

/* 1 when some signal that counts has a handler (read from the kernel through glibc). */
static int tm__quiet_read_handlers(void) {
  int saved_errno = errno;
  int found = 0;
  for (int sig = 1; sig < _NSIG; ++sig) { /* every one: the handled set wants them all */
    if (sig == SIGKILL || sig == SIGSTOP || tm__fault_signal(sig)) continue;
    struct sigaction old;
    if (tm__real_sigaction(sig, NULL, &old) != 0) continue; /* glibc's own: SIGCANCEL, SIGSETXID */
    if (tm__quiet_handler_counts(sig, old.sa_handler)) found = 1; /* sa_sigaction: same word */
  }
  errno = saved_errno;
  return found;
}

int tm__quiet_may_keep(const struct tm_shadow *s) {
  return atomic_load_explicit(&tm__quiet, memory_order_relaxed) != TM_QUIET_NO &&
         (s->valid & TM_S_SIGMASK) && sigisemptyset(&s->sigmask);
}

void tm__quiet_close(struct tm_thread *t, int block) {
  if (block) tm__shadow_block_all(); /* before it stops counting: the waiter relies on it */
  atomic_store(&t->open_mask, 0);
  /* Only a caller ending quietness waits on the count (and it marked the process loud first):
   * a quiet process pays no wake when the count drops to 0. */
  if (atomic_fetch_sub(&tm__open_sleepers.n, 1) == 1 && atomic_load(&tm__quiet) == TM_QUIET_NO)
    tm__futex_wake(&tm__open_sleepers.n, INT_MAX);
}

int tm__quiet_park(struct tm_thread *t, uint64_t now) {
  int state = atomic_load_explicit(&tm__quiet, memory_order_relaxed);
  if (state == TM_QUIET_NO) return 0;
  struct tm_shadow *s = tm__shadow_raw();
  if (!(s->valid & TM_S_SIGMASK) || !sigisemptyset(&s->sigmask)) return 0;
  uint64_t last = atomic_load_explicit(&tm__quiet_read_ns, memory_order_relaxed);
  if (state == TM_QUIET_UNKNOWN || now - last >= tm__quiet_verify_ns) {
    /* One thread reads; the others block as before meanwhile. */
    if (atomic_exchange(&tm__quiet_reading, 1)) return 0;
    int found = tm__quiet_read_handlers();
    atomic_store(&tm__quiet_read_ns, now);
    atomic_store(&tm__quiet_reading, 0);
    if (found) {
      tm__quiet_end();
      return 0;
    }
    int unknown = TM_QUIET_UNKNOWN; /* fails when a call made the process loud meanwhile */
    atomic_compare_exchange_strong(&tm__quiet, &unknown, TM_QUIET_YES);
    if (atomic_load(&tm__quiet) != TM_QUIET_YES) return 0;
  }
  atomic_store(&t->open_mask, 1);
  atomic_fetch_add(&tm__open_sleepers.n, 1);
  if (atomic_load(&tm__quiet) == TM_QUIET_YES) return 1;
  tm__quiet_close(t, 0); /* loud meanwhile: the caller blocks everything, as without us */
  return 0;
}

void tm__quiet_recheck(struct tm_thread *t) {
  if (atomic_load_explicit(&t->open_mask, memory_order_relaxed) &&
      atomic_load(&tm__quiet) != TM_QUIET_YES)
    tm__quiet_close(t, 1);
}

void tm__quiet_leave(struct tm_thread *t, int next_logical) {
  if (!atomic_load_explicit(&t->open_mask, memory_order_relaxed)) return;
  /* A worker that goes on to a logical thread gets its creator's mask next (reset.c); one that
   * exits blocks everything when the process is loud, as a parked thread would. */
  tm__quiet_close(t, !next_logical && atomic_load(&tm__quiet) != TM_QUIET_YES);
}

static void tm__poke_open(struct tm_thread *r, void *unused) {
  (void)unused;
  if (atomic_load(&r->open_mask)) tm__poke(r);
}

void tm__quiet_end(void) {
  if (atomic_load(&tm__quiet) != TM_QUIET_NO) atomic_store(&tm__quiet, TM_QUIET_NO);
  if (atomic_load(&tm__open_sleepers.n) == 0) return; /* also while a sanitizer starts up */
  int saved_errno = errno;
  /* Called from a handler that runs on an open sleeper (a handler installed unseen): that
   * sleeper is us, and cannot answer a poke until we return. */
  struct tm_thread *self = tm__self();
  if (self && atomic_load_explicit(&self->open_mask, memory_order_relaxed))
    tm__quiet_close(self, 1);
  for (;;) {
    uint32_t n = atomic_load(&tm__open_sleepers.n);
    if (n == 0) break;
    tm__records_for_each(tm__poke_open, NULL);
    /* A poke is not lost (the sleeper re-reads its wake word), but a sleeper that counted
     * itself after our scan is found by the next one. */
    struct timespec one_ms = {0, 1000000};
    tm__futex_wait(&tm__open_sleepers.n, n, &one_ms, 0, 1);
  }
  errno = saved_errno;
}

int tm__process_loud(void) {
  return atomic_load_explicit(&tm__quiet, memory_order_relaxed) == TM_QUIET_NO;
}

int tm__mask_shuts_handlers(const sigset_t *mask, uint64_t now) {
  /* Installs through the wrappers are seen at once; the read looks for handlers installed
   * without libc (a runtime's raw rt_sigaction): 64 calls, so at the first use and then every
   * hundred verification intervals (1 s by default), not every interval. */
  uint64_t last = atomic_load_explicit(&tm__handled_read_ns, memory_order_relaxed);
  if (last == 0 || now - last >= 100 * tm__quiet_verify_ns) {
    /* One thread reads (and meanwhile the others answer "no": they block, as before). */
    if (tm__quiet_verify_ns == 0 || atomic_exchange(&tm__quiet_reading, 1)) return 0;
    tm__quiet_read_handlers();
    atomic_store(&tm__handled_read_ns, now | 1);
    atomic_store(&tm__quiet_reading, 0);
  }
  unsigned long long handled = atomic_load_explicit(&tm__handled_bits, memory_order_relaxed);
  for (int sig = 1; sig <= 64 && handled; ++sig, handled >>= 1)
    if ((handled & 1) && !sigismember(mask, sig)) return 0;
  return 1;
}

void tm__quiet_after_fork(void) { atomic_store(&tm__open_sleepers.n, 0); }
