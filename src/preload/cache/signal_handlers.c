/* Signal handlers run through a trampoline of ours, so that what the cache knows of a thread's
 * signal mask never outlives a handler.
 *
 * The shadow (shadow.h) knows each thread's mask from the calls that change it, so that a new
 * thread gets its creator's mask without a system call. A handler runs with a mask the kernel
 * set (the interrupted mask, plus sa_mask, plus the signal) and the kernel puts back the
 * interrupted mask, as saved in the handler's ucontext, on sigreturn: behind every wrapper. A
 * handler that called pthread_sigmask (HotSpot's, with every signal in sa_mask) left the shadow
 * at the handler's value: every thread its creator then got from the cache started with
 * SIGCHLD, SIGPIPE, ... blocked.
 *
 * Decided: wrap handlers (the other way, reading the mask where it is cheap, was rejected: the
 * wrapper's own old mask tells a handler apart from normal code only when the handler's mask
 * differs from the interrupted one, which it does not with SA_NODEFER and an empty sa_mask, nor
 * for a handler that runs inside sigsuspend with its signal blocked before; and reading the
 * mask at every create costs a system call per recycle). Every handler installed through
 * sigaction, signal, bsd_signal, sysv_signal, ssignal or sigset is installed as
 * tm__handler_trampoline with SA_SIGINFO, the program's handler kept in a table; the
 * trampoline calls it and, when it returns, records the mask the kernel is about to restore:
 * the ucontext's uc_sigmask (exact, also when the handler edited it). A handler left by
 * longjmp/siglongjmp/setcontext makes the mask unknown (shadow_interpose.c): read at its next
 * use. Reading a disposition back gives the program's handler and flags (SA_SIGINFO as it set
 * it), so programs that chain handlers (HotSpot, Go, sanitizers) see what they installed.
 *
 * A handler installed where no wrapper sees it (syscall(SYS_rt_sigaction), before this library
 * started, a sanitizer's internal one) cannot be wrapped: once one is seen (the syscall wrapper,
 * or, when the first mask change is recorded, one read of the dispositions of the signals the
 * kernel lists as caught: tm__handlers_all_wrapped), mask changes are no
 * longer computed but make the mask unknown, read at its next use (one system call), as
 * "read where it is cheap" would. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "../common/tm_prim.h"
#include "interpose_next.h"
#include "notes.h"

#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))

// clang-format off
#define TM_HANDLER_WRAPPED(X) \
  X(sigaction) X(sigset) X(siginterrupt)
// clang-format on
TM_NEXT_SLOTS(TM_HANDLER_WRAPPED, tm__handler_interpose_init)

typedef void (*tm_handler)(int, siginfo_t *, void *);

/* The program's handler of each signal (NULL: none recorded) and whether it asked SA_SIGINFO. */
static _Atomic(tm_handler) tm__program_handler[_NSIG];
static _Atomic unsigned char tm__program_siginfo[_NSIG];
/* 1 once a handler not ours may run (see the file comment); 0/1/2: not scanned/scanning/done. */
static _Atomic int tm__unwrapped_handler;
static _Atomic int tm__handlers_scanned;

__attribute__((no_sanitize_thread)) static void tm__handler_trampoline(int sig, siginfo_t *info,
                                                                       void *context) {
  tm_handler handler = atomic_load_explicit(&tm__program_handler[sig], memory_order_acquire);
  struct tm_shadow *s = tm__shadow_raw();
  ++s->handler_depth; /* a longjmp meanwhile may leave the handler (shadow_interpose.c) */
  /* A handler of one argument called with three: harmless on every ABI this library builds
   * for (the kernel itself passes three to every handler). */
  if (handler) handler(sig, info, context);
  --s->handler_depth;
  tm__note_mask_restored(&((ucontext_t *)context)->uc_sigmask);
}

static int tm__is_handler(void (*h)(int)) {
  return h != SIG_DFL && h != SIG_IGN && h != SIG_HOLD && h != SIG_ERR;
}

static int tm__wrappable(int sig) {
  return sig > 0 && sig < _NSIG && sig != SIGKILL && sig != SIGSTOP;
}

/* OLD as the kernel answered it, with the program's handler and SA_SIGINFO for ours. */
static void tm__unwrap(struct sigaction *old, tm_handler program, int program_siginfo) {
  if (old->sa_sigaction != tm__handler_trampoline) return;
  old->sa_sigaction = program;
  if (!program_siginfo) old->sa_flags &= ~SA_SIGINFO;
}

static void tm__record(int sig, tm_handler handler, int siginfo) {
  atomic_store_explicit(&tm__program_siginfo[sig], (unsigned char)siginfo, memory_order_relaxed);
  atomic_store_explicit(&tm__program_handler[sig], handler, memory_order_release);
}

TM_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  TM_NEXT(int (*)(int, const struct sigaction *, struct sigaction *), sigaction);
  if (act && tm__quiet_handler_counts(sig, act->sa_handler)) tm__quiet_end();
  if (!tm__wrappable(sig)) return next(sig, act, old);
  tm_handler before = atomic_load_explicit(&tm__program_handler[sig], memory_order_acquire);
  int before_siginfo = atomic_load_explicit(&tm__program_siginfo[sig], memory_order_relaxed);
  int r;
  if (act && tm__is_handler(act->sa_handler)) {
    struct sigaction wrapped = *act;
    wrapped.sa_sigaction = tm__handler_trampoline;
    wrapped.sa_flags |= SA_SIGINFO;
    /* Recorded first: a signal delivered as soon as the trampoline is in place finds it. */
    tm__record(sig, act->sa_sigaction, (act->sa_flags & SA_SIGINFO) != 0);
    r = next(sig, &wrapped, old);
    if (r != 0) tm__record(sig, before, before_siginfo);
  } else {
    r = next(sig, act, old);
  }
  if (r == 0 && old) tm__unwrap(old, before, before_siginfo);
  return r;
}

int tm__real_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  TM_NEXT(int (*)(int, const struct sigaction *, struct sigaction *), sigaction);
  return next(sig, act, old);
}

/* signal and its relatives are glibc's sigaction with fixed flags and mask (glibc's
 * sysdeps/posix/signal.c, sysv_signal.c), made here through our sigaction: one system call.
 * (They used to call glibc's, which installs through its internal sigaction that no wrapper
 * sees, then read the disposition back and install the trampoline: three.) signal, bsd_signal
 * and ssignal: the signal itself blocked in its handler, SA_RESTART unless siginterrupt asked
 * for interruption (tm__interrupting, kept by our siginterrupt as glibc keeps its _sigintr). */
static _Atomic unsigned char tm__interrupting[_NSIG];

static sighandler_t tm__install(int sig, sighandler_t handler, int system_v) {
  if (handler == SIG_ERR || sig < 1 || sig >= _NSIG) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (system_v) {
    act.sa_flags = SA_RESETHAND | SA_NODEFER | SA_INTERRUPT;
  } else {
    sigaddset(&act.sa_mask, sig);
    act.sa_flags =
        atomic_load_explicit(&tm__interrupting[sig], memory_order_relaxed) ? 0 : SA_RESTART;
  }
  if (sigaction(sig, &act, &old) < 0) return SIG_ERR;
  return old.sa_handler;
}

#define TM_SIGNAL_WRAPPER(name, system_v)                      \
  TM_EXPORT sighandler_t name(int sig, sighandler_t handler) { \
    return tm__install(sig, handler, system_v);                \
  }
extern sighandler_t bsd_signal(int sig, sighandler_t handler);
extern sighandler_t __sysv_signal(int sig, sighandler_t handler);
TM_SIGNAL_WRAPPER(signal, 0)
TM_SIGNAL_WRAPPER(bsd_signal, 0)
TM_SIGNAL_WRAPPER(ssignal, 0)
TM_SIGNAL_WRAPPER(sysv_signal, 1)
TM_SIGNAL_WRAPPER(__sysv_signal, 1)
#undef TM_SIGNAL_WRAPPER

TM_EXPORT int siginterrupt(int sig, int interrupt) {
  TM_NEXT(int (*)(int, int), siginterrupt);
  int r = next(sig, interrupt);
  if (r == 0 && sig > 0 && sig < _NSIG)
    atomic_store_explicit(&tm__interrupting[sig], interrupt != 0, memory_order_relaxed);
  return r;
}

/* sigset (below) installs through glibc's internal sigaction: the handler it installed is read
 * back and installed again as ours, with the flags and mask it chose (a delivery between the
 * two runs the handler directly: the mask may then be wrong once). PREVIOUS is what it
 * answered. */
/* The same handler as sa_handler sees it (sa_handler and sa_sigaction share their storage). */
static sighandler_t tm__as_handler(tm_handler h) {
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_sigaction = h;
  return a.sa_handler;
}

static sighandler_t tm__adopt(int sig, sighandler_t previous, tm_handler before) {
  if (previous == tm__as_handler(tm__handler_trampoline)) previous = tm__as_handler(before);
  if (!tm__wrappable(sig)) return previous;
  struct sigaction now;
  if (tm__real_sigaction(sig, NULL, &now) != 0 || !tm__is_handler(now.sa_handler) ||
      now.sa_sigaction == tm__handler_trampoline)
    return previous;
  tm__record(sig, now.sa_sigaction, (now.sa_flags & SA_SIGINFO) != 0);
  now.sa_sigaction = tm__handler_trampoline;
  now.sa_flags |= SA_SIGINFO;
  tm__real_sigaction(sig, &now, NULL);
  return previous;
}

/* System V's sigset installs a handler or holds the signal (it changes the mask internally). */
TM_EXPORT sighandler_t sigset(int sig, sighandler_t disposition) {
  TM_NEXT(sighandler_t(*)(int, sighandler_t), sigset);
  if (disposition == SIG_HOLD || tm__quiet_handler_counts(sig, disposition)) tm__quiet_end();
  tm_handler before = tm__wrappable(sig) ? atomic_load(&tm__program_handler[sig]) : 0;
  sighandler_t previous = next(sig, disposition);
  tm__mask_unknown();
  if (previous == SIG_ERR) return previous;
  int saved_errno = errno;
  previous = tm__adopt(sig, previous, before);
  errno = saved_errno;
  return previous;
}

void tm__note_unwrapped_handler(void) {
  atomic_store_explicit(&tm__unwrapped_handler, 1, memory_order_relaxed);
}

/* The signals that have a handler, as the kernel says (/proc/self/status, "SigCgt:", bit
 * SIG - 1): one file read instead of a sigaction call per signal, which every process paid at
 * its first mask change (a shell: ~60 system calls, for no thread at all). 0 when unreadable. */
static int tm__caught_signals(uint64_t *caught) {
  char text[4096];
  if (tm__prim_read_file("/proc/self/status", text, sizeof text) <= 0) return 0;
  const char *p = strstr(text, "\nSigCgt:");
  if (p == NULL) return 0;
  for (p += 8; *p == ' ' || *p == '\t'; ++p) {
  }
  uint64_t mask = 0;
  int digits = 0;
  for (; digits < 16; ++p, ++digits) {
    int v = *p >= '0' && *p <= '9'                 ? *p - '0'
            : (*p | 32) >= 'a' && (*p | 32) <= 'f' ? (*p | 32) - 'a' + 10
                                                   : -1;
    if (v < 0) break;
    mask = mask << 4 | (uint64_t)v;
  }
  if (digits == 0) return 0;
  *caught = mask;
  return 1;
}

/* Notes an unwrapped handler if SIG has one that is not our trampoline (one sigaction call). */
static void tm__check_handler(int sig) {
  struct sigaction now;
  if (sig == SIGKILL || sig == SIGSTOP || tm__real_sigaction(sig, NULL, &now) != 0) return;
  if (tm__is_handler(now.sa_handler) && now.sa_sigaction != tm__handler_trampoline)
    tm__note_unwrapped_handler();
}

int tm__handlers_all_wrapped(void) {
  if (atomic_load_explicit(&tm__handlers_scanned, memory_order_acquire) != 2) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&tm__handlers_scanned, &expected, 1)) return 0;
    /* Once: a handler installed before this library started (a sanitizer's, say). Only the
     * signals the kernel says have a handler are read (all of them when it cannot say). */
    int saved_errno = errno;
    uint64_t caught = ~(uint64_t)0;
    if (!tm__caught_signals(&caught)) caught = ~(uint64_t)0;
    for (int sig = 1; sig < _NSIG && sig <= 64; ++sig)
      if (caught & ((uint64_t)1 << (sig - 1))) tm__check_handler(sig);
    errno = saved_errno;
    atomic_store_explicit(&tm__handlers_scanned, 2, memory_order_release);
  }
  return !atomic_load_explicit(&tm__unwrapped_handler, memory_order_relaxed);
}
