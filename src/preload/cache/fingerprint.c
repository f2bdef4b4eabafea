/* Hashing what clone copies and /proc or a read-only call shows (fingerprint.h). */
#include "fingerprint.h"

#include <sys/prctl.h>

#include "../common/tm_prim.h"
#include "fpu.h"

/* glibc 2.35+: where each thread's rseq area lies (size 0: glibc registers none). */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static uint64_t tm__mix(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL; /* FNV-1a */
  return h;
}

/* The lines of /proc/thread-self/status that clone copies (not counters or states). */
static uint64_t tm__mix_status(uint64_t h) {
  static const char *const keep[] = {
      "Umask:",  "Uid:",    "Gid:",    "Groups:", "NoNewPrivs:", "Seccomp",
      "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:",     "Speculation"};
  char text[4096];
  if (tm__prim_read_file("/proc/thread-self/status", text, sizeof text) <= 0) return h + 1;
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; ++i)
      if (strncmp(line, keep[i], strlen(keep[i])) == 0) h = tm__mix(h, line, len);
    if (!end) break;
    line = end + 1;
  }
  return h;
}

uint64_t tm__fingerprint_read(void) {
  uint64_t h = 14695981039346656037ULL;
  h = tm__mix_status(h);
  char text[1024];
  long n = tm__prim_read_file("/proc/thread-self/cgroup", text, sizeof text);
  if (n > 0) h = tm__mix(h, text, (size_t)n);
  static const char *const spaces[] = {
      "mnt", "uts", "ipc", "net", "pid_for_children", "user", "cgroup", "time_for_children"};
  for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; ++i) {
    char path[64] = "/proc/thread-self/ns/";
    strcat(path, spaces[i]);
    n = tm__prim_readlink(path, text, sizeof text);
    if (n > 0) h = tm__mix(h, text, (size_t)n);
  }
  n = tm__prim_readlink("/proc/thread-self/cwd", text, sizeof text);
  if (n > 0) h = tm__mix(h, text, (size_t)n);
  /* The audit login uid and the LSM label: clone copies both, /proc writes change them. */
  n = tm__prim_read_file("/proc/thread-self/loginuid", text, sizeof text);
  if (n > 0) h = tm__mix(h, text, (size_t)n);
  n = tm__prim_read_file("/proc/thread-self/attr/current", text, sizeof text);
  if (n > 0) h = tm__mix(h, text, (size_t)n);
  long values[4] = {
      tm__prim_ioprio_self(),
      tm__prim_personality(),
      tm__prim_prctl(PR_GET_SECUREBITS, 0, 0, 0, 0),
      -1,
  };
  int mode = -1;
  if (tm__prim_get_mempolicy(&mode) == 0) values[3] = mode;
  h = tm__mix(h, values, sizeof values);
#if defined(__x86_64__)
  /* The GS base, where the kernel did not enable FSGSBASE (fpu.h copies it with the instruction
   * otherwise): then only arch_prctl changes it, unseen when made with the instruction. */
  if (!tm__fpu_gsbase_usable()) {
    unsigned long gs = 0;
    if (tm__prim_gs_base(&gs) == 0) h = tm__mix(h, &gs, sizeof gs);
  }
#endif
  if (&__rseq_size != NULL && __rseq_size > 0) {
    int32_t cpu_id = *(volatile int32_t *)((char *)__builtin_thread_pointer() + __rseq_offset + 4);
    int registered = cpu_id >= 0;
    h = tm__mix(h, &registered, sizeof registered);
  }
  return h;
}

void tm__fingerprint_take(struct tm_thread *t) { t->fingerprint = tm__fingerprint_read(); }

int tm__fingerprint_matches(struct tm_thread *t) {
  return tm__fingerprint_read() == t->fingerprint;
}
