/* The FPU control state a new thread inherits from its creator: clone(2) copies the creator's
 * whole FPU state, so under glibc a thread started after fesetround(FE_UPWARD), or after
 * setting MXCSR's flush-to-zero and denormals-are-zero bits, computes as its creator does. A
 * recycled thread has another thread's: the creator captures its control state on every reuse
 * and the worker loads it before the start routine, with plain instructions (no system call).
 *  - x86: MXCSR whole (rounding, FTZ, DAZ, exception masks and the sticky exception flags, which
 *    fetestexcept reads too), the x87 control word (precision, rounding, masks) and the x87
 *    status word's sticky exception flags; and where the kernel enabled protection keys
 *    (CPUID OSPKE), PKRU: the access rights a thread has to pkey-protected memory are part of
 *    its register state too (glibc's pkey_set writes it without a system call), so a thread
 *    recycled from a less restricted creator would reach memory its creator locked away;
 *  - aarch64: FPCR (rounding, flush-to-zero, default NaN, trap enables) and FPSR's flags;
 *  - elsewhere nothing (listed in docs/thread-cache-state.md).
 * Only what differs is loaded: the steady state of a loop costs two reads and two compares. */
#ifndef THREADMAP_CACHE_FPU_H
#define THREADMAP_CACHE_FPU_H

#include <stdint.h>
#include <string.h>

struct tm_fpu {
  uint32_t control; /* MXCSR / FPCR */
  uint16_t x87_control, x87_flags;
  uint32_t status;  /* aarch64 FPSR */
  uint32_t pkru;    /* x86 protection-key rights (0 where the kernel has none enabled) */
  uint64_t gs_base; /* x86-64 GS base where user space may read and write it (FSGSBASE) */
};

#if defined(__x86_64__) || defined(__i386__)
#include <sys/platform/x86.h>
/* 1 when RDPKRU/WRPKRU may be used: CPUID.(EAX=7,ECX=0):ECX bit 4, OSPKE (a #UD otherwise), as
 * glibc read it at start-up. Never the cpuid instruction itself: a thread with CPUID faulting
 * on (arch_prctl(ARCH_SET_CPUID, 0), as record/replay tools set it) gets SIGSEGV for it, and a
 * fresh thread never runs it. */
static inline int tm__fpu_pkru_usable(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    k = CPU_FEATURE_ACTIVE(OSPKE) != 0;
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}
#endif
#if defined(__x86_64__)
#include <sys/auxv.h>
/* 1 when RDGSBASE/WRGSBASE may be used: the kernel enabled FSGSBASE (AT_HWCAP2 bit 1). Then a
 * thread may set its GS base with the instruction, where no wrapper sees it; clone copies the
 * creator's, so it is copied like the FPU control state (ARCH_SET_GS through arch_prctl
 * changes the identity as well: legacy_interpose.c). */
static inline int tm__fpu_gsbase_usable(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    k = (getauxval(AT_HWCAP2) & 2) != 0;
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}
#endif

static inline void tm__fpu_capture(struct tm_fpu *out) {
  memset(out, 0, sizeof *out);
#if defined(__x86_64__) || defined(__i386__)
  uint32_t mxcsr;
  uint16_t cw, sw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  __asm__ volatile("fnstsw %0" : "=m"(sw));
  out->control = mxcsr;
  out->x87_control = cw;
  out->x87_flags = (uint16_t)(sw & 0x3f);
  if (tm__fpu_pkru_usable()) {
    uint32_t pkru, edx;
    __asm__ volatile(".byte 0x0f, 0x01, 0xee" : "=a"(pkru), "=d"(edx) : "c"(0)); /* rdpkru */
    out->pkru = pkru;
  }
#if defined(__x86_64__)
  if (tm__fpu_gsbase_usable()) {
    uint64_t gs;
    __asm__ volatile("rdgsbase %0" : "=r"(gs));
    out->gs_base = gs;
  }
#endif
#elif defined(__aarch64__)
  uint64_t fpcr, fpsr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  __asm__ volatile("mrs %0, fpsr" : "=r"(fpsr));
  out->control = (uint32_t)fpcr;
  out->status = (uint32_t)fpsr;
#endif
}

/* Loads WANT where the calling thread's state differs. */
static inline void tm__fpu_apply(const struct tm_fpu *want) {
  struct tm_fpu now;
  tm__fpu_capture(&now);
  if (memcmp(&now, want, sizeof now) == 0) return;
#if defined(__x86_64__) || defined(__i386__)
  if (now.control != want->control) {
    uint32_t mxcsr = want->control;
    __asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
  }
  if (now.x87_control != want->x87_control) {
    uint16_t cw = want->x87_control;
    __asm__ volatile("fldcw %0" : : "m"(cw));
  }
  if (now.pkru != want->pkru && tm__fpu_pkru_usable())
    __asm__ volatile(".byte 0x0f, 0x01, 0xef" : : "a"(want->pkru), "c"(0), "d"(0)); /* wrpkru */
#if defined(__x86_64__)
  if (now.gs_base != want->gs_base && tm__fpu_gsbase_usable())
    __asm__ volatile("wrgsbase %0" : : "r"(want->gs_base) : "memory");
#endif
  if (now.x87_flags != want->x87_flags) {
    /* The sticky flags are set only through the environment: store it (which also masks
     * every exception), put the flags in, and load it back (restoring the masks). */
    struct {
      uint16_t cw, pad0, sw, pad1;
      uint32_t rest[5];
    } env;
    __asm__ volatile("fnstenv %0" : "=m"(env));
    env.sw = (uint16_t)((env.sw & ~0x3fu) | want->x87_flags);
    __asm__ volatile("fldenv %0" : : "m"(env));
  }
#elif defined(__aarch64__)
  uint64_t fpcr = want->control, fpsr = want->status;
  __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
  __asm__ volatile("msr fpsr, %0" : : "r"(fpsr));
#endif
}

#endif
