/* Programs for stats_file.sh: how a process ends, and retirements of each cause, so that
 * TM_CACHE_STATS=FILE's one line per process can be checked against its contract
 * (docs/thread-cache.md, "Statistics").
 *   causes        threads that each retire for one named cause, then main returns
 *   close-stderr  an atexit handler closes stderr (xz, sort, sha256sum do), then exit
 *   exit-group    a thread ends the process with syscall(SYS_exit_group) (as Go does)
 *   _exit         main calls _exit
 *   killed        the process kills itself with SIGKILL once its threads are parked (its
 *                 record, appended at the first create, stays with final=0)
 *   raw-exit      the same, ending with an exit_group made without libc (Go's runtime does)
 *   children      four forked children create threads too (one line each, own pid) */
#define _GNU_SOURCE 1
#include <linux/capability.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "semantics.h"

static void *cause(void *arg) {
  int which = (int)(long)arg;
  switch (which) {
    case 0: /* credentials (a no-op value still counts: the call is what is seen) */
      syscall(SYS_setresuid, -1, -1, -1);
      break;
    case 1: { /* capabilities */
      struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
      struct __user_cap_data_struct d[2];
      memset(d, 0, sizeof d);
      syscall(SYS_capget, &h, d);
      syscall(SYS_capset, &h, d);
      break;
    }
    case 2: /* namespace */
      syscall(SYS_unshare, CLONE_FS);
      break;
    case 3: { /* mempolicy */
      unsigned long node0 = 1;
      syscall(SYS_set_mempolicy, 1 /* MPOL_PREFERRED */, &node0, 8 * sizeof node0);
      break;
    }
    case 4: { /* timer */
      struct sigevent ev;
      memset(&ev, 0, sizeof ev);
      ev.sigev_notify = SIGEV_THREAD_ID;
      ev.sigev_signo = SIGUSR2;
      ev._sigev_un._tid = gettid();
      timer_t timer;
      timer_create(CLOCK_MONOTONIC, &ev, &timer);
      break;
    }
    case 5: /* prctl-8 */
      prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
      break;
    case 6: /* syscall-N: ioprio_set */
      syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 4);
      break;
    case 7: /* identity: an interposed call with no cause of its own */
      personality(personality(0xffffffff));
      break;
    case 8: { /* signal-pending */
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGUSR2);
      pthread_sigmask(SIG_BLOCK, &set, NULL);
      pthread_kill(pthread_self(), SIGUSR2);
      break;
    }
    case 9: { /* fork: a child still running when the thread ends */
      pid_t pid = fork();
      if (pid == 0) {
        settle();
        _exit(0);
      }
      break;
    }
  }
  return NULL;
}

static void *sleeper(void *arg) {
  (void)arg;
  settle();
  return NULL;
}

static void close_stderr(void) { close(2); }

static void churn(void) {
  for (int i = 0; i < 20; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, semantics_nothing, NULL) == 0) pthread_join(t, NULL);
  }
}

/* exit_group(0) as Go's runtime makes it: no libc, nothing interposed sees it. */
static void raw_exit_group(void) {
#if defined(__x86_64__)
  __asm__ volatile("syscall" ::"a"(SYS_exit_group), "D"(0) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = SYS_exit_group;
  register long x0 __asm__("x0") = 0;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8) : "memory");
#endif
  raise(SIGKILL); /* another architecture: an end nothing can catch all the same */
}

static void *end_process(void *arg) {
  (void)arg;
  syscall(SYS_exit_group, 0);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const char *mode = argv[1];
  prctl(PR_SET_NAME, "tm stats=case", 0, 0, 0); /* comm with a space and an '=' */
  churn();
  if (strcmp(mode, "causes") == 0) {
    for (int which = 0; which < 10; ++which) {
      warm_cache();
      pthread_t t;
      if (pthread_create(&t, NULL, cause, (void *)(long)which) == 0) pthread_join(t, NULL);
    }
    settle();
    while (wait(NULL) > 0) {
    }
  } else if (strcmp(mode, "close-stderr") == 0) {
    atexit(close_stderr);
    exit(0);
  } else if (strcmp(mode, "exit-group") == 0) {
    pthread_t t, s;
    pthread_create(&s, NULL, sleeper, NULL); /* another thread alive at the end */
    pthread_create(&t, NULL, end_process, NULL);
    pthread_join(t, NULL);
    return 3; /* not reached */
  } else if (strcmp(mode, "_exit") == 0) {
    _exit(0);
  } else if (strcmp(mode, "killed") == 0 || strcmp(mode, "raw-exit") == 0) {
    /* Long enough for the parked thread to bring the record up to date (a few ms) on a
     * loaded machine. */
    for (int i = 0; i < 5; ++i) settle();
    if (strcmp(mode, "raw-exit") == 0) raw_exit_group();
    raise(SIGKILL);
  } else if (strcmp(mode, "children") == 0) {
    for (int i = 0; i < 4; ++i) {
      pid_t pid = fork();
      if (pid == 0) {
        churn();
        return 0;
      }
    }
    while (wait(NULL) > 0) {
    }
  }
  return 0;
}
