/* Parked threads that sleep without blocking signals, while that cannot be seen (so that a
 * recycle makes no system call at many creators too).
 *
 * A parked thread is no logical thread: a signal sent to the process must not be handled there.
 * Blocking every signal before it sleeps and restoring its creator's mask at the next hand-off
 * costs two rt_sigprocmask per recycle. A parked thread may sleep with its mask M (the mask its
 * logical thread started with, or left) as long as every signal M lets through would act the
 * same whichever thread took it. The process keeps the QUIET SET Q of the signals that could
 * tell: every signal some thread has blocked (so somebody may wait for it to stay pending, with
 * sigwait, sigwaitinfo or a signalfd, and a parked thread would take it first), the ones the
 * process started with blocked, and every signal with a handler other than those of the fault
 * signals below. A signal outside Q has SIG_DFL or SIG_IGN and nobody blocks it: its action is
 * the whole process's (terminate, dump core, stop, continue, discard), whichever thread takes
 * it. So a sleeper whose mask blocks all of Q sleeps OPEN: no call to block its signals, none to
 * give its next logical thread its creator's mask when that is M. The common shapes: nothing
 * blocked and no handler (Q empty, every mask will do); a program that blocks signals in main
 * and waits for them in one thread, or anything started with signals blocked (perf stat): its
 * threads inherit a mask that is Q.
 * The fault signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT) go to the thread
 * that faulted or aborted; their handlers (crash reporters, sanitizers, runtimes that catch
 * their own faults) do not count. Decided: kill(2) of one of them to the process may run its
 * handler on a parked thread (it would run on an arbitrary thread with glibc too).
 * glibc's SIGCANCEL and SIGSETXID are thread-directed and never count.
 *
 * Q only grows. The first call that adds a signal to it (a handler installed, a signal blocked,
 * a thread created with a mask) adds it first, pokes every open sleeper whose mask lets it
 * through, and waits until each has blocked its signals; only then does the call go on. A
 * sleeper records its mask and counts itself, then reads Q; the caller grows Q, then reads the
 * sleepers (sequentially consistent): one of them sees the other. A call whose effect on Q is
 * not known (sighold, sigset(SIG_HOLD)) makes the process LOUD: from then on every parked thread
 * blocks every signal before it sleeps, as without this file.
 *
 * What is seen how (shadow_interpose.c has the wrappers):
 *  - handlers installed with sigaction, signal, bsd_signal, sysv_signal, ssignal, sigset and
 *    syscall(SYS_rt_sigaction): before the call;
 *  - signals blocked with pthread_sigmask, sigprocmask, setcontext, swapcontext,
 *    syscall(SYS_rt_sigprocmask), a create's attr mask or the default attr's mask: before the
 *    call; the mask the process started with: at its first create (startup.c);
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
/* Q: the signals (bit SIG-1) an open sleeper must block. */
static _Atomic uint64_t tm__quiet_set;
/* When the dispositions were last read (0: never), and 1 while a thread reads them. */
static _Atomic uint64_t tm__quiet_read_ns;
static _Atomic int tm__quiet_reading;
/* Sleepers with an open mask; the futex a caller growing Q or ending quietness waits on. */
static struct { TM_OWN_LINES _Atomic uint32_t n; } tm__open_sleepers;
/* Callers waiting for open sleepers to close (a closing sleeper wakes them). */
static _Atomic uint32_t tm__quiet_waiters;
static uint64_t tm__quiet_verify_ns;
/* Signals that have (or had: a handler put back to SIG_DFL keeps its bit) a handler that
 * counts, bit SIG-1: every install through a wrapper adds its signal, and every read of the
 * dispositions adds what was installed unseen (tm__mask_shuts_handlers reads them). */
static _Atomic uint64_t tm__handled_bits;
static _Atomic uint64_t tm__handled_read_ns; /* when tm__mask_shuts_handlers last read (0: never) */

/* The signals 1-64 of MASK (glibc's and the kernel's first word: all signals there are on
 * x86-64 and the generic table), those that count only (tm__shadow_filter_mask's rule, on the
 * word: a park reads it twice per recycle). */
static uint64_t tm__mask_bits(const sigset_t *mask) {
  uint64_t bits;
  memcpy(&bits, mask, sizeof bits);
  const uint64_t never = (1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)) | (1ULL << 31) |
                         (1ULL << 32); /* SIGKILL, SIGSTOP, glibc's SIGCANCEL and SIGSETXID */
  return bits & ~never;
}

/* 1 when a sleeper blocking BITS blocks all of Q. */
static int tm__quiet_covers(uint64_t bits) {
  uint64_t q = atomic_load(&tm__quiet_set);
  return (bits & q) == q;
}

static int tm__fault_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
         sig == SIGSYS || sig == SIGABRT;
}

/* 1 when a handler for SIG (not SIG_DFL, SIG_IGN) may tell which thread took it. */
static int tm__handler_counts(int sig, void (*handler)(int)) {
  return handler != SIG_DFL && handler != SIG_IGN && handler != SIG_HOLD &&
         !tm__fault_signal(sig) && sig != SIGKILL && sig != SIGSTOP && sig >= 1 && sig <= 64;
}

static void tm__quiet_grow(uint64_t bits);

int tm__quiet_handler_counts(int sig, void (*handler)(int)) {
  if (tm__handler_counts(sig, handler)) {
    atomic_fetch_or_explicit(&tm__handled_bits, 1ULL << (sig - 1), memory_order_relaxed);
    tm__quiet_grow(1ULL << (sig - 1));
  }
  return 0;
}

int tm__quiet_mask_counts(int how, const sigset_t *set) {
  if (set == NULL || (how != SIG_BLOCK && how != SIG_SETMASK)) return 0;
  tm__quiet_grow(tm__mask_bits(set));
  return 0;
}

void tm__quiet_init(const sigset_t *initial_mask) {
  long long ms = tm__option(TM_OPT_VERIFY_MS);
  tm__quiet_verify_ns = (uint64_t)ms * 1000000ULL;
  /* Signals blocked at start-up (a launcher's, perf stat's) are in Q from the start: the
   * program's threads inherit them, and parked threads that keep them sleep open. */
  atomic_store(&tm__quiet_set, tm__mask_bits(initial_mask));
  if (ms == 0) atomic_store(&tm__quiet, TM_QUIET_NO);
}

/* The signals that have a handler that counts (read from the kernel through glibc). */
static uint64_t tm__quiet_read_handlers(void) {
  int saved_errno = errno;
  uint64_t found = 0;
  for (int sig = 1; sig <= 64 && sig < _NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP || tm__fault_signal(sig)) continue;
    struct sigaction old;
    if (tm__real_sigaction(sig, NULL, &old) != 0) continue; /* glibc's own: SIGCANCEL, SIGSETXID */
    if (tm__handler_counts(sig, old.sa_handler)) found |= 1ULL << (sig - 1); /* same word */
  }
  errno = saved_errno;
  if (found) atomic_fetch_or_explicit(&tm__handled_bits, found, memory_order_relaxed);
  return found;
}

int tm__quiet_may_keep(const struct tm_shadow *s) {
  return atomic_load_explicit(&tm__quiet, memory_order_relaxed) != TM_QUIET_NO &&
         (s->valid & TM_S_SIGMASK) && tm__quiet_covers(tm__mask_bits(&s->sigmask));
}

void tm__quiet_close(struct tm_thread *t, int block) {
  if (block) tm__shadow_block_all(); /* before it stops counting: the waiter relies on it */
  atomic_store(&t->open_mask, 0);
  /* Only a caller growing Q or ending quietness waits on the count (and it counted itself or
   * marked the process loud first): a quiet process pays no wake when a sleeper leaves. */
  if (atomic_fetch_sub(&tm__open_sleepers.n, 1) == 1 && atomic_load(&tm__quiet) == TM_QUIET_NO)
    tm__futex_wake(&tm__open_sleepers.n, INT_MAX);
  else if (atomic_load(&tm__quiet_waiters))
    tm__futex_wake(&tm__open_sleepers.n, INT_MAX);
}

/* An open sleeper T (still counted) that may not sleep open: Q grew past its mask, or the
 * process turned loud. */
static int tm__quiet_must_close(struct tm_thread *t) {
  return atomic_load(&tm__quiet) != TM_QUIET_YES ||
         !tm__quiet_covers(atomic_load_explicit(&t->open_bits, memory_order_relaxed));
}

int tm__quiet_park(struct tm_thread *t, uint64_t now) {
  int state = atomic_load_explicit(&tm__quiet, memory_order_relaxed);
  if (state == TM_QUIET_NO) return 0;
  struct tm_shadow *s = tm__shadow_raw();
  if (!(s->valid & TM_S_SIGMASK)) return 0;
  uint64_t bits = tm__mask_bits(&s->sigmask);
  if (!tm__quiet_covers(bits)) return 0;
  uint64_t last = atomic_load_explicit(&tm__quiet_read_ns, memory_order_relaxed);
  if (state == TM_QUIET_UNKNOWN || now - last >= tm__quiet_verify_ns) {
    /* One thread reads; the others block as before meanwhile. */
    if (atomic_exchange(&tm__quiet_reading, 1)) return 0;
    uint64_t found = tm__quiet_read_handlers();
    atomic_store(&tm__quiet_read_ns, now);
    atomic_store(&tm__quiet_reading, 0);
    if (found) tm__quiet_grow(found); /* handlers installed where no wrapper saw them */
    int unknown = TM_QUIET_UNKNOWN;   /* fails when a call made the process loud meanwhile */
    atomic_compare_exchange_strong(&tm__quiet, &unknown, TM_QUIET_YES);
    if (atomic_load(&tm__quiet) != TM_QUIET_YES || !tm__quiet_covers(bits)) return 0;
  }
  atomic_store(&t->open_bits, bits);
  atomic_store(&t->open_mask, 1);
  atomic_fetch_add(&tm__open_sleepers.n, 1);
  if (!tm__quiet_must_close(t)) return 1;
  tm__quiet_close(t, 0); /* Q grew or loud meanwhile: the caller blocks everything */
  return 0;
}

void tm__quiet_recheck(struct tm_thread *t) {
  if (atomic_load_explicit(&t->open_mask, memory_order_relaxed) && tm__quiet_must_close(t))
    tm__quiet_close(t, 1);
}

void tm__quiet_leave(struct tm_thread *t, int next_logical) {
  if (!atomic_load_explicit(&t->open_mask, memory_order_relaxed)) return;
  /* A worker that goes on to a logical thread gets its creator's mask next (reset.c); one that
   * exits blocks everything when its mask no longer may stay open, as a parked thread would. */
  tm__quiet_close(t, !next_logical && tm__quiet_must_close(t));
}

/* Pokes R when it sleeps open and must not (*BAD counts them). */
static void tm__poke_open(struct tm_thread *r, void *bad) {
  if (atomic_load(&r->open_mask) && tm__quiet_must_close(r)) {
    tm__poke(r);
    ++*(int *)bad;
  }
}

/* Returns when no parked thread sleeps open that must not (Q grew, or the process is loud). */
static void tm__quiet_wait_closed(void) {
  if (atomic_load(&tm__open_sleepers.n) == 0) return; /* also while a sanitizer starts up */
  int saved_errno = errno;
  /* Called from a handler that runs on an open sleeper (a handler installed unseen): that
   * sleeper is us, and cannot answer a poke until we return. */
  struct tm_thread *self = tm__self();
  if (self && atomic_load_explicit(&self->open_mask, memory_order_relaxed) &&
      tm__quiet_must_close(self))
    tm__quiet_close(self, 1);
  atomic_fetch_add(&tm__quiet_waiters, 1);
  for (;;) {
    uint32_t n = atomic_load(&tm__open_sleepers.n);
    if (n == 0) break;
    int bad = 0;
    tm__records_for_each(tm__poke_open, &bad);
    if (bad == 0) break;
    /* A poke is not lost (the sleeper re-reads its wake word), but a sleeper that counted
     * itself after our scan is found by the next one. */
    struct timespec one_ms = {0, 1000000};
    tm__futex_wait(&tm__open_sleepers.n, n, &one_ms, 0, 1);
  }
  atomic_fetch_sub(&tm__quiet_waiters, 1);
  errno = saved_errno;
}

/* Adds BITS to Q; when that is new, waits until no sleeper stays open that lets one through. */
static void tm__quiet_grow(uint64_t bits) {
  uint64_t q = atomic_load_explicit(&tm__quiet_set, memory_order_relaxed);
  if ((q & bits) == bits) return; /* the common case: nothing new, one load */
  atomic_fetch_or(&tm__quiet_set, bits);
  if (atomic_load(&tm__quiet) == TM_QUIET_NO) return; /* nobody sleeps open any more */
  tm__quiet_wait_closed();
}

void tm__quiet_end(void) {
  if (atomic_load(&tm__quiet) != TM_QUIET_NO) atomic_store(&tm__quiet, TM_QUIET_NO);
  tm__quiet_wait_closed();
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
    uint64_t found = tm__quiet_read_handlers();
    atomic_store(&tm__handled_read_ns, now | 1);
    atomic_store(&tm__quiet_reading, 0);
    if (found) tm__quiet_grow(found); /* handlers installed where no wrapper saw them */
  }
  uint64_t handled = atomic_load_explicit(&tm__handled_bits, memory_order_relaxed);
  return (tm__mask_bits(mask) & handled) == handled;
}

void tm__quiet_after_fork(void) { atomic_store(&tm__open_sleepers.n, 0); }
