/* Internal header of libthreadmap-cache.so: the physical-thread record and the hidden functions
 * the interposer (interpose.c) calls. Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script that lists only the interposed symbols.
 *
 * Vocabulary: a PHYSICAL thread is a kernel/glibc thread this library created and may keep
 * parked; a LOGICAL thread is what the program asked pthread_create for. One physical thread
 * runs many logical threads, one after another; the program's pthread_t is the physical one. */
#ifndef THREADMAP_CACHE_TM_CACHE_H
#define THREADMAP_CACHE_TM_CACHE_H

#define _GNU_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unwind.h>

/* The base (real functions, readiness, defaults), the main thread's key, start-up. */
#include "base.h"
#include "fpu.h"
#include "identity.h"
#include "main_key.h"
#include "startup.h"

#define TM_HIDDEN __attribute__((visibility("hidden")))
/* For a global that every recycle writes (a counter, a stack head): it gets cache lines of its
 * own (two: x86 prefetches lines in pairs). Next to read-mostly globals it made every read of
 * theirs on the other CPUs a miss after each write (docs/thread-cache.md). */
#define TM_OWN_LINES _Alignas(128)

/* glibc's cancellation-buffer ABI (GLIBC_2.3.3), declared by pthread.h only for C without
 * exceptions, and _pthread_cleanup_pop (GLIBC_2.2.5), which it does not declare at all. */
extern void __pthread_register_cancel(__pthread_unwind_buf_t *buf);
extern void __pthread_unregister_cancel(__pthread_unwind_buf_t *buf);
extern void __pthread_register_cancel_defer(__pthread_unwind_buf_t *buf);
extern void __pthread_unregister_cancel_restore(__pthread_unwind_buf_t *buf);
extern void __pthread_unwind_next(__pthread_unwind_buf_t *buf) __attribute__((__noreturn__));
extern void _pthread_cleanup_pop(struct _pthread_cleanup_buffer *buffer, int execute);

/* Logical-thread state bits (tm_thread.lstate, also a futex word for joiners). */
enum {
  TM_L_DETACHED = 1u << 0,     /* pthread_detach'ed, or created detached */
  TM_L_JOIN_CLAIMED = 1u << 1, /* a joiner owns the join (a second one gets EINVAL) */
  TM_L_WAITER = 1u << 2,       /* a joiner sleeps on the futex: the exiting thread must wake it */
  TM_L_EXITED = 1u << 3,       /* result published (happens-before for the joiner) */
  TM_L_GLIBC_EXIT = 1u << 4,   /* left through glibc's unwind (cancel): join the real thread */
  TM_L_CANCEL_BUSY = 1u << 5,  /* pthread_cancel is between its check and the real call */
  TM_L_CANCEL_SENT = 1u << 6,  /* a real cancel request reached the physical thread */
  TM_L_REAPED = 1u << 7,       /* parked after a join: join/detach on the handle get ESRCH */
  TM_L_POKE = 1u << 8,         /* a joiner sleeping here was cancelled: it wakes and acts */
};
/* The lstate of a record that waits for a new logical thread: joins and detaches get EINVAL
 * (the previous logical thread was detached) or, with TM_L_REAPED, ESRCH (it was joined), as
 * glibc answers for such handles; cancel and kill are no-ops. */
#define TM_L_IDLE (TM_L_EXITED | TM_L_JOIN_CLAIMED | TM_L_DETACHED)

/* Release bits (tm_thread.release): the physical thread may be parked only when both the
 * joiner (or detach) is done with the logical thread and the worker has reset itself. */
enum { TM_R_JOINED = 1u << 0, TM_R_READY = 1u << 1, TM_R_DEAD = 1u << 2, TM_R_COUNTED = 1u << 3 };
/* TM_R_COUNTED: the worker finished before anyone joined it and counts in tm__unjoined (the
 * kernel tasks kept for finished, unjoined threads); whoever ends that state uncounts it. */

/* Wake word (tm_thread.wake), the futex an idle worker sleeps on. */
enum {
  TM_W_WAIT = 0,
  TM_W_GO = 1,
  TM_W_RETIRE = 2,
  TM_W_SLEEPING = 4,
  TM_W_DEAD = 8,
  TM_W_CHECK = 16, /* main thread ended: a worker waiting for its join re-checks */
  TM_W_HELD = 64   /* a creator works on this popped thread: the idle timeout waits */
};

/* Scheduling identity: a parked thread is reused only by a creator whose new thread would get
 * exactly these (changing them back could need privileges we may not have). */
struct tm_sched {
  int policy;
  int priority;
  int nice;
  int no_new_privs;
  int reset_on_fork; /* SCHED_RESET_ON_FORK: a clone gets SCHED_OTHER and nice >= 0, no flag */
  /* The default timer slack (what PR_SET_TIMERSLACK(0) or a 0 written to timerslack_ns gives
   * back): the kernel sets a clone's to its creator's slack at the clone and nothing changes it
   * later, so a parked thread serves only creators whose slack is its default (matched). Set
   * in the match and in a parked thread's record only; the shadow's is default_slack_ns. */
  unsigned long default_slack_ns;
};

/* What a parked thread must have to serve a create: the scheduling the fresh thread would get
 * (matched, not reset: changing it back could need privileges), its creator's identity
 * (identity.h), and with TM_CACHE_VERIFY_MS=0 its creator's fingerprint (fingerprint.h). */
struct tm_match {
  struct tm_sched sched;
  struct tm_identity identity;
  uint64_t fingerprint;
};

/* Everything a fresh thread inherits from its creator (or its attr), captured by the creator
 * and applied by the worker before the start routine runs. */
struct tm_inherit {
  sigset_t sigmask;
  cpu_set_t affinity;
  unsigned long timer_slack_ns;
  char name[16];
  struct tm_fpu fpu; /* rounding, flush-to-zero, exception masks and flags (fpu.h) */
};

/* One physical thread. Records live in never-unmapped chunks (records.c) so lock-free stacks
 * can read a popped record's next index safely; index 0 is never used. */
struct tm_thread {
  _Atomic uint32_t next; /* index of the next record on an idle or free stack */
  uint32_t index;
  pthread_t handle;
  pid_t tid;
  size_t stack_size; /* requested stack size (attr or default), bytes */
  size_t guard_size;
  int bucket;            /* idle stack it parks on (log2 of stack_size) */
  int home_cpu;          /* CPU it last ran a logical thread on: its idle slot (records.c) */
  struct tm_sched sched; /* as parked */
  void *robust_head;     /* this thread's robust-futex list head (get_robust_list) */

  /* --- hand-off --- */
  _Alignas(64) _Atomic uint32_t wake;
  _Atomic int parked; /* on an idle stack (counted): only then may the idle timeout end it */
  _Atomic uint64_t idle_deadline; /* when its idle timeout ends (the timekeeper reads it) */
  /* The signals (1-64, bit SIG-1) its mask blocks while it sleeps open (quiet_signals.c). */
  _Atomic uint64_t open_bits;
  _Atomic int open_mask; /* sleeps without blocking every signal (quiet_signals.c) */
  void *(*start)(void *);
  void *arg;
  /* What the next logical thread must start with; for the first one (want_apply 0, glibc set
   * everything) what the creator's shadow said it inherits, items in seed_valid. */
  struct tm_inherit want;
  /* The creator's shadow stamp (shadow.h) WANT's mask, affinity, slack and name were taken
   * from, 0 when they came from an attr (or were never taken): a later create whose shadow
   * has this stamp gives the same values without copying them. */
  uint64_t want_stamp;
  /* The want_stamp of the values its last logical thread started with, and its own shadow's
   * stamp then (tm__apply_inherit): while both hold, its shadow still has exactly those. */
  uint64_t applied_want, applied_stamp;
  int want_apply;
  uint64_t given_ns; /* the creator's coarse clock reading at the create (shadow.h clock_ns) */
  int affinity_by_creator; /* the creator applied an attr's affinity (sched_setaffinity(tid)) */
  int start_mask_known;    /* want.sigmask is the mask the running logical thread started with */
  unsigned seed_valid;     /* TM_S_* items of want/seed_sched the new physical thread may trust */
  uint64_t seed_epoch, seed_placement_ns;
  struct tm_sched seed_sched;
  uint64_t signal_epoch;  /* tm__signal_epoch when nothing was pending here */
  uint64_t seccomp_epoch; /* tm__seccomp_epoch when seccomp_at_birth was known */
  int seccomp_at_birth;
  /* The identity it was cloned with (identity.h): it serves only creators whose identity is
   * this, and retires when its own changed while it ran a logical thread. */
  struct tm_identity birth;
  uint64_t fingerprint; /* TM_CACHE_VERIFY_MS=0 only: its state's fingerprint (fingerprint.h) */
  /* A reason to retire at the logical exit that is no identity change (a timer aimed at this
   * thread, a child that may get its parent-death signal, ...): a tm_cause, 0 for none. */
  unsigned exit_cause;
  /* Children forked by the running logical thread (pids), checked at its end: while one runs,
   * its PR_SET_PDEATHSIG would fire only when this physical thread really exits. */
#define TM_CHILDREN_KEPT 4
  pid_t children[TM_CHILDREN_KEPT];
  int n_children;
  int pipes_open; /* popen'ed by the running logical thread and not pclose'd */
  char *stack_lo; /* lowest usable stack address (for TM_CACHE_TRIM) */

  /* --- logical thread --- */
  _Alignas(64) _Atomic uint32_t lstate;
  _Atomic uint32_t release;
  void *result;
  _Atomic(struct tm_thread *) joining; /* whom this thread is joining (EDEADLK detection) */
  _Atomic int claimed_awake;           /* its creator took it while it was not asleep (on a CPU) */
  uint64_t start_ns;                   /* last logical start, for stats only */

  /* --- exit machinery (touched only by the thread itself) --- */
  __pthread_unwind_buf_t *cleanup_top; /* innermost setjmp-style cleanup buffer */
  __pthread_unwind_buf_t *exit_buf;    /* the trampoline's own buffer (bottom of the chain) */
  int own_exit;                        /* our pthread_exit unwind is in progress */
  int in_exit_sequence;                /* destructors running: pthread_exit is not ours here */
  /* The logical thread returned (or exited): a pthread_cancel now is a no-op. Set by the worker,
   * cleared by the creator that hands it the next logical thread. */
  _Atomic int ending;
  _Atomic uint32_t creator_done; /* the creator has written our pthread_t slot (futex) */
  _Atomic int started;           /* the worker has set its own slot */
  void *exit_value;
  struct _Unwind_Exception exc;
};

/* ---- records.c ---------------------------------------------------------------------------- */
/* Returns a zeroed record, or NULL when the pool is exhausted (caller falls back to glibc). */
TM_HIDDEN struct tm_thread *tm__record_alloc(void);
/* Returns a record to the pool; the caller guarantees nobody references it any more. */
TM_HIDDEN void tm__record_free(struct tm_thread *t);
/* Pushes a reset worker on its idle stack (or retires it if a policy limit says so). */
TM_HIDDEN void tm__idle_push(struct tm_thread *t);
/* Sizes the per-CPU idle slots (at start-up). */
TM_HIDDEN void tm__records_init(void);
/* The idle slot of STACK_SIZE's stack to pop from first (tm__idle_pop's FIRST): one whose top
 * worker is awake, else that of CPU (where the caller last ran; -1: look it up), else the next
 * non-empty one; -1 when no thread of that size is parked (a hint: the create path that cannot
 * reuse skips reading its scheduling state, glibc does not read it either). */
TM_HIDDEN int tm__idle_peek(size_t stack_size, int cpu);
/* Pops an idle worker compatible with the request, claimed for a new logical thread, or NULL;
 * from slot FIRST (tm__idle_peek) on. */
TM_HIDDEN struct tm_thread *tm__idle_pop(size_t stack_size, size_t guard_size,
                                         const struct tm_match *want, int first);
/* Asks every idle worker to exit (main thread's pthread_exit). Lock-free, no allocation. */
TM_HIDDEN int tm__idle_flush(void); /* returns how many parked threads it let go */
/* Calls FN on every record ever allocated (main thread's exit). Lock-free, no allocation. */
TM_HIDDEN void tm__records_for_each(void (*fn)(struct tm_thread *, void *), void *context);
/* Forgets all idle workers and pool locks (fork child). Async-signal-safe. */
TM_HIDDEN void tm__records_after_fork(void);
/* Keeps a popped, unclaimed worker from timing out (1), or frees the record of one that
 * already did (0: pop again); tm__idle_unhold undoes it. */
TM_HIDDEN int tm__idle_hold(struct tm_thread *t);
TM_HIDDEN void tm__idle_unhold(struct tm_thread *t);
/* Puts a record returned by tm__idle_pop back, unclaimed. */
TM_HIDDEN void tm__idle_unpop(struct tm_thread *t);
/* Claims a record returned by tm__idle_pop after its fields are filled (see records.c). */
TM_HIDDEN int tm__idle_claim(struct tm_thread *t);
/* A parked worker that timed out takes itself out of the idle counts. */
TM_HIDDEN void tm__idle_forget(struct tm_thread *t);
TM_HIDDEN void tm__idle_forget_size(size_t stack_size);
/* The record of the logical thread running on THREAD, or NULL for threads we do not manage. */
TM_HIDDEN struct tm_thread *tm__lookup(pthread_t thread);
/* The calling thread's record, or NULL. */
TM_HIDDEN struct tm_thread *tm__self(void);
TM_HIDDEN void tm__set_self(struct tm_thread *t);
/* Writes THREAD's record slot from another thread (the creator, right after creating it). */
TM_HIDDEN void tm__set_record_of(pthread_t thread, struct tm_thread *t);

/* ---- wait.c: adaptive spin-then-futex ------------------------------------------------------ */
enum tm_wait_site { TM_SITE_JOIN, TM_SITE_IDLE, TM_SITE_COUNT };
/* Spins (when the site's policy allows) until *WORD has one of BITS: 1 if it did, 0 if the
 * caller must sleep. STALLED, called only when a spin runs out, says whether the partner never
 * ran during it (then the miss says nothing about the work's length and the score is kept;
 * wait.c). */
TM_HIDDEN int tm__spin_until(_Atomic uint32_t *word, uint32_t bits, enum tm_wait_site site,
                             int (*stalled)(const void *), const void *partner,
                             int partner_running);
TM_HIDDEN int tm__futex_wait(_Atomic uint32_t *word, uint32_t expect, const struct timespec *abs,
                             int clock_realtime, int relative);
TM_HIDDEN void tm__futex_wake(_Atomic uint32_t *word, int count);
TM_HIDDEN void tm__wait_init(void);
/* Which futex keys the cache uses, decided once at start-up: with the cache enabled, grows the
 * process's own futex table per TM_CACHE_FUTEX_SLOTS (src/preload/common/tm_futex.h). */
TM_HIDDEN void tm__wait_choose_futex_keys(int cache_enabled);
TM_HIDDEN uint64_t tm__now_ns(void);
/* CLOCK_MONOTONIC_COARSE (a few ms behind at most): idle deadlines and periodic checks. */
TM_HIDDEN uint64_t tm__coarse_now_ns(void);
TM_HIDDEN uint64_t tm__coarse_resolution_ns(void);

/* ---- reset.c: make a parked thread look fresh ---------------------------------------------- */
/* What a new thread of the caller's inherits (from the caller's shadow, or ATTR). Returns 1
 * when the affinity came from ATTR (the creator then applies it, for glibc's EINVAL), else 0. */
TM_HIDDEN int tm__capture_inherit(struct tm_inherit *out, const pthread_attr_t *attr);
/* What a parked thread must match to serve the caller's create (0), or -1 when it cannot be
 * known (the create then makes a new thread). */
TM_HIDDEN int tm__capture_match(struct tm_match *out, const pthread_attr_t *attr);
/* A new physical thread T starts with what its creator's shadow knows (no system call). */
TM_HIDDEN void tm__seed_new_thread(struct tm_thread *t, const pthread_attr_t *attr);
/* Run by a new physical thread before its first logical thread. */
TM_HIDDEN void tm__shadow_from_seed(struct tm_thread *t);
/* Gives the calling worker the state T->want describes (only what differs costs a call). */
TM_HIDDEN void tm__apply_inherit(struct tm_thread *t);
/* A parked worker about to sleep: it takes no signal while it sleeps. */
TM_HIDDEN void tm__park_block_signals(void);
/* Undoes what the last logical thread changed; returns the tm_cause that retires the thread
 * when it cannot be made what a fresh thread of its birth identity would be, else 0. */
TM_HIDDEN unsigned tm__reset_physical(struct tm_thread *t);
TM_HIDDEN void tm__tls_reset(void);
TM_HIDDEN void tm__reset_init(void);

/* ---- logical_exit.c: pthread_exit unwinding, TLS and key destructors ------------------------ */
TM_HIDDEN void tm__run_destructors(void);
TM_HIDDEN void tm__key_created(pthread_key_t key, void (*destructor)(void *));
TM_HIDDEN void tm__key_deleted(pthread_key_t key);
TM_HIDDEN _Noreturn void tm__own_exit(struct tm_thread *t, void *value);
TM_HIDDEN void tm__run_logical(struct tm_thread *t);
TM_HIDDEN int tm__unwind_next(__pthread_unwind_buf_t *buf); /* 0: not ours, forward it */
/* A cancellation unwind reached the trampoline: publish, then continue glibc's unwind. */
TM_HIDDEN _Noreturn void tm__leave_through_glibc(struct tm_thread *t, __pthread_unwind_buf_t *buf);
/* Cancel state/type, locale and errno as a fresh thread has them. */
TM_HIDDEN void tm__fresh_logical_state(void);
/* Forgets spinners that do not exist in a fork child. */
TM_HIDDEN void tm__wait_after_fork(void);

/* ---- quiet_signals.c: parked threads that need not block signals ------------------------- */
/* Reads TM_CACHE_VERIFY_MS; the signals the process starts with blocked are in the quiet set. */
TM_HIDDEN void tm__quiet_init(const sigset_t *initial_mask);
/* A parked worker about to sleep (NOW: tm__coarse_now_ns): 1 when it may keep its mask (it
 * then counts as open). */
TM_HIDDEN int tm__quiet_park(struct tm_thread *t, uint64_t now);
/* An open sleeper that woke up: blocks its signals if the quiet set grew past its mask or the
 * process turned loud. */
TM_HIDDEN void tm__quiet_recheck(struct tm_thread *t);
/* A worker stops waiting: it no longer counts (NEXT_LOGICAL: it runs a logical thread next). */
TM_HIDDEN void tm__quiet_leave(struct tm_thread *t, int next_logical);
/* Stops counting T as open (blocking every signal first if BLOCK). */
TM_HIDDEN void tm__quiet_close(struct tm_thread *t, int block);
/* Before a call whose effect on signals is not known: the process turns loud; returns when no
 * parked thread sleeps with an open mask. */
TM_HIDDEN void tm__quiet_end(void);
/* Before installing HANDLER for SIG, or a mask change HOW/SET: adds what it makes count to the
 * quiet set and returns when no open sleeper lets it through. Returns 1 when the process must
 * turn loud instead (the caller then calls tm__quiet_end), 0 when done. */
TM_HIDDEN int tm__quiet_handler_counts(int sig, void (*handler)(int));
TM_HIDDEN int tm__quiet_mask_counts(int how, const sigset_t *set);
/* Fork child: no parked thread exists. */
TM_HIDDEN void tm__quiet_after_fork(void);

/* ---- thread.c: create/join/detach/cancel ---------------------------------------------------- */
TM_HIDDEN int tm__create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                         void *arg);
TM_HIDDEN int tm__join(pthread_t thread, void **ret, int mode, clockid_t clock,
                       const struct timespec *abstime);
enum { TM_JOIN_BLOCK, TM_JOIN_TRY, TM_JOIN_TIMED };
TM_HIDDEN int tm__detach(pthread_t thread);
TM_HIDDEN int tm__cancel(pthread_t thread);
TM_HIDDEN void tm__main_exiting(void);
/* Wakes worker T to re-read its wake word (TM_W_CHECK). */
TM_HIDDEN void tm__poke(struct tm_thread *t);
/* Resets the count of finished, unjoined workers (fork child: they do not exist there). */
TM_HIDDEN void tm__thread_after_fork(void);
/* pthread_once without a wake when nobody sleeps (once.c): chooses ours or the next definition
 * (tm__init; ENABLED: the cache is on), runs a call, and re-reads glibc's fork generation in a
 * fork child. */
TM_HIDDEN void tm__once_init(int enabled);
TM_HIDDEN int tm__once(pthread_once_t *control, void (*routine)(void));
TM_HIDDEN void tm__once_after_fork(void);
/* 1 once pthread_cancel was called on a logical thread of ours (join.c): from then on a
 * logical thread's end disables cancellation and the next one enables it again; before, no
 * cancellation can be on its way, and a cancel that comes while a logical thread ends is a
 * no-op (tm_thread.ending), as glibc's is for a thread that returned from its start routine. */
TM_HIDDEN extern _Atomic int tm__cancel_ever;
/* 1 between fork's prepare and parent/child handlers: creates go to glibc. */
TM_HIDDEN extern _Atomic int tm__forking;
/* 1 after main called pthread_exit: exiting threads retire so idle ones never keep the
 * process alive. */
TM_HIDDEN int tm__process_retiring(void);
/* 1 while a call that got EAGAIN releases the cache's kernel tasks, or for a while after the
 * program read its task list (process.c): nothing parks, no finished thread waits for its
 * join keeping its task. */
TM_HIDDEN int tm__shedding_now(void);
/* Lets the cache's kept tasks go (parked threads exit, finished threads waiting for a join
 * withdraw) and keeps nothing until tm__shed_end; 1 when anything was held. */
TM_HIDDEN int tm__shed_begin(void);
TM_HIDDEN void tm__shed_end(void);
/* Keeps nothing for NS nanoseconds from now, and lets go of what is kept. */
TM_HIDDEN void tm__keep_nothing_for(uint64_t ns);

/* ---- process.c: calls that make processes (and want tasks), and the process's end ------- */
/* A call that failed because the kernel refused a task (EAGAIN, or EINVAL for an unshare that
 * needs a single-threaded process) is made again after the cache let its kept tasks go. */
struct tm_retry {
  long (*attempt)(void *context);       /* the call again; its result */
  int (*failed_for_tasks)(long result); /* 1: RESULT is the refusal worth a retry */
  void *context;
  int max_attempts; /* one per millisecond */
  int forks;        /* a result of 0 is a fork child: return it at once */
};
/* RESULT was ATTEMPT's first answer: returns it, or the answer of the last retry. */
TM_HIDDEN long tm__retry_tasks_released(const struct tm_retry *retry, long result);
/* A logical thread started child process PID (fork, vfork, posix_spawn, clone): it retires at
 * its end while PID runs. */
TM_HIDDEN void tm__child_started(pid_t pid);
/* The parent after a child that shared its memory (vfork) ended or exec'ed. */
TM_HIDDEN void tm__shared_memory_child_gone(void);
/* fork's parent handler: a fork the interposed fork did not make (inside libc) retires the
 * thread (its child's pid is unknown). */
TM_HIDDEN void tm__forked_unseen(void);
/* Look up the next definitions of the wrapped libc functions (interpose_next.h), at start-up. */
TM_HIDDEN void tm__process_interpose_init(void);
TM_HIDDEN void tm__open_interpose_init(void);
TM_HIDDEN void tm__syscall_interpose_init(void);
/* Records where sanitizer runtimes' code lies (interpose.c); called by tm__init. */
TM_HIDDEN void tm__runtime_ranges_init(void);

/* Non-zero while we call a sanitizer interceptor that will call our wrapper back. */
TM_HIDDEN extern __thread int tm__passthrough __attribute__((tls_model("initial-exec")));

#endif
