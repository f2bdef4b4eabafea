/* Which system calls and prctl options leave a thread as a fresh thread of its creator would
 * be (docs/thread-cache-state.md): a logical thread that made any other one through
 * syscall(2) or prctl retires its physical thread at its logical exit. Kept apart from the
 * wrappers (shadow_interpose.c): a list to review, not logic. */
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "shadow.h"

/* System calls that leave the calling thread as a fresh thread of its creator would be: they
 * only read, work on descriptors, memory or time the process shares, or signal (counted by the
 * signal epoch). Any other number reached through syscall(2) (credentials, groups,
 * capabilities, ioprio, personality, set_mempolicy, rseq, set_robust_list, arch_prctl, a raw
 * clone, perf_event_open on this thread, numbers we do not know) retires the thread at its
 * logical exit: one fresh thread is cheap next to a recycled thread acting with another
 * thread's identity (docs/thread-cache-state.md). */
int tm__syscall_harmless(long number) {
  switch (number) {
    case SYS_read:
    case SYS_write:
    case SYS_pread64:
    case SYS_pwrite64:
    case SYS_readv:
    case SYS_writev:
    case SYS_preadv:
    case SYS_pwritev:
    case SYS_preadv2:
    case SYS_pwritev2:
    case SYS_openat:
    case SYS_close:
    case SYS_lseek:
    case SYS_fstat:
    case SYS_newfstatat:
    case SYS_statx:
    case SYS_fcntl:
    case SYS_ioctl:
    case SYS_dup:
    case SYS_dup3:
    case SYS_pipe2:
    case SYS_eventfd2:
    case SYS_memfd_create:
    case SYS_timerfd_create:
    case SYS_timerfd_settime:
    case SYS_timerfd_gettime:
    case SYS_signalfd4:
    case SYS_epoll_create1:
    case SYS_epoll_ctl:
    case SYS_epoll_pwait:
    case SYS_ppoll:
    case SYS_pselect6:
    case SYS_socket:
    case SYS_socketpair:
    case SYS_connect:
    case SYS_accept4:
    case SYS_bind:
    case SYS_listen:
    case SYS_sendto:
    case SYS_recvfrom:
    case SYS_sendmsg:
    case SYS_recvmsg:
    case SYS_sendmmsg:
    case SYS_recvmmsg:
    case SYS_shutdown:
    case SYS_getsockopt:
    case SYS_setsockopt:
    case SYS_getsockname:
    case SYS_getpeername:
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mprotect:
    case SYS_madvise:
    case SYS_mremap:
    case SYS_msync:
    case SYS_mlock:
    case SYS_munlock:
    case SYS_mincore:
    case SYS_brk:
    case SYS_mbind:
    case SYS_get_mempolicy:
    case SYS_move_pages:
    case SYS_membarrier:
    case SYS_getrandom:
    case SYS_clock_gettime:
    case SYS_clock_getres:
    case SYS_gettimeofday:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
    case SYS_sched_yield:
    case SYS_getcpu:
    case SYS_getpid:
    case SYS_getppid:
    case SYS_gettid:
    case SYS_getuid:
    case SYS_geteuid:
    case SYS_getgid:
    case SYS_getegid:
    case SYS_getresuid:
    case SYS_getresgid:
    case SYS_getgroups:
    case SYS_capget:
    case SYS_ioprio_get:
    case SYS_sched_getaffinity:
    case SYS_sched_getparam:
    case SYS_sched_getscheduler:
    case SYS_sched_getattr:
    case SYS_getpriority:
    case SYS_prlimit64:
    case SYS_getrusage:
    case SYS_uname:
    case SYS_sysinfo:
    case SYS_kill:
    case SYS_tgkill:
    case SYS_tkill:
    case SYS_rt_tgsigqueueinfo:
    case SYS_rt_sigqueueinfo:
    case SYS_rt_sigaction:
    case SYS_rt_sigprocmask:
    case SYS_sigaltstack:
    case SYS_sched_setaffinity:
    case SYS_sched_setscheduler:
    case SYS_sched_setparam:
    case SYS_sched_setattr:
    case SYS_setpriority:
    case SYS_prctl:
    case SYS_seccomp:
    case SYS_futex:
    case SYS_wait4:
    case SYS_waitid:
    case SYS_getdents64:
    case SYS_readlinkat:
    case SYS_faccessat:
    case SYS_mkdirat:
    case SYS_unlinkat:
    case SYS_renameat2:
    case SYS_ftruncate:
    case SYS_fsync:
    case SYS_fdatasync:
    case SYS_fallocate:
    case SYS_sendfile:
    case SYS_copy_file_range:
    case SYS_splice:
    case SYS_tee:
    case SYS_getcwd:
    case SYS_io_uring_setup:
    case SYS_io_uring_enter:
    case SYS_io_uring_register:
    case SYS_inotify_init1:
    case SYS_inotify_add_watch:
    case SYS_inotify_rm_watch:
    case SYS_pidfd_open:
    case SYS_pidfd_send_signal:
    case SYS_process_vm_readv:
    case SYS_process_vm_writev:
    case SYS_userfaultfd:
    case SYS_timer_settime:
    case SYS_timer_gettime:
    case SYS_timer_delete:
    case SYS_timer_getoverrun:
    case SYS_getitimer:
    case SYS_setitimer:
    case SYS_kcmp:
    case SYS_restart_syscall:
    case SYS_get_robust_list:
    case SYS_rt_sigtimedwait:
    case SYS_rt_sigpending:
    case SYS_rt_sigsuspend:
    case SYS_statfs:
    case SYS_fstatfs:
    case SYS_fadvise64:
    case SYS_readahead:
    case SYS_flock:
    case SYS_sched_get_priority_max:
    case SYS_sched_get_priority_min:
    case SYS_times:
    case SYS_getxattr:
    case SYS_fgetxattr:
    case SYS_lgetxattr:
    /* The process's memory and memory locks, its session and process group, its resource
     * limits; the fs struct (shared by every thread, unless one unshared it, which gave it a
     * new identity whose clones share its fs again). */
    case SYS_mlock2:
    case SYS_mlockall:
    case SYS_munlockall:
    case SYS_pkey_mprotect:
    case SYS_pkey_free:
    case SYS_pkey_alloc: /* also sets the caller's PKRU: copied from the creator at reuse (fpu.h) */
    case SYS_getsid:
    case SYS_getpgid:
    case SYS_setsid:
    case SYS_setpgid:
    case SYS_getrlimit:
    case SYS_setrlimit:
    case SYS_umask:
    case SYS_chdir:
    case SYS_fchdir:
    case SYS_chroot:
    case SYS_sync:
    case SYS_syncfs:
#ifdef SYS_process_madvise
    case SYS_process_madvise:
#endif
#ifdef SYS_futex_waitv
    case SYS_futex_waitv:
#endif
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
#endif
#ifdef SYS_openat2
    case SYS_openat2:
#endif
#ifdef SYS_faccessat2
    case SYS_faccessat2:
#endif
#ifdef SYS_close_range
    case SYS_close_range:
#endif
#ifdef SYS_pidfd_getfd
    case SYS_pidfd_getfd:
#endif
#ifdef SYS_open
    case SYS_open:
    case SYS_stat:
    case SYS_lstat:
    case SYS_dup2:
    case SYS_pipe:
    case SYS_poll:
    case SYS_select:
    case SYS_epoll_wait:
    case SYS_epoll_create:
    case SYS_eventfd:
    case SYS_access:
    case SYS_readlink:
    case SYS_mkdir:
    case SYS_unlink:
    case SYS_rename:
    case SYS_time:
    case SYS_accept:
    case SYS_getdents:
#endif
      return 1;
    default:
      return 0;
  }
}

/* prctl options that only read, or change what the whole process shares (its mm, its parent
 * relation as a process): a fresh thread would see the same. Every other option not handled
 * below changes the calling thread alone in a way a fresh thread would not inherit from its
 * creator (securebits, the capability bounding and ambient sets, keepcaps, pdeathsig,
 * speculation control, ...): such a thread retires at its logical exit. */
int tm__prctl_harmless(int option, unsigned long a2) {
  switch (option) {
    case PR_GET_DUMPABLE:
    case PR_SET_DUMPABLE:
    case PR_GET_NAME:
    case PR_GET_TIMERSLACK:
    case PR_GET_NO_NEW_PRIVS:
    case PR_GET_SECCOMP:
    case PR_GET_SECUREBITS:
    case PR_CAPBSET_READ:
    case PR_GET_KEEPCAPS:
    case PR_GET_PDEATHSIG:
    case PR_GET_CHILD_SUBREAPER:
    case PR_SET_CHILD_SUBREAPER:
    case PR_SET_PTRACER:
    case PR_GET_THP_DISABLE:
    case PR_SET_THP_DISABLE:
    case PR_SET_MM:
    case PR_GET_SPECULATION_CTRL:
    case PR_GET_TID_ADDRESS:
    case PR_MCE_KILL_GET:
    case PR_GET_FP_MODE:
    case PR_GET_TSC:
    case PR_GET_TAGGED_ADDR_CTRL:
    case PR_GET_TIMING:
    case PR_GET_UNALIGN:
    case PR_GET_FPEXC:
    case PR_GET_ENDIAN:
#ifdef PR_SET_VMA
    case PR_SET_VMA:
#endif
#ifdef PR_GET_IO_FLUSHER
    case PR_GET_IO_FLUSHER:
#endif
#ifdef PR_FUTEX_HASH
    case PR_FUTEX_HASH: /* the process's futex hash */
#endif
      return 1;
    case PR_CAP_AMBIENT:
      return a2 == PR_CAP_AMBIENT_IS_SET;
    default:
      return 0;
  }
}

/* Numbers that both read and write, classified by their arguments: 1 when this call only
 * reads (or makes something that changes no thread until another call uses it). */
int tm__syscall_reads(long number, long a1, long a2, long a3) {
  (void)a2;
  switch (number) {
    case SYS_keyctl:
      /* KEYCTL_GET_KEYRING_ID without create (0, a3 == 0), KEYCTL_DESCRIBE (6), KEYCTL_READ
       * (11), KEYCTL_GET_SECURITY (17), KEYCTL_CAPABILITIES (31). */
      return (a1 == 0 && a3 == 0) || a1 == 6 || a1 == 11 || a1 == 17 || a1 == 31;
#ifdef SYS_landlock_create_ruleset
    case SYS_landlock_create_ruleset: /* the ABI version (flag 1), or a ruleset descriptor */
    case SYS_landlock_add_rule:       /* a rule in a ruleset: no domain until restrict_self */
      return 1;
#endif
    case SYS_perf_event_open: {
      /* struct perf_event_attr: u32 type, u32 size, then five u64 (config, sample period,
       * sample type, read format) and the flags word, whose bit 1 is `inherit`: an event that
       * clones inherit is what clone copies; one that is not follows this task only. */
      uint64_t flags = 0;
      if (a1 == 0) return 0;
      memcpy(&flags, (const char *)a1 + 40, sizeof flags);
      return (flags & 2) == 0;
    }
    default:
      return 0;
  }
}