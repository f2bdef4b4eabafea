/* Per-thread kernel state a logical thread changed with a raw syscall(2) (or a libc call glibc
 * does not broadcast to every thread) must not reach the next logical thread: a fresh
 * thread gets its creator's credentials, groups, capabilities, securebits, capability bounding
 * set, I/O priority, personality and utilization clamps. In a child process per item, thread A
 * changes it, is joined, and thread B (under the cache, served by A's parked physical thread
 * unless A retired) must see main's value. */
#define _GNU_SOURCE 1
#include <grp.h>
#include <linux/capability.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "semantics.h"

/* glibc exports these without declaring them. */
extern int capget(cap_user_header_t header, cap_user_data_t data);
extern int capset(cap_user_header_t header, const cap_user_data_t data);

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_PRIO_VALUE(cls, data) (((cls) << 13) | (data))

static long ioprio_self(void) { return syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0); }

static unsigned caps_effective(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capget, &h, d) != 0) return 0xdeadu;
  return d[0].effective ^ d[1].effective;
}

struct ids {
  uid_t r, e, s;
  gid_t gr, ge, gs;
  int ngroups;
  gid_t groups[64];
  long ioprio;
  unsigned caps;
  int securebits, bset_chown;
  int persona;
  unsigned uclamp_min;
};

/* struct sched_attr (linux/sched/types.h), read and set through syscall(2). */
struct attr {
  unsigned size, policy;
  unsigned long long flags;
  int nice;
  unsigned priority;
  unsigned long long runtime, deadline, period;
  unsigned util_min, util_max;
};

static unsigned uclamp_min_self(void) {
  struct attr a;
  memset(&a, 0, sizeof a);
  if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) != 0) return 0xdeadu;
  return a.util_min;
}

static void read_ids(struct ids *x) {
  memset(x, 0, sizeof *x);
  getresuid(&x->r, &x->e, &x->s);
  getresgid(&x->gr, &x->ge, &x->gs);
  x->ngroups = getgroups(64, x->groups);
  x->ioprio = ioprio_self();
  x->caps = caps_effective();
  x->securebits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  x->bset_chown = prctl(PR_CAPBSET_READ, CAP_CHOWN, 0, 0, 0);
  x->persona = personality(0xffffffff);
  x->uclamp_min = uclamp_min_self();
}

static void *change(void *arg) {
  int which = (int)(long)arg;
  gid_t one = 12345;
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  switch (which) {
    case 0:
      syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(3, 0)); /* idle class */
      break;
    case 1:
      syscall(SYS_setresuid, 65534, 65534, 65534);
      break;
    case 2:
      syscall(SYS_setresgid, 65534, 65534, 65534);
      break;
    case 3:
      syscall(SYS_setgroups, 1, &one);
      break;
    case 4:
      memset(d, 0, sizeof d);
      syscall(SYS_capget, &h, d);
      d[0].effective = d[1].effective = 0;
      syscall(SYS_capset, &h, d);
      break;
    case 5:
      prctl(PR_SET_SECUREBITS, 1 << 4 /* SECBIT_KEEP_CAPS */, 0, 0, 0);
      break;
    case 6:
      prctl(PR_CAPBSET_DROP, CAP_CHOWN, 0, 0, 0);
      break;
    case 7:
      syscall(SYS_personality, ADDR_NO_RANDOMIZE);
      break;
    case 9: {
      struct attr a;
      memset(&a, 0, sizeof a);
      a.size = sizeof a;
      a.flags = 0x20 | 0x10 | 0x08; /* UTIL_CLAMP_MIN | KEEP_PARAMS | KEEP_POLICY */
      a.util_min = 512;
      syscall(SYS_sched_setattr, 0, &a, 0);
      break;
    }
    case 8:
      memset(d, 0, sizeof d);
      capget(&h, d);
      d[0].effective = d[1].effective = 0;
      capset(&h, d);
      break;
  }
  return NULL;
}

static void *observe(void *arg) {
  read_ids(arg);
  return NULL;
}

/* One row in a child process of its own, so that a row that leaks cannot make a later row
 * differ: each row fails or passes by itself. Returns the row's verdict (1: same as main). */
static int row(int i, const struct ids *before) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    warm_cache();
    pthread_t a, b;
    struct ids seen;
    if (pthread_create(&a, NULL, change, (void *)(long)i) != 0) _exit(99);
    pthread_join(a, NULL);
    settle();
    if (pthread_create(&b, NULL, observe, &seen) != 0) _exit(99);
    pthread_join(b, NULL);
    _exit(memcmp(&seen, before, sizeof seen) == 0 ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void) {
  static const char *const names[] = {"ioprio",       "setresuid",  "setresgid", "setgroups",
                                      "capset",       "securebits", "capbset",   "personality",
                                      "glibc capset", "uclamp"};
  struct ids before;
  read_ids(&before);
  int root = before.e == 0;
  for (int i = 0; i < (int)(sizeof names / sizeof names[0]); ++i) {
    char name[64];
    snprintf(name, sizeof name, "%s not inherited from a joined thread", names[i]);
    if (!root && i != 0 && i != 7 && i != 9) { /* needs privileges */
      printf("ok %s (not root: skipped)\n", name);
      continue;
    }
    EXPECT(row(i, &before), name);
  }
  warm_cache(); /* so that the parent's own run reuses a thread too */
  return semantics_failures;
}
