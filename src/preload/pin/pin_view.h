/* threadmap pin preload — what a placed program sees of its CPUs (decision in
 * docs/run-and-watch.md, "What the program sees of its CPUs").
 *
 *  1. The main thread runs on the whole share (as under `taskset -c SHARE`) from the constructor
 *     until the program creates its first thread; the main rule applies then, just before that
 *     thread exists. Runtimes that size themselves on the main thread before they make threads
 *     read the share from the kernel itself, whatever call they use: the Go runtime (with cgo)
 *     reads the mask with a raw system call in osinit; nproc, xz -T0, libgomp, Rust, Python
 *     read it through glibc.
 *  2. A thread the pinner narrowed (the main thread after its first thread, every created
 *     thread) answers glibc's sched_getaffinity and pthread_getaffinity_np with the share, for
 *     itself and (for the main thread) when asked by pid or pthread_t from another thread.
 *     The same through syscall(2) (Perl's syscall.ph, LLVM's libomp).
 *  3. A mask the program sets itself (sched_setaffinity, pthread_setaffinity_np) is reported as
 *     set: the thread's view ends there.
 * Not covered: a system call made without libc (an inline syscall instruction) or
 * /proc/self/status (Cpus_allowed) read on a narrowed thread
 * sees the kernel's mask, its one CPU. */
#ifndef THREADMAP_PRELOAD_PIN_VIEW_H
#define THREADMAP_PRELOAD_PIN_VIEW_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "pin_config.h"

/** Computes the share from the parsed rules (called once, from initialisation). */
void tm__view_init(void);

/** In the constructor: puts the main thread on the share and defers the main rule to the
 * process's first thread. Returns 1 when deferred, 0 when the caller pins the main thread now
 * (no share, or the share is the main rule's own set). */
int tm__view_share_main(void);

/** Before the process creates a thread: applies the deferred main rule (once, on the main
 * thread). */
void tm__view_before_thread(void);

/** The calling thread was narrowed by the pinner to CPU set `set` of the configuration. */
void tm__view_narrowed(int32_t set);

/** The calling thread's mask is no longer the pinner's (restored, or reused by the cache). */
void tm__view_clear(void);

/** Marks the calling thread as inside the pinner's own affinity call (1) or out of it (0): the
 * interposed setters then do not take the call for the program's. */
void tm__view_internal(int inside);

/* The interposed calls behind interpose.c's exported wrappers: glibc's contract each. */
int tm__view_sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set);
int tm__view_pthread_getaffinity(pthread_t thread, size_t size, cpu_set_t* set);
int tm__view_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set);
int tm__view_pthread_setaffinity(pthread_t thread, size_t size, const cpu_set_t* set);
long tm__view_syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6);

#endif /* THREADMAP_PRELOAD_PIN_VIEW_H */
