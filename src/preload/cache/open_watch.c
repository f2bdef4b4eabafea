/* Opens the cache must notice, seen through the open family (open, openat, their 64 and
 * _FORTIFY_SOURCE (__open_2) forms, creat, fopen, freopen, opendir; syscall(2) in
 * shadow_interpose.c). Each wrapper checks the path only when it matters and calls the next
 * definition unchanged.
 *  - A cgroup membership file opened for writing ("tasks", "cgroup.procs", "cgroup.threads"):
 *    whatever tid is written next moves that thread into another cgroup, and clone puts a new
 *    thread into its creator's cgroup. The opening thread gets a new identity and, since the tid
 *    written may be any thread's, every thread renews its own (identity.h): nothing parked
 *    before serves a create after. A file of another name called "tasks" costs that reuse, no
 *    more. A move made from another process is not seen (docs/thread-cache-state.md).
 *  - This process's task list opened as a directory (/proc/self/task, /proc/PID/task): the
 *    program counts its tasks (glibc's support_wait_for_thread_exit waits for one) and should
 *    see glibc's count: the cache lets its kept tasks go and keeps none for a second after
 *    (decided: simple; programs that read it are tests and sandboxes that want to be single-
 *    threaded, and a program that never reads it pays nothing). */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/tm_prim.h"
#include "interpose_next.h"
#include "kernel_word.h"
#include "shadow.h"

#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))
#define TM_TASK_LIST_WINDOW_NS 1000000000ULL

// clang-format off
#define TM_OPEN_WRAPPED(X)                                                                     \
  X(open) X(open64) X(openat) X(openat64) X(__open_2) X(__open64_2) X(__openat_2)            \
  X(__openat64_2) X(creat) X(creat64) X(fopen) X(fopen64) X(freopen) X(freopen64) X(opendir)
// clang-format on
TM_NEXT_SLOTS(TM_OPEN_WRAPPED, tm__open_interpose_init)

static int tm__is_membership_file(const char *path) {
  if (path == NULL) return 0;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  return strcmp(base, "tasks") == 0 || strcmp(base, "cgroup.procs") == 0 ||
         strcmp(base, "cgroup.threads") == 0;
}

/* A per-thread /proc file that sets what clone copies or the cache gives every new thread:
 * "comm", "timerslack_ns", "loginuid", or under "attr/" (LSM labels), under /proc (or a
 * relative path, which may be opened from a /proc directory descriptor). */
enum { TM_PROC_NONE, TM_PROC_NAME, TM_PROC_SLACK, TM_PROC_IDENTITY };
static int tm__proc_thread_file(const char *path) {
  if (path == NULL || (path[0] == '/' && strncmp(path, "/proc/", 6) != 0)) return TM_PROC_NONE;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "comm") == 0) return TM_PROC_NAME;
  if (strcmp(base, "timerslack_ns") == 0) return TM_PROC_SLACK;
  if (strcmp(base, "loginuid") == 0 || strstr(path, "attr/") != NULL) return TM_PROC_IDENTITY;
  return TM_PROC_NONE;
}

void tm__note_open_for_write(const char *path) {
  if (tm__is_membership_file(path)) {
    /* The write comes later, maybe from another thread, and names any tid: from now on no
     * parked thread is known to be in its creator's cgroup (kernel_word.h). */
    tm__identity_changed(TM_CAUSE_CGROUP);
    tm__identity_foreign(TM_CAUSE_CGROUP);
    tm__stop_reuse(TM_CAUSE_CGROUP);
    return;
  }
  switch (tm__proc_thread_file(path)) {
    case TM_PROC_NAME: /* written at any time through this descriptor: read where it matters */
      tm__kernel_items_add(TM_S_NAME);
      break;
    case TM_PROC_SLACK:
      tm__kernel_items_add(TM_S_SLACK);
      break;
    case TM_PROC_IDENTITY: /* the audit login uid, an LSM label: copied by clone */
      tm__identity_changed(TM_CAUSE_PROC_WRITE);
      tm__identity_foreign(TM_CAUSE_PROC_WRITE);
      tm__stop_reuse(TM_CAUSE_PROC_WRITE);
      break;
    default:
      break;
  }
}

static void tm__note_open(const char *path, int flags) {
  if ((flags & O_ACCMODE) != O_RDONLY) tm__note_open_for_write(path);
}

static void tm__note_fopen(const char *path, const char *mode) {
  if (mode && (strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+')))
    tm__note_open_for_write(path);
}

/* The mode argument exists only with O_CREAT or O_TMPFILE; it is read then, as glibc does. */
#define TM_OPEN_MODE(flags, last)          \
  int mode = 0;                            \
  if ((flags) & (O_CREAT | __O_TMPFILE)) { \
    va_list ap;                            \
    va_start(ap, last);                    \
    mode = va_arg(ap, int);                \
    va_end(ap);                            \
  }

TM_EXPORT int open(const char *path, int flags, ...) {
  TM_NEXT(int (*)(const char *, int, ...), open);
  TM_OPEN_MODE(flags, flags);
  tm__note_open(path, flags);
  return next(path, flags, mode);
}

TM_EXPORT int open64(const char *path, int flags, ...) {
  TM_NEXT(int (*)(const char *, int, ...), open64);
  TM_OPEN_MODE(flags, flags);
  tm__note_open(path, flags);
  return next(path, flags, mode);
}

TM_EXPORT int openat(int dir, const char *path, int flags, ...) {
  TM_NEXT(int (*)(int, const char *, int, ...), openat);
  TM_OPEN_MODE(flags, flags);
  tm__note_open(path, flags);
  return next(dir, path, flags, mode);
}

TM_EXPORT int openat64(int dir, const char *path, int flags, ...) {
  TM_NEXT(int (*)(int, const char *, int, ...), openat64);
  TM_OPEN_MODE(flags, flags);
  tm__note_open(path, flags);
  return next(dir, path, flags, mode);
}

extern int __open_2(const char *path, int flags);
extern int __open64_2(const char *path, int flags);
extern int __openat_2(int dir, const char *path, int flags);
extern int __openat64_2(int dir, const char *path, int flags);

TM_EXPORT int __open_2(const char *path, int flags) {
  TM_NEXT(int (*)(const char *, int), __open_2);
  tm__note_open(path, flags);
  return next(path, flags);
}

TM_EXPORT int __open64_2(const char *path, int flags) {
  TM_NEXT(int (*)(const char *, int), __open64_2);
  tm__note_open(path, flags);
  return next(path, flags);
}

TM_EXPORT int __openat_2(int dir, const char *path, int flags) {
  TM_NEXT(int (*)(int, const char *, int), __openat_2);
  tm__note_open(path, flags);
  return next(dir, path, flags);
}

TM_EXPORT int __openat64_2(int dir, const char *path, int flags) {
  TM_NEXT(int (*)(int, const char *, int), __openat64_2);
  tm__note_open(path, flags);
  return next(dir, path, flags);
}

TM_EXPORT int creat(const char *path, mode_t mode) {
  TM_NEXT(int (*)(const char *, mode_t), creat);
  tm__note_open_for_write(path);
  return next(path, mode);
}

TM_EXPORT int creat64(const char *path, mode_t mode) {
  TM_NEXT(int (*)(const char *, mode_t), creat64);
  tm__note_open_for_write(path);
  return next(path, mode);
}

TM_EXPORT FILE *fopen(const char *path, const char *mode) {
  TM_NEXT(FILE * (*)(const char *, const char *), fopen);
  tm__note_fopen(path, mode);
  return next(path, mode);
}

TM_EXPORT FILE *fopen64(const char *path, const char *mode) {
  TM_NEXT(FILE * (*)(const char *, const char *), fopen64);
  tm__note_fopen(path, mode);
  return next(path, mode);
}

TM_EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream) {
  TM_NEXT(FILE * (*)(const char *, const char *, FILE *), freopen);
  tm__note_fopen(path, mode);
  return next(path, mode, stream);
}

TM_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream) {
  TM_NEXT(FILE * (*)(const char *, const char *, FILE *), freopen64);
  tm__note_fopen(path, mode);
  return next(path, mode, stream);
}

/* 1 when PATH names this process's task list: /proc/self/task or /proc/PID/task with our pid
 * (a trailing '/' allowed). */
static int tm__is_own_task_list(const char *path) {
  if (path == NULL || strncmp(path, "/proc/", 6) != 0) return 0;
  const char *rest = path + 6;
  if (strncmp(rest, "self/task", 9) == 0) {
    rest += 9;
  } else {
    long pid = 0;
    while (*rest >= '0' && *rest <= '9') pid = pid * 10 + (*rest++ - '0');
    if (pid != (long)tm__prim_getpid() || strncmp(rest, "/task", 5) != 0) return 0;
    rest += 5;
  }
  return *rest == 0 || (*rest == '/' && rest[1] == 0);
}

TM_EXPORT DIR *opendir(const char *path) {
  TM_NEXT(DIR * (*)(const char *), opendir);
  if (tm__is_own_task_list(path) && tm__ready()) tm__keep_nothing_for(TM_TASK_LIST_WINDOW_NS);
  return next(path);
}
