/* The inherited-state identity: what makes a recycled thread a clone of its creator by
 * construction, not by a list of known states.
 *
 * clone(2) copies the creator's per-thread state into a new thread: credentials, groups,
 * capabilities (and bounding set, securebits), seccomp filters, the Landlock domain,
 * namespaces, an unshared fs or fd table, I/O priority, personality, memory policy, rseq
 * registration, the cgroup, and whatever a future kernel adds. A parked thread was cloned from
 * someone else, earlier. Instead of resetting each of those (most cannot be reset: a dropped
 * capability does not come back), every thread carries an IDENTITY naming the state clone
 * would copy from it:
 *  - a thread is born with its creator's identity (a recycled thread: the identity of the
 *    creator it was first cloned from, which it keeps while it changes nothing);
 *  - any change a thread makes to such state gives it a new, never used identity: every
 *    interposed state call (unshare, setns, capset, setfsuid, personality, prctl options not
 *    known to be harmless, a cgroup file opened for writing), and every syscall(2) number not
 *    proven harmless (syscall_policy.c), unknown numbers and unknown prctl options included;
 *  - a parked thread serves a creator only when its birth identity equals the creator's
 *    current identity; otherwise the create makes a fresh glibc clone, which is born with the
 *    creator's new identity and serves that creator's later creates once it is parked;
 *  - a thread whose identity changed while it ran a logical thread is no longer what its birth
 *    identity names: at the logical exit it really exits (retire), whatever the change was.
 * So a state nobody listed is safe by default: the call that changes it is either a known
 * harmless one (listed, reviewed) or it changes the identity. Items the cache gives every
 * recycled thread from its creator anyway (signal mask, affinity, name, timer slack, FPU
 * control state: reset.c) or matches on pop (scheduling policy, priority, nice, no_new_privs)
 * are outside the identity: changing them costs no reuse.
 *
 * Two refinements keep reuse where nothing is carried:
 *  - the memory policy is a second component: MPOL_DEFAULT has one fixed value (1), so a
 *    thread that sets a policy and restores MPOL_DEFAULT (libnuma's start-up probe) is what it
 *    was, when it was born with MPOL_DEFAULT (main's policy is read once at start-up);
 *  - a call that may change ANOTHER thread's state (ioprio_set or sched_setattr on another
 *    tid, a cgroup file written with any tid) moves a process-wide epoch: every thread renews
 *    its identity at its next create or logical exit, so every parked thread is out of use and
 *    every running one retires once.
 * What no wrapper sees (an inline-assembly system call; another process moving one of our
 * threads to another cgroup) is listed in docs/thread-cache-state.md with its reason; with
 * TM_CACHE_VERIFY_MS=0 the readable state (fingerprint.c) is compared on every reuse.
 *
 * Cost: a create that may reuse compares two words more; a thread that changes its identity
 * loses the reuse of threads parked before the change (one fresh clone, then reuse again). */
#ifndef THREADMAP_CACHE_IDENTITY_H
#define THREADMAP_CACHE_IDENTITY_H

#include <stdint.h>

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

struct tm_identity {
  uint64_t base;      /* every state clone copies, except the memory policy */
  uint64_t mempolicy; /* TM_MEMPOLICY_DEFAULT, or a unique value for any other policy */
};
#define TM_MEMPOLICY_DEFAULT 1u

/* Why a physical thread really exited; indexes the statistics (stats.c names them as the
 * TM_CACHE_STATS=FILE contract spells them). A prctl option N is TM_CAUSE_PRCTL + N, a
 * syscall(2) number N is TM_CAUSE_SYSCALL + N. */
enum tm_cause {
  TM_CAUSE_NONE,
  TM_CAUSE_CANCELLED,      /* pthread_cancel reached it (glibc's cancel state cannot be undone) */
  TM_CAUSE_GLIBC_EXIT,     /* left through glibc's own unwind, or a raw SYS_exit */
  TM_CAUSE_IDLE_LIMIT,     /* TM_CACHE_MAX_IDLE or TM_CACHE_MAX_IDLE_BYTES reached */
  TM_CAUSE_IDLE_TIMEOUT,   /* parked longer than TM_CACHE_IDLE_TIMEOUT_MS */
  TM_CAUSE_ROBUST,         /* held robust mutexes: the kernel marks them OWNER_DIED at exit */
  TM_CAUSE_PROCESS,        /* fork child, main ended its thread, tasks released on demand */
  TM_CAUSE_UNJOINED,       /* finished while TM_CACHE_MAX_UNJOINED others waited for a join */
  TM_CAUSE_FORK,           /* a child it forked, which could get its parent-death signal, lives */
  TM_CAUSE_SIGNAL_PENDING, /* a signal directed at this thread is pending */
  TM_CAUSE_CREDENTIALS,    /* uid/gid/groups changed for this thread alone */
  TM_CAUSE_CAPABILITIES,   /* capset */
  TM_CAUSE_NAMESPACE,      /* unshare, setns */
  TM_CAUSE_SECCOMP,        /* a seccomp filter */
  TM_CAUSE_MEMPOLICY,      /* a memory policy other than the one it was born with */
  TM_CAUSE_SIGALTSTACK,    /* its alternate signal stack could not be disabled */
  TM_CAUSE_TIMER,          /* a POSIX timer signals this thread by id */
  TM_CAUSE_IDENTITY,       /* a state change seen by an interposed call with no cause above */
  TM_CAUSE_CGROUP,         /* a cgroup membership file opened for writing */
  TM_CAUSE_SCHEDULING,     /* its scheduling could not be read back */
  TM_CAUSE_PROC_WRITE,     /* a per-thread /proc file (loginuid, attr/) opened for writing */
  TM_CAUSE_WORDS,
  TM_CAUSE_PRCTL = 64,                       /* + option number, below TM_CAUSE_SYSCALL */
  TM_CAUSE_PRCTL_END = TM_CAUSE_PRCTL + 128, /* options >= 128 count as TM_CAUSE_IDENTITY */
  TM_CAUSE_SYSCALL = TM_CAUSE_PRCTL_END,     /* + syscall number */
  TM_CAUSE_SYSCALL_END = TM_CAUSE_SYSCALL + 1024,
  TM_CAUSE_COUNT = TM_CAUSE_SYSCALL_END
};
/* The cause of prctl OPTION / syscall NUMBER (TM_CAUSE_IDENTITY beyond the table). */
TM_HIDDEN unsigned tm__cause_prctl(long option);
TM_HIDDEN unsigned tm__cause_syscall(long number);

/* Main's identity and memory policy, read once at start-up (one get_mempolicy). */
TM_HIDDEN void tm__identity_init(void);
/* The calling thread's identity now (renewed first when it was never set or when a call may
 * have changed another thread's state since it was last renewed; no system call):
 * tm__identity_now, inlined in shadow.h, where the thread's identity is kept. */
static inline int tm__identity_equal(const struct tm_identity *a, const struct tm_identity *b) {
  return a->base == b->base && a->mempolicy == b->mempolicy;
}
/* A new physical thread or a recycled one starts a logical thread with BIRTH as its identity. */
TM_HIDDEN void tm__identity_adopt(const struct tm_identity *birth);
/* The calling thread changed state that clone copies: a new identity (CAUSE: why). */
TM_HIDDEN void tm__identity_changed(unsigned cause);
/* The calling thread set its memory policy (NOW_DEFAULT: to MPOL_DEFAULT). */
TM_HIDDEN void tm__identity_mempolicy(int now_default);
/* A call may have changed another thread's state (CAUSE: why): every thread renews. */
TM_HIDDEN void tm__identity_foreign(unsigned cause);
/* Why the calling thread's identity last changed (TM_CAUSE_NONE: it did not). */
TM_HIDDEN unsigned tm__identity_cause(void);

#endif
