/* However main ends its thread without ending the process (pthread_exit, thrd_exit, or
 * cancelling itself), glibc runs its key destructors: ours tells parked threads to go. The key
 * is made at main's first cached create, not at start-up: a key is visible to the program
 * (glibc's tst-tss-basic expects key 0 to be invalid before the program creates one), and a
 * process that never creates a thread needs none. It is the highest free one, so the program's
 * keys are numbered as without the cache (tm__take_high_key). A program that needs every key
 * gets it back (tm__give_up_main_key); parked threads then end at their idle timeout instead. */
#include "main_key.h"

#include <limits.h>
#include <stdint.h>

#include "../common/tm_prim.h"
#include "base.h"
#include "next_symbols.h"
#include "tm_cache.h"

static pthread_key_t tm__main_key;
static _Atomic int tm__main_key_held;  /* 1 while tm__main_key is ours */
static _Atomic int tm__main_key_armed; /* the main thread made its first cached create */
static pthread_t tm__main_thread;      /* pthread_self() of main, when known */
static int tm__main_thread_known;

static void tm__main_key_destructor(void *value) {
  (void)value;
  if (tm__prim_getpid() == tm__prim_gettid()) tm__main_exiting();
}

/* glibc's key table (GLIBC_PRIVATE), as its pthread_key_create reads it: per key a sequence
 * number (odd: in use) and the destructor. The layout is checked against the description glibc
 * publishes for debuggers (nptl_db's _thread_db___pthread_keys: bits per element, elements). */
struct tm_glibc_key {
  uintptr_t seq;
  void (*destructor)(void *);
};

/* The highest free key, taken as glibc's pthread_key_create takes one (the same compare and
 * swap of its sequence number, then the destructor): 1 taken, 0 none free, -1 the table is not
 * what we know (then tm__take_high_key_slowly). */
static int tm__take_high_key_directly(pthread_key_t *out) {
  static void *table, *description;
  tm__next_symbol(&table, "__pthread_keys");
  tm__next_symbol(&description, "_thread_db___pthread_keys");
  const uint32_t *layout = description;
  if (table == NULL || layout == NULL || layout[0] != 8 * sizeof(struct tm_glibc_key) ||
      layout[1] != PTHREAD_KEYS_MAX)
    return -1;
  struct tm_glibc_key *keys = table;
  for (int k = PTHREAD_KEYS_MAX - 1; k >= 0; --k) {
    uintptr_t seq = __atomic_load_n(&keys[k].seq, __ATOMIC_RELAXED);
    if ((seq & 1) != 0 || seq + 2 < seq) continue; /* in use, or its sequence is spent */
    if (!__atomic_compare_exchange_n(&keys[k].seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
      continue;
    keys[k].destructor = tm__main_key_destructor;
    *out = (pthread_key_t)k;
    return 1;
  }
  return 0;
}

/* glibc gives the lowest free key: ours would take the key a program that creates a thread
 * before its first key expects to get (0). Without glibc's table: every free key is taken once
 * and all but the highest given back (~1024 creates and deletes, quadratic: ~4.9 M
 * instructions). */
static int tm__take_high_key_slowly(pthread_key_t *out) {
  pthread_key_t taken[PTHREAD_KEYS_MAX];
  int n = 0;
  /* Each with our destructor: only the kept one ever holds a value. */
  while (n < PTHREAD_KEYS_MAX && tm__real.key_create(&taken[n], tm__main_key_destructor) == 0) ++n;
  if (n == 0) return 0;
  int high = 0;
  for (int i = 1; i < n; ++i)
    if (taken[i] > taken[high]) high = i;
  for (int i = 0; i < n; ++i)
    if (i != high) tm__real.key_delete(taken[i]);
  *out = taken[high];
  return 1;
}

static int tm__take_high_key(pthread_key_t *out) {
  int r = tm__take_high_key_directly(out);
  return r >= 0 ? r : tm__take_high_key_slowly(out);
}

void tm__arm_main_key(void) {
  if (!tm__main_thread_known || !pthread_equal(pthread_self(), tm__main_thread) ||
      atomic_exchange(&tm__main_key_armed, 1))
    return;
  if (tm__take_high_key(&tm__main_key)) {
    pthread_setspecific(tm__main_key, &tm__main_key);
    atomic_store(&tm__main_key_held, 1);
  }
}

/* The thread start-up ran in: the main thread, since the library is loaded with the program
 * and start-up runs from its constructor (or an interposed call made before it, by another
 * library's constructor), all in the main thread. */
static pthread_t tm__startup_thread;

void tm__startup_thread_remember(void) { tm__startup_thread = pthread_self(); }

void tm__main_thread_remember(void) {
  /* The thread start-up ran in costs no system call; any other is asked the kernel. */
  if (!pthread_equal(pthread_self(), tm__startup_thread) && tm__prim_getpid() != tm__prim_gettid())
    return;
  tm__main_thread = pthread_self();
  tm__main_thread_known = 1;
}

/* The forking thread is the child's main thread (its tid is the child's pid): when it ends
 * with pthread_exit, the child's parked threads must go at once, as from main (the
 * thread that forked may not be the parent's main thread, which alone held our key's value). */
void tm__main_key_after_fork(void) {
  tm__main_thread = pthread_self();
  tm__main_thread_known = 1;
  if (atomic_load(&tm__main_key_held)) pthread_setspecific(tm__main_key, &tm__main_key);
}

int tm__main_key_armed_already(void) {
  return atomic_load_explicit(&tm__main_key_armed, memory_order_relaxed);
}

int tm__give_up_main_key(void) {
  if (!atomic_exchange(&tm__main_key_held, 0)) return 0;
  return tm__real.key_delete(tm__main_key) == 0;
}
