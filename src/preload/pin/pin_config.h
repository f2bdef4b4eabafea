/* threadmap pin preload — the configuration and the rules that decide where a thread goes.
 *
 * The configuration arrives in one environment variable, TM_PIN_CONFIG, written by
 * `threadmap run` (src/apply/pin_env.cpp). Format (version 1), entries separated by ';':
 *
 *   tm-pin/1;ENTRY;ENTRY;...
 *     main=CPUS          the main thread (pinned in the library constructor)
 *     slot=N:CPUS        the N-th (0-based) created thread that no skip/lib rule claimed
 *     cycle=CPUS/CPUS/.. slots without a slot rule take cycle[slot % count]
 *     name=GLOB:CPUS     a thread that names itself (pthread_setname_np) to a matching name
 *     lib=GLOB:CPUS      a thread whose start routine lives in a matching library (basename)
 *     skip=N             the N-th created thread (counting every thread) is not pinned
 *     skipname=GLOB      a thread that names itself so gets the process's original affinity
 *     skiplib=GLOB       a thread whose start routine lives in a matching library is not pinned
 *     inherit            exec'd children keep the configuration (and the library)
 *     overrideaffinity   threads created with an affinity of their own in their attributes
 *                        (pthread_attr_setaffinity_np) are pinned by the rules too; without
 *                        it their own affinity wins and they take no slot
 *     mem=MODE[:NODES]   memory policy of every thread (set_mempolicy before user code):
 *                        local, interleave:NODES, bind:NODES, preferred:NODE (one node)
 *     mainmem=NODE       the main thread prefers NODE for its memory (a plan's memory_node)
 *     slotmem=N:NODE     slot N's thread prefers NODE (MPOL_PREFERRED); threads without one
 *                        get mem= or, without it, the default policy back
 *     namemem=GLOB:NODE  a thread that names itself so prefers NODE (set by the thread itself
 *                        when it names itself, or at its start when already named)
 *   Written by the library itself when it passes the rules on to a program the process execs
 *   or starts (never by `threadmap run`; see docs/run-and-watch.md, "Across exec"):
 *     from=PID           the process that passed the rules on (rewritten by every program
 *                        that takes them, in its constructor)
 *     original=CPUS      the affinity the first program that took the rules started with; a
 *                        skipped or unclaimed thread gets it back (not the wrapper's pin)
 *   CPUS = N or A-B items joined by ','; GLOB = fnmatch-style '*', '?', '[...]' (no ';').
 *   NODES = OS NUMA node numbers (as numactl and /sys), N or A-B items joined by ','.
 *
 * Everything is validated strictly: an unknown entry, a bad number, a duplicate slot or an
 * empty CPU set makes the whole configuration invalid (the library then pins nothing).
 * The parser never calls malloc: the caller measures the arena it needs, then parses into it.
 * These functions are internal (hidden) and pure, so unit tests link them directly. */
#ifndef THREADMAP_PRELOAD_PIN_CONFIG_H
#define THREADMAP_PRELOAD_PIN_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TM_PIN_CONFIG_HEADER, TM_PIN_MAX_CPU, TM_PIN_MAX_INDEX, TM_PIN_MAX_NODE: shared with the C++
 * encoder. */
#include "../common/tm_pin_limits.h"
/** Words of a node mask that holds every node up to TM_PIN_MAX_NODE. */
#define TM_PIN_NODE_WORDS ((TM_PIN_MAX_NODE + 1) / (sizeof(unsigned long) * 8))

/** set_mempolicy modes (<linux/mempolicy.h> values; the kernel ABI, stable). */
enum tm__mem_mode {
  TM__MEM_UNSET = -1,     /**< leave the thread's policy alone */
  TM__MEM_DEFAULT = 0,    /**< MPOL_DEFAULT */
  TM__MEM_PREFERRED = 1,  /**< MPOL_PREFERRED */
  TM__MEM_BIND = 2,       /**< MPOL_BIND */
  TM__MEM_INTERLEAVE = 3, /**< MPOL_INTERLEAVE */
  TM__MEM_LOCAL = 4       /**< MPOL_LOCAL */
};

/** Kinds of rules that carry a pattern (name and library rules). */
enum tm__pattern_kind {
  TM__PATTERN_NAME = 0,     /**< name=GLOB:CPUS */
  TM__PATTERN_LIB = 1,      /**< lib=GLOB:CPUS */
  TM__PATTERN_SKIPNAME = 2, /**< skipname=GLOB */
  TM__PATTERN_SKIPLIB = 3,  /**< skiplib=GLOB */
  TM__PATTERN_NAMEMEM = 4   /**< namemem=GLOB:NODE (`set` holds the node) */
};

/** A rule matching a thread name or start-routine library; `set` is -1 for skip rules. */
typedef struct tm__pattern_rule {
  int kind;            /**< enum tm__pattern_kind */
  const char* pattern; /**< NUL-terminated, inside the arena */
  int32_t set;         /**< index into the config's CPU sets, or -1 (namemem: the node) */
} tm__pattern_rule;

/** The parsed configuration. Every pointer points into the caller's arena. */
typedef struct tm__pin_config {
  int inherit;                /**< 1 when exec'd children keep the configuration */
  int override_affinity;      /**< 1: the rules win over a create's own affinity attribute */
  size_t mask_words;          /**< unsigned longs per CPU set (cpu_set_t-compatible layout) */
  size_t set_count;           /**< CPU sets stored in `sets` */
  unsigned long* sets;        /**< set_count * mask_words words */
  int32_t main_set;           /**< set for the main thread, or -1 */
  int32_t* slot_sets;         /**< slot_count entries: set index or -1 */
  size_t slot_count;          /**< highest slot index + 1 (0 when there are no slot rules) */
  int32_t* cycle_sets;        /**< cycle_count set indexes */
  size_t cycle_count;         /**< 0 when there is no cycle */
  unsigned char* skip_index;  /**< skip_count flags: 1 = skip that creation index */
  size_t skip_count;          /**< highest skip index + 1 */
  tm__pattern_rule* patterns; /**< pattern_count rules, in configuration order */
  size_t pattern_count;
  int has_name_rules; /**< any name= or skipname= rule */
  int has_lib_rules;  /**< any lib= or skiplib= rule */
  int mem_mode;       /**< mem=: enum tm__mem_mode, TM__MEM_UNSET when absent */
  unsigned long mem_nodes[TM_PIN_NODE_WORDS]; /**< mem= nodes (empty for local) */
  int mem_max_node;                           /**< highest node in mem_nodes, -1 when none */
  int32_t main_mem_node;                      /**< mainmem=, or -1 */
  int32_t* slot_mem_nodes;                    /**< slot_count entries: slotmem= node or -1 */
  int has_mem_rules;                          /**< any mem=, mainmem= or slotmem= entry */
  long from_pid;                              /**< from=, or -1 */
  int32_t original_set;                       /**< original=: set index, or -1 */
} tm__pin_config;

/** Parses `text`. With arena == NULL only validates and stores the arena size it needs in
 * *arena_needed. With an arena of at least that size, fills *config. Returns 0 on success, or -1
 * with a one-line reason (naming the bad entry) in error[0..error_size). */
int tm__pin_config_parse(const char* text, void* arena, size_t arena_size, size_t* arena_needed,
                         tm__pin_config* config, char* error, size_t error_size);

/** Whether `cpu` is in CPU set number `set` of `config`. */
int tm__pin_config_set_has(const tm__pin_config* config, int32_t set, int cpu);

/** fnmatch-style glob without allocation: '*', '?', '[abc]', '[a-z]', '[!x]', '\\' escapes. */
int tm__glob_match(const char* pattern, const char* text);

/** What to do with a thread. */
enum tm__action {
  TM__ACTION_NONE = 0,    /**< leave the thread as the system made it */
  TM__ACTION_SET = 1,     /**< pin to decision.set */
  TM__ACTION_RESTORE = 2, /**< give it the process's original affinity (a skipped thread) */
  TM__ACTION_SLOT = 3     /**< no creation rule claimed it: take the next slot */
};

/** A decision and why it was taken (a static string, for TM_VERBOSE). */
typedef struct tm__decision {
  int action;         /**< enum tm__action */
  int32_t set;        /**< CPU set index when action == TM__ACTION_SET */
  const char* reason; /**< "slot", "cycle", "skip", "lib rule", ... */
} tm__decision;

/** Decides for a thread at creation: skip index, then skiplib/lib rules (first match), else
 * TM__ACTION_SLOT. `created_index` counts every thread created; `library` is the basename of
 * the start routine's object (NULL when unknown). */
tm__decision tm__decide_created(const tm__pin_config* config, long created_index,
                                const char* library);

/** Decides for the `slot`-th thread that reached TM__ACTION_SLOT: its slot rule, else the
 * cycle, else TM__ACTION_RESTORE (threads no rule claims run where they would without us). */
tm__decision tm__decide_slot(const tm__pin_config* config, long slot);

/** Decides for a thread that was just named `name`: the first matching name rule wins (SET),
 * a matching skipname gives RESTORE, otherwise NONE. */
tm__decision tm__decide_name(const tm__pin_config* config, const char* name);

/** What to do with a thread's memory policy. */
typedef struct tm__mem_decision {
  int mode;           /**< enum tm__mem_mode; TM__MEM_UNSET = leave it */
  int node;           /**< the one node of a per-thread rule, or -1 (then config->mem_nodes) */
  const char* reason; /**< "--mem", "plan memory node", "no memory node for this thread" */
} tm__mem_decision;

/** The memory node of the first namemem= rule matching `name`, or -1. */
int tm__name_memory_node(const tm__pin_config* config, const char* name);

/** The memory node of the `slot`-th slotted thread (slotmem=), or -1. */
int tm__slot_memory_node(const tm__pin_config* config, long slot);

/** Decides the memory policy of a thread whose per-thread node is `node` (-1 = none): that
 * node preferred, else mem=, else (when other threads have nodes) the default policy back, so
 * a thread does not keep a node it inherited from its creator; UNSET without memory rules. */
tm__mem_decision tm__decide_memory(const tm__pin_config* config, int node);

#ifdef __cplusplus
}
#endif

#endif /* THREADMAP_PRELOAD_PIN_CONFIG_H */
