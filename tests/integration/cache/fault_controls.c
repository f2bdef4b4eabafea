/* Per-thread controls that make an instruction fault, which a fresh glibc thread never runs but
 * the cache did on the program's threads:
 *  - TSC disabled (prctl(PR_SET_TSC, PR_TSC_SIGSEGV), copied to every clone): the cache's spin
 *    read the vDSO's fine clock (rdtsc) in create and join, and the program died of SIGSEGV;
 *  - CPUID faulting (arch_prctl(ARCH_SET_CPUID, 0), as record/replay tools set it): the
 *    protection-key probe ran `cpuid` at the first create.
 * Each part is run in a child process (a fault ends only the child) that sets the control in
 * main before its first pthread_create and then creates and joins threads; spinning is forced
 * (TM_CACHE_SPIN_NS) so that the clock would be read. A control the CPU or kernel cannot set is
 * reported as such (the same line with and without the cache) and the part checks nothing more.
 * Breaks when: the spin reads the clock in a process with the TSC disabled, or the PKRU probe
 * executes cpuid. */
#define _GNU_SOURCE 1 /* before any header (semantics.h defines it too) */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1012
#endif

static void *nothing(void *arg) { return arg; }

static int create_join_rounds(int n) {
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) != 0) return -1;
    pthread_join(t, NULL);
  }
  return 0;
}

/* In a child: SET the control (0: set, else the errno), then 200 create+join rounds. Prints
 * what happened. */
static void run_part(const char *name, int (*set)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int err = set();
    if (err != 0) {
      printf("%s: cannot be set here (errno %d): nothing to check\n", name, err);
      fflush(stdout);
      _exit(0);
    }
    int r = create_join_rounds(200);
    printf("%s: 200 create+join rounds %s\n", name, r == 0 ? "done" : "failed");
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    printf("%s: the child was killed by signal %d\n", name, WTERMSIG(status));
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, name);
}

static int tsc_off(void) { return prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) == 0 ? 0 : errno; }

static int cpuid_faulting(void) {
  return syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0L) == 0 ? 0 : errno;
}

int main(int argc, char **argv) {
  (void)argc;
  run_with_env("TM_CACHE_SPIN_NS", "200000", argv); /* the cache spins in create and join */
  run_part("tsc disabled", tsc_off);
#if defined(__x86_64__)
  run_part("cpuid faulting", cpuid_faulting);
#endif
  return semantics_failures ? 1 : 0;
}
