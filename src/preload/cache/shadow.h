/* Shadow state: what the library knows about the calling thread's kernel-side state without
 * asking the kernel (issue 14, "know instead of asking").
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
 *  - what nothing in the process sees (another process's sched_setaffinity or setpriority on
 *    our tid, a write to /proc/.../comm, a signal from outside, an inline-asm system call, a
 *    signal handler editing its ucontext's mask): a shadow older than TM_CACHE_VERIFY_MS is
 *    re-read whole (and the finished thread's pending signals, alternate stack and seccomp mode
 *    checked); and when the thread runs on a CPU its shadow affinity excludes (rseq's cpu_id,
 *    no system call), the affinity is re-read at once. */
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
  int altstack_changed; /* sigaltstack set since the logical thread started */
  uint64_t epoch;       /* tm__shadow_epoch when the shadow was last validated */
  uint64_t verified_ns; /* last whole re-read (TM_CACHE_VERIFY_MS) */
  int verify_due;       /* the last tm__shadow call re-read everything: deep checks too */
  sigset_t sigmask;     /* as the kernel holds it (glibc's internal signals never set) */
  cpu_set_t affinity;   /* as sched_getaffinity returns it */
  unsigned long timer_slack_ns;
  char name[16];
  struct tm_sched sched;
};

/* Cross-thread changes (any thread's affinity, scheduling, name set by another thread). */
TM_HIDDEN extern _Atomic uint64_t tm__shadow_epoch;
/* Thread-directed signals sent from inside the process. */
TM_HIDDEN extern _Atomic uint64_t tm__signal_epoch;
/* seccomp filters installed (with TSYNC they reach every thread). */
TM_HIDDEN extern _Atomic uint64_t tm__seccomp_epoch;

/* The calling thread's shadow with at least the items in NEED valid (each missing item costs
 * its read). Re-reads everything when the shadow is older than TM_CACHE_VERIFY_MS (then
 * verify_due is 1 until tm__shadow_deep_done). */
TM_HIDDEN struct tm_shadow *tm__shadow(unsigned need);
/* The calling thread's shadow as it is (no reads): for seeding and for the setters. */
TM_HIDDEN struct tm_shadow *tm__shadow_raw(void);
TM_HIDDEN void tm__shadow_deep_done(void);
/* Sets the calling thread's signal mask through glibc (which keeps its internal signals
 * unblocked) and records it. */
TM_HIDDEN void tm__shadow_set_sigmask(const sigset_t *mask);
/* Blocks every signal glibc lets a thread block (a parked thread takes none); no call when the
 * shadow says they are blocked already. */
TM_HIDDEN void tm__shadow_block_all(void);
/* 1 when the shadow's mask blocks everything tm__shadow_block_all blocks. */
TM_HIDDEN int tm__shadow_all_blocked(void);
/* glibc's pthread_sigmask, for the library's own mask changes (not through our wrapper). */
TM_HIDDEN int tm__real_sigmask(int how, const sigset_t *set, sigset_t *old);
/* glibc's sched_setaffinity, for the library's own calls (no epoch: the library records what
 * it set itself). */
TM_HIDDEN int tm__real_setaffinity(pid_t tid, size_t size, const cpu_set_t *set);
/* prctl(PR_GET_SECCOMP) at start-up: every thread's mode while no filter was installed since. */
TM_HIDDEN extern int tm__seccomp_at_start;
/* What a mask becomes in the kernel: SIGKILL, SIGSTOP and glibc's SIGCANCEL/SIGSETXID removed. */
TM_HIDDEN void tm__shadow_filter_mask(sigset_t *mask);
/* Reads the scheduling identity of the calling thread (2 system calls). */
TM_HIDDEN int tm__read_sched(struct tm_sched *out);
TM_HIDDEN void tm__shadow_init(void);
/* The calling thread's kernel id (one system call per thread lifetime). */
TM_HIDDEN pid_t tm__self_tid(void);
/* Fork child: the calling thread has a new id. */
TM_HIDDEN void tm__shadow_after_fork(void);
/* A thread-directed call changed ITEMS of thread TID (0: the caller): the caller's own items
 * become invalid, another thread's change invalidates every shadow (epoch). */
TM_HIDDEN void tm__shadow_changed(pid_t tid, unsigned items);
/* The same for a pthread_t target. */
TM_HIDDEN void tm__shadow_changed_thread(pthread_t thread, unsigned items);

#endif
