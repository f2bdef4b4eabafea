/* The inherited-state identity (identity.h): kept in each thread's shadow (shadow.h), renewed
 * from one process-wide counter. */
#include "identity.h"

#include "../common/tm_prim.h"
#include "shadow.h"

/* The next unused identity; 0 means "never set" in a shadow, TM_MEMPOLICY_DEFAULT is taken. */
static _Atomic uint64_t tm__identity_next = TM_MEMPOLICY_DEFAULT + 1;
/* Moves when a call may have changed another thread's state; its last cause. */
_Atomic uint64_t tm__identity_epoch = 1;
static _Atomic unsigned tm__identity_epoch_cause;

static uint64_t tm__fresh_value(void) {
  return atomic_fetch_add_explicit(&tm__identity_next, 1, memory_order_relaxed);
}

unsigned tm__cause_prctl(long option) {
  return option >= 0 && option < TM_CAUSE_PRCTL_END - TM_CAUSE_PRCTL
             ? (unsigned)(TM_CAUSE_PRCTL + option)
             : TM_CAUSE_IDENTITY;
}

unsigned tm__cause_syscall(long number) {
  return number >= 0 && number < TM_CAUSE_SYSCALL_END - TM_CAUSE_SYSCALL
             ? (unsigned)(TM_CAUSE_SYSCALL + number)
             : TM_CAUSE_IDENTITY;
}

void tm__identity_init(void) {
  struct tm_shadow *s = tm__shadow_raw();
  if (s->identity.base != 0) return;
  s->identity.base = tm__fresh_value();
  /* A process started under `numactl --membind` has a policy already: only a policy read as
   * MPOL_DEFAULT gets the shared value. */
  int mode = -1;
  s->identity.mempolicy =
      tm__prim_get_mempolicy(&mode) == 0 && mode == 0 ? TM_MEMPOLICY_DEFAULT : tm__fresh_value();
  s->identity_epoch = atomic_load_explicit(&tm__identity_epoch, memory_order_acquire);
}

void tm__identity_renew(struct tm_shadow *s, uint64_t epoch) {
  /* Never set (a thread made before the library started, or by glibc for a bypassed create),
   * or another thread's call may have changed this one: nothing parked can be known to equal
   * it. */
  if (s->identity.base == 0) {
    s->identity.mempolicy = tm__fresh_value();
  } else {
    s->identity_cause = atomic_load_explicit(&tm__identity_epoch_cause, memory_order_relaxed);
  }
  s->identity.base = tm__fresh_value();
  s->identity_epoch = epoch;
}

void tm__identity_adopt(const struct tm_identity *birth) {
  struct tm_shadow *s = tm__shadow_raw();
  s->identity = *birth;
  s->identity_cause = TM_CAUSE_NONE;
  /* From now: a call that changed another thread between the creator's capture and here ran
   * beside the create, and under glibc could have missed the new thread as well. */
  s->identity_epoch = atomic_load_explicit(&tm__identity_epoch, memory_order_acquire);
}

void tm__identity_changed(unsigned cause) {
  struct tm_shadow *s = tm__shadow_raw();
  tm__identity_now(); /* a thread never set gets its epoch first */
  s->identity.base = tm__fresh_value();
  s->identity_cause = cause;
}

void tm__identity_mempolicy(int now_default) {
  struct tm_shadow *s = tm__shadow_raw();
  tm__identity_now();
  s->identity.mempolicy = now_default ? TM_MEMPOLICY_DEFAULT : tm__fresh_value();
  s->identity_cause = TM_CAUSE_MEMPOLICY;
}

void tm__identity_foreign(unsigned cause) {
  atomic_store_explicit(&tm__identity_epoch_cause, cause, memory_order_relaxed);
  atomic_fetch_add_explicit(&tm__identity_epoch, 1, memory_order_release);
}

unsigned tm__identity_cause(void) { return tm__shadow_raw()->identity_cause; }
