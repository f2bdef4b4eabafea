/* Signals pending for a physical thread between two logical threads (the pending part of
 * kernel_word.h): found at a logical exit, discarded before the next logical thread starts. */
#include <string.h>
#include <sys/syscall.h>

#include "../common/tm_prim.h"
#include "kernel_word.h"

/* The signals pending for the calling thread alone (SigPnd of /proc/thread-self/status,
 * signal 1 in the lowest bit), without those never pending for a fresh thread either way:
 * SIGKILL/SIGSTOP act at once, and glibc's SIGCANCEL (32) and SIGSETXID (33) are its own.
 * -1 when the file cannot be read. */
static int tm__own_pending(unsigned long long *bits) {
  char status[4096];
  if (tm__prim_read_file("/proc/thread-self/status", status, sizeof status) <= 0) return -1;
  const char *line = strstr(status, "\nSigPnd:");
  if (line == NULL) return -1;
  unsigned long long b = 0;
  for (const char *p = line + 8; *p && *p != '\n'; ++p) {
    int digit = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
    if (digit >= 0) b = b << 4 | (unsigned long long)digit;
  }
  *bits = b & ~((1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)) | (1ULL << 31) | (1ULL << 32));
  return 0;
}

/* 1 when rt_sigpending (the union of the thread's and the process's sets, one call) shows
 * something a fresh thread could not have. */
static int tm__any_pending(void) {
  sigset_t pending;
  if (tm__prim_sigpending(&pending) != 0) return 1;
  tm__shadow_filter_mask(&pending);
  sigset_t none;
  memset(&none, 0, sizeof none);
  return memcmp(&pending, &none, sizeof none) != 0;
}

/* 1 when a signal directed at the calling thread is pending. A signal pending for the process
 * (the shared set: every thread blocks it, e.g. SIGCHLD in a program that blocks it everywhere)
 * is what a fresh thread would see too and retires nothing; only when the union is not empty
 * is the thread's own set read. */
int tm__signal_pending(void) {
  if (!tm__any_pending()) return 0;
  unsigned long long bits;
  return tm__own_pending(&bits) != 0 || bits != 0;
}

/* Signals directed at this physical thread that no logical thread may take: sent to the tid of
 * a logical thread that has ended (tgkill or pidfd_send_signal(PIDFD_SIGNAL_THREAD) from another
 * process, which no wrapper sees), or pending unseen at its end. Under glibc that thread is gone
 * and the signal with it (a dying thread discards its own pending set; a dead tid takes nothing),
 * so they are discarded here, before the next logical thread's mask lets them in. Nothing can
 * be pending while the parked thread's mask is empty: a signal would have been delivered at once
 * (in a quiet process, to no handler: quiet_signals.c). */
void tm__discard_stale_signals(const struct tm_shadow *s) {
  if ((s->valid & TM_S_SIGMASK) && sigisemptyset(&s->sigmask)) return;
  if (!tm__any_pending()) return;
  /* One at a time, each the lowest pending of the thread's own set, until that set is empty: a
   * number pending in both sets is taken from the thread's first (the kernel's dequeue order),
   * so the process's copy stays for whoever takes it. Bounded: a queue refilled faster than it
   * drains keeps the rest. */
  for (int round = 0; round < 1024; ++round) {
    unsigned long long bits;
    if (tm__own_pending(&bits) != 0 || bits == 0) return;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, __builtin_ctzll(bits) + 1);
    if (tm__prim_take_signal(&one) < 0) return;
  }
}
