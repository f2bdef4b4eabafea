/* Records of physical threads, the idle stacks they park on, and pthread_t -> record lookup.
 *
 * Idle stacks are per stack-size bucket and, within a bucket, per CPU slot: a worker parks on
 * the slot of the CPU it last ran on, and a creator pops from its own CPU's slot first. The
 * creator then wakes a thread that sleeps on its own runqueue: the wake-up is local, and the
 * worker runs as soon as the creator blocks in its join. With one shared stack a creator
 * usually woke a worker parked on another CPU: every hand-off cost a cross-CPU wake-up (an IPI,
 * a VM exit under a hypervisor), measured here at 4 creators on 2 vCPUs as 2.7x the kernel time
 * of the futex floor per hand-off and 1.6x glibc instead of ~4x.
 *
 * Records are carved from mmap'ed chunks that are never unmapped, so the lock-free (Treiber)
 * stacks below may read the `next` index of a record another thread just popped: the read is
 * harmless and the 32-bit tag in the stack head makes the following CAS fail (no ABA). No lock
 * is ever taken, so a fork() at any instant leaves consistent stacks in the child. */
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/tm_prim.h"
#include "headroom.h"
#include "options.h"
#include "stats.h"
#include "thread_internal.h"

#define TM_CHUNK_RECORDS 256u
#define TM_MAX_CHUNKS 256u /* 65536 records: more threads than this machine's kernel allows */
#define TM_BUCKETS 64
#define TM_CPU_SLOTS 16 /* CPUs beyond this share slots (cpu % slots) */

struct tm_stack {
  TM_OWN_LINES _Atomic uint64_t head; /* (tag << 32) | index, index 0 = empty */
};

static _Atomic(struct tm_thread *) tm__chunks[TM_MAX_CHUNKS];
static _Atomic uint32_t tm__next_fresh = 1; /* index 0 is the "empty" marker */
static struct tm_stack tm__free_stack;
static struct tm_stack tm__idle[TM_BUCKETS][TM_CPU_SLOTS];
static int tm__slots = 1; /* slots in use: min(CPUs of the machine, TM_CPU_SLOTS) */
static long long tm__max_idle_bytes = 1LL << 62; /* TM_CACHE_MAX_IDLE_BYTES, read at start-up */
/* Parked threads and their stack bytes, against TM_CACHE_MAX_IDLE(_BYTES). */
static struct {
  TM_OWN_LINES _Atomic long long count;
  _Atomic long long bytes;
} tm__idle_total;

/* The calling thread's record. initial-exec: the slot sits at a fixed offset from the thread
 * descriptor in every thread, which is what lets tm__lookup read another thread's slot. */
static __thread _Atomic(struct tm_thread *) tm__current __attribute__((tls_model("initial-exec")));
static _Atomic intptr_t tm__slot_offset;
static _Atomic int tm__slot_offset_known;

static struct tm_thread *tm__record_at(uint32_t index) {
  if (index == 0) return NULL;
  struct tm_thread *chunk =
      atomic_load_explicit(&tm__chunks[(index - 1) / TM_CHUNK_RECORDS], memory_order_acquire);
  return chunk ? &chunk[(index - 1) % TM_CHUNK_RECORDS] : NULL;
}

static void tm__stack_push(struct tm_stack *s, struct tm_thread *t) {
  uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
  for (;;) {
    atomic_store_explicit(&t->next, (uint32_t)head, memory_order_relaxed);
    uint64_t next = (((head >> 32) + 1) << 32) | t->index;
    if (atomic_compare_exchange_weak_explicit(&s->head, &head, next, memory_order_release,
                                              memory_order_relaxed))
      return;
  }
}

static struct tm_thread *tm__stack_pop(struct tm_stack *s) {
  uint64_t head = atomic_load_explicit(&s->head, memory_order_acquire);
  for (;;) {
    struct tm_thread *top = tm__record_at((uint32_t)head);
    if (top == NULL) return NULL;
    uint32_t below = atomic_load_explicit(&top->next, memory_order_relaxed);
    uint64_t next = (((head >> 32) + 1) << 32) | below;
    if (atomic_compare_exchange_weak_explicit(&s->head, &head, next, memory_order_acquire,
                                              memory_order_acquire))
      return top;
  }
}

static void tm__zero(struct tm_thread *t, size_t from, size_t to) {
  memset((char *)t + from, 0, to - from);
}

static void tm__record_clear(struct tm_thread *t, uint32_t index) {
  /* Some fields may be read at any time by threads that found this record before it was freed
   * (the file comment): `next` by a racing pop, `wake` by a pop's peek (tm__best_slot) and by
   * the timekeeper's scan with `parked`, `idle_deadline` and `release` (thread.c), `open_mask` and
   * `open_bits` by a caller ending quietness (quiet_signals.c). Those are
   * written atomically, never by memset; `index` never changes once set. */
  if (t->index != index) t->index = index;
  tm__zero(t, offsetof(struct tm_thread, handle), offsetof(struct tm_thread, wake));
  atomic_store_explicit(&t->wake, 0, memory_order_relaxed);
  atomic_store_explicit(&t->parked, 0, memory_order_relaxed);
  atomic_store_explicit(&t->idle_deadline, 0, memory_order_relaxed);
  atomic_store_explicit(&t->open_bits, 0, memory_order_relaxed);
  atomic_store_explicit(&t->open_mask, 0, memory_order_relaxed);
  tm__zero(t, offsetof(struct tm_thread, open_mask) + sizeof t->open_mask,
           offsetof(struct tm_thread, release));
  atomic_store_explicit(&t->release, 0, memory_order_relaxed);
  tm__zero(t, offsetof(struct tm_thread, release) + sizeof t->release, sizeof *t);
}

struct tm_thread *tm__record_alloc(void) {
  struct tm_thread *t = tm__stack_pop(&tm__free_stack);
  if (t) {
    tm__record_clear(t, t->index);
    return t;
  }
  uint32_t index = atomic_fetch_add_explicit(&tm__next_fresh, 1, memory_order_relaxed);
  if (index > TM_CHUNK_RECORDS * TM_MAX_CHUNKS) return NULL;
  uint32_t chunk_no = (index - 1) / TM_CHUNK_RECORDS;
  struct tm_thread *chunk = atomic_load_explicit(&tm__chunks[chunk_no], memory_order_acquire);
  if (chunk == NULL) {
    void *mem = tm__prim_map(TM_CHUNK_RECORDS * sizeof(struct tm_thread));
    if (mem == NULL) return NULL; /* index is lost; the pool just gets smaller */
    struct tm_thread *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&tm__chunks[chunk_no], &expected, mem,
                                                memory_order_acq_rel, memory_order_acquire)) {
      chunk = mem;
    } else {
      tm__prim_unmap(mem, TM_CHUNK_RECORDS * sizeof(struct tm_thread));
      chunk = expected;
    }
  }
  t = &chunk[(index - 1) % TM_CHUNK_RECORDS];
  tm__record_clear(t, index);
  return t;
}

void tm__record_free(struct tm_thread *t) { tm__stack_push(&tm__free_stack, t); }

void tm__records_init(void) {
  tm__max_idle_bytes = tm__option(TM_OPT_MAX_IDLE_BYTES);
  long cpus = tm__prim_cpus_configured();
  tm__slots = cpus < 1 ? 1 : cpus > TM_CPU_SLOTS ? TM_CPU_SLOTS : (int)cpus;
}

/* The slot of CPU (the caller's, read by its shadow; -1: read it here with rseq's cpu_id). */
static int tm__my_slot(int cpu) {
  if (cpu < 0) cpu = tm__prim_getcpu();
  return cpu < 0 ? 0 : cpu % tm__slots;
}

static struct tm_stack *tm__home_stack(const struct tm_thread *t) {
  return &tm__idle[t->bucket][t->home_cpu < 0 ? 0 : t->home_cpu % tm__slots];
}

/* floor(log2(STACK_SIZE)), 0 for 0: one instruction (it was a loop of ~90 instructions for a
 * default 8 MiB stack, run three times per recycle: 9% of a recycle's instructions). */
static int tm__bucket_of(size_t stack_size) {
  return stack_size ? 63 - __builtin_clzll((unsigned long long)stack_size) : 0;
}

static void tm__retire_idle(struct tm_thread *t, uint32_t reason_word) {
  uint32_t old = atomic_exchange_explicit(&t->wake, reason_word, memory_order_acq_rel);
  if (old & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1);
}

void tm__idle_push(struct tm_thread *t) {
  long long max_idle = tm__idle_bound();
  long long max_bytes = tm__max_idle_bytes;
  long long n = atomic_fetch_add_explicit(&tm__idle_total.count, 1, memory_order_relaxed) + 1;
  long long bytes = atomic_fetch_add_explicit(&tm__idle_total.bytes, (long long)t->stack_size,
                                              memory_order_relaxed) +
                    (long long)t->stack_size;
  if (n > max_idle || bytes > max_bytes || tm__process_retiring() || tm__shedding_now_inline()) {
    atomic_fetch_sub_explicit(&tm__idle_total.count, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&tm__idle_total.bytes, (long long)t->stack_size,
                              memory_order_relaxed);
    tm__stats_retired(tm__process_retiring() ? TM_CAUSE_PROCESS : TM_CAUSE_IDLE_LIMIT);
    tm__retire_idle(t, TM_W_RETIRE);
    return;
  }
  tm__stats_peak_idle(n);
  atomic_store_explicit(&t->parked, 1, memory_order_release);
  t->bucket = tm__bucket_of(t->stack_size);
  uint32_t ended = atomic_load_explicit(&t->lstate, memory_order_relaxed);
  atomic_store_explicit(&t->lstate, TM_L_IDLE | ((ended & TM_L_DETACHED) ? 0 : TM_L_REAPED),
                        memory_order_relaxed);
  tm__stack_push(tm__home_stack(t), t);
}

/* Called by a parked worker whose idle timeout expired and who won the race to mark itself
 * dead: its record stays on the stack as a tombstone that the next pop frees. */
void tm__idle_forget_size(size_t stack_size) {
  atomic_fetch_sub_explicit(&tm__idle_total.count, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit(&tm__idle_total.bytes, (long long)stack_size, memory_order_relaxed);
}

void tm__idle_forget(struct tm_thread *t) { tm__idle_forget_size(t->stack_size); }

static int tm__compatible(const struct tm_thread *t, size_t stack_size, size_t guard_size,
                          const struct tm_match *want) {
  /* Exactly the requested size: a larger stack would show in pthread_getattr_np (glibc's
   * tst-default-attr checks it), a smaller one would overflow. The identity: the parked thread
   * is a clone of what the creator is now (identity.h). */
  return t->stack_size == stack_size && t->guard_size == guard_size &&
         t->sched.policy == want->sched.policy && t->sched.priority == want->sched.priority &&
         t->sched.nice == want->sched.nice && t->sched.no_new_privs == want->sched.no_new_privs &&
         t->sched.reset_on_fork == want->sched.reset_on_fork &&
         t->sched.default_slack_ns == want->sched.default_slack_ns &&
         tm__identity_equal(&t->birth, &want->identity) && t->fingerprint == want->fingerprint;
}

/* The slot to pop from first: one whose top worker is still awake (spinning: taking it costs
 * no wake-up at all, wherever it runs), else MINE if it has any, else the next non-empty one;
 * -1 when every slot is empty. A peek: the top may change before the pop, which only makes the
 * choice less good. */
static int tm__best_slot(int b, int mine) {
  int pick = -1;
  for (int k = 0; k < tm__slots; ++k) {
    int slot = mine + k < tm__slots ? mine + k : mine + k - tm__slots;
    struct tm_thread *top = tm__record_at(
        (uint32_t)atomic_load_explicit(&tm__idle[b][slot].head, memory_order_relaxed));
    if (top == NULL) continue;
    if (!(atomic_load_explicit(&top->wake, memory_order_relaxed) & TM_W_SLEEPING)) return slot;
    if (pick < 0) pick = slot; /* MINE when it has one: it comes first */
  }
  return pick;
}

int tm__idle_peek(size_t stack_size, int cpu) {
  return tm__best_slot(tm__bucket_of(stack_size), tm__my_slot(cpu));
}

struct tm_thread *tm__idle_pop(size_t stack_size, size_t guard_size, const struct tm_match *want,
                               int first) {
  int b = tm__bucket_of(stack_size);
  if (first < 0 || first >= tm__slots) first = 0;
  for (int k = 0; k < tm__slots; ++k) {
    int slot = first + k < tm__slots ? first + k : first + k - tm__slots;
    struct tm_stack *stack = &tm__idle[b][slot];
    struct tm_thread *t;
    while ((t = tm__stack_pop(stack)) != NULL) {
      if (atomic_load_explicit(&t->wake, memory_order_acquire) & TM_W_DEAD) {
        tm__record_free(t); /* timed out while parked; its thread no longer touches it */
        continue;
      }
      if (!tm__compatible(t, stack_size, guard_size, want)) {
        tm__stack_push(stack, t);
        break;
      }
      return t; /* the caller claims it with tm__idle_claim */
    }
  }
  return NULL;
}

int tm__idle_hold(struct tm_thread *t) {
  uint32_t w = atomic_load_explicit(&t->wake, memory_order_acquire);
  for (;;) {
    if (w & TM_W_DEAD) {
      tm__record_free(t);
      return 0;
    }
    if (atomic_compare_exchange_weak_explicit(&t->wake, &w, w | TM_W_HELD, memory_order_acq_rel,
                                              memory_order_acquire))
      return 1;
  }
}

void tm__idle_unhold(struct tm_thread *t) {
  uint32_t old = atomic_fetch_and_explicit(&t->wake, ~(uint32_t)TM_W_HELD, memory_order_acq_rel);
  if (old & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1); /* it may wait for HELD to clear */
}

void tm__idle_unpop(struct tm_thread *t) { tm__stack_push(tm__home_stack(t), t); }

/* Hands a popped record to the caller: 1 on success (counts updated), 0 if its idle timeout
 * fired meanwhile (the record is freed and the caller must pop again). Call after filling the
 * record's start/arg/want fields: the GO store publishes them. */
int tm__idle_claim(struct tm_thread *t) {
  /* Read before the GO store: from then on the new logical thread may run, end, and retire,
   * and the record be freed and reused before we get to the next line. */
  size_t stack_size = t->stack_size;
  uint32_t w = atomic_load_explicit(&t->wake, memory_order_relaxed);
  for (;;) {
    if (w & TM_W_DEAD) {
      tm__record_free(t);
      return 0;
    }
    /* Published by the GO store: the joiner spins on a worker that is on a CPU (wait.c). */
    atomic_store_explicit(&t->claimed_awake, !(w & TM_W_SLEEPING), memory_order_relaxed);
    if (atomic_compare_exchange_weak_explicit(&t->wake, &w, TM_W_GO, memory_order_acq_rel,
                                              memory_order_acquire))
      break;
  }
  tm__idle_forget_size(stack_size);
  /* May wake a reused record's word: harmless, futex waiters re-check their word. */
  if (w & TM_W_SLEEPING) tm__futex_wake(&t->wake, 1);
  return 1;
}

int tm__idle_flush(void) {
  int released = 0;
  for (int i = 0; i < TM_BUCKETS * TM_CPU_SLOTS; ++i) {
    struct tm_thread *t;
    while ((t = tm__stack_pop(&tm__idle[i / TM_CPU_SLOTS][i % TM_CPU_SLOTS])) != NULL) {
      uint32_t w = atomic_load_explicit(&t->wake, memory_order_acquire);
      if (w & TM_W_DEAD) {
        tm__record_free(t);
        continue;
      }
      tm__idle_forget(t);
      tm__stats_retired(TM_CAUSE_PROCESS);
      tm__retire_idle(t, TM_W_RETIRE);
      ++released;
    }
  }
  return released;
}

void tm__records_for_each(void (*fn)(struct tm_thread *, void *), void *context) {
  uint32_t end = atomic_load_explicit(&tm__next_fresh, memory_order_acquire);
  if (end > TM_CHUNK_RECORDS * TM_MAX_CHUNKS + 1) end = TM_CHUNK_RECORDS * TM_MAX_CHUNKS + 1;
  for (uint32_t i = 1; i < end; ++i) {
    struct tm_thread *t = tm__record_at(i);
    if (t) fn(t, context);
  }
}

void tm__records_after_fork(void) {
  /* The child has no idle threads: their records are simply abandoned (never reused). */
  for (int i = 0; i < TM_BUCKETS * TM_CPU_SLOTS; ++i)
    atomic_store(&tm__idle[i / TM_CPU_SLOTS][i % TM_CPU_SLOTS].head, 0);
  atomic_store(&tm__idle_total.count, 0);
  atomic_store(&tm__idle_total.bytes, 0);
}

static intptr_t tm__offset(void) {
  if (!atomic_load_explicit(&tm__slot_offset_known, memory_order_acquire)) {
    atomic_store_explicit(&tm__slot_offset,
                          (intptr_t)((char *)&tm__current - (char *)pthread_self()),
                          memory_order_relaxed);
    atomic_store_explicit(&tm__slot_offset_known, 1, memory_order_release);
  }
  return atomic_load_explicit(&tm__slot_offset, memory_order_relaxed);
}

struct tm_thread *tm__lookup(pthread_t thread) {
  if (thread == 0) return NULL;
  _Atomic(struct tm_thread *) *slot = (void *)((char *)thread + tm__offset());
  return atomic_load_explicit(slot, memory_order_acquire);
}

void tm__set_record_of(pthread_t thread, struct tm_thread *t) {
  _Atomic(struct tm_thread *) *slot = (void *)((char *)thread + tm__offset());
  atomic_store_explicit(slot, t, memory_order_release);
}

struct tm_thread *tm__self(void) {
  return atomic_load_explicit(&tm__current, memory_order_relaxed);
}

void tm__set_self(struct tm_thread *t) {
  atomic_store_explicit(&tm__current, t, memory_order_release);
}
