/* threadmap pin preload — the share: every CPU the rules give the program, and the answer an
 * affinity query gets from a thread the pinner narrowed to part of it.
 *
 * Why: runtimes size themselves by the affinity mask they read (glibc's sched_getaffinity,
 * pthread_getaffinity_np: nproc, the JVM, libuv, Rust's available_parallelism, libgomp, Python).
 * Under `taskset -c X` every thread reads X; under `threadmap run --cpus X` each thread is
 * narrowed to its own CPU, so without this a placed program sized itself for one CPU. The share
 * is what the program was given (the union of the rules' CPU sets, as `run` places a static
 * program as a whole), and a narrowed thread reports it.
 * Pure functions over a parsed configuration, so they are unit-tested without a preload. */
#ifndef THREADMAP_PRELOAD_PIN_SHARE_H
#define THREADMAP_PRELOAD_PIN_SHARE_H

#include <stddef.h>

#include "pin_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Words of a mask that holds every CPU up to TM_PIN_MAX_CPU. */
#define TM_PIN_SHARE_WORDS ((TM_PIN_MAX_CPU + 1) / (sizeof(unsigned long) * 8))

/** Fills share[0..TM_PIN_SHARE_WORDS) with the union of the CPU sets the rules place threads
 * on (main=, slot=, cycle=, name=, lib=; not original=, which is where threads go back to).
 * When `allowed` is not NULL (the process's affinity at start, `allowed_words` words) and
 * the union meets it, the share is that intersection (the kernel would drop the rest). Returns
 * the share's CPU count (0: the rules place nothing). */
size_t tm__share_from_config(const tm__pin_config* config, const unsigned long* allowed,
                             size_t allowed_words, unsigned long* share);

/** Whether the `size`-byte mask the kernel returned for a thread lies within the share (then
 * the pinner's narrowing is all that separates it from the share). */
int tm__share_contains(const unsigned long* share, const unsigned long* mask, size_t size);

/** Writes the share into the caller's `size`-byte mask, as the kernel would have written the
 * thread's mask (bits past the share zero). Returns 0, or -1 (mask untouched) when `size` is not
 * whole words or the share has a CPU past `size` bytes. */
int tm__share_write(const unsigned long* share, unsigned long* mask, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THREADMAP_PRELOAD_PIN_SHARE_H */
