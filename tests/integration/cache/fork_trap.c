/* No resource trap for any process-creating call. Under RLIMIT_NPROC (and likewise a cgroup's
 * pids.max), a finished thread holds no kernel task under glibc, joined or not: a process with
 * 3 finished threads and a limit of main + 3 can still start a process. Under the cache the
 * finished threads (waiting for their join, or parked once joined) hold tasks: fork, vfork,
 * posix_spawn, system, popen, clone and syscall(SYS_clone/SYS_fork) that fail with EAGAIN must
 * let them go and try again, as pthread_create does. Each call runs in a child process of its
 * own as an unprivileged user (root ignores RLIMIT_NPROC). Failed against the library before
 * the release-and-retry covered process creation (only pthread_create had it). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

extern char **environ;

static void *quick(void *arg) { return arg; }

static int child_body(void *arg) {
  (void)arg;
  _exit(0);
}

/* Starts one process with call WHICH and waits for it: 0 when it ran, else errno (or 200). */
static int start_process(int which) {
  pid_t pid = -1;
  switch (which) {
    case 0:
      pid = fork();
      if (pid == 0) _exit(0);
      break;
    case 1:
      pid = vfork();
      if (pid == 0) _exit(0);
      break;
    case 2: {
      char *argv[] = {"true", NULL};
      int r = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
      if (r != 0) return r;
      break;
    }
    case 3: {
      int status = system("exit 0");
      return status == 0 ? 0 : status == -1 ? errno : 200;
    }
    case 4: {
      FILE *f = popen("exit 0", "r");
      if (f == NULL) return errno ? errno : 201;
      return pclose(f) == 0 ? 0 : 202;
    }
    case 5: {
      static char stack[64 << 10];
      pid = clone(child_body, stack + sizeof stack, SIGCHLD, NULL);
      break;
    }
    case 6:
      pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
      if (pid == 0) _exit(0);
      break;
    case 7:
#ifdef SYS_fork
      pid = (pid_t)syscall(SYS_fork);
      if (pid == 0) _exit(0);
#else
      return 0; /* no such call here: nothing to trap */
#endif
      break;
  }
  if (pid < 0) return errno ? errno : 203;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 204;
  return 0;
}

/* As uid 65534 with a limit of main + 3 tasks: 3 threads finish (JOINED: and are joined), then
 * the call starts a process. Exit status: start_process's answer, or 100+ when setup failed. */
static int child(int which, int joined) {
  if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) return 110;
  struct rlimit lim = {4, 4};
  if (setrlimit(RLIMIT_NPROC, &lim) != 0) return 111;
  pthread_t done[3];
  for (int i = 0; i < 3; ++i)
    if (pthread_create(&done[i], NULL, quick, NULL) != 0) return 112;
  if (joined)
    for (int i = 0; i < 3; ++i) pthread_join(done[i], NULL);
  settle(); /* all three have finished */
  int r = start_process(which);
  if (!joined)
    for (int i = 0; i < 3; ++i) pthread_join(done[i], NULL);
  return r > 99 && r < 110 ? 99 : r;
}

int main(void) {
  static const char *const calls[] = {"fork",  "vfork", "posix_spawn",        "system",
                                      "popen", "clone", "syscall(SYS_clone)", "syscall(SYS_fork)"};
  if (geteuid() != 0) {
    printf("ok process creation under RLIMIT_NPROC (not root: skipped)\n");
    return 0;
  }
  warm_cache();
  for (int which = 0; which < 8; ++which) {
    for (int joined = 0; joined < 2; ++joined) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) _exit(child(which, joined));
      int status = 0;
      waitpid(pid, &status, 0);
      int r = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
      const char *state = joined ? "joined" : "unjoined";
      if (r >= 110 && r < 120) {
        printf("ok %s after 3 finished %s threads (setup failed: %d)\n", calls[which], state, r);
      } else if (r == 0) {
        printf("ok %s after 3 finished %s threads under RLIMIT_NPROC main+3\n", calls[which],
               state);
      } else {
        printf("FAIL %s after 3 finished %s threads under RLIMIT_NPROC main+3: %s\n", calls[which],
               state, r == EAGAIN ? "EAGAIN" : "failed");
        ++semantics_failures;
      }
    }
  }
  warm_cache();
  return semantics_failures;
}
