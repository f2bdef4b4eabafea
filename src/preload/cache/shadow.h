/* Shadow state: what the library knows about the calling thread's kernel-side state without
 * asking the kernel ("know instead of asking").
 *
 * Every thread (main, ours, any other) has a shadow in initial-exec TLS: its signal mask, CPU
 * affinity, name, timer slack and scheduling identity (policy, priority, nice, no_new_privs),
 * each with a VALID bit. A creator reads what a new thread inherits from its shadow, and a
 * recycled thread compares what it must have with what its shadow says it has: when nothing
 * changed, a recycle makes no system call.
 *
 * What keeps a shadow true (shadow_interpose.c, docs/thread-cache.md "Shadow state"):
 *  - the thread's own changes through libc (pthread_sigmask, sigprocmask, sighold/sigrelse/
 *    sigset, siglongjmp/longjmp/__longjmp_chk from a sigsetjmp(env, 1), setcontext/swapcontext,
 *    sched_setaffinity, pthread_setaffinity_np, pthread_setname_np, prctl, setpriority, nice,
 *    sched_setscheduler, sched_setparam, pthread_setschedparam, pthread_setschedprio,
 *    sigaltstack, and the same operations through syscall(2)) update or invalidate its item;
 *  - a change one thread makes to another thread (or to several) bumps a process-wide epoch:
 *    every shadow whose epoch differs is invalid as a whole;
 *  - thread-directed signals sent from inside (pthread_kill, pthread_sigqueue, tgkill, raise,
 *    syscall(2)) bump a signal epoch: a finished thread checks its pending set only when it
 *    moved since the thread started; seccomp filters bump a seccomp epoch the same way;
 *  - what another process can change unseen (affinity, nice and policy of our tids, signals
 *    sent to them) and what a thread may change without libc (an inline-asm system call, a
 *    signal handler editing its ucontext's mask): affinity and scheduling are read again when
 *    their last check is older than TM_CACHE_VERIFY_MS and the thread is about to be reused,
 *    the mask and pending set when a logical thread ends; and when the thread runs on a CPU its
 *    shadow affinity excludes (rseq's cpu_id, no system call), the affinity is re-read at once.
 *    Name, timer slack, no_new_privs, altstack and seccomp mode only change through calls we
 *    see (or inline assembly: not detected, except with TM_CACHE_VERIFY_MS=0). */
#ifndef THREADMAP_CACHE_SHADOW_H
#define THREADMAP_CACHE_SHADOW_H

#include "tm_cache.h"

/* Items of a shadow (tm_shadow.valid). */
enum {
  TM_S_SIGMASK = 1u << 0,
  TM_S_AFFINITY = 1u << 1,
  TM_S_NAME = 1u << 2,
  TM_S_SLACK = 1u << 3,
  TM_S_SCHED = 1u << 4, /* policy, priority, nice, no_new_privs */
  TM_S_ALL = (1u << 5) - 1
};

struct tm_shadow {
  unsigned valid;       /* TM_S_* known to equal the kernel's */
  pid_t tid;            /* gettid(), read once (0: not yet; reset in a fork child) */
  int cpu;              /* the CPU tm__shadow last saw the thread on (rseq's cpu_id), -1: unknown */
  int altstack_changed; /* sigaltstack set since the logical thread started */
  int handler_depth;    /* signal handlers running (or left by a jump) on this thread */
  int cancel_changed;   /* pthread_setcancelstate/type called since the logical thread started */
  /* The record whose logical thread this thread sleeps in a join for without switching to
   * asynchronous cancellation (no pthread_cancel yet): a canceller pokes it (join.c). */
  _Atomic(struct tm_thread *) join_wait;
  uint64_t epoch;                /* tm__shadow_epoch when the shadow was last validated */
  uint64_t placement_checked_ns; /* affinity and scheduling last re-read for verification */
  uint64_t signals_checked_ns;   /* mask and pending set last re-read for verification */
  /* The coarse clock as the last verification check read it, and a reading the thread was
   * given to use instead of reading it (its creator's, microseconds old; 0: none): one clock
   * read per hand-off side instead of one per check (tm__check_due). */
  uint64_t clock_ns, clock_hint_ns;
  sigset_t sigmask;   /* as the kernel holds it (glibc's internal signals never set) */
  cpu_set_t affinity; /* as sched_getaffinity returns it */
  unsigned long timer_slack_ns;
  /* What PR_SET_TIMERSLACK(0) must restore: a clone's default slack is its creator's slack at
   * the clone; for a recycled logical thread, its creator's at the create (0: the kernel's own
   * default is right, a thread glibc made). */
  unsigned long default_slack_ns;
  char name[16];
  /* A process-unique stamp of sigmask, affinity, timer_slack_ns and name and their valid bits:
   * a new one (tm__shadow_stamp) at every write of any of them, reads included. A create whose
   * parked thread was last given what this stamp names skips copying and comparing them. */
  uint64_t stamp;
  struct tm_sched sched;
  /* The inherited-state identity (identity.h): what clone would copy from this thread. */
  struct tm_identity identity;
  uint64_t identity_epoch; /* the process-wide epoch it was last renewed at */
  unsigned identity_cause; /* why it last changed (a tm_cause) */
};

/* Cross-thread changes (any thread's affinity, scheduling, name set by another thread). */
TM_HIDDEN extern _Atomic uint64_t tm__shadow_epoch;
/* Thread-directed signals sent from inside the process. */
TM_HIDDEN extern _Atomic uint64_t tm__signal_epoch;
/* seccomp filters installed (with TSYNC they reach every thread). */
TM_HIDDEN extern _Atomic uint64_t tm__seccomp_epoch;

/* The calling thread's shadow with at least the items in NEED valid (each missing item costs
 * its read). */
TM_HIDDEN struct tm_shadow *tm__shadow(unsigned need);
/* The last stamp given (shadow.c). */
TM_HIDDEN extern _Atomic uint64_t tm__shadow_stamps;
/* S's inherited items (sigmask, affinity, timer slack, name) were written: a new stamp. Every
 * writer of those items calls it (a rare event: a change or a read, never a recycle that
 * changes nothing). */
static inline void tm__shadow_stamp(struct tm_shadow *s) {
  s->stamp = atomic_fetch_add_explicit(&tm__shadow_stamps, 1, memory_order_relaxed) + 1;
}
/* Every thread's shadow (initial-exec TLS: one instruction away). */
TM_HIDDEN extern __thread struct tm_shadow tm__sh __attribute__((tls_model("initial-exec")));
/* tm__shadow again within one operation (a create) that has just validated the shadow: no
 * second look at the CPU, no errno saved, no call while nothing moved (a read per operation,
 * not per item asked for). */
static inline struct tm_shadow *tm__shadow_again(unsigned need) {
  struct tm_shadow *s = &tm__sh;
  if (__builtin_expect(
          (need & ~s->valid) == 0 &&
              s->epoch == atomic_load_explicit(&tm__shadow_epoch, memory_order_acquire),
          1))
    return s;
  return tm__shadow(need);
}
/* The one shadow read of a create that may reuse a parked thread: verification of what other
 * processes may change (tm__shadow_verify_placement), the items kernel-mask mode reads from
 * the kernel (kernel_word.h; not the mask when ATTR_MASK: the attr gives it), and every item
 * tm__capture_match and tm__capture_inherit use, which then take tm__shadow_again. */
TM_HIDDEN struct tm_shadow *tm__shadow_for_create(int attr_mask);
/* THREAD's shadow (any thread of the process: initial-exec TLS sits at a fixed offset from
 * the thread descriptor), for a field another thread may read (join_wait). */
TM_HIDDEN struct tm_shadow *tm__shadow_of(pthread_t thread);
/* The calling thread's shadow as it is (no reads): for seeding and for the setters. */
static inline struct tm_shadow *tm__shadow_raw(void) { return &tm__sh; }

/* The inherited-state identity's process-wide epoch (identity.c). */
TM_HIDDEN extern _Atomic uint64_t tm__identity_epoch;
/* Renews S's identity (identity.c): it was never set, or the epoch moved to EPOCH. */
TM_HIDDEN void tm__identity_renew(struct tm_shadow *s, uint64_t epoch);
/* The calling thread's identity now (identity.h), inlined: one load and a compare. */
static inline struct tm_identity tm__identity_now(void) {
  struct tm_shadow *s = &tm__sh;
  uint64_t epoch = atomic_load_explicit(&tm__identity_epoch, memory_order_acquire);
  if (__builtin_expect(s->identity.base == 0 || s->identity_epoch != epoch, 0))
    tm__identity_renew(s, epoch);
  return s->identity;
}
/* Verification of what another process can change unseen: when the last check is older than
 * TM_CACHE_VERIFY_MS, the affinity and scheduling items become invalid (read again at their
 * next use). Called where a thread is about to be reused (its creator's capture, the worker's
 * start), never on the path that makes a new thread. With TM_CACHE_VERIFY_MS=0 every item. */
TM_HIDDEN void tm__shadow_verify_placement(void);
/* The same for signals, at a logical thread's end: returns 1 when the mask and the pending set
 * must be checked now (tm__shadow_mask_checked(1) reads the mask). */
TM_HIDDEN int tm__shadow_verify_signals(void);
/* The calling thread's shadow with scheduling and mask valid; the mask read from the kernel
 * when VERIFY or in kernel-mask mode (kernel_word.h), and a read that contradicts what the
 * shadow said is evidence that masks change behind the wrappers. */
TM_HIDDEN struct tm_shadow *tm__shadow_mask_checked(int verify);
/* 1 when TM_CACHE_VERIFY_MS is 0: every check on every use (seccomp and altstack too). */
TM_HIDDEN int tm__shadow_paranoid(void);
/* Sets the calling thread's signal mask through glibc (which keeps its internal signals
 * unblocked) and records it. */
TM_HIDDEN void tm__shadow_set_sigmask(const sigset_t *mask);
/* Blocks every signal glibc lets a thread block (a parked thread takes none); no call when the
 * shadow says they are blocked already. */
TM_HIDDEN void tm__shadow_block_all(void);
/* 1 when the shadow's mask blocks everything tm__shadow_block_all blocks. */
TM_HIDDEN int tm__shadow_all_blocked(void);
/* glibc's pthread_setcanceltype, for the library's own switches that it undoes (a join's sleep):
 * not through our wrapper, which notes a change (shadow_interpose.c). */
TM_HIDDEN int tm__real_setcanceltype(int type, int *old);
/* glibc's pthread_sigmask, for the library's own mask changes (not through our wrapper). */
TM_HIDDEN int tm__real_sigmask(int how, const sigset_t *set, sigset_t *old);
/* 1 when a finished thread with shadow S may keep its mask until it sleeps: it blocks every
 * signal of the quiet set and the process may be quiet (quiet_signals.c). */
TM_HIDDEN int tm__quiet_may_keep(const struct tm_shadow *s);
/* 1 when MASK blocks every signal that has a handler (fault signals aside): a finished thread
 * with that mask can run no handler, of a signal sent to its tid from outside or to the process
 * (quiet_signals.c; the dispositions are read again every 100 TM_CACHE_VERIFY_MS, NOW in ns). */
TM_HIDDEN int tm__mask_shuts_handlers(const sigset_t *mask, uint64_t now);
/* 1 once the process is loud for good (a handler, a blocked signal: quiet_signals.c). */
TM_HIDDEN int tm__process_loud(void);
/* The next sigaction (glibc's), for reading dispositions without counting as a change. */
TM_HIDDEN int tm__real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* glibc's sched_setaffinity, for the library's own calls (no epoch: the library records what
 * it set itself). */
TM_HIDDEN int tm__real_setaffinity(pid_t tid, size_t size, const cpu_set_t *set);
/* prctl(PR_GET_SECCOMP) at start-up: every thread's mode while no filter was installed since. */
TM_HIDDEN extern int tm__seccomp_at_start;
/* Reads tm__seccomp_at_start (startup.c's first create). */
TM_HIDDEN void tm__shadow_init_threads(void);
/* What a mask becomes in the kernel: SIGKILL, SIGSTOP and glibc's SIGCANCEL/SIGSETXID removed. */
TM_HIDDEN void tm__shadow_filter_mask(sigset_t *mask);
/* What a clone of a thread with scheduling SCHED gets (SCHED_RESET_ON_FORK's rule). */
TM_HIDDEN void tm__sched_of_clone(struct tm_sched *sched);
/* Reads the scheduling identity of the calling thread (2 system calls). */
TM_HIDDEN int tm__read_sched(struct tm_sched *out);
TM_HIDDEN void tm__shadow_init(void);
/* Looks up the next definition of every wrapped libc function (shadow_interpose.c). */
TM_HIDDEN void tm__shadow_interpose_init(void);
/* The calling thread's kernel id (one system call per thread lifetime). */
TM_HIDDEN pid_t tm__self_tid(void);
/* Fork child: the calling thread has a new id. */
TM_HIDDEN void tm__shadow_after_fork(void);
/* A thread-directed call changed ITEMS of thread TID (0: the caller): the caller's own items
 * become invalid, another thread's change invalidates every shadow (epoch). */
TM_HIDDEN void tm__shadow_changed(pid_t tid, unsigned items);
/* The same for a pthread_t target. */
TM_HIDDEN void tm__shadow_changed_thread(pthread_t thread, unsigned items);
/* 1 when syscall(2) NUMBER, or prctl OPTION (with its second argument A2), changes nothing a
 * fresh thread would not have too; else the thread retires at its logical exit
 * (syscall_policy.c). */
TM_HIDDEN int tm__syscall_harmless(long number);
/* 1 when syscall(2) NUMBER with these arguments only reads (keyctl's queries, Landlock's
 * ruleset calls, perf_event_open without inherit). */
TM_HIDDEN int tm__syscall_reads(long number, long a1, long a2, long a3);
/* The highest system call number the lists were reviewed against (set_mempolicy_home_node,
 * Linux 5.17: 450 on x86-64 and in the generic table); a larger one may act on any task. */
#define TM_SYSCALL_KNOWN_MAX 450
TM_HIDDEN int tm__prctl_harmless(int option, unsigned long a2);

#endif
