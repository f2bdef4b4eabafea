/* State changed through calls the shadow's wrappers did not cover, and glibc's own per-thread
 * state, compared with glibc's fresh threads:
 *  - sigblock/sigsetmask: a creator's BSD-style block reaches its new thread; a logical thread
 *    that blocks a signal that way and ends leaves nothing to main's next thread;
 *  - sigstack: an alternate stack set with the old call does not outlive its logical thread;
 *  - the GS base (x86-64): set with arch_prctl(ARCH_SET_GS) or the wrgsbase instruction, it is
 *    copied to the creator's new threads and not to the next logical thread;
 *  - I/O permission (ioperm, iopl; x86): a creator's new thread may use the port, main's next
 *    thread after one that had the permission may not (needs CAP_SYS_RAWIO: where the kernel
 *    refuses, both runs print so);
 *  - dlerror's pending message, h_errno and the resolver state (_res) do not carry into the next
 *    logical thread (glibc frees them at every thread exit).
 * Breaks when: a wrapper is missing (sigblock, sigsetmask, sigstack, arch_prctl), the GS base is
 * not copied, or tm__libc_thread_freeres is not called. */
#define _GNU_SOURCE 1 /* before any header (semantics.h defines it too) */
#include <dlfcn.h>
#include <netdb.h>
#include <resolv.h>
#include <signal.h>
#include <sys/syscall.h>

#include "semantics.h"

/* sigblock, sigsetmask and sigstack are deprecated: what is tested is that they still work. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int blocked(int sig) {
  sigset_t m;
  pthread_sigmask(SIG_BLOCK, NULL, &m);
  return sigismember(&m, sig);
}

static void *report_usr1(void *arg) {
  (void)arg;
  return (void *)(long)blocked(SIGUSR1);
}

static void *sigblock_creator(void *arg) {
  (void)arg;
  sigblock(1 << (SIGUSR1 - 1));
  pthread_t t;
  void *child = NULL;
  if (pthread_create(&t, NULL, report_usr1, NULL) == 0) pthread_join(t, &child);
  return child;
}

static void *sigsetmask_and_end(void *arg) {
  (void)arg;
  sigsetmask(1 << (SIGUSR2 - 1));
  return NULL;
}

static void *report_usr2(void *arg) {
  (void)arg;
  return (void *)(long)blocked(SIGUSR2);
}

static char old_stack[65536];
static void *sigstack_and_end(void *arg) {
  (void)arg;
  struct sigstack ss = {old_stack + sizeof old_stack, 0};
  sigstack(&ss, NULL);
  return NULL;
}

static void *altstack_enabled(void *arg) {
  (void)arg;
  stack_t now;
  sigaltstack(NULL, &now);
  return (void *)(long)!(now.ss_flags & SS_DISABLE);
}

static void *dlerror_and_end(void *arg) {
  (void)arg;
  dlopen("/nonexistent/libthreadmap-none.so", RTLD_NOW); /* leaves a message pending */
  return NULL;
}

static void *dlerror_pending(void *arg) {
  (void)arg;
  return (void *)(long)(dlerror() != NULL);
}

static void *h_errno_and_end(void *arg) {
  (void)arg;
  h_errno = HOST_NOT_FOUND;
  return NULL;
}

static void *h_errno_now(void *arg) {
  (void)arg;
  return (void *)(long)h_errno;
}

static void *res_and_end(void *arg) {
  (void)arg;
  res_init();
  _res.options |= RES_DEBUG;
  return NULL;
}

static void *res_options_debug(void *arg) {
  (void)arg;
  return (void *)(long)((_res.options & RES_DEBUG) != 0);
}

static long run(void *(*fn)(void *)) {
  pthread_t t;
  void *r = (void *)-1L;
  if (pthread_create(&t, NULL, fn, NULL) == 0) pthread_join(t, &r);
  return (long)r;
}

#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/auxv.h>
extern int arch_prctl(int code, unsigned long addr); /* glibc exports it, no header declares it */
static unsigned long gs_base(void) {
  unsigned long gs = 0;
  syscall(SYS_arch_prctl, ARCH_GET_GS, &gs);
  return gs;
}
static void *report_gs(void *arg) {
  (void)arg;
  return (void *)gs_base();
}
static unsigned long gs_value = 0x10000;
static void *gs_creator(void *arg) {
  int with_instruction = arg != NULL;
  if (with_instruction)
    __asm__ volatile("wrgsbase %0" : : "r"(gs_value) : "memory");
  else
    arch_prctl(ARCH_SET_GS, gs_value);
  pthread_t t;
  void *child = NULL;
  if (pthread_create(&t, NULL, report_gs, NULL) == 0) pthread_join(t, &child);
  return (void *)(long)((unsigned long)child == gs_value);
}
static void gs_checks(void) {
  for (int instruction = 0; instruction < 2; ++instruction) {
    if (instruction && !(getauxval(AT_HWCAP2) & 2)) {
      printf("wrgsbase: the kernel did not enable FSGSBASE: nothing to check\n");
      continue;
    }
    const char *how = instruction ? "wrgsbase" : "arch_prctl(ARCH_SET_GS)";
    for (int i = 0; i < 20; ++i) {
      pthread_t t;
      void *same = NULL;
      if (pthread_create(&t, NULL, gs_creator, instruction ? (void *)1 : NULL) == 0)
        pthread_join(t, &same);
      if (!same) printf("%s: round %d: the new thread lacks its creator's GS base\n", how, i);
      if (run(report_gs) != (long)gs_base())
        printf("%s: round %d: main's next thread has another GS base\n", how, i);
    }
    printf("%s: checked\n", how);
  }
}

/* I/O permission (ioperm's bitmap, iopl's level): per thread, copied by clone. A creator's new
 * thread may use the port; main's next thread, after a thread that got the permission ended,
 * may not (the access faults). Port 0x80 is the POST diagnostic port (writes are harmless). */
#include <setjmp.h>
#include <sys/io.h>
static __thread sigjmp_buf io_jump;
static void io_fault(int sig) {
  (void)sig;
  siglongjmp(io_jump, 1);
}
static int port_usable(void) {
  if (sigsetjmp(io_jump, 1) != 0) return 0;
  outb(0, 0x80);
  return 1;
}
static int io_way;
static int io_grant(void) { return io_way == 0 ? ioperm(0x80, 1, 1) : iopl(3); }
static void *report_port(void *arg) {
  (void)arg;
  return (void *)(long)port_usable();
}
static void *io_creator(void *arg) {
  (void)arg;
  if (io_grant() != 0) return (void *)-1L;
  return (void *)run(report_port);
}
static void io_checks(void) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = io_fault;
  sigaction(SIGSEGV, &sa, &old);
  for (io_way = 0; io_way < 2; ++io_way) {
    const char *how = io_way == 0 ? "ioperm" : "iopl";
    int creator_bad = 0, next_bad = 0, rounds = 20;
    for (int i = 0; i < rounds; ++i) {
      long got = run(io_creator);
      if (got == -1) {
        printf("%s: cannot be set here (no CAP_SYS_RAWIO)\n", how);
        break;
      }
      creator_bad += got != 1;
      next_bad += run(report_port) != 0;
    }
    printf("%s: %d new threads without their creator's permission, %d next threads with it\n", how,
           creator_bad, next_bad);
  }
  sigaction(SIGSEGV, &old, NULL);
}
#endif

int main(void) {
  warm_cache();
  int bad = 0;
  for (int i = 0; i < 50; ++i) bad += run(sigblock_creator) != 1;
  EXPECT(bad == 0, "sigblock reaches the creator's new thread");
  bad = 0;
  for (int i = 0; i < 50; ++i) {
    run(sigsetmask_and_end);
    bad += run(report_usr2) != 0;
  }
  EXPECT(bad == 0, "sigsetmask does not outlive its logical thread");
  bad = 0;
  for (int i = 0; i < 50; ++i) {
    run(sigstack_and_end);
    bad += run(altstack_enabled) != 0;
  }
  EXPECT(bad == 0, "sigstack does not outlive its logical thread");
  bad = 0;
  for (int i = 0; i < 50; ++i) {
    run(dlerror_and_end);
    bad += run(dlerror_pending) != 0;
  }
  EXPECT(bad == 0, "no dlerror message from another logical thread");
  bad = 0;
  for (int i = 0; i < 50; ++i) {
    run(h_errno_and_end);
    bad += run(h_errno_now) != 0;
  }
  EXPECT(bad == 0, "h_errno starts at 0");
  bad = 0;
  for (int i = 0; i < 20; ++i) {
    run(res_and_end);
    bad += run(res_options_debug) != 0;
  }
  EXPECT(bad == 0, "_res starts uninitialised");
#if defined(__x86_64__)
  gs_checks();
  io_checks();
#endif
  return semantics_failures ? 1 : 0;
}
