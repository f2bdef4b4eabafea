/* Counters behind TM_CACHE_STATS (stats.c has the line's format, a contract). Updated only when
 * stats are on, so the hot path pays one predictable branch otherwise. */
#ifndef THREADMAP_CACHE_STATS_H
#define THREADMAP_CACHE_STATS_H

#include "tm_cache.h"

TM_HIDDEN extern int tm__stats_on;

enum tm_count {
  TM_COUNT_FROM_CACHE,  /* pthread_create served by a parked thread */
  TM_COUNT_FROM_SYSTEM, /* pthread_create that made a new (cacheable) thread */
  TM_COUNT_BYPASSED,    /* user stack, cache off or out of records: plain glibc thread */
  TM_COUNT_OWN_EXITS,   /* pthread_exit served by our unwind (thread kept) */
  /* Waits for a hand-off (wait.c), to tell where a hand-off's time goes without hardware
   * counters: a spin that saw its partner, one that ran out, and the reasons no spin was tried. */
  TM_COUNT_SPIN_MET,      /* the partner's word changed while we spun: no system call */
  TM_COUNT_SPIN_RAN_OUT,  /* the budget ran out: the wait goes on in the futex */
  TM_COUNT_SKIP_BUSY,     /* no spin: no idle CPU (runnable count and idle time) */
  TM_COUNT_SKIP_SCORE,    /* no spin: the site's score is negative and this is no probe */
  TM_COUNT_SKIP_SPINNERS, /* no spin: as many threads spin as there are CPUs */
  TM_COUNT_SKIP_FIXED,    /* no spin: TM_CACHE_SPIN_NS=0 or a single CPU */
  TM_COUNT_N
};

TM_HIDDEN void tm__stats_count(enum tm_count what);
/* One physical thread retired for CAUSE (a tm_cause, identity.h). */
TM_HIDDEN void tm__stats_retired(unsigned cause);
TM_HIDDEN void tm__stats_peak_idle(long long idle_now);
/* Reads TM_CACHE_STATS (after the options): on, and where the line goes. */
TM_HIDDEN void tm__stats_init(void);
/* A descriptor to append this process's line to TM_CACHE_STATS=FILE: the path, or where the
 * path cannot be opened or names another file than the one `run` made (TM_CACHE_STATS_INODE),
 * a copy of the descriptor the process inherited (TM_CACHE_STATS_FD; *INHERITED set to 1: it
 * appends only, as pwrite on it appends too). -errno when neither works. */
TM_HIDDEN int tm__stats_open_append(int *inherited);
/* TM_CACHE_STATS=FILE cannot be opened (ERR): one stderr line naming this process (once). */
TM_HIDDEN void tm__stats_cannot_write(int err);
/* A fork child counts for itself from zero and writes its own line. */
TM_HIDDEN void tm__stats_after_fork(void);
/* The process ends: writes its one line (stderr or the file), or finalises its live record,
 * once (stats.c). */
TM_HIDDEN void tm__stats_at_exit(void);

/* ---- the line and the live record of TM_CACHE_STATS=FILE (stats_record.c) ---------------- */

enum { TM_COMM_BYTES = 64 };
/* The process's comm, ' ', '=' and control characters as '_' (reads /proc/self/comm). */
TM_HIDDEN void tm__stats_read_comm(char comm[TM_COMM_BYTES]);
/* The tm-cache-stats/1 line of the counts now, ending " final=FINAL", without a newline, in
 * BUF (at most SIZE - 1 characters and a NUL): its length. */
TM_HIDDEN size_t tm__stats_file_line(char *buf, size_t size, const char *comm, int final);
/* FILE of TM_CACHE_STATS=FILE, NULL when the line goes to stderr. */
TM_HIDDEN const char *tm__stats_file(void);
/* A number that grows whenever a count does (so an unchanged record is not rewritten). */
TM_HIDDEN unsigned long long tm__stats_changes(void);
/* The first create: appends this process's record to FILE (once; nothing for stderr). */
TM_HIDDEN void tm__stats_record_start(void);
/* A worker about to sleep parked: rewrites the record if counts changed and it is at least
 * TM_RECORD_PERIOD_NS old. Returns 0, or the nanoseconds until a rewrite it put off is due (the
 * caller wakes up for it). */
TM_HIDDEN uint64_t tm__stats_record_idle(void);
/* The process ends: the record with final=1; 0 when there is no record to finalise. */
TM_HIDDEN int tm__stats_record_final(void);
TM_HIDDEN void tm__stats_record_after_fork(void);

#endif
