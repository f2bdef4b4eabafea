/* Calls that make processes, and the process's end.
 *
 * No resource trap: a finished thread holds no kernel task under glibc, joined or not; under
 * the cache parked threads and finished threads waiting for their join hold theirs. When the
 * kernel refuses a task (RLIMIT_NPROC, a cgroup's pids.max, threads-max: EAGAIN) to
 * pthread_create, fork, vfork, _Fork, posix_spawn, posix_spawnp, system, popen, clone, or
 * syscall(SYS_clone/SYS_clone3/SYS_fork/SYS_vfork), the cache lets its kept tasks go and the
 * call is made again while their tasks exit, for up to ~100 ms (tm__retry_tasks_released); the
 * caller sees EAGAIN only when that did not help or nothing was held. unshare and setns
 * (interpose.c) do the same for the EINVAL the kernel answers a multithreaded process.
 *
 * Parent-death signals: a child forked by a thread gets its PR_SET_PDEATHSIG when that THREAD
 * ends, which a parked thread never does. The children a logical thread starts are recorded
 * (their pids) and the thread retires at its end only while one of them still runs (reset.c);
 * a child reaped or ended already keeps nothing. popen's children are counted until pclose.
 * The end: _exit and _Exit write the statistics line first (stats.c). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "interpose_next.h"
#include "shadow.h"
#include "stats.h"

#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))

/* Every wrapped function (interpose_next.h). */
#define TM_PROCESS_WRAPPED(X) \
  X(fork)                     \
  X(_Fork) X(posix_spawn) X(posix_spawnp) X(system) X(popen) X(pclose) X(clone) X(_exit) X(_Exit)
TM_NEXT_SLOTS(TM_PROCESS_WRAPPED, tm__process_interpose_init)

long tm__retry_tasks_released(const struct tm_retry *retry, long result) {
  if (!retry->failed_for_tasks(result)) return result;
  if (!tm__shed_begin()) { /* nothing held: the refusal is the kernel's answer */
    tm__shed_end();
    return result;
  }
  for (int i = 0; i < retry->max_attempts && retry->failed_for_tasks(result); ++i) {
    tm__prim_sleep_ns(1000 * 1000);
    result = retry->attempt(retry->context);
    if (retry->forks && result == 0) return 0; /* the child (its fork handler reset the count) */
  }
  tm__shed_end();
  return result;
}

void tm__child_started(pid_t pid) {
  struct tm_thread *t = tm__self();
  if (t == NULL || pid <= 0) return;
  if (t->n_children < TM_CHILDREN_KEPT)
    t->children[t->n_children++] = pid;
  else if (!t->exit_cause)
    t->exit_cause = TM_CAUSE_FORK; /* more than we keep: retire, as glibc would end it */
}

/* A child that ran on our memory until it exec'ed or exited (vfork, CLONE_VM|CLONE_VFORK) ran
 * with this thread's TLS: whatever it changed through a wrapper (its mask before an exec,
 * say) landed in our shadow. Nothing of it is trusted: every item is read again when needed. */
void tm__shared_memory_child_gone(void) { tm__shadow_raw()->valid = 0; }

/* Set around the interposed fork, which records the child itself. */
static __thread int tm__in_fork_wrapper __attribute__((tls_model("initial-exec")));

void tm__forked_unseen(void) {
  struct tm_thread *t = tm__self();
  if (t && !tm__in_fork_wrapper && !t->exit_cause) t->exit_cause = TM_CAUSE_FORK;
}

/* ---- fork, _Fork ----------------------------------------------------------------------------- */

static int tm__minus_one_eagain(long r) { return r == -1 && errno == EAGAIN; }

static long tm__fork_again(void *context) {
  pid_t (*next)(void) = (pid_t(*)(void))context;
  return next();
}

static pid_t tm__fork_with(pid_t (*next)(void)) {
  tm__init();
  tm__in_fork_wrapper = 1;
  pid_t pid = next();
  if (pid == -1 && errno == EAGAIN) {
    struct tm_retry retry = {tm__fork_again, tm__minus_one_eagain, (void *)next, 100, 1};
    pid = (pid_t)tm__retry_tasks_released(&retry, pid);
  }
  tm__in_fork_wrapper = 0;
  if (pid > 0) tm__child_started(pid);
  return pid;
}

TM_EXPORT pid_t fork(void) {
  TM_NEXT(pid_t(*)(void), fork);
  return tm__fork_with(next);
}

/* _Fork runs no fork handlers: its child may call only async-signal-safe functions, and never
 * pthread_create (POSIX), so the cache's records of the parent are never used there. */
extern pid_t _Fork(void);
TM_EXPORT pid_t _Fork(void) {
  TM_NEXT(pid_t(*)(void), _Fork);
  return tm__fork_with(next);
}

/* ---- vfork ----------------------------------------------------------------------------------
 * The child runs on the parent's stack until it execs or exits: a C wrapper's frame would be
 * overwritten by the child before the parent returns through it. As glibc's own vfork, ours
 * keeps the return address in a register the kernel preserves, and calls C only in the parent
 * (after the child is gone), to record the child or to retry after an EAGAIN. x86-64 only;
 * elsewhere glibc's vfork is used as is (no retry). Not compatible with a CET shadow stack
 * (glibc 2.36 enables none). */
static __thread int tm__vfork_retries __attribute__((tls_model("initial-exec")));

/* The parent after a successful vfork (PID > 0). */
TM_HIDDEN __attribute__((used)) void tm__vfork_parent(long pid) {
  tm__shared_memory_child_gone();
  if (tm__vfork_retries) {
    tm__vfork_retries = 0;
    tm__shed_end();
  }
  tm__child_started((pid_t)pid);
}

/* After -EAGAIN: 1 to try again (the kept tasks are being let go), 0 to fail. */
TM_HIDDEN __attribute__((used)) int tm__vfork_again(void) {
  if (tm__vfork_retries == 0) {
    tm__init();
    if (!tm__shed_begin()) {
      tm__shed_end();
      return 0;
    }
  } else if (tm__vfork_retries >= 100) {
    tm__vfork_retries = 0;
    tm__shed_end();
    return 0;
  }
  ++tm__vfork_retries;
  tm__prim_sleep_ns(1000 * 1000);
  return 1;
}

/* The parent after a failed vfork: errno, -1. */
TM_HIDDEN __attribute__((used)) long tm__vfork_failed(long negative_errno) {
  errno = (int)-negative_errno;
  return -1;
}

#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".globl vfork\n"
    ".type vfork, @function\n"
    "vfork:\n"
    "  popq %rdx\n" /* the return address: the child must not find it on the stack */
    "1:\n"
    "  movl $" TM_STRINGIFY(SYS_vfork) ", %eax\n"
    "  syscall\n"
    "  testq %rax, %rax\n"
    "  jz 3f\n" /* the child: return 0 touching nothing */
    "  cmpq $-4095, %rax\n"
    "  jae 2f\n"
    "  pushq %rdx\n"
    "  pushq %rax\n"
    "  movq %rax, %rdi\n"
    "  call tm__vfork_parent\n"
    "  popq %rax\n"
    "  popq %rdx\n"
    "3:\n"
    "  pushq %rdx\n"
    "  ret\n"
    "2:\n"
    "  pushq %rdx\n"
    "  pushq %rax\n"
    "  cmpq $-" TM_STRINGIFY(EAGAIN) ", %rax\n"
    "  jne 4f\n"
    "  call tm__vfork_again\n"
    "  testl %eax, %eax\n"
    "  jz 4f\n"
    "  popq %rax\n"
    "  popq %rdx\n"
    "  jmp 1b\n"
    "4:\n"
    "  popq %rdi\n"
    "  call tm__vfork_failed\n"
    "  ret\n"
    ".size vfork, .-vfork\n");
#endif

/* ---- posix_spawn, system, popen -------------------------------------------------------------
 * glibc's system and popen start their shell with its internal posix_spawn (clone with
 * CLONE_VFORK, no fork handlers), which no wrapper sees: each is wrapped itself. */

struct tm_spawn_call {
  int (*next)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
              char *const[], char *const[]);
  pid_t *pid;
  const char *path;
  const posix_spawn_file_actions_t *actions;
  const posix_spawnattr_t *attr;
  char *const *argv, *const *envp;
};

static long tm__spawn_again(void *context) {
  struct tm_spawn_call *c = context;
  return c->next(c->pid, c->path, c->actions, c->attr, c->argv, c->envp);
}

static int tm__is_eagain(long r) { return r == EAGAIN; }

static int tm__spawn_with(struct tm_spawn_call *call) {
  tm__init();
  pid_t own;
  if (call->pid == NULL) call->pid = &own; /* the child is recorded either way */
  int r = (int)tm__spawn_again(call);
  if (r == EAGAIN) {
    struct tm_retry retry = {tm__spawn_again, tm__is_eagain, call, 100, 0};
    r = (int)tm__retry_tasks_released(&retry, r);
  }
  if (r == 0) tm__child_started(*call->pid);
  return r;
}

TM_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  TM_NEXT(int (*)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                  const posix_spawnattr_t *, char *const[], char *const[]),
          posix_spawn);
  struct tm_spawn_call call = {next, pid, path, actions, attr, argv, envp};
  return tm__spawn_with(&call);
}

TM_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  TM_NEXT(int (*)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                  const posix_spawnattr_t *, char *const[], char *const[]),
          posix_spawnp);
  struct tm_spawn_call call = {next, pid, file, actions, attr, argv, envp};
  return tm__spawn_with(&call);
}

/* glibc's system answers a shell it could not start as one that exited with 127, with errno
 * set to the spawn's error (and never sets errno otherwise): only that is retried. */
struct tm_system_call {
  int (*next)(const char *);
  const char *command;
};

static long tm__system_again(void *context) {
  struct tm_system_call *c = context;
  errno = 0;
  return c->next(c->command);
}

static int tm__system_failed_for_tasks(long r) { return r == (127 << 8) && errno == EAGAIN; }

TM_EXPORT int system(const char *command) {
  TM_NEXT(int (*)(const char *), system);
  tm__init();
  int saved_errno = errno;
  struct tm_system_call call = {next, command};
  long r = tm__system_again(&call);
  if (command != NULL && tm__system_failed_for_tasks(r)) {
    struct tm_retry retry = {tm__system_again, tm__system_failed_for_tasks, &call, 100, 0};
    r = tm__retry_tasks_released(&retry, r);
  }
  if (errno == 0) errno = saved_errno;
  return (int)r;
}

/* popen answers NULL; glibc's errno for a refused spawn is EAGAIN or ENOMEM. No child was
 * started then, so trying again repeats nothing. */
struct tm_popen_call {
  FILE *(*next)(const char *, const char *);
  const char *command, *mode;
};

static long tm__popen_again(void *context) {
  struct tm_popen_call *c = context;
  errno = 0;
  return (long)c->next(c->command, c->mode);
}

static int tm__popen_failed_for_tasks(long r) {
  return r == 0 && (errno == EAGAIN || errno == ENOMEM);
}

TM_EXPORT FILE *popen(const char *command, const char *mode) {
  TM_NEXT(FILE * (*)(const char *, const char *), popen);
  tm__init();
  struct tm_popen_call call = {next, command, mode};
  long r = tm__popen_again(&call);
  if (tm__popen_failed_for_tasks(r)) {
    struct tm_retry retry = {tm__popen_again, tm__popen_failed_for_tasks, &call, 100, 0};
    r = tm__retry_tasks_released(&retry, r);
  }
  struct tm_thread *t = tm__self();
  if (r != 0 && t) ++t->pipes_open;
  return (FILE *)r;
}

TM_EXPORT int pclose(FILE *stream) {
  TM_NEXT(int (*)(FILE *), pclose);
  struct tm_thread *t = tm__self();
  if (t && t->pipes_open > 0) --t->pipes_open;
  return next(stream);
}

/* ---- clone ------------------------------------------------------------------------------------
 */

struct tm_clone_call {
  int (*next)(int (*)(void *), void *, int, void *, pid_t *, void *, pid_t *);
  int (*fn)(void *);
  void *stack;
  int flags;
  void *arg;
  pid_t *parent_tid;
  void *tls;
  pid_t *child_tid;
};

static long tm__clone_again(void *context) {
  struct tm_clone_call *c = context;
  return c->next(c->fn, c->stack, c->flags, c->arg, c->parent_tid, c->tls, c->child_tid);
}

/* The three optional arguments are always passed on, as glibc's clone reads them. */
TM_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...) {
  TM_NEXT(int (*)(int (*)(void *), void *, int, void *, pid_t *, void *, pid_t *), clone);
  va_list ap;
  va_start(ap, arg);
  pid_t *parent_tid = va_arg(ap, pid_t *);
  void *tls = va_arg(ap, void *);
  pid_t *child_tid = va_arg(ap, pid_t *);
  va_end(ap);
  tm__init();
  struct tm_clone_call call = {next, fn, stack, flags, arg, parent_tid, tls, child_tid};
  long r = tm__clone_again(&call);
  if (tm__minus_one_eagain(r)) {
    struct tm_retry retry = {tm__clone_again, tm__minus_one_eagain, &call, 100, 0};
    r = tm__retry_tasks_released(&retry, r);
  }
  if (r > 0 && !(flags & CLONE_THREAD)) tm__child_started((pid_t)r);
  if (r > 0 && (flags & CLONE_VM) && (flags & CLONE_VFORK)) tm__shared_memory_child_gone();
  return (int)r;
}

/* ---- the process's end: the statistics line (stats.c) ------------------------------------------
 */

TM_EXPORT void _exit(int status) {
  TM_NEXT(void (*)(int), _exit);
  tm__stats_at_exit();
  next(status);
  __builtin_unreachable();
}

extern void _Exit(int status);
TM_EXPORT void _Exit(int status) {
  TM_NEXT(void (*)(int), _Exit);
  tm__stats_at_exit();
  next(status);
  __builtin_unreachable();
}
