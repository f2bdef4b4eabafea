/* The resource trap with the measured unjoined bound: the bound is measured before
 * the limit drops, so it is far above what the process may hold. Under RLIMIT_NPROC 32, 1,000
 * parent threads are left unjoined, each after creating two children that finish before it
 * joins them (Inncabs floorplan's nesting): 3,000 threads. glibc frees each finished task; the
 * cache must release the tasks it keeps when a create fails with EAGAIN and retry, so every
 * create succeeds. Then every parent is joined, and main ends by pthread_exit while one thread
 * still runs: the process must end with that thread's exit status. Runs in a child as an
 * unprivileged user (root ignores RLIMIT_NPROC); at most 32 tasks of that user at a time. */
#define _GNU_SOURCE 1
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "semantics.h"

#define PARENTS 1000

static atomic_long parents_done;
static atomic_long failed_creates;

static void *leaf(void *arg) {
  atomic_fetch_add((atomic_int *)arg, 1);
  return (void *)1L;
}

static void *parent(void *arg) {
  pthread_t kids[2];
  long sum = 0;
  int made[2] = {0, 0};
  atomic_int kids_done = 0;
  for (int i = 0; i < 2; ++i) made[i] = pthread_create(&kids[i], NULL, leaf, &kids_done) == 0;
  while (atomic_load(&kids_done) < made[0] + made[1]) /* they finish before anyone joins */
    sched_yield();
  for (int i = 0; i < 2; ++i) {
    void *r = NULL;
    if (made[i] && pthread_join(kids[i], &r) == 0) sum += (long)r;
    if (!made[i]) atomic_fetch_add(&failed_creates, 1);
  }
  atomic_fetch_add(&parents_done, 1);
  return (void *)((long)arg * 10 + sum);
}

static void *last(void *arg) {
  (void)arg;
  struct timespec pause = {0, 50 * 1000 * 1000};
  nanosleep(&pause, NULL);
  long failed = atomic_load(&failed_creates);
  _exit(failed > 99 ? 99 : (int)failed); /* the child's status: creates that failed */
}

static int child(void) {
  if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) return 110;
  struct rlimit lim = {32, 32};
  if (setrlimit(RLIMIT_NPROC, &lim) != 0) return 111;
  alarm(30); /* a trapped process ends instead of hanging the test */
  static pthread_t parents[PARENTS];
  for (long i = 0; i < PARENTS; ++i) {
    if (pthread_create(&parents[i], NULL, parent, (void *)i) != 0) {
      atomic_fetch_add(&failed_creates, 1);
      parents[i] = 0;
      continue;
    }
    while (atomic_load(&parents_done) < i + 1) sched_yield(); /* glibc: <= 4 tasks at once */
  }
  long wrong = 0;
  for (long i = 0; i < PARENTS; ++i) {
    void *r = NULL;
    if (parents[i] && (pthread_join(parents[i], &r) != 0 || (long)r != i * 10 + 2)) ++wrong;
  }
  if (wrong) atomic_fetch_add(&failed_creates, wrong);
  pthread_t t;
  if (pthread_create(&t, NULL, last, NULL) != 0) return 98;
  pthread_exit(NULL);
}

int main(void) {
  if (geteuid() != 0) {
    printf("ok 3,000 nested creates with 1,000 unjoined under RLIMIT_NPROC (not root: skipped)\n");
    return 0;
  }
  warm_cache();
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(child());
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) >= 110) {
    printf("ok 3,000 nested creates under RLIMIT_NPROC (setup failed: %d)\n", WEXITSTATUS(status));
    return 0;
  }
  if (WIFSIGNALED(status))
    printf("child killed by signal %d (SIGALRM: trapped)\n", WTERMSIG(status));
  else
    printf("creates that failed or joins that were wrong under RLIMIT_NPROC 32: %d\n",
           WEXITSTATUS(status));
  return 0;
}
