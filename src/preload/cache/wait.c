/* Waiting for a hand-off: spin briefly, then sleep on a futex.
 *
 * Spinning turns a create+join into a few cache-line transfers, but only when a CPU is free
 * to spin on: with more runnable threads than CPUs a spinner steals the CPU of the very thread
 * it waits for (on 2 CPUs a fixed spin makes 32 creators 4x slower than glibc). So the spin is
 * adaptive, per waiting site (joiner, parked worker):
 *  - at most (CPUs available to the process) threads spin at once: with CPUs - 1, the joiner
 *    still finishing its spin kept the worker that just parked from spinning, so every other
 *    hand-off went through the futex (measured: 1 creator only 1.4-4x faster, 2 creators 0.6x);
 *  - a spin is bounded by a budget of about two futex sleep+wake round trips here (25 us; 12 us
 *    was too short for 2 creators on 2 CPUs, whose hand-offs then failed and fell back to the
 *    futex, slower than glibc);
 *  - nobody spins while the machine has no idle CPU at all: the number of runnable tasks
 *    (/proc/loadavg, re-read at most every 10 ms by whichever waiter finds it stale) must
 *    leave a CPU free, or a spinner only delays the thread that would end its wait (but see
 *    the last point), unless the CPUs this process may use were idle for at least one CPU's
 *    worth of time over the last 50 ms (/proc/stat): an instant's count stays near the CPU
 *    count when every hand-off sleeps, idle CPUs or not (16 creators on 16 cores: 1.2 -> 2.1
 *    million creates/s with this; no change on 2 vCPUs, where 32 creators leave no idle time);
 *  - a score tracks recent outcomes: success raises it by 1, a spin that ran out of budget
 *    lowers it by 2; below zero the site stops spinning and only probes now and then (the probe
 *    interval doubles while probes keep failing), so an oversubscribed machine pays almost
 *    nothing and a machine that becomes idle again gets its spinning back.
 *  - but a spin that ran out while the partner never ran (the joined worker had not picked up
 *    its start routine; the worker's joiner had not returned from its join) leaves the score
 *    alone: it says nothing about how long the work takes, only that the partner waits for a
 *    CPU, typically this very one. Counting those misses trapped one creator on 2 vCPUs in a
 *    slow state in about half the runs (measured: 56-60k creates/s instead of 1.1-1.8 million):
 *    the kernel had woken the worker onto the joiner's CPU, the joiner's spin then held off the
 *    thread it waited for, both sites' scores went negative, everything went through the futex
 *    on one CPU, and with nothing left waiting in a runqueue the kernel never moved a thread to
 *    the idle CPU. Kept spinning, the waiting thread is moved within a few ticks and both
 *    sides spin from then on. The busy-machine check above still stops all spinning when no CPU
 *    is idle, where such a stall is the normal case;
 *  - a waiter whose partner is known to be on a CPU right now may spin on a busy
 *    machine too (the other checks still apply): a joiner whose worker was taken while it
 *    spun (not asleep), a worker whose joiner spins. The hand-off then comes from a running
 *    thread, not from one waiting behind the spinner. Measured on this 2-vCPU VM: 2 creators
 *    +20% (1.2-2.2 instead of 3.0 system calls per create+join), no change at 1, 4 or 32; no
 *    change on a 16-core machine, where the busy check keeps everyone asleep at 16 creators and
 *    more (nobody spins, so no partner is seen running: forced spinning is 20-60% faster there,
 *    and 4x slower than glibc on 2 vCPUs; docs/thread-cache.md).
 *
 * TM_CACHE_SPIN_NS=0 disables spinning, N > 0 forces an N ns spin (for experiments). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/tm_futex.h"
#include "../common/tm_prim.h"
#include "kernel_word.h"
#include "options.h"
#include "stats.h"
#include "tm_cache.h"

#define TM_SPIN_BUDGET_NS 25000 /* ~ two futex sleep + wake round trips on this class of VM */
#define TM_SCORE_MAX 64
#define TM_SCORE_MIN (-64)

struct tm_site {
  TM_OWN_LINES _Atomic int score;
  _Atomic unsigned probe_countdown;
  _Atomic unsigned probe_interval;
};

static struct tm_site tm__sites[TM_SITE_COUNT];
static struct { TM_OWN_LINES _Atomic int n; } tm__spinners;
static int tm__max_spinners;
static int tm__cpus;
/* The busy-machine check's last answer and when it was read (every 10 ms at most); the idle
 * time of the allowed CPUs at the start of the current window (written by the check's winner). */
static struct {
  TM_OWN_LINES _Atomic uint64_t checked_ns;
  _Atomic int busy;
  _Atomic int idle_cpu_seen; /* the last window had >= one allowed CPU's worth of idle time */
  _Atomic long long idle_ticks;
  _Atomic uint64_t idle_at_ns; /* 0: no window started */
} tm__busy;
static cpu_set_t tm__allowed;
static long long tm__tick_ns;
#define TM_IDLE_WINDOW_NS 50000000ULL /* 5 ticks of 10 ms: fewer makes one tick decide */

/* Reads the instantaneous count of runnable tasks (4th field of /proc/loadavg, "R/T") without
 * stdio or allocation. Returns -1 if unavailable. */
static int tm__runnable_tasks(void) {
  char text[128];
  if (tm__prim_read_file("/proc/loadavg", text, sizeof text) <= 0) return -1;
  int field = 0;
  for (char *p = text; *p; ++p) {
    if (*p == ' ') {
      if (++field == 3) {
        int running = 0;
        for (++p; *p >= '0' && *p <= '9'; ++p) running = running * 10 + (*p - '0');
        return running;
      }
    }
  }
  return -1;
}

/* Adds the numbers of one /proc/stat CPU line ("cpuN user nice system idle iowait ...") that
 * are idle time (idle, iowait) to *SUM when CPU N is one this process may run on. */
static void tm__add_idle_of_line(const char *line, long long *sum) {
  const char *p = line + 3;
  if (*p < '0' || *p > '9') return; /* the "cpu" line sums every CPU */
  int cpu = 0;
  for (; *p >= '0' && *p <= '9'; ++p) cpu = cpu * 10 + (*p - '0');
  if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &tm__allowed)) return;
  for (int field = 1; field <= 5; ++field) {
    while (*p == ' ') ++p;
    long long value = 0;
    for (; *p >= '0' && *p <= '9'; ++p) value = value * 10 + (*p - '0');
    if (field >= 4) *sum += value;
  }
}

/* Idle time, in clock ticks, of the CPUs this process may run on: the per-CPU lines of
 * /proc/stat, read without stdio or allocation. -1 if unavailable. */
static long long tm__idle_ticks(void) {
  int fd = tm__prim_open("/proc/stat", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return -1;
  char text[4096];
  size_t have = 0;
  long long sum = 0;
  int cpu_lines = 0, done = 0;
  while (!done) {
    long n = tm__prim_read(fd, text + have, sizeof text - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
    text[have] = 0;
    char *line = text;
    char *end;
    while ((end = memchr(line, '\n', (size_t)(text + have - line))) != NULL) {
      *end = 0;
      if (strncmp(line, "cpu", 3) != 0) { /* the CPU lines come first */
        done = 1;
        break;
      }
      tm__add_idle_of_line(line, &sum);
      ++cpu_lines;
      line = end + 1;
    }
    have = (size_t)(text + have - line);
    memmove(text, line, have);
    if (have >= sizeof text - 1) break; /* a line longer than the buffer: not /proc/stat's */
  }
  tm__prim_close(fd);
  return cpu_lines > 1 ? sum : -1;
}

/* Whether the allowed CPUs were idle for at least one CPU's worth of time on average over the
 * last window of TM_IDLE_WINDOW_NS or more (the answer stays until the next window ends). */
static int tm__idle_cpu_seen(uint64_t now) {
  uint64_t at = atomic_load_explicit(&tm__busy.idle_at_ns, memory_order_relaxed);
  if (at != 0 && now - at < TM_IDLE_WINDOW_NS)
    return atomic_load_explicit(&tm__busy.idle_cpu_seen, memory_order_relaxed);
  long long ticks = tm__idle_ticks();
  long long before = atomic_load_explicit(&tm__busy.idle_ticks, memory_order_relaxed);
  int seen = 0;
  if (ticks >= 0 && at != 0 && ticks >= before)
    seen = (uint64_t)(ticks - before) * (uint64_t)tm__tick_ns >= now - at;
  atomic_store_explicit(&tm__busy.idle_ticks, ticks, memory_order_relaxed);
  atomic_store_explicit(&tm__busy.idle_at_ns, ticks >= 0 ? now : 0, memory_order_relaxed);
  atomic_store_explicit(&tm__busy.idle_cpu_seen, seen, memory_order_relaxed);
  return seen;
}

/* 1 when every CPU already has a runnable task besides the caller, and the CPUs this process
 * may use were not idle for one CPU's worth of time over the last window. */
static int tm__no_idle_cpu(uint64_t now) {
  uint64_t checked = atomic_load_explicit(&tm__busy.checked_ns, memory_order_relaxed);
  if (now - checked > 10000000ULL &&
      atomic_compare_exchange_strong(&tm__busy.checked_ns, &checked, now)) {
    int running = tm__runnable_tasks();
    int spinning = atomic_load_explicit(&tm__spinners.n, memory_order_relaxed);
    /* `running` includes this thread and any of our spinners (they would stop for work). */
    int busy = running >= 0 && running - 1 - spinning >= tm__cpus;
    /* The count is one instant, and hand-offs that sleep keep it near the CPU count (each wake
     * makes two threads of a pair runnable for a moment) while CPUs sit idle: measured on 16
     * cores with 16 creators, 26-28% idle and nobody spinning (1.1-1.3 million creates/s;
     * 2.0 million with spinning). Idle time says what the instant cannot. */
    if (tm__idle_cpu_seen(now)) busy = 0;
    if (atomic_load_explicit(&tm__busy.busy, memory_order_relaxed) != busy)
      atomic_store_explicit(&tm__busy.busy, busy, memory_order_relaxed);
  }
  return atomic_load_explicit(&tm__busy.busy, memory_order_relaxed);
}
static long long tm__fixed_spin_ns;

uint64_t tm__now_ns(void) { return tm__prim_clock_ns(CLOCK_MONOTONIC); }

/* The coarse clock is one read of a kernel page (no TSC read, no VM clock correction): what
 * the hand-off path reads several times per recycle for checks on a scale of milliseconds. */
uint64_t tm__coarse_now_ns(void) {
  uint64_t now = tm__prim_clock_ns(CLOCK_MONOTONIC_COARSE);
  return now ? now : tm__now_ns();
}

uint64_t tm__coarse_resolution_ns(void) {
  static _Atomic uint64_t resolution;
  uint64_t r = atomic_load_explicit(&resolution, memory_order_relaxed);
  if (r == 0) {
    r = tm__prim_clock_resolution_ns(CLOCK_MONOTONIC_COARSE);
    if (r == 0) r = 1;
    atomic_store_explicit(&resolution, r, memory_order_relaxed);
  }
  return r;
}

void tm__wait_init(void) {
  cpu_set_t set;
  int cpus = 1;
  if (tm__prim_getaffinity(&set) == 0)
    cpus = CPU_COUNT(&set);
  else
    CPU_ZERO(&set);
  tm__allowed = set;
  tm__tick_ns = 1000000000LL / tm__prim_clock_ticks();
  tm__max_spinners = cpus > 1 ? cpus : 0;
  tm__cpus = cpus;
  tm__fixed_spin_ns = tm__option(TM_OPT_SPIN_NS);
  for (int i = 0; i < TM_SITE_COUNT; ++i) {
    atomic_store(&tm__sites[i].score, 8);
    atomic_store(&tm__sites[i].probe_interval, 16);
    atomic_store(&tm__sites[i].probe_countdown, 16);
  }
}

/* The futex table size set at start-up (0: none): a forked child starts with a table of its
 * own, sized by the kernel again, and gets it too. */
static long long tm__grown_slots;

void tm__wait_choose_futex_keys(int cache_enabled) {
  /* A disabled cache leaves the program's table alone. */
  long long slots = cache_enabled ? tm__option(TM_OPT_FUTEX_SLOTS) : 0;
  if (slots < 0) {
    long conf = tm__prim_cpus_configured();
    slots = 256;
    while (slots < 256LL * conf && slots < 8192) slots *= 2;
  } else if (slots > 0) {
    long long power = 1; /* the kernel takes powers of two only */
    while (power < slots) power *= 2;
    slots = power;
  }
  if (tm__futex_decide((long)slots) == FUTEX_PRIVATE_FLAG && slots > 0) tm__grown_slots = slots;
}

static inline void tm__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Decides whether this wait may spin and for how long (0: go straight to the futex). */
static long long tm__spin_budget(struct tm_site *site, int partner_running) {
  /* The spin's deadline is read from the vDSO's fine clock (rdtsc): a thread whose TSC is
   * disabled would die of it, where a fresh thread never reads a clock (kernel_word.h). */
  if (atomic_load_explicit(&tm__tsc_may_fault, memory_order_relaxed)) {
    tm__stats_count(TM_COUNT_SKIP_FIXED);
    return 0;
  }
  if (tm__fixed_spin_ns >= 0) {
    if (tm__fixed_spin_ns == 0) tm__stats_count(TM_COUNT_SKIP_FIXED);
    return tm__fixed_spin_ns;
  }
  if (tm__max_spinners == 0) {
    tm__stats_count(TM_COUNT_SKIP_FIXED);
    return 0;
  }
  if (!partner_running && tm__no_idle_cpu(tm__coarse_now_ns())) {
    tm__stats_count(TM_COUNT_SKIP_BUSY);
    return 0;
  }
  if (atomic_load_explicit(&site->score, memory_order_relaxed) < 0) {
    unsigned left = atomic_fetch_sub_explicit(&site->probe_countdown, 1, memory_order_relaxed);
    if (left > 1) {
      tm__stats_count(TM_COUNT_SKIP_SCORE);
      return 0;
    }
    atomic_store_explicit(&site->probe_countdown,
                          atomic_load_explicit(&site->probe_interval, memory_order_relaxed),
                          memory_order_relaxed);
  }
  return TM_SPIN_BUDGET_NS;
}

static void tm__spin_outcome(struct tm_site *site, int success) {
  if (tm__fixed_spin_ns >= 0) return;
  int s = atomic_load_explicit(&site->score, memory_order_relaxed);
  int next =
      success ? (s < TM_SCORE_MAX ? s + 1 : s) : (s - 2 > TM_SCORE_MIN ? s - 2 : TM_SCORE_MIN);
  /* Stores only what changes: the site's line is read by every waiter, and a store, even of
   * the same value, takes it away from the other CPUs. */
  if (next != s) atomic_store_explicit(&site->score, next, memory_order_relaxed);
  unsigned interval = atomic_load_explicit(&site->probe_interval, memory_order_relaxed);
  if (success && interval != 16)
    atomic_store_explicit(&site->probe_interval, 16, memory_order_relaxed);
  else if (!success && next < 0 && interval < 4096)
    atomic_store_explicit(&site->probe_interval, interval * 2, memory_order_relaxed);
}

int tm__spin_until(_Atomic uint32_t *word, uint32_t bits, enum tm_wait_site which,
                   int (*stalled)(const void *), const void *partner, int partner_running) {
  if (atomic_load_explicit(word, memory_order_acquire) & bits) return 1;
  struct tm_site *site = &tm__sites[which];
  long long budget = tm__spin_budget(site, partner_running);
  if (budget <= 0) return 0;
  if (tm__fixed_spin_ns < 0) {
    int n = atomic_fetch_add_explicit(&tm__spinners.n, 1, memory_order_relaxed);
    if (n >= tm__max_spinners) {
      atomic_fetch_sub_explicit(&tm__spinners.n, 1, memory_order_relaxed);
      tm__stats_count(TM_COUNT_SKIP_SPINNERS);
      return 0;
    }
  }
  uint64_t deadline = tm__now_ns() + (uint64_t)budget;
  int met = 0;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (atomic_load_explicit(word, memory_order_acquire) & bits) {
        met = 1;
        break;
      }
      tm__cpu_relax();
    }
    if (met || tm__now_ns() > deadline) break;
  }
  if (tm__fixed_spin_ns < 0) atomic_fetch_sub_explicit(&tm__spinners.n, 1, memory_order_relaxed);
  tm__stats_count(met ? TM_COUNT_SPIN_MET : TM_COUNT_SPIN_RAN_OUT);
  if (met || stalled == NULL || !stalled(partner)) tm__spin_outcome(site, met);
  return met;
}

int tm__futex_wait(_Atomic uint32_t *word, uint32_t expect, const struct timespec *ts,
                   int clock_realtime, int relative) {
  return tm__futex_wait_word((void *)word, expect, ts,
                             (ts == NULL || relative) ? 0
                             : clock_realtime         ? 2
                                                      : 1);
}

void tm__futex_wake(_Atomic uint32_t *word, int count) { tm__futex_wake_word((void *)word, count); }

void tm__wait_after_fork(void) {
  atomic_store(&tm__spinners.n, 0);
  /* The child is single-threaded here: nobody sleeps in the table being replaced. */
  if (tm__grown_slots > 0) tm__futex_set_slots(tm__grown_slots);
}
