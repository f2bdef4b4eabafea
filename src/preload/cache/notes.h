/* What the wrappers record when a call changed something, shared by the wrappers of libc
 * functions (shadow_interpose.c, open_watch.c) and of syscall(2) (syscall_interpose.c), which
 * see the same operations by two roads. */
#ifndef THREADMAP_CACHE_NOTES_H
#define THREADMAP_CACHE_NOTES_H

#include "shadow.h"

/* Moves EPOCH (a shadow, signal or seccomp epoch: shadow.h). */
TM_HIDDEN void tm__bump(_Atomic uint64_t *epoch);
/* The calling thread's mask changed where its new value is not known: read at its next use. */
TM_HIDDEN void tm__mask_unknown(void);
/* sigaltstack(STACK, ...) answered RESULT. */
TM_HIDDEN void tm__note_altstack(const stack_t *stack, long result);
/* A signal handler returned: the kernel restores MASK (signal_handlers.c). */
TM_HIDDEN void tm__note_mask_restored(const sigset_t *mask);
/* A handler runs that is not our trampoline: mask changes are no longer computed. */
TM_HIDDEN void tm__note_unwrapped_handler(void);
/* 1 while every handler runs through the trampoline (reads the caught signals' dispositions
 * once). */
TM_HIDDEN int tm__handlers_all_wrapped(void);
/* Looks up the next sigaction and signal functions (signal_handlers.c), at start-up. */
TM_HIDDEN void tm__handler_interpose_init(void);
/* setpriority(WHICH, WHO) succeeded. */
TM_HIDDEN void tm__note_priority(int which, long who);
/* prctl(OPTION, A2, ...) succeeded. */
TM_HIDDEN void tm__note_prctl(int option, unsigned long a2);
/* A POSIX timer notifies a thread by id (EVENT): when it is the caller, it retires at its end. */
TM_HIDDEN void tm__note_thread_timer(const struct sigevent *event);
/* PATH was opened for writing: a cgroup membership file changes identities (open_watch.c). */
TM_HIDDEN void tm__note_open_for_write(const char *path);
/* The calling logical thread ends its kernel task with a raw SYS_exit (thread.c): its joiner
 * must wait for the kernel's end of the task, as glibc's join does. */
TM_HIDDEN void tm__note_raw_thread_exit(void);
/* A fork made with syscall(2) ran no fork handlers: the child forgets the parent's parked
 * threads here (startup.c). */
TM_HIDDEN void tm__after_raw_fork_child(void);
/* Clears glibc's per-thread dlerror message, h_errno and resolver state (libc_state.c). */
TM_HIDDEN void tm__libc_thread_freeres(void);
/* The older calls (legacy_interpose.c): looks their next definitions up at start-up. */
TM_HIDDEN void tm__legacy_interpose_init(void);
#if defined(__x86_64__)
/* arch_prctl CODE succeeded in the calling thread (legacy_interpose.c; syscall(2) too). */
TM_HIDDEN void tm__note_arch_prctl(long code);
TM_HIDDEN int tm__arch_prctl_harmless(long code);
#endif

#endif
