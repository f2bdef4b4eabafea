/* syscall(2), interposed: the same operations the libc wrappers make (shadow_interpose.c,
 * process.c, open_watch.c, interpose.c), reached by number. Each number is one of:
 *  - followed by the shadow (masks, affinity, scheduling, prctl, altstack, signals sent);
 *  - a state change clone copies: a new identity for the caller (identity.h), with its cause
 *    (credentials, capabilities, namespace, seccomp, mempolicy), or syscall-N;
 *  - a change that may reach another thread (ioprio_set or sched_setattr of another tid, and
 *    every number not known): every thread renews its identity;
 *  - process creation (clone, clone3, fork, vfork): the child is recorded, an EAGAIN retried
 *    after the kept tasks are let go (process.c), a fork child forgets the parked threads;
 *  - unshare and setns: a new identity, and an EINVAL retried without the kept tasks;
 *  - the end of a thread (exit: its joiner waits for the kernel, as glibc's does) or of the
 *    process (exit_group: the statistics line first);
 *  - harmless (syscall_policy.c): reads, descriptors, memory, time, process-wide calls.
 * Results and errno are the kernel's. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "interpose_next.h"
#include "notes.h"
#include "stats.h"

#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))

#define TM_SYSCALL_WRAPPED(X) X(syscall)
TM_NEXT_SLOTS(TM_SYSCALL_WRAPPED, tm__syscall_interpose_init)

/* A call that may have changed another thread's clone-copied state: that thread and every
 * other renew their identities (the caller's own too, when it is among the targets). */
static void tm__note_foreign(long number) {
  tm__identity_changed(tm__cause_syscall(number));
  tm__identity_foreign(tm__cause_syscall(number));
}

static int tm__is_self(long tid) { return tid == 0 || (pid_t)tid == tm__self_tid(); }

static void tm__note_sched_setattr(long tid, long attr) {
  tm__shadow_changed((pid_t)tid, TM_S_SCHED);
  /* Utilization clamps are not in the matched scheduling (struct sched_attr: u32 size, u32
   * policy, u64 flags): a clone copies them. */
  uint64_t flags = 0;
  if (attr) memcpy(&flags, (const char *)attr + 8, sizeof flags);
  if (!(flags & (0x20 | 0x40))) return; /* SCHED_FLAG_UTIL_CLAMP_MIN/MAX */
  if (tm__is_self(tid))
    tm__identity_changed(tm__cause_syscall(SYS_sched_setattr));
  else
    tm__note_foreign(SYS_sched_setattr);
}

static void tm__note_ioprio(long which, long who) {
  if (which == 1 /* IOPRIO_WHO_PROCESS */ && tm__is_self(who))
    tm__identity_changed(tm__cause_syscall(SYS_ioprio_set));
  else /* another thread, a process group, a user: maybe threads of ours */
    tm__note_foreign(SYS_ioprio_set);
}

/* After a successful call NUMBER(A1, A2, A3). */
static void tm__note_syscall(long number, long a1, long a2, long a3) {
  switch (number) {
    case SYS_rt_sigprocmask:
      if (a2) tm__mask_unknown();
      return;
    case SYS_sigaltstack:
      if (a1) tm__note_altstack((const stack_t *)a1, 0);
      return;
    case SYS_sched_setaffinity:
      tm__shadow_changed((pid_t)a1, TM_S_AFFINITY);
      return;
    case SYS_sched_setscheduler:
    case SYS_sched_setparam:
      tm__shadow_changed((pid_t)a1, TM_S_SCHED);
      return;
    case SYS_sched_setattr:
      tm__note_sched_setattr(a1, a2);
      return;
    case SYS_setpriority:
      tm__note_priority((int)a1, a2);
      return;
    case SYS_prctl:
      tm__note_prctl((int)a1, (unsigned long)a2);
      return;
    case SYS_seccomp:
      tm__bump(&tm__seccomp_epoch);
      tm__identity_changed(TM_CAUSE_SECCOMP);
      return;
    case SYS_setuid:
    case SYS_setgid:
    case SYS_setreuid:
    case SYS_setregid:
    case SYS_setresuid:
    case SYS_setresgid:
    case SYS_setfsuid:
    case SYS_setfsgid:
    case SYS_setgroups:
      tm__identity_changed(TM_CAUSE_CREDENTIALS); /* this thread alone: no setxid broadcast */
      return;
    case SYS_capset:
      tm__identity_changed(TM_CAUSE_CAPABILITIES);
      return;
#if defined(__x86_64__)
    case SYS_arch_prctl: /* the caller's own FS/GS base, CPUID faulting, ...: no other thread */
      tm__note_arch_prctl(a1);
      return;
    case SYS_ioperm:
    case SYS_iopl:
      tm__identity_changed(tm__cause_syscall(number));
      return;
#endif
    case SYS_set_mempolicy: /* the mode is the low bits (the flags are bits 13-15) */
      tm__identity_mempolicy((a1 & 0xff) == 0 /* MPOL_DEFAULT */);
      return;
    case SYS_ioprio_set:
      tm__note_ioprio(a1, a2);
      return;
    case SYS_timer_create:
      if (a2 && ((const struct sigevent *)a2)->sigev_notify == SIGEV_THREAD_ID)
        tm__note_thread_timer((const struct sigevent *)a2);
      return;
    case SYS_openat:
      if ((a3 & O_ACCMODE) != O_RDONLY) tm__note_open_for_write((const char *)a2);
      return;
#ifdef SYS_open
    case SYS_open:
      if ((a2 & O_ACCMODE) != O_RDONLY) tm__note_open_for_write((const char *)a1);
      return;
    case SYS_creat:
      tm__note_open_for_write((const char *)a1);
      return;
#endif
#ifdef SYS_openat2
    case SYS_openat2: { /* struct open_how begins with the u64 flags */
      uint64_t flags = 0;
      if (a3) memcpy(&flags, (const void *)a3, sizeof flags);
      if ((flags & O_ACCMODE) != O_RDONLY) tm__note_open_for_write((const char *)a2);
      return;
    }
#endif
    default:
      /* Reads (by number, or by their arguments: keyctl, Landlock's ruleset calls,
       * perf_event_open without inherit) change nothing. Keyrings, rseq, the robust list,
       * Landlock's restrict_self, perf events that clones inherit, and the numbers this library
       * does not know change the caller only: it alone gets a new identity (identity.h). A
       * number newer than the library (past TM_SYSCALL_KNOWN_MAX) may be a call on another
       * task: every thread renews its identity too. */
      if (tm__syscall_harmless(number) || tm__syscall_reads(number, a1, a2, a3)) return;
      if (number > TM_SYSCALL_KNOWN_MAX)
        tm__note_foreign(number);
      else
        tm__identity_changed(tm__cause_syscall(number));
      return;
  }
}

/* The kernel's sigset and sigaction begin with what glibc's do: a word of signal bits, and the
 * handler. */
static void tm__quiet_before_syscall(long number, long a1, long a2) {
  if (number == SYS_rt_sigprocmask && a2 && (a1 == SIG_BLOCK || a1 == SIG_SETMASK)) {
    sigset_t set;
    sigemptyset(&set);
    memcpy(&set, (const void *)a2, sizeof(unsigned long));
    if (tm__quiet_mask_counts((int)a1, &set)) tm__quiet_end();
  } else if (number == SYS_rt_sigaction && a2) {
    sighandler_t handler;
    memcpy(&handler, (const void *)a2, sizeof handler);
    if (tm__quiet_handler_counts((int)a1, handler)) tm__quiet_end();
    /* Installed behind the trampoline (signal_handlers.c): masks are read, not computed. */
    if (handler != SIG_DFL && handler != SIG_IGN) tm__note_unwrapped_handler();
  }
}

/* ---- calls that are made again when the kernel refuses a task (process.c) ---------------- */

struct tm_syscall_call {
  long (*next)(long, long, long, long, long, long, long);
  long number, a[6];
};

static long tm__syscall_again(void *context) {
  struct tm_syscall_call *c = context;
  return c->next(c->number, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
}

static int tm__eagain(long r) { return r == -1 && errno == EAGAIN; }
static int tm__einval(long r) { return r == -1 && errno == EINVAL; }

/* clone, clone3, fork, vfork: 1 for a new process (not a thread), with its clone flags. */
static int tm__makes_process(long number, long a1, long a2, unsigned long *flags) {
  *flags = 0;
  switch (number) {
    case SYS_clone:
      *flags = (unsigned long)a1;
      break;
    case SYS_clone3: { /* struct clone_args begins with the u64 flags */
      uint64_t f = 0;
      if (a1 && a2 >= (long)sizeof f) memcpy(&f, (const void *)a1, sizeof f);
      *flags = (unsigned long)f;
      break;
    }
#ifdef SYS_fork
    case SYS_fork:
      break;
    case SYS_vfork:
      *flags = CLONE_VM | CLONE_VFORK;
      break;
#endif
    default:
      return 0;
  }
  return !(*flags & CLONE_THREAD);
}

static long tm__process_syscall(struct tm_syscall_call *call, unsigned long flags) {
  long r = tm__syscall_again(call);
  if (r == 0) goto child;
  if (tm__eagain(r)) {
    struct tm_retry retry = {tm__syscall_again, tm__eagain, call, 100, 1};
    r = tm__retry_tasks_released(&retry, r);
    if (r == 0) goto child;
  }
  if (r > 0) tm__child_started((pid_t)r);
  return r;
child:
  /* A child with its own memory ran no fork handler: it forgets the parent's parked threads.
   * One that shares our memory (vfork-like) touches nothing. */
  if (!(flags & CLONE_VM)) tm__after_raw_fork_child();
  return 0;
}

/* Six arguments are always read, as glibc's own syscall(2) does: the sixth comes from the
 * caller's stack even when the caller passed fewer, which ASan would report (harmless: the
 * value is passed on, and the kernel ignores arguments a call does not have). */
TM_EXPORT __attribute__((no_sanitize_address)) long syscall(long number, ...) {
  TM_NEXT(long (*)(long, long, long, long, long, long, long), syscall);
  va_list ap;
  va_start(ap, number);
  struct tm_syscall_call call = {next, number, {0}};
  for (int i = 0; i < 6; ++i) call.a[i] = va_arg(ap, long);
  va_end(ap);
  long a1 = call.a[0], a2 = call.a[1], a3 = call.a[2];
  unsigned long flags;
  switch (number) {
    case SYS_futex:
    case SYS_gettid:
      return tm__syscall_again(&call); /* the hot ones: nothing to note */
    case SYS_exit:
      tm__note_raw_thread_exit();
      return tm__syscall_again(&call);
    case SYS_exit_group:
      tm__stats_at_exit();
      return tm__syscall_again(&call);
    case SYS_unshare:
    case SYS_setns: {
      long r = tm__syscall_again(&call);
      if (tm__einval(r)) { /* refused to a multithreaded process: without the kept tasks? */
        struct tm_retry retry = {tm__syscall_again, tm__einval, &call, 1000, 0};
        r = tm__retry_tasks_released(&retry, r);
      }
      tm__identity_changed(TM_CAUSE_NAMESPACE);
      return r;
    }
    default:
      if (tm__makes_process(number, a1, a2, &flags)) return tm__process_syscall(&call, flags);
      break;
  }
  /* Signals are counted before they are sent (the receiver may check at once); state changes
   * after they happened. */
  if (number == SYS_tgkill || number == SYS_tkill || number == SYS_rt_tgsigqueueinfo)
    tm__bump(&tm__signal_epoch);
  tm__quiet_before_syscall(number, a1, a2);
  long r = tm__syscall_again(&call);
  if (r != -1) {
    int saved_errno = errno;
    tm__note_syscall(number, a1, a2, a3);
    errno = saved_errno;
  }
  return r;
}
