/* Where the shadow cannot be sure, the kernel's word (kernel_word.c).
 *
 * The shadow (shadow.h) is kept true by the wrappers; a program that changes a thread's signal
 * mask with its own system calls (the Go runtime does it on every thread it makes; inline
 * assembly) leaves it stale, and a recycled thread would then start with a mask its creator does
 * not have. In "kernel mask" mode the mask is read from the kernel where it matters: by the
 * creator when a parked thread is about to serve it (one rt_sigprocmask), and by the worker when
 * its logical thread ends (one more); a new physical thread does not trust its creator's shadow
 * for it. The mode is on when:
 *  - TM_CACHE_KERNEL_MASK=1, or TM_CACHE_VERIFY_MS=0 (check everything);
 *  - with TM_CACHE_KERNEL_MASK=-1 (the default): a loaded module carries a runtime that makes
 *    its own system calls (Go: its build-id note, in the program or a dlopen'ed library), or a
 *    verification read found the kernel's mask different from the shadow's (evidence that
 *    something no wrapper sees changes masks in this process: from then on every use reads).
 *
 * Faults a fresh thread would not have: a thread whose TSC is disabled (PR_SET_TSC
 * PR_TSC_SIGSEGV, inherited by its clones) must not read the vDSO's fine clock (rdtsc/rdtscp),
 * which the adaptive spin does; once any thread of the process may have it disabled (seen at the
 * first create, or through prctl/syscall(2)), nobody spins. */
#ifndef THREADMAP_CACHE_KERNEL_WORD_H
#define THREADMAP_CACHE_KERNEL_WORD_H

#include "shadow.h"
#include "tm_cache.h"

/* Why the mask is read from the kernel (0: it is not; the shadow is trusted). */
enum tm_kernel_mask_reason {
  TM_KM_SHADOW = 0,
  TM_KM_OPTION = 1,   /* TM_CACHE_KERNEL_MASK=1 or TM_CACHE_VERIFY_MS=0 */
  TM_KM_RUNTIME = 2,  /* a module with its own system calls (Go) */
  TM_KM_EVIDENCE = 3, /* a verification read contradicted the shadow */
};

/* Nonzero (a tm_kernel_mask_reason) once the mask is read from the kernel: read on every create
 * and logical exit, so one plain load. */
TM_HIDDEN extern _Atomic int tm__kernel_mask;
static inline int tm__kernel_mask_on(void) {
  return atomic_load_explicit(&tm__kernel_mask, memory_order_relaxed) != 0;
}

/* Shadow items (TM_S_NAME, TM_S_SLACK) read from the kernel where they matter, as the mask in
 * kernel-mask mode: set once a descriptor that can write them at any time was opened (a
 * per-thread /proc file: comm, timerslack_ns). */
TM_HIDDEN extern _Atomic unsigned tm__kernel_items;
/* The items to read from the kernel now (TM_S_SIGMASK in kernel-mask mode, and the above). */
static inline unsigned tm__kernel_read_items(void) {
  return (tm__kernel_mask_on() ? (unsigned)TM_S_SIGMASK : 0u) |
         atomic_load_explicit(&tm__kernel_items, memory_order_relaxed);
}

/* Nonzero (a tm_cause) once the process did something after which no parked thread can be
 * known to be its creator's clone (a cgroup membership file or an audit/LSM file of a thread
 * opened for writing: a tid written through it later, by any thread, moves or relabels that
 * thread unseen): creates go to glibc and finishing threads retire. */
TM_HIDDEN extern _Atomic unsigned tm__no_reuse;
static inline unsigned tm__no_reuse_cause(void) {
  return atomic_load_explicit(&tm__no_reuse, memory_order_relaxed);
}
TM_HIDDEN void tm__stop_reuse(unsigned cause);
TM_HIDDEN void tm__kernel_items_add(unsigned items);

/* At the first create: the option, the loaded modules, the creator's TSC state. */
TM_HIDDEN void tm__kernel_word_init(void);
/* The loaded modules may have changed (a new physical thread, a module set change seen by the
 * TLS reset): looks for a runtime with its own system calls in what was added. */
TM_HIDDEN void tm__kernel_word_modules(void);
/* A verification read found the kernel's mask different from what the shadow said. */
TM_HIDDEN void tm__kernel_word_evidence(void);

/* 1 when a signal directed at the calling thread is pending (a process-directed one that every
 * thread blocks is no reason: a fresh thread would see it too). pending_signals.c */
TM_HIDDEN int tm__signal_pending(void);
/* Discards the signals directed at the calling physical thread, before the next logical
 * thread's mask could let them in (S: its shadow, whose mask is the kernel's now). */
TM_HIDDEN void tm__discard_stale_signals(const struct tm_shadow *s);

/* 1 once a thread of the process may have its TSC disabled: no fine clock read, no spin. */
TM_HIDDEN extern _Atomic int tm__tsc_may_fault;
/* prctl(PR_SET_TSC, MODE) succeeded in the calling thread. */
TM_HIDDEN void tm__note_tsc(unsigned long mode);

#endif
