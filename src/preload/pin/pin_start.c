/* threadmap pin preload — creating threads: decide in the parent (creation order is only known
 * there), pin in the child before its start routine runs.
 *
 * The parent hands the child its start routine, argument and decision in a "start box". Boxes
 * come from a fixed pool (no allocation per thread); a box is busy only between pthread_create
 * and the moment the child has copied it, so a small pool serves any number of threads. When
 * every box is busy (thousands of threads created and not yet scheduled), the box lives on the
 * parent's stack and the parent waits on a futex until the child has copied it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/tm_futex.h"
#include "pin_runtime.h"
#include "pin_view.h"

#define TM__POOL_SIZE 4096
#define TM__POOL_PROBES 64

typedef struct tm__start_info {
  void* (*start)(void*);
  void* arg;
  tm__decision decision;
  long index;          /* creation index, for TM_VERBOSE */
  const char* library; /* basename of the start routine's object, or NULL */
  int mem_node;        /* its slot's memory node (slotmem=), or -1 */
  int own_affinity;    /* created with an affinity attribute that the rules leave alone */
} tm__start_info;

typedef struct tm__start_box {
  tm__start_info info;
  atomic_int state; /* pool: 1 busy, 0 free. stack box: 0 until the child copied it, then 1 */
  int pooled;
} tm__start_box;

static tm__start_box tm__pool[TM__POOL_SIZE];
static atomic_uint tm__pool_cursor;

static tm__start_box* take_pool_box(void) {
  unsigned first = atomic_fetch_add_explicit(&tm__pool_cursor, 1, memory_order_relaxed);
  for (unsigned i = 0; i < TM__POOL_PROBES; ++i) {
    tm__start_box* box = &tm__pool[(first + i) % TM__POOL_SIZE];
    int expected = 0;
    if (atomic_compare_exchange_strong_explicit(&box->state, &expected, 1, memory_order_acquire,
                                                memory_order_relaxed))
      return box;
  }
  return NULL;
}

static void futex_wait(atomic_int* word, int value) {
  tm__futex_wait_word((void*)word, (uint32_t)value, NULL, 0);
}

static void futex_wake(atomic_int* word) { tm__futex_wake_word((void*)word, 1); }

/* The routine every wrapped thread starts in. */
static void* tm__thread_start(void* raw) {
  tm__start_box* box = raw;
  tm__start_info info = box->info;
  if (box->pooled) {
    atomic_store_explicit(&box->state, 0, memory_order_release);
  } else {
    atomic_store_explicit(&box->state, 1, memory_order_release);
    futex_wake(&box->state);
  }
  /* A thread the cache hands out again keeps our TLS: its view starts afresh. */
  tm__view_clear();
  tm__apply_to_self(&info.decision, "thread", info.index, info.library);
  char name[16] = {0};
  if (tm__rt.config.has_name_rules && !info.own_affinity) {
    /* The creator may have named us before we ran (pthread_setname_np(child, ...) right after
     * pthread_create); its pin may have landed before ours, so the name rule is re-applied. */
    if (tm__prim_prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0) == 0) {
      tm__decision by_name = tm__decide_name(&tm__rt.config, name);
      if (by_name.action != TM__ACTION_NONE) tm__apply_name(pthread_self(), &by_name, name);
    }
  }
  /* Memory policy before user code: the start routine's first allocations follow it. A name
   * the creator already gave us counts like a slot's node. */
  if (tm__rt.config.has_mem_rules) {
    int node = info.mem_node >= 0 ? info.mem_node : tm__name_memory_node(&tm__rt.config, name);
    tm__mem_decision memory = tm__decide_memory(&tm__rt.config, node);
    tm__apply_memory(&memory, "thread", info.index);
  }
  return info.start(info.arg);
}

/* Whether the program placed this thread itself: glibc's pthread_attr_getaffinity_np reports
 * every CPU for attributes without an affinity, so anything less was asked for. */
static int attr_has_own_affinity(const pthread_attr_t* attr) {
  if (!attr) return 0;
  cpu_set_t set;
  if (pthread_attr_getaffinity_np(attr, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set) < CPU_SETSIZE;
}

/* Basename of the object holding `address` (link map strings live as long as the object). */
static const char* library_of(void* address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname) return NULL;
  const char* slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

int tm__create_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                      void* arg) {
  tm__runtime_init();
  if (!tm__rt.real_create) return EAGAIN;
  if (!tm__rt.active) return tm__rt.real_create(thread, attr, start, arg);
  tm__keep_rules_here();
  tm__view_before_thread();

  tm__start_info info;
  info.start = start;
  info.arg = arg;
  info.index = atomic_fetch_add_explicit(&tm__rt.created, 1, memory_order_relaxed);
  info.library = (tm__rt.config.has_lib_rules || tm__rt.verbose) ? library_of((void*)start) : NULL;
  info.mem_node = -1;
  info.own_affinity = !tm__rt.config.override_affinity && attr_has_own_affinity(attr);
  if (info.own_affinity) {
    /* The program placed this thread itself (glibc's own affinity tests do): its choice wins
     * and it takes no slot, so the next threads get the plan's slots in order. */
    info.decision.action = TM__ACTION_NONE;
    info.decision.set = -1;
    info.decision.reason = "kept its own affinity (pthread_attr_setaffinity_np)";
  } else {
    info.decision = tm__decide_created(&tm__rt.config, info.index, info.library);
  }
  if (info.decision.action == TM__ACTION_SLOT) {
    long slot = atomic_fetch_add_explicit(&tm__rt.slots, 1, memory_order_relaxed);
    info.decision = tm__decide_slot(&tm__rt.config, slot);
    info.mem_node = tm__slot_memory_node(&tm__rt.config, slot);
  }
  /* A skipped or unclaimed thread would inherit our pin from its creator: it gets the affinity
   * it would have had without threadmap instead. From an unpinned creator it simply inherits. */
  if (info.decision.action == TM__ACTION_RESTORE && !tm__self_pinned())
    info.decision.action = TM__ACTION_NONE;

  tm__start_box* box = take_pool_box();
  if (box) {
    box->info = info;
    box->pooled = 1;
    int rc = tm__rt.real_create(thread, attr, tm__thread_start, box);
    if (rc != 0) atomic_store_explicit(&box->state, 0, memory_order_release);
    return rc;
  }
  tm__start_box local;
  local.info = info;
  local.pooled = 0;
  atomic_init(&local.state, 0);
  int rc = tm__rt.real_create(thread, attr, tm__thread_start, &local);
  if (rc != 0) return rc;
  while (atomic_load_explicit(&local.state, memory_order_acquire) == 0) futex_wait(&local.state, 0);
  return 0;
}

int tm__setname_thread(pthread_t thread, const char* name) {
  tm__runtime_init();
  if (!tm__rt.real_setname) return ENOSYS;
  int rc = tm__rt.real_setname(thread, name);
  if (rc != 0 || !tm__rt.active || !tm__rt.config.has_name_rules) return rc;
  tm__decision decision = tm__decide_name(&tm__rt.config, name);
  if (decision.action != TM__ACTION_NONE) tm__apply_name(thread, &decision, name);
  /* A memory policy can only be set by the thread itself: a thread naming itself gets its
   * node now; one named by another thread gets it at its start if not started yet. */
  if (tm__rt.config.has_mem_rules && pthread_equal(thread, pthread_self())) {
    int node = tm__name_memory_node(&tm__rt.config, name);
    if (node >= 0) {
      tm__mem_decision memory = tm__decide_memory(&tm__rt.config, node);
      tm__apply_memory(&memory, name, -1);
    }
  }
  return rc;
}
