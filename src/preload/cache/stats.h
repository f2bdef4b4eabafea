/* Counters behind TM_CACHE_STATS=1 (stats.c). Updated only when stats are on, so the hot path
 * pays one predictable branch otherwise. */
#ifndef THREADMAP_CACHE_STATS_H
#define THREADMAP_CACHE_STATS_H

#include "tm_cache.h"

TM_HIDDEN extern int tm__stats_on;

enum tm_count {
  TM_COUNT_FROM_CACHE,  /* pthread_create served by a parked thread */
  TM_COUNT_FROM_SYSTEM, /* pthread_create that made a new (cacheable) thread */
  TM_COUNT_BYPASSED,    /* user stack, cache off or out of records: plain glibc thread */
  TM_COUNT_OWN_EXITS,   /* pthread_exit served by our unwind (thread kept) */
  TM_COUNT_N
};

TM_HIDDEN void tm__stats_count(enum tm_count what);
TM_HIDDEN void tm__stats_retired(enum tm_retire_reason why);
TM_HIDDEN void tm__stats_peak_idle(long long idle_now);
/* Prints one line of counters on stderr (write(2), no stdio). */
TM_HIDDEN void tm__stats_print(void);

#endif
