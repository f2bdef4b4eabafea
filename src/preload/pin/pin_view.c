/* threadmap pin preload — the share the program sees (contract in pin_view.h). */
#define _GNU_SOURCE
#include "pin_view.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "../common/tm_prim.h"
#include "pin_log.h"
#include "pin_runtime.h"
#include "pin_share.h"

typedef int (*tm__getaff_fn)(pid_t, size_t, cpu_set_t*);
typedef int (*tm__pgetaff_fn)(pthread_t, size_t, cpu_set_t*);
typedef int (*tm__setaff_fn)(pid_t, size_t, const cpu_set_t*);
typedef int (*tm__psetaff_fn)(pthread_t, size_t, const cpu_set_t*);

/* Written once in initialisation (under the runtime's pthread_once), read-only afterwards. */
static unsigned long tm__share[TM_PIN_SHARE_WORDS];
static size_t tm__share_cpus; /* 0: no share, every query gets the kernel's answer */
static pthread_t tm__main_thread;
static pid_t tm__main_pid;

/* The main thread's view, readable by the threads that ask about it by pid or pthread_t: the
 * pid of the process in which the pinner narrowed it (0: not narrowed), and to which set. */
static atomic_int tm__main_view_pid;
static atomic_int tm__main_view_set;
static atomic_int tm__main_deferred; /* on the share, its own rule still to apply */
/* The program set the mask of a thread other than the caller: that thread's view cannot be
 * ended from here, so from now on a view holds only while the kernel still has the pinner's
 * own set for the thread. */
static atomic_int tm__program_set_others;

/* Per thread (initial-exec: the library is preloaded, its TLS is static). The pid guards a fork
 * child, whose one thread is a copy: it reports the kernel's answer. */
static __thread pid_t tm__t_view_pid __attribute__((tls_model("initial-exec")));
static __thread int32_t tm__t_view_set __attribute__((tls_model("initial-exec")));
static __thread int tm__t_internal __attribute__((tls_model("initial-exec")));

static int on_main_thread(void) {
  return tm__main_pid != 0 && pthread_equal(pthread_self(), tm__main_thread);
}

void tm__view_init(void) {
  /* Initialisation runs in the constructor, on the main thread; otherwise (a wrapper called
   * first from elsewhere) the main thread is not known and has no view. */
  if (tm__prim_gettid() == tm__prim_getpid()) {
    tm__main_thread = pthread_self();
    tm__main_pid = tm__prim_getpid();
  }
  const unsigned long* allowed = tm__rt.original_bytes ? tm__rt.original : NULL;
  size_t allowed_words = tm__rt.original_bytes / sizeof(unsigned long);
  if (tm__rt.config.original_set >= 0) {
    allowed = tm__rt.config.sets + (size_t)tm__rt.config.original_set * tm__rt.config.mask_words;
    allowed_words = tm__rt.config.mask_words;
  }
  /* TM_PIN_SHARE_VIEW=0: no share; every thread reports its own mask, as before the view. */
  if (!tm__rt.share_view) return;
  tm__share_cpus = tm__share_from_config(&tm__rt.config, allowed, allowed_words, tm__share);
}

void tm__view_internal(int inside) { tm__t_internal = inside; }

void tm__view_narrowed(int32_t set) {
  pid_t pid = tm__prim_getpid();
  if (on_main_thread()) {
    atomic_store(&tm__main_view_set, set);
    atomic_store(&tm__main_view_pid, pid);
    return;
  }
  tm__t_view_set = set;
  tm__t_view_pid = pid;
}

void tm__view_clear(void) {
  if (on_main_thread()) {
    atomic_store(&tm__main_view_pid, 0);
    return;
  }
  tm__t_view_pid = 0;
}

int tm__view_share_main(void) {
  if (tm__share_cpus == 0 || tm__rt.config.main_set < 0 || !on_main_thread()) return 0;
  const unsigned long* main_mask =
      tm__rt.config.sets + (size_t)tm__rt.config.main_set * tm__rt.config.mask_words;
  size_t words =
      tm__rt.config.mask_words < TM_PIN_SHARE_WORDS ? tm__rt.config.mask_words : TM_PIN_SHARE_WORDS;
  if (memcmp(main_mask, tm__share, words * sizeof(unsigned long)) == 0) return 0;
  /* As long as the rules' masks (the share lies within them), as every pin is set. */
  tm__view_internal(1);
  int rc = tm__prim_setaffinity_seen(0, words * sizeof(unsigned long), tm__share);
  tm__view_internal(0);
  if (rc != 0) return 0; /* the caller pins the main thread now, as without a share */
  atomic_store(&tm__main_deferred, 1);
  if (tm__rt.verbose) {
    tm__line line;
    tm__line_start(&line);
    tm__line_str(&line, "pin: main thread tid ");
    tm__line_long(&line, tm__prim_gettid());
    tm__line_str(&line, " -> the share, CPUs ");
    tm__line_cpus(&line, tm__share, TM_PIN_SHARE_WORDS);
    tm__line_str(&line,
                 " (what runtimes size themselves by), until it creates its first thread; "
                 "then its main rule");
    tm__line_emit(&line);
  }
  return 1;
}

void tm__view_before_thread(void) {
  if (!atomic_load_explicit(&tm__main_deferred, memory_order_relaxed)) return;
  /* The first thread is created by the only thread there is: the main thread (or, in a fork
   * child of a process that had none yet, its copy). */
  if (tm__prim_gettid() != tm__prim_getpid()) return;
  if (atomic_exchange(&tm__main_deferred, 0) == 0) return;
  tm__decision main_decision = {TM__ACTION_SET, tm__rt.config.main_set,
                                "main rule, at the program's first thread"};
  tm__apply_to_self(&main_decision, "main thread", -1, NULL);
}

/* Where the view of the thread asked about lives: the caller's own, the main thread's, or
 * none (another thread: the kernel's answer). */
enum { TM__VIEW_NONE, TM__VIEW_SELF, TM__VIEW_MAIN };

/* The set the pinner narrowed the thread to, or -1 when it reports the kernel's mask. */
static int32_t view_set(int which) {
  pid_t pid = tm__prim_getpid();
  if (which == TM__VIEW_MAIN || (which == TM__VIEW_SELF && on_main_thread())) {
    if (atomic_load(&tm__main_view_pid) != pid) return -1;
    return atomic_load(&tm__main_view_set);
  }
  if (which == TM__VIEW_SELF && tm__t_view_pid == pid) return tm__t_view_set;
  return -1;
}

/* Replaces the kernel's answer in `set` by the share when the thread's view holds. */
static void answer(int which, size_t size, cpu_set_t* set) {
  if (tm__share_cpus == 0 || which == TM__VIEW_NONE) return;
  int32_t narrowed = view_set(which);
  if (narrowed < 0) return;
  unsigned long* mask = (unsigned long*)(void*)set;
  /* Changed since (taskset -p from outside, the program on another thread): the kernel's. */
  if (!tm__share_contains(tm__share, mask, size)) return;
  if (atomic_load_explicit(&tm__program_set_others, memory_order_relaxed)) {
    const unsigned long* ours = tm__rt.config.sets + (size_t)narrowed * tm__rt.config.mask_words;
    size_t words = size / sizeof(unsigned long);
    for (size_t i = 0; i < words; ++i)
      if (mask[i] != (i < tm__rt.config.mask_words ? ours[i] : 0UL)) return;
  }
  tm__share_write(tm__share, mask, size);
}

static int which_by_pid(pid_t pid) {
  if (pid == 0) return TM__VIEW_SELF;
  if (pid == tm__prim_gettid()) return TM__VIEW_SELF;
  if (pid == tm__prim_getpid()) return TM__VIEW_MAIN;
  return TM__VIEW_NONE;
}

static int which_by_thread(pthread_t thread) {
  if (pthread_equal(thread, pthread_self())) return TM__VIEW_SELF;
  if (tm__main_pid != 0 && pthread_equal(thread, tm__main_thread)) return TM__VIEW_MAIN;
  return TM__VIEW_NONE;
}

/* The next definition of `name` (the thread cache's, or libc's), looked up once. */
static void* next_function(_Atomic(void*)* cache, const char* name) {
  void* fn = atomic_load_explicit(cache, memory_order_acquire);
  if (!fn) {
    fn = dlsym(RTLD_NEXT, name);
    atomic_store_explicit(cache, fn, memory_order_release);
  }
  return fn;
}

static _Atomic(void*) tm__next_getaff;
static _Atomic(void*) tm__next_pgetaff;
static _Atomic(void*) tm__next_setaff;
static _Atomic(void*) tm__next_psetaff;

int tm__view_sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
  tm__runtime_init();
  tm__getaff_fn real = (tm__getaff_fn)next_function(&tm__next_getaff, "sched_getaffinity");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int rc = real(pid, size, set);
  if (rc == 0) {
    int saved_errno = errno;
    answer(which_by_pid(pid), size, set);
    errno = saved_errno;
  }
  return rc;
}

int tm__view_pthread_getaffinity(pthread_t thread, size_t size, cpu_set_t* set) {
  tm__runtime_init();
  tm__pgetaff_fn real = (tm__pgetaff_fn)next_function(&tm__next_pgetaff, "pthread_getaffinity_np");
  if (!real) return ENOSYS;
  int rc = real(thread, size, set);
  if (rc == 0) {
    int saved_errno = errno;
    answer(which_by_thread(thread), size, set);
    errno = saved_errno;
  }
  return rc;
}

/* The program (not the pinner) set the mask of the thread `which` names: its view ends. */
static void program_set(int which) {
  if (which == TM__VIEW_SELF) {
    tm__view_clear();
  } else if (which == TM__VIEW_MAIN) {
    atomic_store(&tm__main_view_pid, 0);
  } else {
    atomic_store(&tm__program_set_others, 1);
  }
}

/* The setters do not initialise the runtime: the pinner's own sets come through them (its
 * calls bind to these exports), from inside initialisation. */
int tm__view_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  tm__setaff_fn real = (tm__setaff_fn)next_function(&tm__next_setaff, "sched_setaffinity");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int rc = real(pid, size, set);
  if (rc == 0 && !tm__t_internal) program_set(which_by_pid(pid));
  return rc;
}

int tm__view_pthread_setaffinity(pthread_t thread, size_t size, const cpu_set_t* set) {
  tm__psetaff_fn real = (tm__psetaff_fn)next_function(&tm__next_psetaff, "pthread_setaffinity_np");
  if (!real) return ENOSYS;
  int rc = real(thread, size, set);
  if (rc == 0 && !tm__t_internal) program_set(which_by_thread(thread));
  return rc;
}

/* syscall(2) itself: sched_getaffinity and sched_setaffinity made through it (Perl's
 * syscall.ph, LLVM's libomp) get the same view as through glibc's wrappers. Everything else
 * passes through untouched. The kernel's contract stays: the getter returns the bytes it wrote
 * (the rest of the caller's buffer is not touched), the setter 0; -1 and errno on failure. */
static _Atomic(void*) tm__next_syscall;

long tm__view_syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
  typedef long (*syscall_fn)(long, long, long, long, long, long, long);
  syscall_fn real = (syscall_fn)next_function(&tm__next_syscall, "syscall");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  if (number == SYS_sched_getaffinity) tm__runtime_init();
  long r = real(number, a1, a2, a3, a4, a5, a6);
  if (r < 0) return r;
  int saved_errno = errno;
  if (number == SYS_sched_getaffinity && r > 0) {
    answer(which_by_pid((pid_t)a1), (size_t)r, (cpu_set_t*)a3);
  } else if (number == SYS_sched_setaffinity && !tm__t_internal) {
    program_set(which_by_pid((pid_t)a1));
  }
  errno = saved_errno;
  return r;
}
