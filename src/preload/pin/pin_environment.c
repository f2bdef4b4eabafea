/* threadmap pin preload — what the programs this one execs or starts get: the rules passed on
 * in TM_PIN_CONFIG (from= this process, original= the family's first affinity) while this
 * program is a wrapper, or nothing (this library out of LD_PRELOAD, TM_PIN_CONFIG removed) once
 * it creates threads or runs unpinned. The only allocations of the library are here (malloc for
 * the rewritten variables, and setenv's own), at start-up and before the first thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tm_prim.h"
#include "pin_runtime.h"

/* Strips every LD_PRELOAD entry that is this library (same path or same file name) and removes
 * TM_PIN_* variables, so programs the host execs run without our rules. */
void tm__forget_environment(void) {
  Dl_info self;
  const char* self_path = NULL;
  if (dladdr((void*)&tm__runtime_init, &self) && self.dli_fname) self_path = self.dli_fname;
  const char* self_base = self_path ? strrchr(self_path, '/') : NULL;
  self_base = self_base ? self_base + 1 : (self_path ? self_path : "libthreadmap-pin.so");

  const char* preload = getenv("LD_PRELOAD");
  if (preload) {
    size_t len = strlen(preload);
    char* kept = malloc(len + 1);
    if (kept) {
      size_t out = 0;
      const char* p = preload;
      while (*p) {
        while (*p == ':' || *p == ' ') ++p;
        const char* end = p;
        while (*end && *end != ':' && *end != ' ') ++end;
        size_t n = (size_t)(end - p);
        if (n > 0) {
          const char* base = p;
          for (const char* q = p; q < end; ++q)
            if (*q == '/') base = q + 1;
          size_t base_len = (size_t)(end - base);
          int is_self = (self_path && strlen(self_path) == n && memcmp(p, self_path, n) == 0) ||
                        (strlen(self_base) == base_len && memcmp(base, self_base, base_len) == 0);
          if (!is_self) {
            if (out > 0) kept[out++] = ':';
            memcpy(kept + out, p, n);
            out += n;
          }
        }
        p = end;
      }
      kept[out] = '\0';
      if (out == 0) {
        unsetenv("LD_PRELOAD");
      } else {
        setenv("LD_PRELOAD", kept, 1);
      }
      free(kept);
    }
  }
  unsetenv("TM_PIN_CONFIG");
}

/* Appends `mask` (words of unsigned long) to `out` in the tm-pin/1 CPU list syntax ("0-3,8");
 * `out` has room for the worst case (every other CPU: 6 characters a CPU below 65536). */
static size_t append_cpu_list(char* out, const unsigned long* mask, size_t words) {
  const size_t word_bits = sizeof(unsigned long) * 8;
  const size_t bits = words * word_bits;
#define TM__HAS(i) ((mask[(i) / word_bits] >> ((i) % word_bits)) & 1UL)
  size_t length = 0;
  for (size_t cpu = 0; cpu < bits; ++cpu) {
    if (!TM__HAS(cpu)) continue;
    size_t last = cpu;
    while (last + 1 < bits && TM__HAS(last + 1)) ++last;
    length += (size_t)sprintf(out + length, length ? ",%zu" : "%zu", cpu);
    if (last > cpu) length += (size_t)sprintf(out + length, "-%zu", last);
    cpu = last;
  }
#undef TM__HAS
  out[length] = '\0';
  return length;
}

/* The rules go on to what this program execs or starts, marked as coming from this process and
 * carrying the affinity the first program that took them started with (a wrapper's main thread
 * is pinned by the main rule, and the program it execs would otherwise take that pin for "the
 * affinity it would have had without threadmap"). Runs in the constructor, before main(): a shell
 * copies its environment at start and builds its children's from that copy. Leaves the variable
 * as it was when memory runs short (the next program then reads the old from=, which only costs
 * the check in `tm__handed_by_threaded_program`). */
void tm__pass_on_environment(const char* text) {
  size_t header_len = strlen(TM_PIN_CONFIG_HEADER);
  size_t text_len = strlen(text);
  size_t original_room = tm__rt.config.original_set >= 0 ? 0 : TM__ORIGINAL_WORDS * 64 * 6 + 16;
  char* out = malloc(text_len + original_room + 64);
  if (!out) return;
  size_t length = (size_t)sprintf(out, "%s;from=%ld", TM_PIN_CONFIG_HEADER, (long)tm__rt.init_pid);
  if (tm__rt.config.original_set < 0 && tm__rt.original_bytes > 0) {
    memcpy(out + length, ";original=", 10);
    length += 10;
    length += append_cpu_list(out + length, tm__rt.original,
                              tm__rt.original_bytes / sizeof(unsigned long));
  }
  const char* p = text + header_len;
  while (*p == ';') {
    const char* entry = p + 1;
    const char* end = strchr(entry, ';');
    size_t n = end ? (size_t)(end - entry) : strlen(entry);
    if (!(n >= 5 && memcmp(entry, "from=", 5) == 0)) {
      out[length++] = ';';
      memcpy(out + length, entry, n);
      length += n;
    }
    p = entry + n;
  }
  out[length] = '\0';
  setenv("TM_PIN_CONFIG", out, 1);
  free(out);
}

/* Whether the process that passed the rules on (from=) runs threads now. Such a process keeps
 * the rules to itself (it removed them from its environment before its first thread), so rules
 * that reach us from it come from a copy of the environment it took before that (Python's
 * os.environ, a JVM's ProcessBuilder): we are its child, not the program it was a wrapper for.
 * An exec in the same process, a process gone, or a /proc we cannot read count as a wrapper. */
int tm__handed_by_threaded_program(long from) {
  if (from < 0 || from == (long)tm__rt.init_pid) return 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/status", from);
  char text[4096];
  if (tm__prim_read_file(path, text, sizeof text) <= 0) return 0;
  const char* at = strstr(text, "\nThreads:");
  if (!at) return 0;
  long threads = 0;
  for (at += 9; *at == ' ' || *at == '\t'; ++at) {
  }
  for (; *at >= '0' && *at <= '9'; ++at) threads = threads * 10 + (*at - '0');
  return threads > 1;
}

/* The first thread this program creates makes it the program that runs the threads: from now
 * on the programs it execs or starts get no rules (unless inherit). Removed from the environment
 * before the thread exists, so no thread of ours reads it while it changes. */
static atomic_int tm__rules_kept;

void tm__keep_rules_here(void) {
  if (tm__rt.config.inherit || atomic_exchange(&tm__rules_kept, 1) != 0) return;
  tm__forget_environment();
  if (tm__rt.verbose)
    tm__pin_report(
        "pin: this program creates threads: the rules stay with it; programs it starts from "
        "now on get none (--inherit: they do)",
        NULL);
}
