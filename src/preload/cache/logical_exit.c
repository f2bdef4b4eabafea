/* How a logical thread ends without ending its physical thread.
 *
 * tm__run_logical registers a setjmp-style cancellation buffer (exit_buf) below the start
 * routine, exactly as pthread_cleanup_push does, so it sits at the bottom of glibc's chain of
 * cleanup buffers:
 *  - a real cancellation unwinds with glibc's own forced unwind, which longjmps into exit_buf
 *    when it reaches our frame; glibc has marked the thread as exiting, so we publish that the
 *    real thread must be joined and let glibc's unwind continue to the end (the thread retires);
 *  - our pthread_exit runs its own forced unwind (_Unwind_ForcedUnwind with tm__exit_stop):
 *    C++ destructors and __attribute__((cleanup)) handlers run as landing pads, each
 *    setjmp-style buffer registered since (pthread_cleanup_push in C) gets a longjmp when its
 *    frame is reached, its handler then calls __pthread_unwind_next which resumes our unwind,
 *    and reaching exit_buf returns to tm__run_logical: the thread survives, glibc's state is
 *    untouched (no EXITING bit), and glibc's cleanup chain is restored by unregistering
 *    exit_buf.
 * Then tm__run_destructors runs what glibc runs at thread exit, in glibc's order: thread_local
 * destructors (__call_tls_dtors), then up to PTHREAD_DESTRUCTOR_ITERATIONS rounds of
 * pthread_key destructors, and clears every key. */
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "options.h"
#include "stats.h"
#include "tm_cache.h"
#include "unwinder.h"

#define TM_KEYS 1024    /* PTHREAD_KEYS_MAX in glibc */
#define TM_KEY_ROUNDS 4 /* PTHREAD_DESTRUCTOR_ITERATIONS in glibc */

static _Atomic(void (*)(void *)) tm__key_destructor[TM_KEYS];
static _Atomic unsigned char tm__key_live[TM_KEYS];
static _Atomic int tm__key_limit; /* 1 + highest key index ever created */

void tm__key_created(pthread_key_t key, void (*destructor)(void *)) {
  if (key >= TM_KEYS) return;
  atomic_store_explicit(&tm__key_destructor[key], destructor, memory_order_relaxed);
  atomic_store_explicit(&tm__key_live[key], 1, memory_order_release);
  int limit = atomic_load_explicit(&tm__key_limit, memory_order_relaxed);
  while ((int)key + 1 > limit &&
         !atomic_compare_exchange_weak(&tm__key_limit, &limit, (int)key + 1)) {
  }
}

void tm__key_deleted(pthread_key_t key) {
  if (key >= TM_KEYS) return;
  atomic_store_explicit(&tm__key_live[key], 0, memory_order_release);
}

void tm__run_destructors(void) {
  if (tm__real.call_tls_dtors) tm__real.call_tls_dtors();
  int limit = atomic_load_explicit(&tm__key_limit, memory_order_acquire);
  for (int round = 0; round < TM_KEY_ROUNDS; ++round) {
    int called = 0;
    for (int k = 0; k < limit; ++k) {
      if (!atomic_load_explicit(&tm__key_live[k], memory_order_acquire)) continue;
      void *value = pthread_getspecific((pthread_key_t)k);
      if (value == NULL) continue;
      pthread_setspecific((pthread_key_t)k, NULL);
      void (*destructor)(void *) =
          atomic_load_explicit(&tm__key_destructor[k], memory_order_relaxed);
      if (destructor) {
        destructor(value);
        called = 1;
      }
    }
    if (!called) break;
  }
  /* Values left after the last round (or of keys without destructor) are dropped, as glibc
   * does: the next logical thread must read NULL from every key. */
  for (int k = 0; k < limit; ++k)
    if (atomic_load_explicit(&tm__key_live[k], memory_order_acquire) &&
        pthread_getspecific((pthread_key_t)k) != NULL)
      pthread_setspecific((pthread_key_t)k, NULL);
}

static const char tm__unrethrown[] = "FATAL: exception not rethrown\n";

/* Called only if user code caught our unwind (catch (...)) and did not rethrow it: glibc
 * aborts in that case, and so do we, because pthread_exit must not return. */
static void tm__exception_cleanup(_Unwind_Reason_Code code, struct _Unwind_Exception *exc) {
  (void)code;
  (void)exc;
  tm__prim_write(2, tm__unrethrown, sizeof tm__unrethrown - 1);
  abort();
}

/* glibc's head of old-style cleanup buffers: registering a probe buffer makes glibc store it
 * in the probe (priv.data.cleanup), and unregistering restores the jmp_buf chain. */
static struct _pthread_cleanup_buffer *tm__old_cleanup_top(void) {
  __pthread_unwind_buf_t probe;
  tm__real.register_cancel(&probe);
  struct _pthread_cleanup_buffer *head = probe.__pad[1];
  tm__real.unregister_cancel(&probe);
  return head;
}

/* The buffer holds a jmp_buf without the saved signal mask (mask_was_saved is 0, so longjmp
 * never reads it); the compiler cannot know that and warns about the shorter object. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static void tm__jump(__pthread_unwind_buf_t *buf) {
  longjmp((struct __jmp_buf_tag *)(void *)buf->__cancel_jmp_buf, 1);
}
#pragma GCC diagnostic pop

/* Stop function of our forced unwind. The CFA libgcc reports for a frame is that frame's
 * stack pointer; a cleanup buffer lives inside the frame that registered it, so once the CFA
 * is above the buffer that frame has been reached (one frame late at worst, which is harmless:
 * such a frame was compiled without exceptions and has no landing pads). */
static _Unwind_Reason_Code tm__exit_stop(int version, _Unwind_Action actions,
                                         _Unwind_Exception_Class exc_class,
                                         struct _Unwind_Exception *exc,
                                         struct _Unwind_Context *context, void *param) {
  (void)version;
  (void)exc_class;
  (void)exc;
  struct tm_thread *t = param;
  __pthread_unwind_buf_t *top = t->cleanup_top;
  uintptr_t cfa = tm__unwind_get_cfa(context);
  int jump = top && ((actions & _UA_END_OF_STACK) || cfa > (uintptr_t)top);
  /* Old-style handlers (_pthread_cleanup_push, used inside glibc, e.g. by pthread_once) whose
   * frame is being left run now, as glibc's own unwinder runs them. */
  struct _pthread_cleanup_buffer *old = tm__old_cleanup_top();
  struct _pthread_cleanup_buffer *floor =
      top ? (struct _pthread_cleanup_buffer *)top->__pad[1] : NULL;
  if (old != floor && (jump || cfa >= (uintptr_t)old)) {
    do {
      struct _pthread_cleanup_buffer *next = old->__prev;
      old->__routine(old->__arg);
      old = next;
    } while (old != floor && old != NULL && (jump || cfa >= (uintptr_t)old));
    struct _pthread_cleanup_buffer mark = {.__prev = old};
    _pthread_cleanup_pop(&mark, 0); /* sets glibc's chain head to `old` */
  }
  if (jump) tm__jump(top);
  return _URC_NO_REASON;
}

static void tm__unwind_from_here(struct tm_thread *t) {
  memset(&t->exc, 0, sizeof t->exc);
  memcpy(&t->exc.exception_class, "TMAPEXIT", sizeof t->exc.exception_class);
  t->exc.exception_cleanup = tm__exception_cleanup;
  tm__forced_unwind(&t->exc, tm__exit_stop, t); /* libgcc_s's (unwinder.c) */
}

_Noreturn void tm__own_exit(struct tm_thread *t, void *value) {
  t->exit_value = value;
  t->own_exit = 1;
  /* glibc stops honouring cancellation once pthread_exit starts; cleanup handlers run with
   * cancellation disabled. The next logical thread starts with it enabled again. */
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
  tm__unwind_from_here(t);
  /* No unwinder (libgcc_s could not be loaded): leave through glibc, retiring. */
  t->own_exit = 0;
  tm__real.exit(value);
}

int tm__unwind_next(__pthread_unwind_buf_t *buf) {
  struct tm_thread *t = tm__self();
  if (t == NULL || !t->own_exit) return 0;
  /* A C cleanup handler finished; glibc's view of the chain is repaired at the end. */
  t->cleanup_top = (__pthread_unwind_buf_t *)buf->__pad[0];
  tm__unwind_from_here(t);
  t->own_exit = 0;
  tm__real.exit(t->exit_value);
}

__attribute__((noinline)) void tm__run_logical(struct tm_thread *t) {
  __pthread_unwind_buf_t exit_buf;
  if (__sigsetjmp_cancel(exit_buf.__cancel_jmp_buf, 0) == 0) {
    tm__real.register_cancel(&exit_buf);
    t->exit_buf = &exit_buf;
    t->cleanup_top = &exit_buf;
    void *result = t->start(t->arg);
    t->result = result;
  } else if (t->own_exit) {
    t->own_exit = 0;
    t->result = t->exit_value;
    tm__stats_count(TM_COUNT_OWN_EXITS);
  } else {
    tm__leave_through_glibc(t, &exit_buf); /* does not return */
  }
  /* Restores glibc's cleanup chain to what it was before the start routine (whatever the
   * logical thread left registered is gone with its frames). */
  tm__real.unregister_cancel(&exit_buf);
  t->cleanup_top = NULL;
  t->exit_buf = NULL;
}
