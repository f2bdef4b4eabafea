/* Making a recycled thread indistinguishable from a fresh one.
 *
 * Creator side (tm__capture_*): what a new thread would inherit from its creator or attr.
 * Worker side: tm__reset_physical runs when a logical thread has exited (destructors done) and
 * undoes what it may have changed; tm__apply_inherit runs just before the next start routine.
 * State that cannot be undone makes the thread retire instead (see tm_retire_reason).
 *
 * Static TLS: every module's TLS block (the program's and its libraries', also dlopen'ed ones
 * whose block this thread has allocated) is rewritten from the module's PT_TLS image, found
 * with dl_iterate_phdr (dlpi_tls_data is the calling thread's block, what
 * dlinfo(RTLD_DI_TLS_DATA) returns). Left alone: the C library's TLS (errno, which is set to
 * 0 explicitly; locale, reset with uselocale; malloc's thread cache; resolver state), the
 * loader's, this library's own slot, and sanitizer runtimes'. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <locale.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "fingerprint.h"
#include "kernel_word.h"
#include "next_symbols.h"
#include "notes.h"
#include "options.h"
#include "shadow.h"

static uintptr_t tm__own_base;  /* this library's load address: its TLS holds our slot */
static uintptr_t tm__libc_base; /* the C library's: its TLS is glibc's business */
static int tm__trim;

void tm__reset_init(void) {
  tm__own_base = tm__object_load_address((void *)&tm__reset_init);
  if (tm__real.create) tm__libc_base = tm__object_load_address((void *)tm__real.create);
  tm__trim = (int)tm__option(TM_OPT_TRIM);
}

int tm__capture_match(struct tm_match *match, const pthread_attr_t *attr) {
  /* Only called when a parked thread may be reused, after tm__shadow_for_create: the place
   * that catches changes made from outside the process (a new thread made by glibc inherits
   * the kernel's values anyway). */
  /* The slack too: a parked thread serves only creators whose slack is its default. */
  struct tm_shadow *s = tm__shadow_again(TM_S_SCHED | TM_S_SLACK);
  if ((s->valid & (TM_S_SCHED | TM_S_SLACK)) != (TM_S_SCHED | TM_S_SLACK)) return -1;
  match->identity = tm__identity_now();
  match->fingerprint = tm__shadow_paranoid() ? tm__fingerprint_read() : 0;
  struct tm_sched *out = &match->sched;
  *out = s->sched;
  tm__sched_of_clone(out);                   /* the creator's SCHED_RESET_ON_FORK */
  out->default_slack_ns = s->timer_slack_ns; /* a clone's default is its creator's slack */
  int inherit = PTHREAD_INHERIT_SCHED;
  if (attr && pthread_attr_getinheritsched(attr, &inherit) == 0 &&
      inherit == PTHREAD_EXPLICIT_SCHED) {
    struct sched_param param;
    if (pthread_attr_getschedpolicy(attr, &out->policy) != 0 ||
        pthread_attr_getschedparam(attr, &param) != 0)
      return -1;
    out->priority = param.sched_priority;
  }
  return 0;
}

static int tm__mask_is_full(const cpu_set_t *set) {
  const unsigned char *bytes = (const unsigned char *)set;
  for (size_t i = 0; i < sizeof *set; ++i)
    if (bytes[i] != 0xff) return 0;
  return 1;
}

/* The attr's signal mask (1) or none (0). */
static int tm__attr_sigmask(const pthread_attr_t *attr, sigset_t *mask) {
  if (attr == NULL || pthread_attr_getsigmask_np(attr, mask) != 0) return 0;
  tm__shadow_filter_mask(mask);
  return 1;
}

/* The attr's affinity (1) or none (0); glibc reports "none" as an all-ones mask. */
static int tm__attr_affinity(const pthread_attr_t *attr, cpu_set_t *set) {
  return attr != NULL && pthread_attr_getaffinity_np(attr, sizeof *set, set) == 0 &&
         !tm__mask_is_full(set);
}

int tm__capture_inherit(struct tm_inherit *out, const pthread_attr_t *attr) {
  int attr_mask = tm__attr_sigmask(attr, &out->sigmask);
  /* What may change behind the wrappers was read from the kernel (tm__shadow_for_create). */
  struct tm_shadow *s = tm__shadow_again(TM_S_SIGMASK | TM_S_AFFINITY | TM_S_SLACK | TM_S_NAME);
  if (!attr_mask) out->sigmask = s->sigmask;
  int from_attr = tm__attr_affinity(attr, &out->affinity);
  if (!from_attr) out->affinity = s->affinity;
  out->timer_slack_ns = s->timer_slack_ns;
  memcpy(out->name, s->name, sizeof out->name);
  tm__fpu_capture(&out->fpu);
  return from_attr;
}

void tm__seed_new_thread(struct tm_thread *t, const pthread_attr_t *attr) {
  /* No read and no verification here: this path must cost what glibc's does. What the
   * creator's shadow does not know, the new thread reads when it first needs it. */
  struct tm_shadow *s = tm__shadow_raw();
  unsigned valid = s->valid;
  /* What may change behind the wrappers: the kernel copies the real value, read when needed. */
  valid &= ~tm__kernel_read_items();
  if (tm__attr_sigmask(attr, &t->want.sigmask))
    valid |= TM_S_SIGMASK;
  else
    t->want.sigmask = s->sigmask;
  if (tm__attr_affinity(attr, &t->want.affinity))
    valid &= ~TM_S_AFFINITY; /* kernel may trim */
  else
    t->want.affinity = s->affinity;
  int inherit = PTHREAD_INHERIT_SCHED;
  if (attr && pthread_attr_getinheritsched(attr, &inherit) == 0 &&
      inherit == PTHREAD_EXPLICIT_SCHED)
    valid &= ~TM_S_SCHED;
  t->want.timer_slack_ns = s->timer_slack_ns;
  memcpy(t->want.name, s->name, sizeof t->want.name);
  t->seed_sched = s->sched;
  tm__sched_of_clone(&t->seed_sched);
  t->seed_valid = valid;
  t->seed_epoch = s->epoch;
  t->seed_placement_ns = s->placement_checked_ns;
  t->start_mask_known = (valid & TM_S_SIGMASK) != 0;
  t->signal_epoch = atomic_load_explicit(&tm__signal_epoch, memory_order_acquire);
  /* The process's seccomp mode (read at the first create) holds while no filter was installed. */
  t->seccomp_epoch = atomic_load_explicit(&tm__seccomp_epoch, memory_order_acquire);
  t->seccomp_at_birth = t->seccomp_epoch == 1 ? tm__seccomp_at_start : -1;
  /* The identity it is cloned with: its creator's now (no system call). */
  t->birth = tm__identity_now();
  if (tm__shadow_paranoid()) tm__fingerprint_take(t);
}

void tm__shadow_from_seed(struct tm_thread *t) {
  struct tm_shadow *s = tm__shadow_raw();
  s->valid = t->seed_valid;
  s->epoch = t->seed_epoch;
  s->placement_checked_ns = t->seed_placement_ns;
  s->signals_checked_ns = 0;
  s->altstack_changed = 0;
  s->sigmask = t->want.sigmask;
  s->affinity = t->want.affinity;
  s->timer_slack_ns = t->want.timer_slack_ns;
  /* A glibc clone: the kernel set its default slack to its creator's slack, which is what it
   * has now, before its first logical thread runs (read: the creator's shadow may not know). */
  long slack = tm__prim_prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  s->default_slack_ns = slack > 0 ? (unsigned long)slack : 0;
  memcpy(s->name, t->want.name, sizeof s->name);
  tm__shadow_stamp(s);
  s->sched = t->seed_sched;
  tm__identity_adopt(&t->birth);
  if (t->seccomp_at_birth < 0) { /* a filter was installed somewhere: ask */
    t->seccomp_at_birth = (int)tm__prim_prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
    t->seccomp_epoch = atomic_load_explicit(&tm__seccomp_epoch, memory_order_acquire);
  }
}

static void tm__apply_items(struct tm_thread *t, struct tm_shadow *s);

void tm__apply_inherit(struct tm_thread *t) {
  /* Only what differs from the shadow costs a system call. */
  const struct tm_inherit *want = &t->want;
  int saved_errno = errno;
  tm__shadow_verify_placement();
  struct tm_shadow *s =
      tm__shadow(TM_S_SIGMASK | TM_S_AFFINITY | TM_S_SLACK | TM_S_NAME | TM_S_SCHED);
  if ((s->valid & TM_S_SCHED) && s->sched.nice != t->sched.nice &&
      s->sched.policy == t->sched.policy && s->sched.priority == t->sched.priority) {
    /* Reniced from outside while parked (the creator matched the nice value we had when we
     * parked): put it back where the kernel lets us (raising nice always works). */
    if (tm__prim_set_nice(t->sched.nice) == 0) s->sched.nice = t->sched.nice;
  }
  /* Before the creator's mask can let in what was sent to the logical thread that ended (on
   * every hand-off: the fast path below sets no mask, but the parked thread's may hold some). */
  tm__discard_stale_signals(s);
  /* Nothing to compare when this shadow has not changed since it was made what these same
   * values name (stamps, shadow.h): the common recycle from the same creator. */
  if (t->want_stamp == 0 || t->want_stamp != t->applied_want || s->stamp != t->applied_stamp ||
      t->affinity_by_creator)
    tm__apply_items(t, s);
  t->applied_want = t->want_stamp;
  t->applied_stamp = s->stamp;
  s->altstack_changed = 0;
  s->handler_depth = 0; /* a handler left by a jump in an earlier logical thread is gone */
  t->start_mask_known = 1;
  tm__fpu_apply(&want->fpu);
  tm__identity_adopt(&t->birth);
  t->exit_cause = 0;
  t->n_children = 0;
  t->pipes_open = 0;
  errno = saved_errno;
}

/* The items of T->want that differ from shadow S are set (a call each). */
static void tm__apply_items(struct tm_thread *t, struct tm_shadow *s) {
  const struct tm_inherit *want = &t->want;
  if (t->affinity_by_creator) {
    s->valid &= ~TM_S_AFFINITY; /* set by the creator; the kernel may have trimmed it */
    t->affinity_by_creator = 0;
  } else if (!(s->valid & TM_S_AFFINITY) || !CPU_EQUAL(&want->affinity, &s->affinity)) {
    if (tm__real_setaffinity(0, sizeof want->affinity, &want->affinity) == 0) {
      s->affinity = want->affinity;
      s->valid |= TM_S_AFFINITY;
    } else {
      s->valid &= ~TM_S_AFFINITY;
    }
    tm__shadow_stamp(s);
  }
  /* The default slack needs nothing: it was matched (its creator's slack is our default). */
  if (want->timer_slack_ns != s->timer_slack_ns) {
    tm__prim_prctl(PR_SET_TIMERSLACK, want->timer_slack_ns, 0, 0, 0);
    s->valid &= ~TM_S_SLACK; /* 0 means "the default": read back when next needed */
  }
  if (memcmp(want->name, s->name, sizeof want->name) != 0) {
    if (tm__prim_prctl(PR_SET_NAME, (unsigned long)want->name, 0, 0, 0) == 0) {
      memcpy(s->name, want->name, sizeof s->name);
      s->valid |= TM_S_NAME;
      tm__shadow_stamp(s);
    }
  }
  if (!(s->valid & TM_S_SIGMASK) || memcmp(&want->sigmask, &s->sigmask, sizeof s->sigmask) != 0)
    tm__shadow_set_sigmask(&want->sigmask);
}

void tm__park_block_signals(void) { tm__shadow_block_all(); }

struct tm_robust_list_head { /* struct robust_list_head (linux/futex.h) */
  void *next;
  long futex_offset;
  void *list_op_pending;
};

/* The TLS blocks a reset rewrites, per thread, kept between resets: the walk over the loaded
 * modules (a loader lock, a callback and a few name comparisons per module) is paid again only
 * when the module set changed (dlpi_adds/dlpi_subs, the loader's load and unload counters,
 * read from the first module) or when the list is incomplete: a module whose TLS block this
 * thread has not allocated yet (dlopen'ed, dynamic TLS) may get one later, which the list would
 * miss, so such a thread walks every time; so does one with more blocks than fit. */
#define TM_TLS_LISTED 8
struct tm_tls_block {
  char *block;
  const char *image;
  size_t filesz, memsz;
};
struct tm_tls_list {
  unsigned long long adds, subs;
  int valid, current, n;
  struct tm_tls_block blocks[TM_TLS_LISTED];
};
static __thread struct tm_tls_list tm__tls_list __attribute__((tls_model("initial-exec")));

static int tm__has_load_counters(size_t size) {
  return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(unsigned long long);
}

/* First module only (returns 1: stop): is the list still valid for this module set? */
static int tm__tls_list_current(struct dl_phdr_info *info, size_t size, void *arg) {
  struct tm_tls_list *list = arg;
  list->current = list->valid && tm__has_load_counters(size) && info->dlpi_adds == list->adds &&
                  info->dlpi_subs == list->subs;
  return 1;
}

static int tm__tls_reset_one(struct dl_phdr_info *info, size_t size, void *arg) {
  struct tm_tls_list *list = arg;
  if (list->n == 0 && list->valid == 1) { /* first module of this walk */
    list->valid = tm__has_load_counters(size);
    if (list->valid) {
      list->adds = info->dlpi_adds;
      list->subs = info->dlpi_subs;
    }
    list->n = -1; /* counters taken */
  }
  if (info->dlpi_tls_modid == 0) return 0;
  if (info->dlpi_addr == tm__own_base || info->dlpi_addr == tm__libc_base) return 0;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  static const char *const skip[] = {"libc.so", "ld-linux",    "ld64.so",           "libasan",
                                     "libtsan", "libubsan",    "liblsan",           "libhwasan",
                                     "libmsan", "libclang_rt", "libthreadmap-cache"};
  for (size_t i = 0; i < sizeof skip / sizeof skip[0]; ++i)
    if (strncmp(base, skip[i], strlen(skip[i])) == 0) return 0;
  if (info->dlpi_tls_data == NULL) {
    list->valid = 0; /* not allocated in this thread yet: it may be later */
    return 0;
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_TLS) continue;
    char *block = info->dlpi_tls_data;
    const char *image = (const char *)(info->dlpi_addr + ph->p_vaddr);
    memcpy(block, image, ph->p_filesz);
    memset(block + ph->p_filesz, 0, ph->p_memsz - ph->p_filesz);
    int at = list->n < 0 ? 0 : list->n;
    if (at >= TM_TLS_LISTED) {
      list->valid = 0;
    } else {
      list->blocks[at] = (struct tm_tls_block){block, image, ph->p_filesz, ph->p_memsz};
      list->n = at + 1;
    }
  }
  return 0;
}

void tm__tls_reset(void) {
  struct tm_tls_list *list = &tm__tls_list;
  if (list->valid) {
    dl_iterate_phdr(tm__tls_list_current, list);
    if (list->current) {
      for (int i = 0; i < list->n; ++i) {
        const struct tm_tls_block *b = &list->blocks[i];
        memcpy(b->block, b->image, b->filesz);
        memset(b->block + b->filesz, 0, b->memsz - b->filesz);
      }
      return;
    }
  }
  tm__kernel_word_modules(); /* the module set changed: a runtime with its own system calls? */
  list->valid = 1;
  list->n = 0;
  dl_iterate_phdr(tm__tls_reset_one, list);
  if (list->n < 0) list->n = 0;
}

static void tm__trim_stack(struct tm_thread *t) {
  long page = tm__prim_page_size();
  char here;
  uintptr_t top = ((uintptr_t)&here - 4 * (uintptr_t)page) & ~((uintptr_t)page - 1);
  uintptr_t lo = ((uintptr_t)t->stack_lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
  if (t->stack_lo && top > lo) tm__prim_drop_pages((void *)lo, top - lo);
}

/* 1 while a child the logical thread forked still runs: its PR_SET_PDEATHSIG fires when the
 * thread that forked it ends, which a parked thread never does. A reaped child, or one that
 * has ended (a zombie: dead, the signal means nothing to it), keeps nothing. */
static int tm__child_alive(const struct tm_thread *t) {
  for (int i = 0; i < t->n_children; ++i)
    if (tm__prim_child_running(t->children[i])) return 1;
  return 0;
}

/* 1 when the finished thread T will block every signal whatever mask its logical thread left:
 * the mask is read from the kernel (kernel_word.h), the process is loud, and the mask T's
 * logical thread started with lets in a signal that has a handler (below). */
static int tm__blocks_whatever(const struct tm_thread *t) {
  return tm__kernel_mask_on() && tm__process_loud() && t->start_mask_known &&
         !tm__mask_shuts_handlers(&t->want.sigmask, tm__coarse_now_ns());
}

/* Blocks every signal and reads the mask it replaces, in one call (the kernel-mask read at a
 * logical exit and the block that follows it, at once): the shadow, its mask now "all". The
 * mask replaced need not be kept: everything is blocked from here to the next hand-off, which
 * sets the creator's. */
static struct tm_shadow *tm__block_all_reading(void) {
  struct tm_shadow *s = tm__shadow_raw();
  sigset_t all, old;
  memset(&all, 0xff, sizeof all);
  tm__shadow_filter_mask(&all);
  if (tm__real_sigmask(SIG_SETMASK, &all, &old) == 0) {
    s->sigmask = all;
    s->valid |= TM_S_SIGMASK;
  } else {
    s->valid &= ~(unsigned)TM_S_SIGMASK;
  }
  tm__shadow_stamp(s); /* the next hand-off compares again (its fast path needs a new stamp) */
  return tm__shadow(TM_S_SCHED | TM_S_SIGMASK);
}

/* A retirement cause known without asking the kernel, or 0. */
static unsigned tm__cause_without_reads(struct tm_thread *t) {
  /* Whatever the logical thread changed of what clone copies gave it a new identity: it is no
   * longer what its birth identity names (identity.h). */
  struct tm_identity now = tm__identity_now();
  if (!tm__identity_equal(&now, &t->birth)) {
    unsigned why = tm__identity_cause();
    return why == TM_CAUSE_NONE ? TM_CAUSE_IDENTITY : why;
  }
  if (t->exit_cause) return t->exit_cause;
  /* Nothing parked could be known to be a clone any more (kernel_word.h). */
  if (tm__no_reuse_cause()) return tm__no_reuse_cause();
  /* A popen'ed child is alive until pclose. */
  if (t->pipes_open > 0 || (t->n_children && tm__child_alive(t))) return TM_CAUSE_FORK;
  return 0;
}

unsigned tm__reset_physical(struct tm_thread *t) {
  int saved_errno = errno;
  unsigned why = 0;
  if (t->tid == 0) { /* first reset of this physical thread */
    t->tid = tm__self_tid();
    if (tm__prim_get_robust_list(&t->robust_head) != 0) t->robust_head = NULL;
  }
  const struct tm_robust_list_head *robust = t->robust_head;
  if (robust && (robust->next != (const void *)robust || robust->list_op_pending)) {
    why = TM_CAUSE_ROBUST; /* the kernel's exit path marks them OWNER_DIED */
    goto out;
  }
  why = tm__cause_without_reads(t);
  if (why) goto out;
  /* Usually no system call: the shadow knows (shadow.h). Once per verification interval the
   * mask and the pending set are read again (a signal from another process, a handler that
   * edited its ucontext's mask). */
  int deep = tm__shadow_verify_signals();
  int paranoid = tm__shadow_paranoid();
  struct tm_shadow *s =
      tm__blocks_whatever(t) ? tm__block_all_reading() : tm__shadow_mask_checked(deep);
  /* A logical thread that blocked a signal where no wrapper saw it ends quietness now. */
  if ((deep || tm__kernel_mask_on()) && (s->valid & TM_S_SIGMASK) &&
      tm__quiet_mask_counts(SIG_SETMASK, &s->sigmask))
    tm__quiet_end();
  /* A filter another thread installed with TSYNC reached this one too. */
  uint64_t seccomp_epoch = atomic_load_explicit(&tm__seccomp_epoch, memory_order_acquire);
  if ((paranoid || seccomp_epoch != t->seccomp_epoch) &&
      tm__prim_prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != t->seccomp_at_birth) {
    why = TM_CAUSE_SECCOMP;
    goto out;
  }
  t->seccomp_epoch = seccomp_epoch;
  if (paranoid && !tm__fingerprint_matches(t)) {
    why = TM_CAUSE_IDENTITY; /* changed where no wrapper saw it (inline assembly) */
    goto out;
  }
  if (paranoid || s->altstack_changed) {
    if (tm__prim_sigaltstack_disable() != 0) {
      why = TM_CAUSE_SIGALTSTACK; /* still running on it: EPERM */
      goto out;
    }
    s->altstack_changed = 0;
  }
  /* A parked thread takes no signal, from the moment its logical thread has ended (under glibc
   * a signal sent to the tid of a joined thread reaches nobody). While it spins for its next
   * logical thread it may keep the mask its logical thread started with (the mask any new
   * thread of that creator gets) when that mask lets in no signal with a handler; any other
   * mask is replaced now, and every mask before it sleeps (tm__park_block_signals), except one
   * that blocks the quiet set while the process may be quiet (quiet_signals.c decides at the
   * sleep). What was sent to this tid and stays pending is discarded before the next logical
   * thread (tm__discard_stale_signals). */
  if (!tm__quiet_may_keep(s) && (!t->start_mask_known || !(s->valid & TM_S_SIGMASK) ||
                                 (s->stamp != t->applied_stamp &&
                                  memcmp(&s->sigmask, &t->want.sigmask, sizeof s->sigmask) != 0) ||
                                 !tm__mask_shuts_handlers(&s->sigmask, tm__coarse_now_ns())))
    tm__shadow_block_all();
  uint64_t signal_epoch = atomic_load_explicit(&tm__signal_epoch, memory_order_acquire);
  if (deep || signal_epoch != t->signal_epoch) {
    if (tm__signal_pending()) {
      why = TM_CAUSE_SIGNAL_PENDING; /* a fresh thread has nothing pending: let this one go */
      goto out;
    }
    t->signal_epoch = signal_epoch;
  }
  if (!(s->valid & TM_S_SCHED) || s->sched.reset_on_fork) {
    why = TM_CAUSE_SCHEDULING; /* unknown, or a flag no clone has: it would never match */
    goto out;
  }
  t->sched = s->sched;
  t->sched.default_slack_ns = s->default_slack_ns;
  tm__tls_reset();
  if (tm__trim) tm__trim_stack(t);
out:
  errno = saved_errno;
  return why;
}

/* Per-logical-thread state kept in glibc's TLS that a fresh thread starts without. */
void tm__fresh_logical_state(void) {
  /* Unchanged since the last start unless a call changed them or a cancel ever came (the
   * worker then disabled it: tm__cancel_ever). */
  struct tm_shadow *s = tm__shadow_raw();
  if (s->cancel_changed || atomic_load_explicit(&tm__cancel_ever, memory_order_relaxed)) {
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
    s->cancel_changed = 0;
  }
  uselocale(LC_GLOBAL_LOCALE);
  tm__libc_thread_freeres(); /* dlerror, h_errno, _res (libc_state.c) */
  errno = 0;
}
