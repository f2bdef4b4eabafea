/* TM_CACHE_STATS: counters and their one line per process.
 *
 * TM_CACHE_STATS=1 prints "thread cache stats: ..." on stderr at exit. TM_CACHE_STATS=/FILE
 * (any value starting with '/') appends one line per process to FILE, a contract with readers
 * (`threadmap run --thread-cache --stats` sums a process tree's lines):
 *
 *   tm-cache-stats/1 pid=1234 ppid=1200 comm=java from-cache=1994 from-system=6 bypassed=0
 *   own-exits=0 spin-met=10 spin-ran-out=2 no-spin-busy=0 no-spin-score=0 no-spin-spinners=0
 *   no-spin-fixed=0 peak-idle=3 retired.idle-timeout=2 retired.syscall-160=1 retired.fork=1
 *
 * (one line). Tokens are separated by one space; each after the tag is key=value; values are
 * decimal except comm (the process's name, spaces and '=' replaced by '_'). from-cache: creates
 * served by a parked thread; from-system: creates that made a new cacheable thread; bypassed:
 * creates handed to glibc untouched. retired.CAUSE=N: one token per cause that retired at
 * least one physical thread (tm__cause_names; prctl-N and syscall-N name an option or system
 * call number). Readers ignore keys they do not know.
 *
 * (one line, then " final=1" at a normal end, " final=0" in a live record). Where: a process
 * that creates a thread keeps a fixed-width record of this line in FILE from its first create
 * (stats_record.c), so that an end nothing catches (a killing signal, Go's raw exit_group) still
 * leaves its counts as of the last update; a process that creates none writes the line at its
 * end only. When: at the process's end as far as it can be caught: the library's destructor
 * (main's return, exit from any thread, after atexit handlers: a program that closes stderr
 * there still reports to FILE), the interposed _exit/_Exit and syscall(SYS_exit_group). Once
 * per process (a fork child starts its own counters and line; a vfork or raw-clone child
 * sharing our memory writes nothing). The line is ONE write(2) on a descriptor opened
 * O_APPEND|O_CLOEXEC at that moment, built in a fixed buffer (no stdio, no allocation), so
 * lines of concurrent processes never interleave. */
#include "stats.h"

#include <fcntl.h>
#include <sys/prctl.h>

#include "../common/tm_prim.h"
#include "kernel_word.h"
#include "options.h"

int tm__stats_on;
static _Atomic unsigned long long tm__counts[TM_COUNT_N];
static _Atomic unsigned long long tm__retired[TM_CAUSE_COUNT];
static _Atomic long long tm__peak_idle;
static _Atomic unsigned long long tm__retired_total; /* tells the record something changed */
static char tm__stats_path[1024];                    /* TM_CACHE_STATS=/FILE */
static pid_t tm__stats_pid;                          /* the process the counters belong to */
static _Atomic int tm__stats_written;

void tm__stats_init(void) {
  long long mode = tm__option(TM_OPT_STATS);
  const char *path = tm__option_text(TM_OPT_STATS);
  if (mode == TM_STATS_TO_FILE && path && strlen(path) < sizeof tm__stats_path)
    strcpy(tm__stats_path, path);
  else if (mode == TM_STATS_TO_FILE)
    mode = 0; /* a path longer than PATH_MAX's share: no line rather than a wrong file */
  if (mode != 0) tm__stats_pid = tm__prim_getpid(); /* off: no system call at start-up */
  tm__stats_on = mode != 0;
}

void tm__stats_after_fork(void) {
  for (int i = 0; i < TM_COUNT_N; ++i)
    atomic_store_explicit(&tm__counts[i], 0, memory_order_relaxed);
  for (int i = 0; i < TM_CAUSE_COUNT; ++i)
    atomic_store_explicit(&tm__retired[i], 0, memory_order_relaxed);
  atomic_store_explicit(&tm__peak_idle, 0, memory_order_relaxed);
  atomic_store_explicit(&tm__retired_total, 0, memory_order_relaxed);
  tm__stats_record_after_fork();
  atomic_store_explicit(&tm__stats_written, 0, memory_order_relaxed);
  tm__stats_pid = tm__prim_getpid();
}

void tm__stats_count(enum tm_count what) {
  if (!tm__stats_on) return;
  atomic_fetch_add_explicit(&tm__counts[what], 1, memory_order_relaxed);
  /* The first create (a cached one always follows one of these) starts the live record. */
  if (what == TM_COUNT_FROM_SYSTEM || what == TM_COUNT_BYPASSED) tm__stats_record_start();
}

void tm__stats_retired(unsigned cause) {
  if (cause >= TM_CAUSE_COUNT) cause = TM_CAUSE_IDENTITY;
  if (!tm__stats_on) return;
  atomic_fetch_add_explicit(&tm__retired[cause], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&tm__retired_total, 1, memory_order_relaxed);
}

void tm__stats_peak_idle(long long idle_now) {
  if (!tm__stats_on) return;
  long long peak = atomic_load_explicit(&tm__peak_idle, memory_order_relaxed);
  while (idle_now > peak &&
         !atomic_compare_exchange_weak_explicit(&tm__peak_idle, &peak, idle_now,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
}

/* The contract's words for the causes below TM_CAUSE_WORDS. */
static const char *const tm__cause_names[TM_CAUSE_WORDS] = {
    [TM_CAUSE_CANCELLED] = "cancelled",
    [TM_CAUSE_GLIBC_EXIT] = "glibc-exit",
    [TM_CAUSE_IDLE_LIMIT] = "idle-limit",
    [TM_CAUSE_IDLE_TIMEOUT] = "idle-timeout",
    [TM_CAUSE_ROBUST] = "robust-mutex",
    [TM_CAUSE_PROCESS] = "process",
    [TM_CAUSE_UNJOINED] = "unjoined-limit",
    [TM_CAUSE_FORK] = "fork",
    [TM_CAUSE_SIGNAL_PENDING] = "signal-pending",
    [TM_CAUSE_CREDENTIALS] = "credentials",
    [TM_CAUSE_CAPABILITIES] = "capabilities",
    [TM_CAUSE_NAMESPACE] = "namespace",
    [TM_CAUSE_SECCOMP] = "seccomp",
    [TM_CAUSE_MEMPOLICY] = "mempolicy",
    [TM_CAUSE_SIGALTSTACK] = "sigaltstack",
    [TM_CAUSE_TIMER] = "timer",
    [TM_CAUSE_IDENTITY] = "identity",
    [TM_CAUSE_CGROUP] = "cgroup",
    [TM_CAUSE_SCHEDULING] = "scheduling",
    [TM_CAUSE_PROC_WRITE] = "proc-write",
};

/* A line in a caller's buffer of SIZE bytes; what does not fit is dropped (the retirement
 * causes are folded into retired.other before that happens: tm__file_line). */
struct tm_text {
  char *buf;
  size_t size;
  size_t n;
};

static void tm__put(struct tm_text *t, const char *s) {
  while (*s && t->n < t->size - 1) t->buf[t->n++] = *s++;
}

static void tm__put_number(struct tm_text *t, unsigned long long v) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0 && t->n < t->size - 1) t->buf[t->n++] = digits[--n];
}

static void tm__put_pair(struct tm_text *t, const char *key, unsigned long long v) {
  tm__put(t, key);
  tm__put(t, "=");
  tm__put_number(t, v);
}

/* The cause's name: a word, or prctl-N / syscall-N. */
static void tm__put_cause(struct tm_text *t, unsigned cause) {
  if (cause < TM_CAUSE_WORDS) {
    tm__put(t, tm__cause_names[cause] ? tm__cause_names[cause] : "identity");
  } else if (cause >= TM_CAUSE_PRCTL && cause < TM_CAUSE_PRCTL_END) {
    tm__put(t, "prctl-");
    tm__put_number(t, cause - TM_CAUSE_PRCTL);
  } else {
    tm__put(t, "syscall-");
    tm__put_number(t, cause - TM_CAUSE_SYSCALL);
  }
}

void tm__stats_read_comm(char comm[TM_COMM_BYTES]) {
  long n = tm__prim_read_file("/proc/self/comm", comm, TM_COMM_BYTES);
  if (n > 0 && comm[n - 1] == '\n') comm[--n] = 0;
  if (n <= 0) strcpy(comm, "_");
  for (char *c = comm; *c; ++c)
    if (*c == ' ' || *c == '=' || (unsigned char)*c < 0x21 || *c == 0x7f) *c = '_';
}

static const char *const tm__wait_names[] = {"spin-met",      "spin-ran-out",     "no-spin-busy",
                                             "no-spin-score", "no-spin-spinners", "no-spin-fixed"};

/* Room kept for " retired.other=N final=N" after the causes that fit. */
enum { TM_TAIL_ROOM = 64, TM_CAUSE_ROOM = 48 };

size_t tm__stats_file_line(char *buf, size_t size, const char *comm, int final) {
  struct tm_text text = {buf, size, 0}, *t = &text;
  tm__put(t, "tm-cache-stats/1 ");
  tm__put_pair(t, "pid", (unsigned long long)tm__prim_getpid());
  tm__put_pair(t, " ppid", (unsigned long long)tm__prim_getppid());
  tm__put(t, " comm=");
  tm__put(t, comm);
  tm__put_pair(t, " from-cache", tm__counts[TM_COUNT_FROM_CACHE]);
  tm__put_pair(t, " from-system", tm__counts[TM_COUNT_FROM_SYSTEM]);
  tm__put_pair(t, " bypassed", tm__counts[TM_COUNT_BYPASSED]);
  tm__put_pair(t, " own-exits", tm__counts[TM_COUNT_OWN_EXITS]);
  for (int i = TM_COUNT_SPIN_MET; i <= TM_COUNT_SKIP_FIXED; ++i) {
    tm__put(t, " ");
    tm__put_pair(t, tm__wait_names[i - TM_COUNT_SPIN_MET], tm__counts[i]);
  }
  tm__put_pair(t, " peak-idle", (unsigned long long)tm__peak_idle);
  tm__put_pair(t, " kernel-mask",
               (unsigned long long)atomic_load_explicit(&tm__kernel_mask, memory_order_relaxed));
  /* Causes that would not fit (dozens of distinct ones) are summed as retired.other. */
  unsigned long long other = 0;
  for (unsigned c = 1; c < TM_CAUSE_COUNT; ++c) {
    unsigned long long n = tm__retired[c];
    if (n == 0) continue;
    if (t->n + TM_CAUSE_ROOM + TM_TAIL_ROOM >= t->size) {
      other += n;
      continue;
    }
    tm__put(t, " retired.");
    tm__put_cause(t, c);
    tm__put_pair(t, "", n);
  }
  if (other) tm__put_pair(t, " retired.other", other);
  tm__put_pair(t, " final", final ? 1 : 0);
  t->buf[t->n] = 0;
  return t->n;
}

static void tm__stderr_line(struct tm_text *t) {
  tm__line prefix; /* "threadmap: " and the tag of `run --ranks` (tm_line.h) */
  tm__line_start(&prefix);
  prefix.text[prefix.length] = 0;
  tm__put(t, prefix.text);
  tm__put(t, "thread cache stats: creates ");
  tm__put_pair(t, "from-cache", tm__counts[TM_COUNT_FROM_CACHE]);
  tm__put_pair(t, " from-system", tm__counts[TM_COUNT_FROM_SYSTEM]);
  tm__put_pair(t, " bypassed", tm__counts[TM_COUNT_BYPASSED]);
  tm__put_pair(t, "; pthread_exit kept", tm__counts[TM_COUNT_OWN_EXITS]);
  tm__put(t, "; waits");
  for (int i = TM_COUNT_SPIN_MET; i <= TM_COUNT_SKIP_FIXED; ++i) {
    tm__put(t, " ");
    tm__put_pair(t, tm__wait_names[i - TM_COUNT_SPIN_MET], tm__counts[i]);
  }
  tm__put(t, "; retired");
  int any = 0;
  for (unsigned c = 1; c < TM_CAUSE_COUNT; ++c) {
    unsigned long long n = tm__retired[c];
    if (n == 0) continue;
    tm__put(t, " ");
    tm__put_cause(t, c);
    tm__put_pair(t, "", n);
    any = 1;
  }
  if (!any) tm__put(t, " none");
  tm__put_pair(t, "; peak idle threads", (unsigned long long)tm__peak_idle);
  static const char *const why[] = {"", "; signal masks read from the kernel (option)",
                                    "; signal masks read from the kernel (Go runtime)",
                                    "; signal masks read from the kernel (a mask changed unseen)"};
  int km = atomic_load_explicit(&tm__kernel_mask, memory_order_relaxed);
  if (km > 0 && km < 4) tm__put(t, why[km]);
  tm__put(t, "\n");
}

unsigned long long tm__stats_changes(void) {
  unsigned long long sum = atomic_load_explicit(&tm__retired_total, memory_order_relaxed);
  for (int i = 0; i < TM_COUNT_N; ++i)
    sum += atomic_load_explicit(&tm__counts[i], memory_order_relaxed);
  return sum + (unsigned long long)atomic_load_explicit(&tm__peak_idle, memory_order_relaxed) +
         (unsigned long long)atomic_load_explicit(&tm__kernel_mask, memory_order_relaxed);
}

const char *tm__stats_file(void) { return tm__stats_path[0] ? tm__stats_path : NULL; }

int tm__stats_open_append(int *inherited) {
  *inherited = 0;
  long long passed = tm__option(TM_OPT_STATS_FD), inode = tm__option(TM_OPT_STATS_INODE);
  int checked = passed >= 0 && inode > 0;
  struct tm_file_id id = {0, 0, 0};
  /* The file `run` made exists already: no O_CREAT then (in another root or mount namespace it
   * would make a stray file of that name, where nobody reads it). */
  int fd = tm__prim_open(tm__stats_path, O_WRONLY | O_APPEND | O_CLOEXEC | (checked ? 0 : O_CREAT),
                         0666);
  if (fd >= 0 &&
      (!checked || (tm__prim_file_id(fd, &id) == 0 && id.ino == (unsigned long long)inode)))
    return fd;
  if (fd >= 0) {
    tm__prim_close(fd); /* another file of that name */
    fd = -ENOENT;
  }
  if (!checked) return fd;
  /* The descriptor the process inherited, if it is still that file, open for appending (a
   * program that closed it may have reused its number for a file of its own). */
  long flags = tm__prim_fcntl((int)passed, F_GETFL, 0);
  if (flags < 0 || !(flags & O_APPEND) || (flags & O_ACCMODE) == O_RDONLY ||
      tm__prim_file_id((int)passed, &id) != 0 || id.ino != (unsigned long long)inode)
    return fd;
  long copy = tm__prim_fcntl((int)passed, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) return fd;
  *inherited = 1;
  return (int)copy;
}

void tm__stats_cannot_write(int err) {
  static _Atomic int told;
  if (atomic_exchange(&told, 1)) return;
  char comm[TM_COMM_BYTES];
  tm__stats_read_comm(comm);
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "thread cache: statistics of pid ");
  tm__line_long(&line, (long long)tm__prim_getpid());
  tm__line_str(&line, " (");
  tm__line_str(&line, comm);
  tm__line_str(&line, ", uid ");
  tm__line_long(&line, (long long)geteuid());
  tm__line_str(&line, ") cannot be written to TM_CACHE_STATS=");
  tm__line_str(&line, tm__stats_path);
  tm__line_str(&line, ": errno ");
  tm__line_long(&line, err);
  tm__line_emit(&line);
}

static unsigned long long tm__stats_creates(void) {
  return atomic_load(&tm__counts[TM_COUNT_FROM_CACHE]) +
         atomic_load(&tm__counts[TM_COUNT_FROM_SYSTEM]) +
         atomic_load(&tm__counts[TM_COUNT_BYPASSED]);
}

void tm__stats_at_exit(void) {
  if (!tm__stats_on) return;
  /* A child that shares our memory (vfork, a raw clone) is not the process counted here. */
  if (tm__prim_getpid() != tm__stats_pid) return;
  if (atomic_exchange(&tm__stats_written, 1)) return;
  int saved_errno = errno;
  /* A process with a live record (it created a thread) finalises it in place. */
  if (tm__stats_path[0] && tm__stats_record_final()) {
    errno = saved_errno;
    return;
  }
  static char line[4096]; /* static: the exit path may run on a small stack */
  int fd = 2;
  size_t n;
  if (tm__stats_path[0]) {
    /* A process that made no create has nothing to count (a shell, a fork child that only
     * exec'd): no line, so a tree of 400 such processes leaves no 400 empty lines. */
    if (tm__stats_creates() == 0) {
      errno = saved_errno;
      return;
    }
    static char comm[TM_COMM_BYTES];
    tm__stats_read_comm(comm);
    n = tm__stats_file_line(line, sizeof line - 1, comm, 1);
    line[n++] = '\n';
    int inherited;
    fd = tm__stats_open_append(&inherited);
    if (fd < 0) tm__stats_cannot_write(-fd);
  } else {
    struct tm_text text = {line, sizeof line, 0};
    tm__stderr_line(&text);
    n = text.n;
  }
  if (fd >= 0) {
    tm__prim_write(fd, line, n);
    if (fd != 2) tm__prim_close(fd);
  }
  errno = saved_errno;
}
