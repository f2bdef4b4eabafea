/* However main ends its own thread, the process ends as with glibc: parked or
 * finished-but-unjoined threads of the cache must not keep it alive, and it still answers
 * SIGTERM. Each case runs in a child (re-executed with TM_CACHE_IDLE_TIMEOUT_MS=0, so parked
 * threads never time out on their own); the parent prints how it ended, waiting at most 5 s. */
#define _GNU_SOURCE 1
#include <signal.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

#include "semantics.h"

static void *quick(void *arg) { return arg; }

static void *sleeper(void *arg) {
  for (;;) pause();
  return arg;
}

static int child(const char *mode) {
  warm_cache(); /* parked threads under the cache */
  if (strcmp(mode, "unjoined") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, quick, NULL); /* finished, never joined */
    settle();
    pthread_exit(NULL);
  } else if (strcmp(mode, "cancel") == 0) {
    pthread_cancel(pthread_self());
    pthread_testcancel();
  } else if (strcmp(mode, "thrd_exit") == 0) {
    thrd_exit(0);
  } else if (strcmp(mode, "sigterm") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, sleeper, NULL);
    pthread_t u;
    pthread_create(&u, NULL, quick, NULL);
    settle();
    pthread_exit(NULL);
  }
  return 3;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run(const char *mode) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TM_CACHE_IDLE_TIMEOUT_MS", "0", 1);
    execl("/proc/self/exe", "main_ends", mode, (char *)NULL);
    _exit(127);
  }
  double start = now_s();
  int status = 0, sent_term = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    double waited = now_s() - start;
    if (!sent_term && strcmp(mode, "sigterm") == 0 && waited > 0.3) {
      kill(pid, SIGTERM);
      sent_term = 1;
    }
    if (waited > 5) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      printf("FAIL %s: still running after 5 s\n", mode);
      ++semantics_failures;
      return;
    }
    struct timespec pause = {0, 2 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  double took = now_s() - start;
  if (WIFEXITED(status))
    printf("%s: exit status %d\n", mode, WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    printf("%s: killed by signal %d\n", mode, WTERMSIG(status));
  char name[64];
  snprintf(name, sizeof name, "%s ends promptly", mode);
  EXPECT(took < 0.9, name);
}

int main(int argc, char **argv) {
  if (argc > 1) return child(argv[1]);
  run("unjoined");
  run("cancel");
  run("thrd_exit");
  run("sigterm");
  return semantics_failures;
}
