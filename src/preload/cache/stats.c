/* TM_CACHE_STATS counters and their one-line report at exit. */
#include "stats.h"

#include "options.h"

int tm__stats_on;
static _Atomic unsigned long long tm__counts[TM_COUNT_N];
static _Atomic unsigned long long tm__retired[TM_RETIRE_COUNT];
static _Atomic long long tm__peak_idle;

void tm__stats_count(enum tm_count what) {
  if (tm__stats_on) atomic_fetch_add_explicit(&tm__counts[what], 1, memory_order_relaxed);
}

void tm__stats_retired(enum tm_retire_reason why) {
  if (tm__stats_on) atomic_fetch_add_explicit(&tm__retired[why], 1, memory_order_relaxed);
}

void tm__stats_peak_idle(long long idle_now) {
  if (!tm__stats_on) return;
  long long peak = atomic_load_explicit(&tm__peak_idle, memory_order_relaxed);
  while (idle_now > peak &&
         !atomic_compare_exchange_weak_explicit(&tm__peak_idle, &peak, idle_now,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
}

void tm__stats_print(void) {
  static const char *const reasons[TM_RETIRE_COUNT] = {
      "cancelled",      "glibc-exit",   "idle-limit", "idle-timeout",
      "undoable-state", "robust-mutex", "process",    "unjoined-limit"};
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "thread cache stats: creates from-cache=");
  tm__line_long(&line, (long long)tm__counts[TM_COUNT_FROM_CACHE]);
  tm__line_str(&line, " from-system=");
  tm__line_long(&line, (long long)tm__counts[TM_COUNT_FROM_SYSTEM]);
  tm__line_str(&line, " bypassed=");
  tm__line_long(&line, (long long)tm__counts[TM_COUNT_BYPASSED]);
  tm__line_str(&line, "; pthread_exit kept=");
  tm__line_long(&line, (long long)tm__counts[TM_COUNT_OWN_EXITS]);
  static const char *const waits[] = {"spin-met",      "spin-ran-out",     "no-spin-busy",
                                      "no-spin-score", "no-spin-spinners", "no-spin-fixed"};
  tm__line_str(&line, "; waits");
  for (int i = TM_COUNT_SPIN_MET; i <= TM_COUNT_SKIP_FIXED; ++i) {
    tm__line_str(&line, " ");
    tm__line_str(&line, waits[i - TM_COUNT_SPIN_MET]);
    tm__line_str(&line, "=");
    tm__line_long(&line, (long long)tm__counts[i]);
  }
  tm__line_str(&line, "; retired");
  for (int i = 0; i < TM_RETIRE_COUNT; ++i) {
    tm__line_str(&line, " ");
    tm__line_str(&line, reasons[i]);
    tm__line_str(&line, "=");
    tm__line_long(&line, (long long)tm__retired[i]);
  }
  tm__line_str(&line, "; peak idle threads=");
  tm__line_long(&line, tm__peak_idle);
  tm__line_emit(&line);
}
