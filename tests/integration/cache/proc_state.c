/* Clone rules and /proc writes, compared with glibc's fresh threads:
 *  - the default timer slack: a clone's default is its creator's slack at the clone, so a new
 *    thread's PR_SET_TIMERSLACK(0) gives its creator's 2 ms (a recycled thread's kernel default
 *    was its physical creator's 50 us), through glibc's prctl, syscall(2), the system call
 *    instruction and a 0 written to /proc/thread-self/timerslack_ns;
 *  - SCHED_RESET_ON_FORK: a creator with the flag and nice -5 gets children with nice 0 and no
 *    flag; a thread that sets the flag and ends leaves it to no later logical thread;
 *  - the name written through /proc/thread-self/comm: the creator's new thread has it, and it
 *    does not reach main's next thread;
 *  - /proc/TID/timerslack_ns written by the thread: the same for the slack;
 *  - /proc/self/loginuid (audit): written where the kernel lets us, no later thread of another
 *    creator gets it (the cache stops reusing: nothing parked can be known to have the right
 *    one). A part the kernel refuses here prints that it cannot be set, with and without the
 *    cache alike.
 * Breaks when: the default slack is the physical thread's, the creator's reset-on-fork is not
 * applied to the match, a per-thread /proc file opened for writing is not watched. */
#define _GNU_SOURCE 1 /* before any header (semantics.h defines it too) */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "semantics.h"

static long run(void *(*fn)(void *), void *arg) {
  pthread_t t;
  void *r = (void *)-1L;
  if (pthread_create(&t, NULL, fn, arg) == 0) pthread_join(t, &r);
  return (long)r;
}

static pid_t tid(void) { return (pid_t)syscall(SYS_gettid); }

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY);
  if (fd < 0) return -1;
  long n = write(fd, text, strlen(text));
  close(fd);
  return n == (long)strlen(text) ? 0 : -1;
}

/* ---- default timer slack ---- */
/* The ways a thread puts its slack back to its default: glibc's prctl, syscall(2), the system
 * call instruction (no wrapper sees it), and a 0 written to its /proc file. */
enum { SLACK_PROC_FILE, SLACK_PRCTL, SLACK_SYSCALL, SLACK_INSTRUCTION, SLACK_WAYS };
static const char *const slack_way_name[SLACK_WAYS] = {
    "/proc/thread-self/timerslack_ns", "prctl", "syscall(SYS_prctl)", "the syscall instruction"};
static int slack_way;

static void slack_to_default(void) {
  switch (slack_way) {
    case SLACK_PRCTL:
      prctl(PR_SET_TIMERSLACK, 0UL, 0, 0, 0);
      break;
    case SLACK_SYSCALL:
      syscall(SYS_prctl, PR_SET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
      break;
    case SLACK_INSTRUCTION: {
#if defined(__x86_64__)
      long ret;
      register long r10 __asm__("r10") = 0;
      register long r8 __asm__("r8") = 0;
      __asm__ volatile("syscall"
                       : "=a"(ret)
                       : "a"((long)SYS_prctl), "D"((long)PR_SET_TIMERSLACK), "S"(0L), "d"(0L),
                         "r"(r10), "r"(r8)
                       : "rcx", "r11", "memory");
      (void)ret;
#else
      syscall(SYS_prctl, PR_SET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
#endif
      break;
    }
    default: /* SLACK_PROC_FILE */
      write_file("/proc/thread-self/timerslack_ns", "0");
      break;
  }
}
static void *slack_after_zero(void *arg) {
  (void)arg;
  slack_to_default();
  return (void *)(long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}
static void *slack_creator(void *arg) {
  (void)arg;
  prctl(PR_SET_TIMERSLACK, 2000000UL, 0, 0, 0);
  return (void *)run(slack_after_zero, NULL);
}

/* ---- SCHED_RESET_ON_FORK ---- */
static void *report_nice_flag(void *arg) {
  (void)arg;
  errno = 0;
  int nice_now = getpriority(PRIO_PROCESS, (id_t)tid());
  int flag = (sched_getscheduler(0) & SCHED_RESET_ON_FORK) != 0;
  return (void *)(long)(nice_now * 2 + flag);
}
static void *reset_creator(void *arg) {
  (void)arg;
  struct sched_param p = {0};
  if (sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &p) != 0 ||
      setpriority(PRIO_PROCESS, (id_t)tid(), -5) != 0)
    return (void *)-1000L;
  return (void *)run(report_nice_flag, NULL);
}
static void *set_flag_and_end(void *arg) {
  (void)arg;
  struct sched_param p = {0};
  sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &p);
  return NULL;
}

/* ---- /proc writes ---- */
static void *report_name(void *arg) {
  char *out = arg;
  prctl(PR_GET_NAME, out, 0, 0, 0);
  return NULL;
}
static void *comm_creator(void *arg) {
  write_file("/proc/thread-self/comm", "procname");
  run(report_name, arg);
  return NULL;
}
static void *comm_and_end(void *arg) {
  (void)arg;
  write_file("/proc/thread-self/comm", "leftover");
  return NULL;
}
static void *report_slack(void *arg) {
  (void)arg;
  return (void *)(long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}
static void *slackfile_and_end(void *arg) {
  (void)arg;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/timerslack_ns", (int)tid());
  write_file(path, "3000000");
  return NULL;
}
static void *report_loginuid(void *arg) {
  char *out = arg;
  int fd = open("/proc/thread-self/loginuid", O_RDONLY);
  long n = fd >= 0 ? read(fd, out, 31) : -1;
  if (fd >= 0) close(fd);
  out[n > 0 ? n : 0] = 0;
  return NULL;
}
static void *loginuid_and_end(void *arg) {
  *(int *)arg = write_file("/proc/thread-self/loginuid", "4242");
  return NULL;
}

int main(void) {
  warm_cache();
  int bad = 0;
  /* Each way, main as the creator (the parked threads were cloned while its slack was 50 us),
   * then a thread with 2 ms as the creator. The file way goes first, while the threads parked
   * are still those cloned from main at 50 us. */
  for (slack_way = 0; slack_way < SLACK_WAYS; ++slack_way) {
    int bad_way = 0;
    prctl(PR_SET_TIMERSLACK, 2000000UL, 0, 0, 0);
    for (int i = 0; i < 30; ++i) bad_way += run(slack_after_zero, NULL) != 2000000;
    prctl(PR_SET_TIMERSLACK, 0UL, 0, 0, 0); /* main's own default again */
    for (int i = 0; i < 30; ++i) bad_way += run(slack_creator, NULL) != 2000000;
    printf("slack back to the default through %s: %d of 60 threads not at the creator's\n",
           slack_way_name[slack_way], bad_way);
    bad += bad_way;
  }
  EXPECT(bad == 0, "PR_SET_TIMERSLACK(0) restores the creator's slack");

  long r = run(reset_creator, NULL);
  if (r == -1000) {
    printf("reset-on-fork with nice -5: cannot be set here\n");
  } else {
    bad = 0;
    for (int i = 0; i < 30; ++i) bad += run(reset_creator, NULL) != 0;
    EXPECT(bad == 0, "a SCHED_RESET_ON_FORK creator's child has nice 0 and no flag");
  }
  bad = 0;
  for (int i = 0; i < 30; ++i) {
    run(set_flag_and_end, NULL);
    bad += (run(report_nice_flag, NULL) & 1) != 0;
  }
  EXPECT(bad == 0, "SCHED_RESET_ON_FORK does not outlive its logical thread");

  char main_name[16] = {0}, seen[16];
  prctl(PR_GET_NAME, main_name, 0, 0, 0);
  bad = 0;
  for (int i = 0; i < 30; ++i) {
    memset(seen, 0, sizeof seen);
    run(comm_creator, seen);
    bad += strcmp(seen, "procname") != 0;
    run(comm_and_end, NULL);
    memset(seen, 0, sizeof seen);
    run(report_name, seen);
    bad += strcmp(seen, main_name) != 0;
  }
  EXPECT(bad == 0, "a name written through /proc/thread-self/comm reaches exactly its clones");

  long main_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  bad = 0;
  for (int i = 0; i < 30; ++i) {
    run(slackfile_and_end, NULL);
    bad += run(report_slack, NULL) != main_slack;
  }
  EXPECT(bad == 0, "a slack written through /proc/TID/timerslack_ns does not outlive its thread");

  int wrote = -1;
  run(loginuid_and_end, &wrote);
  if (wrote != 0) {
    printf("loginuid: cannot be set here\n");
  } else {
    char main_uid[32] = {0}, thread_uid[32] = {0};
    report_loginuid(main_uid);
    bad = 0;
    for (int i = 0; i < 30; ++i) {
      run(report_loginuid, thread_uid);
      bad += strcmp(thread_uid, main_uid) != 0;
    }
    EXPECT(bad == 0, "a login uid written by a thread reaches no thread of main");
  }
  return semantics_failures ? 1 : 0;
}
