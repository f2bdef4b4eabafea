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
#include <sys/syscall.h>
#include <unistd.h>

#include "options.h"
#include "tm_cache.h"

struct tm_sched_attr { /* struct sched_attr (linux/sched/types.h), as sched_getattr fills it */
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period;
  uint32_t util_min, util_max;
};

static uintptr_t tm__own_base;  /* this library's load address: its TLS holds our slot */
static uintptr_t tm__libc_base; /* the C library's: its TLS is glibc's business */
static int tm__trim;

void tm__reset_init(void) {
  Dl_info info;
  if (dladdr((void *)&tm__reset_init, &info)) tm__own_base = (uintptr_t)info.dli_fbase;
  if (tm__real.create && dladdr((void *)tm__real.create, &info))
    tm__libc_base = (uintptr_t)info.dli_fbase;
  tm__trim = (int)tm__option(TM_OPT_TRIM);
}

static int tm__read_sched(struct tm_sched *out) {
  struct tm_sched_attr sa;
  memset(&sa, 0, sizeof sa);
  if (syscall(SYS_sched_getattr, 0, &sa, sizeof sa, 0) != 0) return -1;
  out->policy = (int)sa.sched_policy;
  out->priority = (int)sa.sched_priority;
  out->nice = sa.sched_nice;
  out->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  return 0;
}

int tm__capture_sched(struct tm_sched *out, const pthread_attr_t *attr) {
  int saved_errno = errno;
  int r = tm__read_sched(out);
  errno = saved_errno;
  if (r != 0) return -1;
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

int tm__capture_inherit(struct tm_inherit *out, const pthread_attr_t *attr) {
  int saved_errno = errno;
  int from_attr = 1;
  if (attr == NULL || pthread_attr_getsigmask_np(attr, &out->sigmask) != 0)
    pthread_sigmask(SIG_BLOCK, NULL, &out->sigmask);
  /* glibc reports "no affinity in the attr" as an all-ones mask. */
  if (attr == NULL ||
      pthread_attr_getaffinity_np(attr, sizeof out->affinity, &out->affinity) != 0 ||
      tm__mask_is_full(&out->affinity)) {
    from_attr = 0;
    if (sched_getaffinity(0, sizeof out->affinity, &out->affinity) != 0)
      memset(&out->affinity, 0xff, sizeof out->affinity);
  }
  out->timer_slack_ns = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  memset(out->name, 0, sizeof out->name);
  prctl(PR_GET_NAME, out->name, 0, 0, 0);
  errno = saved_errno;
  return from_attr;
}

void tm__apply_inherit(const struct tm_inherit *want_state) {
  /* `have` was read when the thread parked; only what differs costs a system call. */
  struct tm_thread *t = tm__self();
  if (!CPU_EQUAL(&want_state->affinity, &t->have.affinity))
    sched_setaffinity(0, sizeof want_state->affinity, &want_state->affinity);
  if (want_state->timer_slack_ns != t->have.timer_slack_ns)
    prctl(PR_SET_TIMERSLACK, want_state->timer_slack_ns, 0, 0, 0);
  if (memcmp(want_state->name, t->have.name, sizeof want_state->name) != 0)
    prctl(PR_SET_NAME, want_state->name, 0, 0, 0);
  pthread_sigmask(SIG_SETMASK, &want_state->sigmask, NULL);
}

struct tm_robust_list_head { /* struct robust_list_head (linux/futex.h) */
  void *next;
  long futex_offset;
  void *list_op_pending;
};

static int tm__tls_reset_one(struct dl_phdr_info *info, size_t size, void *unused) {
  (void)size;
  (void)unused;
  if (info->dlpi_tls_modid == 0 || info->dlpi_tls_data == NULL) return 0;
  if (info->dlpi_addr == tm__own_base || info->dlpi_addr == tm__libc_base) return 0;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  static const char *const skip[] = {"libc.so", "ld-linux",    "ld64.so",           "libasan",
                                     "libtsan", "libubsan",    "liblsan",           "libhwasan",
                                     "libmsan", "libclang_rt", "libthreadmap-cache"};
  for (size_t i = 0; i < sizeof skip / sizeof skip[0]; ++i)
    if (strncmp(base, skip[i], strlen(skip[i])) == 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_TLS) continue;
    char *block = info->dlpi_tls_data;
    memcpy(block, (const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_filesz);
    memset(block + ph->p_filesz, 0, ph->p_memsz - ph->p_filesz);
  }
  return 0;
}

void tm__tls_reset(void) { dl_iterate_phdr(tm__tls_reset_one, NULL); }

static void tm__trim_stack(struct tm_thread *t) {
  long page = sysconf(_SC_PAGESIZE);
  char here;
  uintptr_t top = ((uintptr_t)&here - 4 * (uintptr_t)page) & ~((uintptr_t)page - 1);
  uintptr_t lo = ((uintptr_t)t->stack_lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
  if (t->stack_lo && top > lo) madvise((void *)lo, top - lo, MADV_DONTNEED);
}

int tm__reset_physical(struct tm_thread *t) {
  int saved_errno = errno;
  int why = 0;
  if (t->tid == 0) { /* first reset of this physical thread */
    t->tid = (pid_t)syscall(SYS_gettid);
    size_t robust_len;
    if (syscall(SYS_get_robust_list, 0, &t->robust_head, &robust_len) != 0) t->robust_head = NULL;
  }
  const struct tm_robust_list_head *robust = t->robust_head;
  if (robust && (robust->next != (const void *)robust || robust->list_op_pending)) {
    why = TM_RETIRE_ROBUST + 1; /* the kernel's exit path marks them OWNER_DIED */
    goto out;
  }
  if (t->tainted || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != t->seccomp_at_birth) {
    why = TM_RETIRE_UNDOABLE + 1;
    goto out;
  }
  stack_t off = {.ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0};
  if (sigaltstack(&off, NULL) != 0) {
    why = TM_RETIRE_UNDOABLE + 1;
    goto out;
  }
  sigset_t all, pending;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL); /* parked threads take no signals */
  if (sigpending(&pending) != 0 || !sigisemptyset(&pending)) {
    why = TM_RETIRE_UNDOABLE + 1; /* a fresh thread has nothing pending: let this one go */
    goto out;
  }
  if (tm__read_sched(&t->sched) != 0) {
    why = TM_RETIRE_UNDOABLE + 1;
    goto out;
  }
  if (sched_getaffinity(0, sizeof t->have.affinity, &t->have.affinity) != 0)
    memset(&t->have.affinity, 0, sizeof t->have.affinity);
  t->have.timer_slack_ns = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  memset(t->have.name, 0, sizeof t->have.name);
  prctl(PR_GET_NAME, t->have.name, 0, 0, 0);
  tm__tls_reset();
  if (tm__trim) tm__trim_stack(t);
out:
  errno = saved_errno;
  return why;
}

/* Per-logical-thread state kept in glibc's TLS that a fresh thread starts without. */
void tm__fresh_logical_state(void) {
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
  pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
  uselocale(LC_GLOBAL_LOCALE);
  errno = 0;
}
