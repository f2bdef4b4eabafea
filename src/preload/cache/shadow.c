/* The calling thread's shadow state (see shadow.h for what keeps it true). Reads happen only
 * for items that are not valid; each is one system call (the scheduling identity two). */
#include "shadow.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "kernel_word.h"
#include "next_symbols.h"
#include "options.h"

_Atomic uint64_t tm__shadow_epoch = 1;
_Atomic uint64_t tm__signal_epoch = 1;
_Atomic uint64_t tm__seccomp_epoch = 1;
_Atomic uint64_t tm__shadow_stamps;

__thread struct tm_shadow tm__sh __attribute__((tls_model("initial-exec")));
/* 0 until the options are read: verify on every call (the safe default). */
static uint64_t tm__verify_ns;

/* The part of a sigset_t the kernel holds (glibc's sigset_t is 128 bytes, the kernel's 8). */
#define TM_KSIGSET_BYTES ((_NSIG - 1 + 7) / 8)

int tm__seccomp_at_start;

void tm__shadow_init(void) {
  tm__shadow_interpose_init();
  sigset_t current;
  tm__real_sigmask(SIG_BLOCK, NULL, &current);
  tm__verify_ns = (uint64_t)tm__option(TM_OPT_VERIFY_MS) * 1000000ULL;
  tm__quiet_init(&current);
}

/* At the first create, not at start-up: the filters threads inherit from then on (a filter
 * set through an interposed call before it is seen as such: reset.c). */
void tm__shadow_init_threads(void) {
  tm__seccomp_at_start = (int)tm__prim_prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
}

int tm__real_setaffinity(pid_t tid, size_t size, const cpu_set_t *set) {
  static int (*next)(pid_t, size_t, const cpu_set_t *);
  int (*fn)(pid_t, size_t, const cpu_set_t *) = __atomic_load_n(&next, __ATOMIC_RELAXED);
  if (fn == NULL) {
    *(void **)&fn = tm__next_symbol(&(void *){NULL}, "sched_setaffinity"); /* next_symbols.c */
    if (fn == NULL) {
      errno = ENOSYS;
      return -1;
    }
    __atomic_store_n(&next, fn, __ATOMIC_RELAXED);
  }
  return fn(tid, size, set);
}

int tm__real_sigmask(int how, const sigset_t *set, sigset_t *old) {
  static int (*next)(int, const sigset_t *, sigset_t *);
  int (*fn)(int, const sigset_t *, sigset_t *) = __atomic_load_n(&next, __ATOMIC_RELAXED);
  if (fn == NULL) {
    *(void **)&fn = tm__next_symbol(&(void *){NULL}, "pthread_sigmask"); /* safe in handlers */
    if (fn == NULL) return ENOSYS;
    __atomic_store_n(&next, fn, __ATOMIC_RELAXED);
  }
  return fn(how, set, old);
}

static void tm__mask_clear(sigset_t *mask, int sig) {
  unsigned long *words = (unsigned long *)(void *)mask;
  const int bits = 8 * (int)sizeof(unsigned long);
  words[(sig - 1) / bits] &= ~(1UL << ((sig - 1) % bits));
}

void tm__shadow_filter_mask(sigset_t *mask) {
  /* Bytes the kernel does not keep are zero, so whole masks compare with memcmp. */
  memset((char *)mask + TM_KSIGSET_BYTES, 0, sizeof *mask - TM_KSIGSET_BYTES);
  tm__mask_clear(mask, SIGKILL);
  tm__mask_clear(mask, SIGSTOP);
  tm__mask_clear(mask, 32); /* SIGCANCEL: glibc never lets a thread block it */
  tm__mask_clear(mask, 33); /* SIGSETXID: setuid() across threads needs it */
}

int tm__read_sched(struct tm_sched *out) {
  struct { /* struct sched_attr (linux/sched/types.h), as sched_getattr fills it */
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t util_min, util_max;
  } sa;
  memset(&sa, 0, sizeof sa);
  if (tm__prim_sched_getattr(&sa, sizeof sa) != 0) return -1;
  out->policy = (int)sa.sched_policy;
  out->priority = (int)sa.sched_priority;
  out->nice = sa.sched_nice;
  out->reset_on_fork = (sa.sched_flags & 1 /* SCHED_FLAG_RESET_ON_FORK */) != 0;
  out->no_new_privs = (int)tm__prim_prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  return 0;
}

static void tm__read_items(struct tm_shadow *s, unsigned items) {
  /* A read that finds what the shadow held keeps its stamp (shadow.h): in kernel-mask mode the
   * mask is read at every recycle, and stays the same. */
  int same = 0;
  if (items & TM_S_SIGMASK) {
    /* The system call itself (what glibc's pthread_sigmask makes, without its copies): in
     * kernel-mask mode this is one of the two reads of every recycle (kernel_word.h). */
    sigset_t m;
    if (tm__prim_sigmask_read(&m) != 0) items &= ~TM_S_SIGMASK;
    tm__mask_clear(&m, 32); /* glibc's own signals: never recorded as blocked */
    tm__mask_clear(&m, 33);
    same = items == TM_S_SIGMASK && s->stamp != 0 && memcmp(&m, &s->sigmask, sizeof m) == 0;
    s->sigmask = m;
  }
  if (items & TM_S_AFFINITY) {
    if (tm__prim_getaffinity(&s->affinity) != 0) {
      memset(&s->affinity, 0xff, sizeof s->affinity);
      items &= ~TM_S_AFFINITY;
    }
  }
  if (items & TM_S_NAME) {
    memset(s->name, 0, sizeof s->name);
    if (tm__prim_prctl(PR_GET_NAME, (unsigned long)s->name, 0, 0, 0) != 0) items &= ~TM_S_NAME;
  }
  if (items & TM_S_SLACK)
    s->timer_slack_ns = (unsigned long)tm__prim_prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if ((items & TM_S_SCHED) && tm__read_sched(&s->sched) != 0) items &= ~TM_S_SCHED;
  s->valid |= items;
  if (!same) tm__shadow_stamp(s);
}

int tm__shadow_paranoid(void) { return tm__verify_ns == 0; }

/* 1 (and *CHECKED set to now) when the last check is at least one interval old. */
static int tm__check_due(uint64_t *checked) {
  if (tm__verify_ns == 0) return 1;
  uint64_t now = tm__sh.clock_hint_ns;
  if (now)
    tm__sh.clock_hint_ns = 0;
  else
    now = tm__coarse_now_ns();
  tm__sh.clock_ns = now;
  if (*checked != 0 && now - *checked < tm__verify_ns) return 0;
  *checked = now;
  return 1;
}

void tm__shadow_verify_placement(void) {
  if (!tm__check_due(&tm__sh.placement_checked_ns)) return;
  tm__sh.valid &= tm__verify_ns == 0 ? 0u : ~(unsigned)(TM_S_AFFINITY | TM_S_SCHED);
}

int tm__shadow_verify_signals(void) { return tm__check_due(&tm__sh.signals_checked_ns); }

static struct tm_shadow *tm__shadow_look(unsigned need, int look_cpu);

struct tm_shadow *tm__shadow_mask_checked(int verify) {
  struct tm_shadow *s = &tm__sh;
  unsigned items = tm__kernel_read_items() | (verify ? (unsigned)TM_S_SIGMASK : 0u);
  if (!items) return tm__shadow_look(TM_S_SCHED | TM_S_SIGMASK, 0);
  /* The mask survives an epoch change (only the thread itself changes it): what the shadow
   * says now is what it would have trusted. Name and slack, when read from the kernel, are
   * read by the next start (tm__apply_inherit). */
  int was_known = (items & s->valid & TM_S_SIGMASK) != 0;
  sigset_t said = s->sigmask;
  s->valid &= ~items;
  s = tm__shadow_look(TM_S_SCHED | TM_S_SIGMASK, 0);
  /* Something no wrapper sees changes masks here (inline system calls): from now on the mask
   * is read wherever it matters (kernel_word.h). */
  if (was_known && (s->valid & TM_S_SIGMASK) && memcmp(&said, &s->sigmask, sizeof said) != 0)
    tm__kernel_word_evidence();
  return s;
}

/* tm__shadow, and without LOOK_CPU the same without the CPU check: for a read where the thread
 * is about to park (its next start checks again before anything depends on it). */
static struct tm_shadow *tm__shadow_look(unsigned need, int look_cpu) {
  struct tm_shadow *s = &tm__sh;
  uint64_t epoch = atomic_load_explicit(&tm__shadow_epoch, memory_order_acquire);
  if (s->epoch != epoch) {    /* another thread changed some thread's state: maybe ours */
    s->valid &= TM_S_SIGMASK; /* nobody else can change our signal mask */
    s->epoch = epoch;
  }
  if (look_cpu) {
    /* rseq's cpu_id (no system call): running where our shadow says we may not means somebody
     * changed the affinity behind our back. Kept: the idle slot of this operation (records.c,
     * worker.c). */
    int cpu = tm__prim_getcpu();
    s->cpu = cpu;
    if ((s->valid & TM_S_AFFINITY) && cpu >= 0 && cpu < CPU_SETSIZE &&
        !CPU_ISSET(cpu, &s->affinity))
      s->valid &= ~TM_S_AFFINITY;
  }
  unsigned missing = need & ~s->valid;
  if (missing) {
    int saved_errno = errno;
    tm__read_items(s, missing);
    errno = saved_errno;
  }
  return s;
}

struct tm_shadow *tm__shadow(unsigned need) {
  return tm__shadow_look(need, 1);
}

struct tm_shadow *tm__shadow_for_create(int attr_mask) {
  tm__shadow_verify_placement();
  unsigned stale = tm__kernel_read_items() & ~(attr_mask ? (unsigned)TM_S_SIGMASK : 0u);
  if (__builtin_expect(stale != 0, 0)) tm__sh.valid &= ~stale;
  return tm__shadow(TM_S_SCHED | TM_S_SIGMASK | TM_S_AFFINITY | TM_S_SLACK | TM_S_NAME);
}

struct tm_shadow *tm__shadow_of(pthread_t thread) {
  static _Atomic intptr_t offset;
  static _Atomic int known;
  if (!atomic_load_explicit(&known, memory_order_acquire)) {
    atomic_store_explicit(&offset, (intptr_t)((char *)&tm__sh - (char *)pthread_self()),
                          memory_order_relaxed);
    atomic_store_explicit(&known, 1, memory_order_release);
  }
  return (struct tm_shadow *)(void *)((char *)thread +
                                      atomic_load_explicit(&offset, memory_order_relaxed));
}

pid_t tm__self_tid(void) {
  if (tm__sh.tid == 0) {
    tm__sh.tid = tm__prim_gettid();
  }
  return tm__sh.tid;
}

void tm__shadow_after_fork(void) { tm__sh.tid = 0; }

void tm__shadow_changed(pid_t tid, unsigned items) {
  if (tid == 0 || tid == tm__self_tid())
    tm__sh.valid &= ~items;
  else
    atomic_fetch_add_explicit(&tm__shadow_epoch, 1, memory_order_release);
}

void tm__shadow_changed_thread(pthread_t thread, unsigned items) {
  if (pthread_equal(thread, pthread_self()))
    tm__sh.valid &= ~items;
  else
    atomic_fetch_add_explicit(&tm__shadow_epoch, 1, memory_order_release);
}

void tm__shadow_set_sigmask(const sigset_t *mask) {
  sigset_t m = *mask;
  tm__shadow_filter_mask(&m);
  int saved_errno = errno;
  if (tm__real_sigmask(SIG_SETMASK, &m, NULL) == 0) {
    tm__sh.sigmask = m;
    tm__sh.valid |= TM_S_SIGMASK;
  } else {
    tm__sh.valid &= ~TM_S_SIGMASK;
  }
  tm__shadow_stamp(&tm__sh);
  errno = saved_errno;
}

static void tm__all_signals(sigset_t *all) {
  memset(all, 0xff, sizeof *all);
  tm__shadow_filter_mask(all);
}

int tm__shadow_all_blocked(void) {
  sigset_t all;
  tm__all_signals(&all);
  return (tm__sh.valid & TM_S_SIGMASK) && memcmp(&all, &tm__sh.sigmask, sizeof all) == 0;
}

void tm__shadow_block_all(void) {
  if (tm__shadow_all_blocked()) return;
  sigset_t all;
  tm__all_signals(&all);
  tm__shadow_set_sigmask(&all);
}

void tm__sched_of_clone(struct tm_sched *sched) {
  if (!sched->reset_on_fork) return;
  /* sched_fork(): a real-time or deadline policy becomes SCHED_NORMAL, a negative nice 0. */
  if (sched->policy != SCHED_OTHER && sched->policy != SCHED_BATCH && sched->policy != SCHED_IDLE) {
    sched->policy = SCHED_OTHER;
    sched->priority = 0;
  }
  if (sched->nice < 0) sched->nice = 0;
  sched->reset_on_fork = 0;
}
