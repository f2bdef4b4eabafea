/* The thread cache's option table (see options.h for the variables); the reader is shared
 * with the pin library (src/preload/common/tm_options.c). Runs once, from
 * the library constructor or the first interposed call, before any thread is cached. */
#include "options.h"

static struct tm__option tm__options[TM_OPT_COUNT] = {
    [TM_OPT_ENABLE] = {"TM_CACHE", 1, 0, 1, "0 disables the thread cache", 1, 0},
    [TM_OPT_MAX_IDLE] = {"TM_CACHE_MAX_IDLE", 64, 0, 1 << 20, "most parked threads", 64, 0},
    [TM_OPT_MAX_IDLE_BYTES] = {"TM_CACHE_MAX_IDLE_BYTES", 1LL << 30, 0, 1LL << 50,
                               "most parked stack bytes", 1LL << 30, 0},
    [TM_OPT_IDLE_TIMEOUT_MS] = {"TM_CACHE_IDLE_TIMEOUT_MS", 1000, 0, 86400000LL,
                                "ms a parked thread waits before exiting (0: forever)", 1000, 0},
    [TM_OPT_TRIM] = {"TM_CACHE_TRIM", 0, 0, 1, "MADV_DONTNEED unused stack when parking", 0, 0},
    [TM_OPT_SPIN_NS] = {"TM_CACHE_SPIN_NS", -1, -1, 1000000000LL,
                        "-1 adaptive, 0 never, N fixed spin (ns)", -1, 0},
    [TM_OPT_STATS] = {"TM_CACHE_STATS", 0, 0, 1,
                      "1: counters on stderr at exit; /FILE: one line appended per process", 0, 0,
                      TM_STATS_TO_FILE, NULL},
    [TM_OPT_VERBOSE] = {"TM_VERBOSE", 0, 0, 1, "print the configuration", 0, 0},
    [TM_OPT_MAX_UNJOINED] = {"TM_CACHE_MAX_UNJOINED", 8, 0, 1 << 20,
                             "most finished unjoined threads kept (unset: from the headroom)", 8,
                             0},
    [TM_OPT_VERIFY_MS] = {"TM_CACHE_VERIFY_MS", 10, 0, 3600000LL,
                          "ms between re-reads of what other processes may change (0: always)", 10,
                          0},
    [TM_OPT_FUTEX_SLOTS] = {"TM_CACHE_FUTEX_SLOTS", -1, -1, 1 << 20,
                            "-1 auto, 0 leave the process's futex table alone, N its slots", -1, 0},
    [TM_OPT_ONCE] = {"TM_CACHE_ONCE", 1, 0, 1, "1: pthread_once wakes only sleepers, 0: glibc's", 1,
                     0},
    [TM_OPT_KERNEL_MASK] = {"TM_CACHE_KERNEL_MASK", 1, -1, 1,
                            "1 read masks from the kernel where they matter, -1 only once a "
                            "raw-syscall runtime or a stale shadow is seen, 0 never",
                            1, 0},
    [TM_OPT_STATS_FD] = {"TM_CACHE_STATS_FD", -1, -1, 1 << 30,
                         "inherited descriptor of TM_CACHE_STATS's file (-1: none)", -1, 0},
    [TM_OPT_STATS_INODE] = {"TM_CACHE_STATS_INODE", 0, 0, 1LL << 62,
                            "inode of TM_CACHE_STATS's file, to check TM_CACHE_STATS_FD", 0, 0},
};

void tm__options_load(char **env) {
  tm__options_read(tm__options, TM_OPT_COUNT, env, "thread cache");
}

long long tm__option(enum tm_option_id id) { return tm__options[id].value; }

const char *tm__option_text(enum tm_option_id id) { return tm__options[id].text; }

int tm__option_from_env(enum tm_option_id id) { return tm__options[id].from_env; }

void tm__options_print(void) { tm__options_show(tm__options, TM_OPT_COUNT, "thread cache"); }
