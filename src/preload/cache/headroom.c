/* Measures how many more kernel tasks this process may create, so that the cache keeps as many
 * finished, unjoined threads as the process can afford instead of a fixed 8: the
 * machine's pid and thread tables (/proc/sys/kernel/pid_max, threads-max, minus the tasks that
 * exist: /proc/loadavg's 4th field), RLIMIT_NPROC (minus this process's own tasks: the user's
 * other processes cannot be counted cheaply), and the pids controller of every cgroup above
 * this process (pids.max - pids.current, v2 or v1). No allocation, no stdio: open/read only.
 * Being wrong is not a trap: a create that fails with EAGAIN releases what the cache holds and
 * retries (thread.c).
 *
 * Measured when it matters, not at the first create (~24 system calls: most programs never
 * keep more than a few threads): the bound starts at its floor (8) and is measured when the
 * count of finished, unjoined threads nears it (tm__headroom_maybe_refresh), and the idle bound
 * (whose default, 64, the measured bound may raise) when the parks so far could have filled
 * 3/4 of it (a process that parked fewer threads in all cannot have more parked). */
#include "headroom.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../common/tm_prim.h"

static _Atomic long long tm__bound = TM_UNJOINED_FLOOR;
static _Atomic long long tm__measured_ns;      /* 0: never measured */
static _Atomic long long tm__parks_unmeasured; /* tm__idle_bound calls before a measurement */
static int tm__fixed;                          /* TM_CACHE_MAX_UNJOINED came from the environment */
static int tm__idle_fixed;                     /* TM_CACHE_MAX_IDLE came from the environment */

/* Reads at most SIZE-1 bytes of PATH into BUF; length, or -1. */
static long tm__read_file(const char *path, char *buf, size_t size) {
  long n = tm__prim_read_file(path, buf, size);
  return n < 0 ? -1 : n;
}

/* The first decimal number at P (skipping blanks); -1 if none ("max" is none). */
static long long tm__number(const char *p) {
  while (*p == ' ' || *p == '\t') ++p;
  if (*p < '0' || *p > '9') return -1;
  long long v = 0;
  while (*p >= '0' && *p <= '9' && v < (1LL << 50)) v = v * 10 + (*p++ - '0');
  return v;
}

static long long tm__file_number(const char *path) {
  char buf[64];
  return tm__read_file(path, buf, sizeof buf) > 0 ? tm__number(buf) : -1;
}

static long long tm__min_room(long long a, long long b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return a < b ? a : b;
}

/* Tasks on the machine: /proc/loadavg "l1 l5 l15 running/total last_pid". */
static long long tm__tasks_on_machine(void) {
  char buf[128];
  if (tm__read_file("/proc/loadavg", buf, sizeof buf) <= 0) return -1;
  char *slash = strchr(buf, '/');
  return slash ? tm__number(slash + 1) : -1;
}

static long long tm__own_tasks(void) {
  char buf[2048];
  if (tm__read_file("/proc/self/status", buf, sizeof buf) <= 0) return -1;
  char *p = strstr(buf, "\nThreads:");
  return p ? tm__number(p + 9) : -1;
}

static long long tm__pid_room(void) {
  long long used = tm__tasks_on_machine();
  if (used < 0) return -1;
  long long room = -1;
  long long pid_max = tm__file_number("/proc/sys/kernel/pid_max");
  if (pid_max > 0) room = tm__min_room(room, pid_max > used ? pid_max - used : 0);
  long long threads_max = tm__file_number("/proc/sys/kernel/threads-max");
  if (threads_max > 0) room = tm__min_room(room, threads_max > used ? threads_max - used : 0);
  return room;
}

static long long tm__nproc_room(void) {
  unsigned long long limit = 0;
  if (tm__prim_nproc_limit(&limit) != 0 || limit == (unsigned long long)RLIM_INFINITY) return -1;
  long long own = tm__own_tasks();
  long long cur = (long long)limit;
  if (own < 0) own = 1;
  return cur > own ? cur - own : 0;
}

/* pids.max - pids.current of DIR and every directory above it up to ROOT_LEN characters. */
static long long tm__cgroup_walk(char *dir, size_t root_len) {
  long long room = -1;
  for (;;) {
    size_t len = strlen(dir);
    if (len + sizeof "/pids.current" > 512) return room;
    strcpy(dir + len, "/pids.max");
    long long max = tm__file_number(dir);
    strcpy(dir + len, "/pids.current");
    long long cur = tm__file_number(dir);
    dir[len] = 0;
    if (max >= 0 && cur >= 0) room = tm__min_room(room, max > cur ? max - cur : 0);
    if (len <= root_len) return room;
    char *slash = strrchr(dir, '/');
    if (!slash || (size_t)(slash - dir) < root_len) return room;
    *slash = 0;
  }
}

/* From /proc/self/cgroup: the v2 line "0::/path" (/sys/fs/cgroup/path) and the v1 pids line
 * "N:pids:/path" (/sys/fs/cgroup/pids/path); the smaller room of the two. */
static long long tm__cgroup_room(void) {
  char buf[2048];
  if (tm__read_file("/proc/self/cgroup", buf, sizeof buf) <= 0) return -1;
  long long room = -1;
  for (char *line = buf; line && *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = 0;
    const char *root = NULL, *path = NULL;
    if (strncmp(line, "0::", 3) == 0) {
      root = "/sys/fs/cgroup", path = line + 3;
    } else {
      char *c = strchr(line, ':');
      if (c && strncmp(c + 1, "pids:", 5) == 0) root = "/sys/fs/cgroup/pids", path = c + 6;
    }
    if (root && strlen(root) + strlen(path) < 400) {
      char dir[512];
      strcpy(dir, root);
      size_t root_len = strlen(dir);
      if (strcmp(path, "/") != 0) strcat(dir, path);
      room = tm__min_room(room, tm__cgroup_walk(dir, root_len));
    }
    line = end ? end + 1 : NULL;
  }
  return room;
}

long long tm__bound_from_headroom(long long pid_room, long long nproc_room, long long cgroup_room) {
  long long room = tm__min_room(tm__min_room(pid_room, nproc_room), cgroup_room);
  if (room < 0) return TM_UNJOINED_CAP; /* no limit could be read: the cap alone */
  long long bound = room / TM_UNJOINED_SHARE;
  if (bound > TM_UNJOINED_CAP) bound = TM_UNJOINED_CAP;
  if (bound < TM_UNJOINED_FLOOR) bound = TM_UNJOINED_FLOOR;
  return bound;
}

static long long tm__now_ns(void) { return (long long)tm__prim_clock_ns(CLOCK_MONOTONIC_COARSE); }

static void tm__measure(void) {
  long long now = tm__now_ns();
  /* The tasks this process already keeps count as used: a process near its bound measures less
   * room and keeps fewer, so the bound cannot feed on itself. */
  long long bound = tm__bound_from_headroom(tm__pid_room(), tm__nproc_room(), tm__cgroup_room());
  atomic_store_explicit(&tm__bound, bound, memory_order_relaxed);
  atomic_store_explicit(&tm__measured_ns, now > 0 ? now : 1, memory_order_relaxed);
}

void tm__headroom_init(void) {
  tm__idle_fixed = tm__option_from_env(TM_OPT_MAX_IDLE);
  tm__fixed = tm__option_from_env(TM_OPT_MAX_UNJOINED);
  if (tm__fixed)
    atomic_store_explicit(&tm__bound, tm__option(TM_OPT_MAX_UNJOINED), memory_order_relaxed);
}

/* Measures once, by one thread, unless a measurement exists. */
static void tm__measure_first(void) {
  long long never = 0;
  if (atomic_compare_exchange_strong(&tm__measured_ns, &never, 1)) tm__measure();
}

long long tm__unjoined_bound(void) {
  return atomic_load_explicit(&tm__bound, memory_order_relaxed);
}

long long tm__idle_bound(void) {
  long long fixed = tm__option(TM_OPT_MAX_IDLE);
  if (tm__idle_fixed) return fixed;
  if (__builtin_expect(atomic_load_explicit(&tm__measured_ns, memory_order_relaxed) == 0, 0) &&
      !tm__fixed &&
      atomic_fetch_add_explicit(&tm__parks_unmeasured, 1, memory_order_relaxed) + 1 >=
          fixed * 3 / 4)
    tm__measure_first();
  long long bound = atomic_load_explicit(&tm__bound, memory_order_relaxed);
  return bound > fixed ? bound : fixed;
}

void tm__headroom_maybe_refresh(long long unjoined_now) {
  if (tm__fixed) return;
  long long bound = atomic_load_explicit(&tm__bound, memory_order_relaxed);
  if (unjoined_now * 4 < bound * 3) return;
  long long last = atomic_load_explicit(&tm__measured_ns, memory_order_relaxed);
  long long now = tm__now_ns();
  if (now - last < 50 * 1000 * 1000LL) return;
  /* One thread measures; the others keep the bound they see. */
  if (!atomic_compare_exchange_strong(&tm__measured_ns, &last, now)) return;
  tm__measure();
}
