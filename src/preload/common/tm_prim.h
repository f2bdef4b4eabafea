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
#include <sys/mman.h>
#include <sys/stat.h>
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

/* pwrite(FD) of SIZE bytes at OFFSET, EINTR retried: bytes written, or -errno. */
static inline long tm__prim_pwrite(int fd, const void *buf, size_t size, long long offset) {
  long r;
  do r = tm__raw_syscall(SYS_pwrite64, fd, (long)buf, (long)size, (long)offset, 0, 0);
  while (r == -EINTR);
  return r;
}

/* FD's current offset (lseek(FD, 0, SEEK_CUR)), or -errno. */
static inline long long tm__prim_offset(int fd) {
  return tm__raw_syscall(SYS_lseek, fd, 0, SEEK_CUR, 0, 0, 0);
}

/* What identifies FD's file and its size: 0, or -errno. A regular file only (-EINVAL else). */
struct tm_file_id {
  unsigned long long dev, ino;
  long long size;
};
static inline int tm__prim_file_id(int fd, struct tm_file_id *id) {
  struct stat st;
  long r = tm__raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
  if (r < 0) return (int)r;
  if (!S_ISREG(st.st_mode)) return -EINVAL;
  id->dev = (unsigned long long)st.st_dev;
  id->ino = (unsigned long long)st.st_ino;
  id->size = (long long)st.st_size;
  return 0;
}

/* readlink(PATH) into BUF (not NUL-terminated): the length, or -errno. */
static inline long tm__prim_readlink(const char *path, char *buf, size_t size) {
  return tm__raw_syscall(SYS_readlinkat, AT_FDCWD, (long)path, (long)buf, (long)size, 0, 0);
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* SIZE bytes of zeroed, private, read-write memory, or NULL. */
static inline void *tm__prim_map(size_t size) {
  long r = tm__raw_syscall(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return r < 0 && r > -4096 ? NULL : (void *)r;
}

static inline int tm__prim_unmap(void *memory, size_t size) {
  return (int)tm__raw_syscall(SYS_munmap, (long)memory, (long)size, 0, 0, 0, 0);
}

/* Gives the pages of [LO, LO + SIZE) back (MADV_DONTNEED: they read as zeros after). */
static inline int tm__prim_drop_pages(void *lo, size_t size) {
  return (int)tm__raw_syscall(SYS_madvise, (long)lo, (long)size, MADV_DONTNEED, 0, 0, 0);
}

/* ---- time ------------------------------------------------------------------------------------ */

/* CLOCK's time in nanoseconds (glibc's clock_gettime: the vDSO, no system call for the
 * monotonic clocks), 0 when the clock cannot be read. The one exception to the errno rule:
 * glibc sets errno when the clock is invalid, which the monotonic clocks the libraries pass
 * never are (saving errno around it cost 18 instructions per hand-off, on the hot path). */
static inline uint64_t tm__prim_clock_ns(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CLOCK's resolution in nanoseconds, 0 when unknown. */
static inline uint64_t tm__prim_clock_resolution_ns(clockid_t clock) {
  struct timespec ts;
  int saved_errno = errno;
  int r = clock_getres(clock, &ts);
  errno = saved_errno;
  return r != 0 ? 0 : (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Sleeps NS nanoseconds (less when a signal interrupts it: the callers poll). */
static inline void tm__prim_sleep_ns(long long ns) {
  struct timespec pause = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
  tm__raw_syscall(SYS_nanosleep, (long)&pause, 0, 0, 0, 0, 0);
}

static inline void tm__prim_yield(void) { tm__raw_syscall(SYS_sched_yield, 0, 0, 0, 0, 0, 0); }

/* ---- the machine (glibc's sysconf: /sys and the auxiliary vector) ------------------------- */

/* Configured CPUs (at least 1). glibc's sysconf reads /sys/devices/system/cpu/possible on
 * every call (three system calls), and the cache asks at its first create from two files: the
 * answer is kept, once per library (a weak definition: one for all files that include this). */
__attribute__((weak, visibility("hidden"))) long tm__prim_cpus_seen;
static inline long tm__prim_cpus_configured(void) {
  long n = __atomic_load_n(&tm__prim_cpus_seen, __ATOMIC_RELAXED);
  if (n > 0) return n;
  int saved_errno = errno;
  n = sysconf(_SC_NPROCESSORS_CONF);
  errno = saved_errno;
  n = n < 1 ? 1 : n;
  __atomic_store_n(&tm__prim_cpus_seen, n, __ATOMIC_RELAXED);
  return n;
}

static inline long tm__prim_page_size(void) {
  long n = sysconf(_SC_PAGESIZE);
  return n > 0 ? n : 4096;
}

/* Clock ticks per second of /proc/stat's counters (USER_HZ), 100 when unknown. */
static inline long tm__prim_clock_ticks(void) {
  long n = sysconf(_SC_CLK_TCK);
  return n > 0 ? n : 100;
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

/* The CPU the calling thread runs on, -1 if unknown (glibc's sched_getcpu: rseq's cpu_id, no
 * system call, where glibc registered rseq). */
static inline int tm__prim_getcpu(void) {
  int saved_errno = errno;
  int cpu = sched_getcpu();
  errno = saved_errno;
  return cpu;
}

/* The calling thread's affinity in *SET (whole mask: bytes the kernel does not fill are 0). */
static inline int tm__prim_getaffinity(cpu_set_t *set) {
  memset(set, 0, sizeof *set);
  long r = tm__raw_syscall(SYS_sched_getaffinity, 0, sizeof *set, (long)set, 0, 0, 0);
  return r < 0 ? (int)r : 0;
}

/* The calling thread's affinity in the SIZE bytes at MASK (bytes the kernel does not fill are
 * 0), for masks sized otherwise than cpu_set_t. */
static inline int tm__prim_getaffinity_bytes(void *mask, size_t size) {
  memset(mask, 0, size);
  long r = tm__raw_syscall(SYS_sched_getaffinity, 0, (long)size, (long)mask, 0, 0, 0);
  return r < 0 ? (int)r : 0;
}

/* struct sched_attr of the calling thread (SIZE bytes at ATTR). */
static inline int tm__prim_sched_getattr(void *attr, unsigned size) {
  return (int)tm__raw_syscall(SYS_sched_getattr, 0, (long)attr, size, 0, 0, 0);
}

/* The calling thread's nice value set to NICE. */
static inline int tm__prim_set_nice(int nice) {
  return (int)tm__raw_syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, 0, nice, 0, 0, 0);
}

/* The signals pending for the calling thread or its process, in *SET (the kernel's 8 bytes;
 * the rest of the glibc set is 0). */
static inline int tm__prim_sigpending(sigset_t *set) {
  memset(set, 0, sizeof *set);
  return (int)tm__raw_syscall(SYS_rt_sigpending, (long)set, _NSIG / 8, 0, 0, 0, 0);
}

/* Takes one signal of SET pending for the calling thread (its own set first, then the
 * process's, as the kernel dequeues) without running its handler: the signal number, or -errno
 * (-EAGAIN: none pending). Never waits. */
static inline int tm__prim_take_signal(const sigset_t *set) {
  struct timespec zero = {0, 0};
  return (int)tm__raw_syscall(SYS_rt_sigtimedwait, (long)set, 0, (long)&zero, _NSIG / 8, 0, 0);
}

/* fcntl(FD, CMD, ARG): its result, or -errno. */
static inline long tm__prim_fcntl(int fd, int cmd, long arg) {
  return tm__raw_syscall(SYS_fcntl, fd, cmd, arg, 0, 0, 0);
}

#if defined(__x86_64__)
/* The calling thread's GS base through arch_prctl(ARCH_GET_GS): 0 and *BASE, or -errno. */
static inline int tm__prim_gs_base(unsigned long *base) {
  return (int)tm__raw_syscall(SYS_arch_prctl, 0x1004 /* ARCH_GET_GS */, (long)base, 0, 0, 0, 0);
}
#endif

/* The calling thread's signal mask as the kernel holds it (the bytes past the kernel's zero). */
static inline int tm__prim_sigmask_read(sigset_t *set) {
  memset(set, 0, sizeof *set);
  return (int)tm__raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)set, _NSIG / 8, 0, 0);
}

/* RLIMIT_NPROC's soft limit in *LIMIT (RLIM_INFINITY: none). */
static inline int tm__prim_nproc_limit(unsigned long long *limit) {
  unsigned long long lim[2];
  long r = tm__raw_syscall(SYS_prlimit64, 0, 6 /* RLIMIT_NPROC */, 0, (long)lim, 0, 0);
  if (r == 0) *limit = lim[0];
  return (int)r;
}

/* The calling thread's I/O priority (ioprio_get(IOPRIO_WHO_PROCESS, 0)), or -errno. */
static inline long tm__prim_ioprio_self(void) {
  return tm__raw_syscall(SYS_ioprio_get, 1, 0, 0, 0, 0, 0);
}

/* The calling thread's personality (read only: personality(0xffffffff)), or -errno. */
static inline long tm__prim_personality(void) {
  return tm__raw_syscall(SYS_personality, 0xffffffffL, 0, 0, 0, 0, 0);
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

/* ---- calls another preload library must see -------------------------------------------------
 * State changes the pinner makes on a thread are made through libc's dynamic symbols, so that
 * the thread cache, when it is preloaded too, records them (its shadow affinity, the thread's
 * identity): a raw call would leave the cache believing the thread unchanged. */

/* sched_setaffinity(TID, SIZE, MASK) through libc (or a preloaded wrapper): 0 or -errno. */
static inline int tm__prim_setaffinity_seen(pid_t tid, size_t size, const void *mask) {
  int saved_errno = errno;
  int r = sched_setaffinity(tid, size, (const cpu_set_t *)mask) == 0 ? 0 : -errno;
  errno = saved_errno;
  return r;
}

/* set_mempolicy through libc's syscall(2) (or a preloaded wrapper): 0 or -errno. */
static inline int tm__prim_set_mempolicy_seen(int mode, const unsigned long *mask,
                                              unsigned long max_node) {
  int saved_errno = errno;
  long r = syscall(SYS_set_mempolicy, mode, mask, max_node);
  int answer = r == 0 ? 0 : -errno;
  errno = saved_errno;
  return answer;
}

#endif
