/* Older libc calls that change what a thread carries, beside the shadow's wrappers
 * (shadow_interpose.c): glibc implements them with its own internal calls, which no wrapper of
 * the modern call sees.
 *  - sigblock, sigsetmask (BSD masks of 32 bits): the mask, as sigprocmask;
 *  - sigstack (the old alternate stack call): disabled at the logical exit, as sigaltstack;
 *  - arch_prctl: ARCH_SET_GS/ARCH_SET_FS (the GS/FS base clone copies), ARCH_SET_CPUID (CPUID
 *    faulting), shadow stacks, tagged addresses: what clone copies changed (identity.h); the
 *    ARCH_GET_* codes only read;
 *  - ioperm, iopl: the I/O permission bitmap and level, per thread and copied by clone. */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#include "interpose_next.h"
#include "notes.h"
#include "shadow.h"

#define TM_EXPORT __attribute__((visibility("default"), no_sanitize_thread))

/* arch_prctl, ioperm and iopl exist on x86 only. */
#if defined(__x86_64__)
#define TM_LEGACY_X86(X) X(arch_prctl) X(ioperm) X(iopl)
#else
#define TM_LEGACY_X86(X)
#endif
#define TM_LEGACY_WRAPPED(X) X(sigblock) X(sigsetmask) X(sigstack) TM_LEGACY_X86(X)
TM_NEXT_SLOTS(TM_LEGACY_WRAPPED, tm__legacy_interpose_init)

/* The 32-bit BSD mask as a sigset_t (signal N is bit N - 1, as in sigmask(N)). */
static void tm__bsd_mask(int mask, sigset_t *set) {
  sigemptyset(set);
  unsigned long word = (unsigned)mask;
  memcpy(set, &word, sizeof word);
}

TM_EXPORT int sigblock(int mask) {
  TM_NEXT(int (*)(int), sigblock);
  sigset_t set;
  tm__bsd_mask(mask, &set);
  if (tm__quiet_mask_counts(SIG_BLOCK, &set)) tm__quiet_end();
  int r = next(mask);
  tm__mask_unknown();
  return r;
}

TM_EXPORT int sigsetmask(int mask) {
  TM_NEXT(int (*)(int), sigsetmask);
  sigset_t set;
  tm__bsd_mask(mask, &set);
  if (tm__quiet_mask_counts(SIG_SETMASK, &set)) tm__quiet_end();
  int r = next(mask);
  tm__mask_unknown();
  return r;
}

struct sigstack;
TM_EXPORT int sigstack(struct sigstack *stack, struct sigstack *old) {
  TM_NEXT(int (*)(struct sigstack *, struct sigstack *), sigstack);
  int r = next(stack, old);
  if (stack && r == 0) tm__shadow_raw()->altstack_changed = 1; /* the reset disables it */
  return r;
}

#if defined(__x86_64__)
/* 1 when arch_prctl CODE only reads: ARCH_GET_FS, ARCH_GET_GS, ARCH_GET_CPUID, the XCOMP
 * queries, ARCH_GET_UNTAG_MASK, ARCH_GET_MAX_TAG_BITS, ARCH_SHSTK_STATUS. ARCH_REQ_XCOMP_PERM
 * (0x1023) grants the whole process a state component: nothing between threads either. */
int tm__arch_prctl_harmless(long code) {
  switch (code) {
    case 0x1003: /* ARCH_GET_FS */
    case 0x1004: /* ARCH_GET_GS */
    case 0x1011: /* ARCH_GET_CPUID */
    case 0x1021: /* ARCH_GET_XCOMP_SUPP */
    case 0x1022: /* ARCH_GET_XCOMP_PERM */
    case 0x1023: /* ARCH_REQ_XCOMP_PERM */
    case 0x1024: /* ARCH_GET_XCOMP_GUEST_PERM */
    case 0x2001: /* ARCH_GET_UNTAG_MASK */
    case 0x2003: /* ARCH_GET_MAX_TAG_BITS */
    case 0x5005: /* ARCH_SHSTK_STATUS */
      return 1;
    default:
      return 0;
  }
}

void tm__note_arch_prctl(long code) {
  if (!tm__arch_prctl_harmless(code)) tm__identity_changed(tm__cause_syscall(SYS_arch_prctl));
}

TM_EXPORT int arch_prctl(int code, unsigned long addr) {
  TM_NEXT(int (*)(int, unsigned long), arch_prctl);
  int r = next(code, addr);
  if (r == 0) tm__note_arch_prctl(code);
  return r;
}

TM_EXPORT int ioperm(unsigned long from, unsigned long num, int turn_on) {
  TM_NEXT(int (*)(unsigned long, unsigned long, int), ioperm);
  int r = next(from, num, turn_on);
  if (r == 0) tm__identity_changed(tm__cause_syscall(SYS_ioperm));
  return r;
}

TM_EXPORT int iopl(int level) {
  TM_NEXT(int (*)(int), iopl);
  int r = next(level);
  if (r == 0) tm__identity_changed(tm__cause_syscall(SYS_iopl));
  return r;
}
#endif
