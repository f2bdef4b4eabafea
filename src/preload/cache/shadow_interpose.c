/* The libc calls that change a thread's kernel-side state, interposed so that the shadow
 * (shadow.h) stays true without asking the kernel. Each wrapper calls the next definition
 * (glibc's, or a sanitizer's interceptor's next) and then records what changed: the caller's
 * own item, or an epoch when another thread (or every thread) may have changed. The wrappers
 * never change what the call does, its result or errno. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "interpose_next.h"
#include "kernel_word.h"
#include "notes.h"
#include "shadow.h"

#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))

/* Every wrapped function (interpose_next.h). */
/* (clang-format does not settle on a layout for this list: it stays as written.) */
// clang-format off
#define TM_SHADOW_WRAPPED(X)                                                                   \
  X(sigprocmask) X(sighold) X(sigrelse) X(siglongjmp) X(longjmp) X(__longjmp_chk)    \
  X(setcontext) X(swapcontext) X(sigaltstack) X(sched_setaffinity) X(pthread_setaffinity_np)   \
  X(pthread_setname_np) X(pthread_setschedparam) X(pthread_setschedprio)                       \
  X(sched_setscheduler) X(sched_setparam) X(setpriority) X(nice) X(prctl) X(pthread_sigqueue)  \
  X(tgkill) X(raise) X(timer_create) X(capset) X(setfsuid) X(setfsgid) X(personality)         \
  X(_longjmp) X(pthread_setcancelstate) X(pthread_setcanceltype)
// clang-format on
TM_NEXT_SLOTS(TM_SHADOW_WRAPPED, tm__shadow_interpose_init)

void tm__bump(_Atomic uint64_t *epoch) {
  atomic_fetch_add_explicit(epoch, 1, memory_order_release);
}

/* ---- signal mask ---------------------------------------------------------------------------- */

/* The mask after a successful HOW/SET change: computed when the old mask is known (the shadow,
 * or OLD that the caller asked for), else the item just becomes unknown. */
static void tm__note_sigmask(int how, const sigset_t *set, const sigset_t *old) {
  struct tm_shadow *s = tm__shadow_raw();
  /* Exact only while every handler runs through our trampoline (signal_handlers.c): then a
   * handler's mask never outlives it in the shadow. */
  if (!tm__handlers_all_wrapped()) {
    s->valid &= ~TM_S_SIGMASK;
    return;
  }
  sigset_t m;
  if (old) {
    m = *old;
    tm__shadow_filter_mask(&m);
  } else if (s->valid & TM_S_SIGMASK) {
    m = s->sigmask;
  } else if (how != SIG_SETMASK) {
    return;
  }
  const unsigned long *add = (const unsigned long *)(const void *)set;
  unsigned long *words = (unsigned long *)(void *)&m;
  for (size_t i = 0; i < sizeof m / sizeof(unsigned long); ++i) {
    if (how == SIG_BLOCK)
      words[i] |= add[i];
    else if (how == SIG_UNBLOCK)
      words[i] &= ~add[i];
    else
      words[i] = add[i];
  }
  tm__shadow_filter_mask(&m);
  s->sigmask = m;
  s->valid |= TM_S_SIGMASK;
  tm__shadow_stamp(s);
}

void tm__mask_unknown(void) { tm__shadow_raw()->valid &= ~TM_S_SIGMASK; }

void tm__note_mask_restored(const sigset_t *mask) {
  struct tm_shadow *s = tm__shadow_raw();
  s->sigmask = *mask;
  tm__shadow_filter_mask(&s->sigmask);
  s->valid |= TM_S_SIGMASK;
  tm__shadow_stamp(s);
}

TM_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  if (tm__quiet_mask_counts(how, set)) tm__quiet_end();
  sigset_t before;
  int r = tm__real_sigmask(how, set, set ? &before : old);
  if (r == 0 && set) {
    /* Before *old is written: the caller may pass the same set for both. */
    if (how == SIG_BLOCK || how == SIG_UNBLOCK || how == SIG_SETMASK)
      tm__note_sigmask(how, set, &before);
    if (old) *old = before;
  }
  return r;
}

TM_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  TM_NEXT(int (*)(int, const sigset_t *, sigset_t *), sigprocmask);
  if (tm__quiet_mask_counts(how, set)) tm__quiet_end();
  sigset_t before;
  int r = next(how, set, set ? &before : old);
  if (r == 0 && set) {
    tm__note_sigmask(how, set, &before); /* before *old: SET and OLD may be one object */
    if (old) *old = before;
  }
  return r;
}

/* System V signal calls (deprecated, still in glibc) change the mask internally. */
TM_EXPORT int sighold(int sig) {
  TM_NEXT(int (*)(int), sighold);
  tm__quiet_end();
  int r = next(sig);
  tm__mask_unknown();
  return r;
}

TM_EXPORT int sigrelse(int sig) {
  TM_NEXT(int (*)(int), sigrelse);
  int r = next(sig);
  tm__mask_unknown();
  return r;
}

/* A jump to a sigsetjmp(env, 1) buffer restores the mask saved there; a jump out of a signal
 * handler keeps the handler's mask, which the trampoline (signal_handlers.c) then never records
 * back. Other jumps change no mask (interpreters that unwind with longjmp pay nothing). */
static void tm__note_jump(int mask_saved) {
  if (mask_saved || tm__shadow_raw()->handler_depth > 0) tm__mask_unknown();
}

TM_EXPORT void _longjmp(jmp_buf env, int value) {
  TM_NEXT(void (*)(jmp_buf, int), _longjmp);
  tm__note_jump(env[0].__mask_was_saved);
  next(env, value);
  __builtin_unreachable();
}

TM_EXPORT void siglongjmp(sigjmp_buf env, int value) {
  TM_NEXT(void (*)(sigjmp_buf, int), siglongjmp);
  tm__note_jump(env[0].__mask_was_saved);
  next(env, value);
  __builtin_unreachable();
}

TM_EXPORT void longjmp(jmp_buf env, int value) {
  TM_NEXT(void (*)(jmp_buf, int), longjmp);
  tm__note_jump(env[0].__mask_was_saved);
  next(env, value);
  __builtin_unreachable();
}

/* What _FORTIFY_SOURCE builds call for longjmp/siglongjmp. */
extern void __longjmp_chk(sigjmp_buf env, int value) __attribute__((noreturn));
TM_EXPORT void __longjmp_chk(sigjmp_buf env, int value) {
  TM_NEXT(void (*)(sigjmp_buf, int), __longjmp_chk);
  tm__note_jump(env[0].__mask_was_saved);
  next(env, value);
  __builtin_unreachable();
}

TM_EXPORT int setcontext(const ucontext_t *context) {
  TM_NEXT(int (*)(const ucontext_t *), setcontext);
  if (tm__quiet_mask_counts(SIG_SETMASK, &context->uc_sigmask)) tm__quiet_end();
  tm__mask_unknown();
  return next(context);
}

TM_EXPORT int swapcontext(ucontext_t *save, const ucontext_t *context) {
  TM_NEXT(int (*)(ucontext_t *, const ucontext_t *), swapcontext);
  if (tm__quiet_mask_counts(SIG_SETMASK, &context->uc_sigmask)) tm__quiet_end();
  tm__mask_unknown();
  int r = next(save, context);
  tm__mask_unknown(); /* back here: the mask saved in SAVE, maybe changed meanwhile */
  return r;
}

/* A thread that disabled its alternate stack itself (Rust's threads do at exit) is as a fresh
 * thread is: nothing to undo at its end. Any other change, or a failed one, is undone there. */
void tm__note_altstack(const stack_t *stack, long result) {
  tm__shadow_raw()->altstack_changed = !(result == 0 && (stack->ss_flags & SS_DISABLE));
}

TM_EXPORT int sigaltstack(const stack_t *stack, stack_t *old) {
  TM_NEXT(int (*)(const stack_t *, stack_t *), sigaltstack);
  int r = next(stack, old);
  if (stack) tm__note_altstack(stack, r);
  return r;
}

/* ---- affinity, scheduling, name, timer slack ------------------------------------------------- */

TM_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set) {
  TM_NEXT(int (*)(pid_t, size_t, const cpu_set_t *), sched_setaffinity);
  int r = next(pid, size, set);
  if (r == 0) tm__shadow_changed(pid, TM_S_AFFINITY);
  return r;
}

TM_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set) {
  TM_NEXT(int (*)(pthread_t, size_t, const cpu_set_t *), pthread_setaffinity_np);
  int r = next(thread, size, set);
  if (r == 0) tm__shadow_changed_thread(thread, TM_S_AFFINITY);
  return r;
}

/* ---- cancellation state and type ------------------------------------------------------------ */

/* A fresh thread starts with cancellation enabled and deferred; a recycled one is given them
 * again only when something may have changed them (tm__fresh_logical_state): these calls, or
 * a pthread_cancel ever made (join.c). Two calls saved per recycle otherwise. */
TM_EXPORT int pthread_setcancelstate(int state, int *old) {
  TM_NEXT(int (*)(int, int *), pthread_setcancelstate);
  tm__shadow_raw()->cancel_changed = 1;
  return next(state, old);
}

TM_EXPORT int pthread_setcanceltype(int type, int *old) {
  tm__shadow_raw()->cancel_changed = 1;
  return tm__real_setcanceltype(type, old);
}

int tm__real_setcanceltype(int type, int *old) {
  TM_NEXT(int (*)(int, int *), pthread_setcanceltype);
  return next(type, old);
}

TM_EXPORT int pthread_setname_np(pthread_t thread, const char *name) {
  TM_NEXT(int (*)(pthread_t, const char *), pthread_setname_np);
  int r = next(thread, name);
  if (r == 0) tm__shadow_changed_thread(thread, TM_S_NAME);
  return r;
}

TM_EXPORT int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param) {
  TM_NEXT(int (*)(pthread_t, int, const struct sched_param *), pthread_setschedparam);
  int r = next(thread, policy, param);
  if (r == 0) tm__shadow_changed_thread(thread, TM_S_SCHED);
  return r;
}

TM_EXPORT int pthread_setschedprio(pthread_t thread, int priority) {
  TM_NEXT(int (*)(pthread_t, int), pthread_setschedprio);
  int r = next(thread, priority);
  if (r == 0) tm__shadow_changed_thread(thread, TM_S_SCHED);
  return r;
}

TM_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param) {
  TM_NEXT(int (*)(pid_t, int, const struct sched_param *), sched_setscheduler);
  int r = next(pid, policy, param);
  if (r == 0) tm__shadow_changed(pid, TM_S_SCHED);
  return r;
}

TM_EXPORT int sched_setparam(pid_t pid, const struct sched_param *param) {
  TM_NEXT(int (*)(pid_t, const struct sched_param *), sched_setparam);
  int r = next(pid, param);
  if (r == 0) tm__shadow_changed(pid, TM_S_SCHED);
  return r;
}

/* setpriority(PRIO_PROCESS, 0 or our tid) is this thread's nice value on Linux; any other
 * target (another thread, a process group, a user) may include other threads of ours. */
void tm__note_priority(int which, long who) {
  if (which == PRIO_PROCESS)
    tm__shadow_changed((pid_t)who, TM_S_SCHED);
  else
    tm__bump(&tm__shadow_epoch);
}

TM_EXPORT int setpriority(__priority_which_t which, id_t who, int priority) {
  TM_NEXT(int (*)(__priority_which_t, id_t, int), setpriority);
  int r = next(which, who, priority);
  if (r == 0) tm__note_priority((int)which, (long)who);
  return r;
}

TM_EXPORT int nice(int increment) {
  TM_NEXT(int (*)(int), nice);
  int r = next(increment);
  tm__shadow_raw()->valid &= ~TM_S_SCHED;
  return r;
}

void tm__note_prctl(int option, unsigned long a2) {
  /* The spin's clock would fault in this thread and its clones (and clone copies the flag: the
   * identity changes below too). */
  if (option == PR_SET_TSC) tm__note_tsc(a2);
  switch (option) {
    case PR_SET_NAME:
      tm__shadow_raw()->valid &= ~TM_S_NAME;
      break;
    case PR_SET_TIMERSLACK:
      tm__shadow_raw()->valid &= ~TM_S_SLACK;
      break;
    case PR_SET_NO_NEW_PRIVS:
      tm__shadow_raw()->valid &= ~TM_S_SCHED;
      break;
    case PR_SET_SECCOMP:
      tm__bump(&tm__seccomp_epoch);
      tm__identity_changed(TM_CAUSE_SECCOMP);
      break;
    default:
      /* securebits, keepcaps, the bounding and ambient sets, speculation control, ... and any
       * option the list does not know: what clone copies changed (identity.h). */
      if (!tm__prctl_harmless(option, a2)) tm__identity_changed(tm__cause_prctl(option));
      break;
  }
}

TM_EXPORT int prctl(int option, ...) {
  TM_NEXT(int (*)(int, unsigned long, unsigned long, unsigned long, unsigned long), prctl);
  va_list ap;
  va_start(ap, option);
  unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
  unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
  va_end(ap);
  /* 0 restores the thread's default slack, which for a recycled thread is its logical
   * creator's slack at the create, not its physical creator's (reset.c). */
  if (option == PR_SET_TIMERSLACK && a2 == 0 && tm__shadow_raw()->default_slack_ns != 0)
    a2 = tm__shadow_raw()->default_slack_ns;
  int r = next(option, a2, a3, a4, a5);
  int saved_errno = errno;
  tm__note_prctl(option, a2);
  errno = saved_errno;
  return r;
}

/* ---- thread-directed signals and timers ------------------------------------------------------ */

TM_EXPORT int pthread_sigqueue(pthread_t thread, int sig, const union sigval value) {
  TM_NEXT(int (*)(pthread_t, int, const union sigval), pthread_sigqueue);
  if (sig != 0) tm__bump(&tm__signal_epoch);
  return next(thread, sig, value);
}

TM_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig) {
  TM_NEXT(int (*)(pid_t, pid_t, int), tgkill);
  if (sig != 0) tm__bump(&tm__signal_epoch);
  return next(tgid, tid, sig);
}

TM_EXPORT int raise(int sig) {
  TM_NEXT(int (*)(int), raise);
  if (sig != 0) tm__bump(&tm__signal_epoch);
  return next(sig);
}

/* A timer that signals this thread by id would keep signalling the next logical thread on it,
 * which a fresh thread (another id) never gets: the thread retires at its logical exit (a
 * clone does not copy timers: no identity change). */
void tm__note_thread_timer(const struct sigevent *event) {
  struct tm_thread *t = tm__self();
  if (t && event->_sigev_un._tid == tm__self_tid() && !t->exit_cause)
    t->exit_cause = TM_CAUSE_TIMER;
  tm__bump(&tm__signal_epoch);
}

TM_EXPORT int timer_create(clockid_t clock, struct sigevent *event, timer_t *timer) {
  TM_NEXT(int (*)(clockid_t, struct sigevent *, timer_t *), timer_create);
  int r = next(clock, event, timer);
  if (r == 0 && event && event->sigev_notify == SIGEV_THREAD_ID) tm__note_thread_timer(event);
  return r;
}

/* ---- per-thread state glibc does not broadcast -------------------------------------------
 * glibc's setuid family changes every thread (its setxid broadcast reaches parked threads
 * too), but capset, setfsuid, setfsgid and personality change the calling thread alone, and a
 * clone copies them: a new identity (identity.h). */

extern int capset(void *header, const void *data);
TM_EXPORT int capset(void *header, const void *data) {
  TM_NEXT(int (*)(void *, const void *), capset);
  int r = next(header, data);
  tm__identity_changed(TM_CAUSE_CAPABILITIES); /* also when it failed: it may have half done */
  return r;
}

TM_EXPORT int setfsuid(uid_t id) {
  TM_NEXT(int (*)(uid_t), setfsuid);
  int r = next(id);
  tm__identity_changed(TM_CAUSE_CREDENTIALS);
  return r;
}

TM_EXPORT int setfsgid(gid_t id) {
  TM_NEXT(int (*)(gid_t), setfsgid);
  int r = next(id);
  tm__identity_changed(TM_CAUSE_CREDENTIALS);
  return r;
}

TM_EXPORT int personality(unsigned long persona) {
  TM_NEXT(int (*)(unsigned long), personality);
  int r = next(persona);
  if (persona != 0xffffffffUL) tm__identity_changed(TM_CAUSE_IDENTITY); /* ~0 only reads it */
  return r;
}
