/* The kernel calls of both preload libraries, each behind one static inline function with its
 * contract (as mimalloc's prim layer; tm_futex.h holds the futex calls). No other file of
 * src/preload calls the kernel directly: scripts/check-layers.sh checks it.
 *
 * Common contract, unless a function says otherwise:
 *  - returns 0 on success, or a negative errno value (-EINVAL, ...) on failure; a call with a
 *    result (a count, a descriptor) returns it, >= 0, on success;
 *  - never changes errno, never allocates, never takes a lock: callable from signal handlers,
 *    fork children and the exit path;
 *  - goes to the kernel without libc's syscall(2) wrapper: the cache exports its own syscall
 *    (to see state changes made through it), and a call from inside the library would bind to
 *    that wrapper and be counted as the program's.
 * Header-only (static inline): each library keeps its own hidden copy. */
#ifndef THREADMAP_PRELOAD_COMMON_TM_PRIM_H
#define THREADMAP_PRELOAD_COMMON_TM_PRIM_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* syscall(NUMBER, A1..A6) straight to the kernel. Returns the kernel's answer: >= 0, or
 * -errno. */
static inline long tm__raw_syscall(long number, long a1, long a2, long a3, long a4, long a5,
                                   long a6) {
#if defined(__x86_64__)
  register long r10 __asm__("r10") = a4;
  register long r8 __asm__("r8") = a5;
  register long r9 __asm__("r9") = a6;
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "0"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return r;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a1;
  register long x1 __asm__("x1") = a2;
  register long x2 __asm__("x2") = a3;
  register long x3 __asm__("x3") = a4;
  register long x4 __asm__("x4") = a5;
  register long x5 __asm__("x5") = a6;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory");
  return x0;
#else
  /* Elsewhere through syscall(2): in the cache that binds to its own wrapper, which only
   * adds its bookkeeping (the answer is the kernel's). */
  int saved_errno = errno;
  long r = syscall(number, a1, a2, a3, a4, a5, a6);
  if (r == -1) r = -errno;
  errno = saved_errno;
  return r;
#endif
}

/* ---- files: /proc and /sys reads, the statistics line ------------------------------------ */

/* open(PATH, FLAGS, MODE) relative to the current directory: a descriptor, or -errno. */
static inline int tm__prim_open(const char *path, int flags, int mode) {
  return (int)tm__raw_syscall(SYS_openat, AT_FDCWD, (long)path, flags, mode, 0, 0);
}

/* read(FD) of at most SIZE bytes, EINTR retried: bytes read (0 at the end), or -errno. */
static inline long tm__prim_read(int fd, void *buf, size_t size) {
  long r;
  do r = tm__raw_syscall(SYS_read, fd, (long)buf, (long)size, 0, 0, 0);
  while (r == -EINTR);
  return r;
}

/* write(FD) of SIZE bytes, EINTR retried: bytes written, or -errno. */
static inline long tm__prim_write(int fd, const void *buf, size_t size) {
  long r;
  do r = tm__raw_syscall(SYS_write, fd, (long)buf, (long)size, 0, 0, 0);
  while (r == -EINTR);
  return r;
}

static inline int tm__prim_close(int fd) {
  return (int)tm__raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* Reads at most SIZE - 1 bytes of PATH into BUF, NUL-terminated: the length, or -errno. */
static inline long tm__prim_read_file(const char *path, char *buf, size_t size) {
  int fd = tm__prim_open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return fd;
  size_t have = 0;
  long n = 0;
  while (have < size - 1 && (n = tm__prim_read(fd, buf + have, size - 1 - have)) > 0)
    have += (size_t)n;
  tm__prim_close(fd);
  buf[have] = 0;
  return n < 0 ? n : (long)have;
}

/* readlink(PATH) into BUF (not NUL-terminated): the length, or -errno. */
static inline long tm__prim_readlink(const char *path, char *buf, size_t size) {
  return tm__raw_syscall(SYS_readlinkat, AT_FDCWD, (long)path, (long)buf, (long)size, 0, 0);
}

/* ---- time --------------------------------------------------------------------------------------
 */

/* Sleeps NS nanoseconds (less when a signal interrupts it: the callers poll). */
static inline void tm__prim_sleep_ns(long long ns) {
  struct timespec pause = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
  tm__raw_syscall(SYS_nanosleep, (long)&pause, 0, 0, 0, 0, 0);
}

/* ---- this thread and process ---------------------------------------------------------------- */

static inline pid_t tm__prim_gettid(void) {
  return (pid_t)tm__raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

static inline pid_t tm__prim_getpid(void) {
  return (pid_t)tm__raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

static inline pid_t tm__prim_getppid(void) {
  return (pid_t)tm__raw_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0);
}

/* The calling thread's memory policy mode (MPOL_DEFAULT is 0) in *MODE. */
static inline int tm__prim_get_mempolicy(int *mode) {
  return (int)tm__raw_syscall(SYS_get_mempolicy, (long)mode, 0, 0, 0, 0, 0);
}

/* prctl(OPTION, A2..A5): the kernel's answer (>= 0), or -errno. */
static inline long tm__prim_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
                                  unsigned long a5) {
  return tm__raw_syscall(SYS_prctl, option, (long)a2, (long)a3, (long)a4, (long)a5, 0);
}

/* The calling thread's robust-futex list head (get_robust_list) in *HEAD. */
static inline int tm__prim_get_robust_list(void **head) {
  size_t len;
  return (int)tm__raw_syscall(SYS_get_robust_list, 0, (long)head, (long)&len, 0, 0, 0);
}

/* Disables the calling thread's alternate signal stack: 0, or -EPERM while running on it. */
static inline int tm__prim_sigaltstack_disable(void) {
  stack_t off = {.ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0};
  return (int)tm__raw_syscall(SYS_sigaltstack, (long)&off, 0, 0, 0, 0, 0);
}

/* 1 when PID is a child of this process that has not ended (running or stopped), 0 when it
 * ended (a zombie, left for its reaper: WNOWAIT) or is no child of ours (reaped already). */
static inline int tm__prim_child_running(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  long r = tm__raw_syscall(SYS_waitid, P_PID, pid, (long)&info, WEXITED | WNOHANG | WNOWAIT, 0, 0);
  return r == 0 && info.si_pid == 0;
}

#endif
