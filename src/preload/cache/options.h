/* Configuration of libthreadmap-cache.so, read once from the environment (options.c).
 *
 *  variable                      default      meaning
 *  TM_CACHE                      1            0 turns the cache off (every call goes to glibc)
 *  TM_CACHE_MAX_IDLE             64           most parked threads at once (threads)
 *  TM_CACHE_MAX_IDLE_BYTES       1073741824   most stack bytes (requested sizes) parked at once
 *  TM_CACHE_IDLE_TIMEOUT_MS      1000         a thread parked this long really exits (0: never)
 *  TM_CACHE_TRIM                 0            1: madvise(MADV_DONTNEED) the unused stack at park
 *  TM_CACHE_SPIN_NS              -1           -1: adaptive spin; 0: never spin; N: spin N ns
 *  TM_CACHE_STATS                0            1: print reuse/retire counters on stderr at exit;
 *                                             /FILE: append one line per process to FILE
 *                                             (stats.c has the format, a contract)
 *  TM_VERBOSE                    0            1: print the effective configuration at start
 *  TM_CACHE_MAX_UNJOINED         auto         most finished, not yet joined threads kept alive
 *                                             (past it a finishing thread really exits and its
 *                                             join goes through glibc); unset: 1/8 of the task
 *                                             headroom measured (headroom.c), in [8, 1024]
 *  TM_CACHE_VERIFY_MS            10           shadow items another process can change are
 *                                             read again when their last check is older (see
 *                                             shadow.h; 0: every item on every use)
 *  TM_CACHE_FUTEX_SLOTS          -1           slots of the process's own futex table (Linux
 *                                             6.16+): -1 256 per CPU (at most 8192), N rounded
 *                                             up to a power of two; 0 leaves the table alone and
 *                                             the cache uses shared futexes
 *                                             (src/preload/common/tm_futex.h)
 *  TM_CACHE_ONCE                 1            1: pthread_once wakes only when a thread sleeps
 *                                             on the word (once.c); 0: glibc's pthread_once
 *  TM_CACHE_KERNEL_MASK          1            where a thread's signal mask matters, read it from
 *                                             the kernel: 1 always (exact whatever changes masks),
 *                                             -1 only once a runtime with its own system calls
 *                                             (Go) is loaded or a check found the shadow stale,
 *                                             0 never (kernel_word.h)
 *  TM_CACHE_STATS_FD             -1           a descriptor of TM_CACHE_STATS's file that the
 *  TM_CACHE_STATS_INODE          0            process inherited (and the file's inode): where
 *                                             the path cannot be opened, or names another file,
 *                                             the line is appended there (stats.c; `threadmap
 *                                             run --stats` passes both)
 *
 * `threadmap run --thread-cache` writes these variables; the names are part of the interface.
 * Bad values warn once (`threadmap: ...`) and keep the default; nothing aborts the host. */
#ifndef THREADMAP_CACHE_OPTIONS_H
#define THREADMAP_CACHE_OPTIONS_H

#include <stddef.h>

/* Self-contained (no tm_cache.h): the C++ unit tests include this header. */
#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

enum tm_option_id {
  TM_OPT_ENABLE,
  TM_OPT_MAX_IDLE,
  TM_OPT_MAX_IDLE_BYTES,
  TM_OPT_IDLE_TIMEOUT_MS,
  TM_OPT_TRIM,
  TM_OPT_SPIN_NS,
  TM_OPT_STATS,
  TM_OPT_VERBOSE,
  TM_OPT_MAX_UNJOINED,
  TM_OPT_VERIFY_MS,
  TM_OPT_FUTEX_SLOTS,
  TM_OPT_ONCE,
  TM_OPT_KERNEL_MASK,
  TM_OPT_STATS_FD,
  TM_OPT_STATS_INODE,
  TM_OPT_COUNT
};

/* Reads every option from ENVIRON-style array ENV (NULL-terminated "NAME=value" strings).
 * Never allocates. Returns nothing: invalid values are reported and replaced by defaults. */
TM_HIDDEN void tm__options_load(char **env);
/* The effective value of option ID (after tm__options_load, else the default). */
TM_HIDDEN long long tm__option(enum tm_option_id id);
/* TM_CACHE_STATS's value for a path (TM_CACHE_STATS=/FILE). */
#define TM_STATS_TO_FILE 2
/* The text of option ID when it was a path (see tm__option.path_value), else NULL. */
TM_HIDDEN const char *tm__option_text(enum tm_option_id id);
/* 1 when option ID was set in the environment (not its default). */
TM_HIDDEN int tm__option_from_env(enum tm_option_id id);
/* Prints every option, its value and where it came from (TM_VERBOSE=1). */
TM_HIDDEN void tm__options_print(void);

/* tm__parse_int (exposed for the unit tests) and the table reader. */
#include "../common/tm_options.h"
/* Output without stdio or allocation (fixed buffer + write(2)), shared with the pin library. */
#include "../common/tm_line.h"

#endif
