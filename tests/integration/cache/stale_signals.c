/* Signals sent from another process to one thread: tgkill, and pidfd_send_signal with
 * PIDFD_SIGNAL_THREAD (Linux 6.9+). No wrapper of the cache sees such a send. Under glibc a
 * thread-directed signal dies with its thread: one pending (blocked) at the thread's end is
 * discarded, and a tid whose thread has ended takes nothing. Under the cache the tid belongs to a
 * physical thread that goes on to run the next logical thread, whose handler must never run for
 * a signal meant for the thread that ended.
 *
 *  - pending at the end: a thread blocks SIGUSR1, has the helper process send it SIGUSR1, sees it
 *    pending, and ends; the next thread (SIGUSR1 unblocked) waits 20 ms for a handler;
 *  - sent to a thread that ended: a thread tells its tid and ends; once it is joined (under the
 *    cache: parked, all signals blocked), the helper sends SIGUSR1 to that tid; the next thread
 *    waits 20 ms for a handler.
 * Each way with tgkill and with pidfd_send_signal. The handler counts its runs; the counts are
 * printed and must be 0 (compare_preload.sh also compares them with glibc's). Breaks when: the
 * next logical thread's mask is set without first discarding what was pending for the physical
 * thread (reset.c, pending_signals.c). */
#define _GNU_SOURCE 1 /* before any header (semantics.h defines it too) */
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef PIDFD_SIGNAL_THREAD
#define PIDFD_SIGNAL_THREAD (1UL << 0)
#endif

static atomic_int handled;
static void on_usr1(int sig) {
  (void)sig;
  atomic_fetch_add(&handled, 1);
}

/* The helper process: reads "WAY TID" requests, sends SIGUSR1 to TID of the parent that way,
 * answers one byte (1: sent, 0: the way is not available here). */
static int to_helper[2], from_helper[2];
static pid_t parent;

static int send_way(int way, pid_t tid) {
  if (way == 0) return syscall(SYS_tgkill, parent, tid, SIGUSR1) == 0;
  int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
  if (fd < 0) return 0;
  int ok = syscall(SYS_pidfd_send_signal, fd, SIGUSR1, NULL, PIDFD_SIGNAL_THREAD) == 0;
  close(fd);
  return ok;
}

static void helper(void) {
  close(to_helper[1]); /* the parent's close then ends the loop */
  close(from_helper[0]);
  int req[2];
  while (read(to_helper[0], req, sizeof req) == (ssize_t)sizeof req) {
    char ok = (char)send_way(req[0], req[1]);
    if (write(from_helper[1], &ok, 1) != 1) break;
  }
  _exit(0);
}

static int ask_helper(int way, pid_t tid) {
  int req[2] = {way, tid};
  char ok = 0;
  if (write(to_helper[1], req, sizeof req) != (ssize_t)sizeof req) return 0;
  if (read(from_helper[0], &ok, 1) != 1) return 0;
  return ok;
}

static int way_now;
static atomic_int sent_ok;

static void *pending_at_end(void *arg) {
  (void)arg;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  if (!ask_helper(way_now, (pid_t)syscall(SYS_gettid))) return NULL;
  for (int i = 0; i < 1000; ++i) { /* the helper's send is done when it answers: pending now */
    sigset_t p;
    sigpending(&p);
    if (sigismember(&p, SIGUSR1)) break;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  atomic_fetch_add(&sent_ok, 1);
  return NULL; /* ends with SIGUSR1 blocked and pending */
}

static void *tell_tid(void *arg) {
  *(pid_t *)arg = (pid_t)syscall(SYS_gettid);
  return NULL;
}

static void *wait_a_little(void *arg) {
  (void)arg;
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  return NULL;
}

static void next_thread(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, wait_a_little, NULL) == 0) pthread_join(t, NULL);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  if (pipe(to_helper) != 0 || pipe(from_helper) != 0) return 1;
  parent = getpid();
  pid_t child = fork();
  if (child == 0) helper();
  if (child < 0) return 1;
  close(to_helper[0]);
  close(from_helper[1]);
  warm_cache();
  static const char *const way_name[] = {"tgkill", "pidfd_send_signal(PIDFD_SIGNAL_THREAD)"};
  int rounds = 20;
  for (int way = 0; way < 2; ++way) {
    way_now = way;
    /* Pending at the end of the logical thread. */
    atomic_store(&handled, 0);
    atomic_store(&sent_ok, 0);
    for (int i = 0; i < rounds; ++i) {
      pthread_t t;
      if (pthread_create(&t, NULL, pending_at_end, NULL) == 0) pthread_join(t, NULL);
      next_thread();
    }
    int sent = atomic_load(&sent_ok);
    if (way == 1 && sent == 0) {
      printf("%s: not available here\n", way_name[way]);
      continue;
    }
    printf("%s, pending at the end: %d sent, handler runs afterwards %d\n", way_name[way], sent,
           atomic_load(&handled));
    EXPECT(sent == rounds && atomic_load(&handled) == 0, "pending at the end");
    /* Sent to a thread that has ended. */
    atomic_store(&handled, 0);
    for (int i = 0; i < rounds; ++i) {
      pthread_t t;
      pid_t tid = 0;
      if (pthread_create(&t, NULL, tell_tid, &tid) == 0) pthread_join(t, NULL);
      ask_helper(way, tid); /* glibc: ESRCH; the cache: a parked thread's tid */
      next_thread();
    }
    printf("%s, sent after the end: handler runs %d\n", way_name[way], atomic_load(&handled));
    EXPECT(atomic_load(&handled) == 0, "sent after the end");
  }
  close(to_helper[1]);
  waitpid(child, NULL, 0);
  return semantics_failures ? 1 : 0;
}
