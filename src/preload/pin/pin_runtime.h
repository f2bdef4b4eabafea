/* threadmap pin preload — the process-wide state and the hidden functions behind the exported
 * wrappers in interpose.c. Nothing here allocates after initialisation. */
#ifndef THREADMAP_PRELOAD_PIN_RUNTIME_H
#define THREADMAP_PRELOAD_PIN_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "pin_config.h"
#include "pin_log.h"

/** Largest affinity mask we read back (bits): enough for 8192 CPUs. */
#define TM__ORIGINAL_WORDS (8192 / (sizeof(unsigned long) * 8))

typedef int (*tm__create_fn)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
typedef int (*tm__setname_fn)(pthread_t, const char*);

/** Process-wide state, written once by tm__runtime_init() and read-only afterwards (except the
 * counters). */
typedef struct tm__runtime {
  int active;     /**< a valid configuration was read: pin threads */
  int verbose;    /**< TM_VERBOSE=1: print each decision */
  int share_view; /**< TM_PIN_SHARE_VIEW (default 1): the program sees its share (pin_view.h) */
  tm__pin_config config;                      /**< the rules (arena from mmap) */
  unsigned long original[TM__ORIGINAL_WORDS]; /**< process affinity before we changed it */
  size_t original_bytes;                      /**< 0 when it could not be read */
  tm__create_fn real_create;       /**< next pthread_create (libc, or the thread cache) */
  tm__setname_fn real_setname;     /**< next pthread_setname_np */
  atomic_long created;             /**< threads created so far (creation index) */
  atomic_long slots;               /**< threads that reached the slot rules so far */
  atomic_int failure_reported;     /**< the first pinning failure is reported, later ones not */
  atomic_int mem_failure_reported; /**< the same for memory policies */
  pid_t init_pid; /**< the process the library started in (a fork child keeps it) */
} tm__runtime;

/** The one instance. */
extern tm__runtime tm__rt;

/** Reads the configuration, looks up the real functions, pins the main thread and rewrites the
 * configuration in the environment for the programs this one execs (from= this process,
 * original= the family's first affinity). Runs once (pthread_once); safe to call from any
 * wrapper before the constructor has run. */
void tm__runtime_init(void);

/** One line on stderr: A, then B (when not NULL). */
void tm__pin_report(const char* a, const char* b);

/* ---- pin_environment.c: what the programs this one execs or starts get --------------------- */
/** Removes this library from LD_PRELOAD and TM_PIN_CONFIG from the environment. */
void tm__forget_environment(void);
/** Rewrites TM_PIN_CONFIG (TEXT, as read) for the programs this one execs: from= this process,
 * original= the affinity the first program of the family started with. */
void tm__pass_on_environment(const char* text);
/** Whether the process that passed the rules on (FROM, its pid) runs threads now. */
int tm__handed_by_threaded_program(long from);

/** Called before the first thread this process creates: unless inherit, removes our variables
 * and ourselves from the environment, so the programs it starts from now on run without the
 * rules (a process that creates threads is the program the rules were for). */
void tm__keep_rules_here(void);

/** Applies `decision` to the calling thread (`label` and `index` only feed TM_VERBOSE and the
 * failure line). Marks the thread as pinned by us when it sets a mask. */
void tm__apply_to_self(const tm__decision* decision, const char* label, long index,
                       const char* library);

/** Sets the calling thread's memory policy as `decision` says (set_mempolicy). A failure
 * (EPERM, EINVAL, ENOSYS without NUMA) is reported once and the thread goes on as it was. */
void tm__apply_memory(const tm__mem_decision* decision, const char* label, long index);

/** Appends "LABEL #INDEX (start routine in LIBRARY)" to `line` (the thread a line is about). */
void tm__describe_thread(tm__line* line, const char* label, long index, const char* library);

/** Applies a name decision to `thread` (which may be another thread of the process). */
void tm__apply_name(pthread_t thread, const tm__decision* decision, const char* name);

/** Whether the calling thread's affinity was set by us (then threads it creates that no rule
 * claims get the original affinity back instead of inheriting ours). */
int tm__self_pinned(void);

/** The pthread_create behind the exported wrapper. */
int tm__create_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                      void* arg);

/** The pthread_setname_np behind the exported wrapper. */
int tm__setname_thread(pthread_t thread, const char* name);

#endif /* THREADMAP_PRELOAD_PIN_RUNTIME_H */
