/* A process whose threads were all joined is single-threaded again: unshare(CLONE_NEWUSER)
 * and unshare(CLONE_FS), which the kernel refuses a multithreaded process (EINVAL), then
 * succeed. Under the cache, the parked threads must be let go first. Each unshare
 * runs in a child process (a user namespace cannot be left). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <sched.h>
#include <sys/wait.h>

#include "semantics.h"

static int in_child(int flags) {
  pid_t pid = fork();
  if (pid == 0) {
    warm_cache();
    _exit(unshare(flags) == 0 ? 0 : errno == EINVAL ? 1 : 2);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 3;
  return WEXITSTATUS(status);
}

int main(void) {
  static const char *const what[] = {"succeeds", "EINVAL", "other error", "child failed"};
  int r = in_child(CLONE_NEWUSER);
  printf("unshare(CLONE_NEWUSER) after every thread was joined: %s\n", what[r]);
  r = in_child(CLONE_FS);
  printf("unshare(CLONE_FS) after every thread was joined: %s\n", what[r]);
  warm_cache();
  return 0;
}
