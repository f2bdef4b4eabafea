/* unshare and setns that the kernel refuses a multithreaded process (a user namespace) behave
 * as under glibc, whichever way they are called: after every thread was joined, and with one
 * finished thread not yet joined (under glibc its kernel task is gone: the process is single-
 * threaded), through the libc wrapper and through syscall(2). Under the cache the parked thread
 * and the finished one held their tasks: the release-and-retry lived in the unshare and setns
 * wrappers only and skipped finished, unjoined threads. Each call runs in a child process (a
 * user namespace cannot be left). Failed against the library before the retry covered
 * syscall(2) and unjoined threads. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

static int userns_fd = -1; /* a user namespace to join: a helper's, opened by main */

static int call(int which) {
  switch (which) {
    case 0:
      return unshare(CLONE_NEWUSER);
    case 1:
      return (int)syscall(SYS_unshare, CLONE_NEWUSER);
    case 2:
      return setns(userns_fd, CLONE_NEWUSER);
    default:
      return (int)syscall(SYS_setns, userns_fd, CLONE_NEWUSER);
  }
}

static int in_child(int which, int joined) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    warm_cache();
    pthread_t t;
    if (pthread_create(&t, NULL, semantics_nothing, NULL) != 0) _exit(4);
    if (joined) pthread_join(t, NULL);
    settle();
    _exit(call(which) == 0 ? 0 : errno == EINVAL ? 1 : 2);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 3;
  return WEXITSTATUS(status);
}

int main(void) {
  static const char *const what[] = {"succeeds", "EINVAL", "other error", "child failed",
                                     "create failed"};
  static const char *const calls[] = {
      "unshare(CLONE_NEWUSER)", "syscall(SYS_unshare, CLONE_NEWUSER)",
      "setns(userns, CLONE_NEWUSER)", "syscall(SYS_setns, userns, CLONE_NEWUSER)"};
  int hold[2], ready[2];
  if (pipe(hold) != 0 || pipe(ready) != 0) return 99;
  pid_t helper = fork();
  if (helper == 0) {
    close(hold[1]);
    char c = unshare(CLONE_NEWUSER) == 0 ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1 || read(hold[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  close(hold[0]);
  char c = 'n';
  if (read(ready[0], &c, 1) == 1 && c == 'y') {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)helper);
    userns_fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  for (int which = 0; which < 4; ++which) {
    if (which >= 2 && userns_fd < 0) {
      printf("%s: skipped (no user namespace to join)\n", calls[which]);
      continue;
    }
    printf("%s after every thread was joined: %s\n", calls[which], what[in_child(which, 1)]);
    printf("%s with one finished thread not yet joined: %s\n", calls[which],
           what[in_child(which, 0)]);
  }
  close(hold[1]);
  waitpid(helper, NULL, 0);
  warm_cache();
  return 0;
}
