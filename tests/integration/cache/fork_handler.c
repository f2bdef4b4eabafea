/* A fork child handler registered before the cache's creates a thread: it must get
 * a real thread, not one of the parent's parked threads (they do not exist in the child). */
#define _GNU_SOURCE 1
#include <sys/wait.h>
#include <unistd.h>

#include "semantics.h"

extern int fork_handler_result;

int main(void) {
  warm_cache();
  pid_t pid = fork();
  if (pid == 0) _exit(fork_handler_result == 42 ? 0 : 1);
  int status = -1;
  for (int i = 0; i < 500; ++i) { /* at most 5 s */
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (i == 499) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
  }
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child handler's thread ran and joined");
  return semantics_failures;
}
