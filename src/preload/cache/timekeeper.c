/* The idle timeout of parked threads (thread_internal.h). */
#include "thread_internal.h"

/* The idle timeout without a timer in every sleep: arming and cancelling a futex timeout on
 * each park cost ~6% of a hand-off at 32 creators on 2 vCPUs. One sleeping worker at a time,
 * the timekeeper, sleeps with a timeout (a quarter of the idle timeout, or its own deadline if
 * sooner); each time it wakes it pokes every parked worker whose deadline has passed, and each
 * of those retires itself as before. When the timekeeper stops waiting (reused, retired), it
 * hands the role to the oldest other sleeper and pokes it; a worker about to sleep while nobody
 * holds the role takes it. Both sides use sequentially consistent operations on the role and
 * on the sleeper's wake word, so either the sleeper sees the role free or the leaving
 * timekeeper sees the sleeper. A worker that finished before anybody claimed its join
 * keeps its own timer (it withdraws at its deadline). So a parked thread really exits between
 * its idle timeout and 1.25 times it. */
_Atomic uint32_t tm__timekeeper; /* record index of the role's holder; 0: none */

struct tm_keeper_scan {
  struct tm_thread *self;
  uint64_t now;
  struct tm_thread *oldest; /* the sleeper with the earliest deadline */
  uint64_t oldest_deadline;
};

static void tm__keeper_visit(struct tm_thread *r, void *arg) {
  struct tm_keeper_scan *scan = arg;
  if (r == scan->self) return;
  uint32_t w = atomic_load(&r->wake);
  if (!(w & TM_W_SLEEPING) || (w & (TM_W_GO | TM_W_RETIRE | TM_W_DEAD | TM_W_HELD))) return;
  uint64_t deadline = atomic_load_explicit(&r->idle_deadline, memory_order_relaxed);
  if (deadline == 0) return;
  /* Any sleeper may take the role over, parked or not yet (its joiner parks it later). */
  if (deadline <= scan->now && atomic_load_explicit(&r->parked, memory_order_acquire)) {
    tm__poke(r); /* its idle timeout has passed: it retires itself */
    return;
  }
  if (scan->oldest == NULL || deadline < scan->oldest_deadline) {
    scan->oldest = r;
    scan->oldest_deadline = deadline;
  }
}

/* Pokes the parked sleepers whose deadline passed; returns the sleeper with the earliest
 * deadline among the others (NULL if none). */
static struct tm_thread *tm__timekeeper_scan(struct tm_thread *self, uint64_t now) {
  struct tm_keeper_scan scan = {self, now, NULL, 0};
  tm__records_for_each(tm__keeper_visit, &scan);
  return scan.oldest;
}

/* 1 when `t` holds the role (taking it if nobody does). Called with SLEEPING set. */
/* Called whenever a worker stops waiting: if it holds the role, hands it to the oldest other
 * sleeper (assigned, then poked so that it arms its timer). A target that stopped sleeping
 * meanwhile is seen by the re-check below or, if it stopped later, sees the role in its own
 * tm__timekeeper_leave (sequentially consistent order), and passes it on. */
void tm__timekeeper_hand_over(struct tm_thread *t) {
  uint32_t holder = t->index;
  if (atomic_load_explicit(&tm__timekeeper, memory_order_relaxed) != holder) return;
  for (int attempt = 0; attempt < 8; ++attempt) {
    struct tm_thread *next = tm__timekeeper_scan(t, tm__coarse_now_ns());
    uint32_t to = next ? next->index : 0;
    if (!atomic_compare_exchange_strong(&tm__timekeeper, &holder, to)) return;
    if (next == NULL) return;
    uint32_t w = atomic_load(&next->wake);
    if ((w & TM_W_SLEEPING) && !(w & (TM_W_GO | TM_W_RETIRE | TM_W_DEAD))) {
      tm__poke(next);
      return;
    }
    holder = to; /* it stopped sleeping: take the role back (unless it passed it on) and retry */
  }
  atomic_compare_exchange_strong(&tm__timekeeper, &holder, 0);
}

void tm__timekeeper_poke_expired(struct tm_thread *self, uint64_t now) {
  tm__timekeeper_scan(self, now);
}

void tm__timekeeper_after_fork(void) { atomic_store(&tm__timekeeper, 0); }
