/* threadmap pin preload — initialisation (config, real functions, main thread, environment) and
 * applying decisions. Allocation happens only here, once, at start-up (mmap for the rules and
 * setenv when we strip ourselves from the environment). */
#define _GNU_SOURCE
#include "pin_runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/tm_options.h"
#include "../common/tm_prim.h"
#include "pin_log.h"
#include "pin_view.h"

tm__runtime tm__rt;

/* Set on threads whose affinity we changed. initial-exec: the library is loaded at start-up
 * (LD_PRELOAD), so its TLS is static and reading it never calls __tls_get_addr (which may
 * allocate). */
static __thread int tm__t_pinned __attribute__((tls_model("initial-exec")));

static pthread_once_t tm__init_once = PTHREAD_ONCE_INIT;

int tm__self_pinned(void) { return tm__t_pinned; }

/* The pin library's integer options (TM_PIN_CONFIG, a string, is parsed by pin_config.c). */
enum { TM_PIN_OPT_VERBOSE, TM_PIN_OPT_SHARE_VIEW, TM_PIN_OPT_COUNT };
static struct tm__option tm__pin_options[TM_PIN_OPT_COUNT] = {
    [TM_PIN_OPT_VERBOSE] = {"TM_VERBOSE", 0, 0, 1, "print the configuration and each pin", 0, 0},
    [TM_PIN_OPT_SHARE_VIEW] = {"TM_PIN_SHARE_VIEW", 1, 0, 1,
                               "1: the program sees its share where it reads its affinity "
                               "(pin_view.h); 0: each thread's own mask, the main thread pinned "
                               "before main() (xthi-style placement checks)",
                               0, 0},
};

static void report(const char* a, const char* b) {
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, a);
  if (b) tm__line_str(&line, b);
  tm__line_emit(&line);
}

/* Strips every LD_PRELOAD entry that is this library (same path or same file name) and removes
 * TM_PIN_* variables, so programs the host execs run without our rules. */
static void forget_environment(void) {
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

/* The process the library started in (read once at start-up; a fork child keeps it). */
static pid_t tm__init_pid;

/* The rules go on to what this program execs or starts, marked as coming from this process and
 * carrying the affinity the first program that took them started with (a wrapper's main thread
 * is pinned by the main rule, and the program it execs would otherwise take that pin for "the
 * affinity it would have had without threadmap"). Runs in the constructor, before main(): a shell
 * copies its environment at start and builds its children's from that copy. Leaves the variable
 * as it was when memory runs short (the next program then reads the old from=, which only costs
 * the check in `handed_by_threaded_program`). */
static void pass_on_environment(const char* text) {
  size_t header_len = strlen(TM_PIN_CONFIG_HEADER);
  size_t text_len = strlen(text);
  size_t original_room = tm__rt.config.original_set >= 0 ? 0 : TM__ORIGINAL_WORDS * 64 * 6 + 16;
  char* out = malloc(text_len + original_room + 64);
  if (!out) return;
  size_t length = (size_t)sprintf(out, "%s;from=%ld", TM_PIN_CONFIG_HEADER, (long)tm__init_pid);
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
static int handed_by_threaded_program(long from) {
  if (from < 0 || from == (long)tm__init_pid) return 0;
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
  forget_environment();
  if (tm__rt.verbose)
    report(
        "pin: this program creates threads: the rules stay with it; programs it starts from "
        "now on get none (--inherit: they do)",
        NULL);
}

/* Parses TM_PIN_CONFIG into an mmap'd arena. Returns 1 when rules are active. */
static int read_config(const char* text) {
  char error[256];
  size_t needed = 0;
  if (tm__pin_config_parse(text, NULL, 0, &needed, NULL, error, sizeof error) != 0) {
    report(error, "; running unpinned");
    return 0;
  }
  void* arena = tm__prim_map(needed);
  if (arena == NULL) {
    report("cannot map memory for TM_PIN_CONFIG", "; running unpinned");
    return 0;
  }
  if (tm__pin_config_parse(text, arena, needed, NULL, &tm__rt.config, error, sizeof error) != 0) {
    report(error, "; running unpinned");
    tm__prim_unmap(arena, needed);
    return 0;
  }
  return 1;
}

/* Which name rules a thread took: `run --plan P --by-name` whose names no thread
 * ever sets pins nothing, and says so when the program ends. Rules past the first 1024 are not
 * tracked (never reported). */
#define TM__NAME_TRACKED 1024
static atomic_uchar tm__name_matched[TM__NAME_TRACKED];

static void note_name_match(const char* name) {
  for (size_t i = 0; i < tm__rt.config.pattern_count && i < TM__NAME_TRACKED; ++i) {
    const tm__pattern_rule* rule = &tm__rt.config.patterns[i];
    if (rule->kind != TM__PATTERN_NAME && rule->kind != TM__PATTERN_SKIPNAME) continue;
    if (!tm__glob_match(rule->pattern, name)) continue;
    atomic_store_explicit(&tm__name_matched[i], 1, memory_order_relaxed);
    return;
  }
}

/* At exit of the process we started in (not a fork of it): the name rules no thread took. */
__attribute__((destructor)) static void report_unmatched_names(void) {
  if (!tm__rt.active || !tm__rt.config.has_name_rules || tm__prim_getpid() != tm__init_pid) return;
  /* A wrapper (a shell, env) that created no thread and named none passed the rules on: the
   * names are the program's to take, not its. */
  int any_matched = 0;
  for (size_t i = 0; i < TM__NAME_TRACKED; ++i)
    any_matched |= atomic_load_explicit(&tm__name_matched[i], memory_order_relaxed);
  if (!any_matched && atomic_load_explicit(&tm__rt.created, memory_order_relaxed) == 0) return;
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line,
               "pin: no thread took these names (a thread is pinned by name when it names "
               "itself so with pthread_setname_np):");
  int unmatched = 0;
  for (size_t i = 0; i < tm__rt.config.pattern_count && i < TM__NAME_TRACKED; ++i) {
    if (tm__rt.config.patterns[i].kind != TM__PATTERN_NAME) continue;
    if (atomic_load_explicit(&tm__name_matched[i], memory_order_relaxed)) continue;
    tm__line_str(&line, unmatched++ ? ", " : " ");
    tm__line_str(&line, tm__rt.config.patterns[i].pattern);
  }
  if (unmatched) tm__line_emit(&line);
}

static void print_config(void) {
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "pin: config: ");
  tm__line_long(&line, (long)tm__rt.config.slot_count);
  tm__line_str(&line, " slot rules, ");
  tm__line_long(&line, (long)tm__rt.config.cycle_count);
  tm__line_str(&line, " cycle sets, ");
  tm__line_long(&line, (long)tm__rt.config.pattern_count);
  tm__line_str(&line, " name/lib rules, main ");
  tm__line_str(&line, tm__rt.config.main_set >= 0 ? "pinned" : "not pinned");
  /* What happens across exec without --inherit: a wrapper (env, sh -c, a script) passes the
   * rules on; the program that creates threads keeps them, and what it starts afterwards gets
   * none but starts on the CPUs of the thread that forked it (the kernel carries that mask). */
  tm__line_str(&line, tm__rt.config.inherit
                          ? ", exec'd programs keep these rules"
                          : ", passed on to what this program execs until it creates a thread "
                            "(then its children get none; --inherit: they do)");
  if (tm__rt.config.from_pid > 0) {
    tm__line_str(&line, "; passed on by pid ");
    tm__line_long(&line, tm__rt.config.from_pid);
  }
  tm__line_emit(&line);
}

static void init_once(void) {
  extern char** environ;
  /* Under `run --ranks` every line says which host/rank it comes from (read before the
   * environment is cleaned for exec'd programs). */
  tm__line_set_tag(getenv("TM_LINE_TAG"));
  tm__options_read(tm__pin_options, TM_PIN_OPT_COUNT, environ, "pin");
  tm__rt.verbose = (int)tm__pin_options[TM_PIN_OPT_VERBOSE].value;
  tm__rt.share_view = (int)tm__pin_options[TM_PIN_OPT_SHARE_VIEW].value;
  if (tm__rt.verbose) tm__options_show(tm__pin_options, TM_PIN_OPT_COUNT, "pin");
  /* Our pid, read once: the rules passed on name it, and it tells an exec from a child. */
  tm__init_pid = tm__prim_getpid();
  tm__rt.real_create = (tm__create_fn)dlsym(RTLD_NEXT, "pthread_create");
  tm__rt.real_setname = (tm__setname_fn)dlsym(RTLD_NEXT, "pthread_setname_np");
  if (!tm__rt.real_create || !tm__rt.real_setname) {
    report("pin: cannot find the real pthread_create/pthread_setname_np", "; running unpinned");
    return;
  }
  if (tm__prim_getaffinity_bytes(tm__rt.original, sizeof tm__rt.original) == 0)
    tm__rt.original_bytes = sizeof tm__rt.original;

  const char* text = getenv("TM_PIN_CONFIG");
  int active = text ? read_config(text) : 0;
  if (!text && tm__rt.verbose) report("pin: TM_PIN_CONFIG is not set; running unpinned", NULL);
  if (active && !tm__rt.config.inherit && handed_by_threaded_program(tm__rt.config.from_pid)) {
    /* The child of the program that runs the threads, started with an old copy of its
     * environment: runs unpinned, as without that copy. */
    if (tm__rt.verbose) {
      tm__line line;
      tm__line_start(&line);
      tm__line_str(&line, "pin: the rules came from pid ");
      tm__line_long(&line, tm__rt.config.from_pid);
      tm__line_str(&line, ", which runs threads (they are its): this program runs unpinned");
      tm__line_emit(&line);
    }
    active = 0;
  }
  if (active && tm__rt.verbose) print_config();
  if (!active) {
    forget_environment();
    return;
  }
  tm__rt.active = 1;
  pass_on_environment(text);
  tm__view_init();
  /* The main thread runs on the whole share until its first thread (pin_view.h says why). */
  if (tm__rt.config.main_set >= 0 && !tm__view_share_main()) {
    tm__decision main_decision = {TM__ACTION_SET, tm__rt.config.main_set, "main rule"};
    tm__apply_to_self(&main_decision, "main thread", -1, NULL);
  }
  /* The main thread's policy, before main() allocates anything. Threads inherit it, and each
   * created thread sets its own again in the start wrapper (pin_start.c). */
  tm__mem_decision memory = tm__decide_memory(&tm__rt.config, tm__rt.config.main_mem_node);
  tm__apply_memory(&memory, "main thread", -1);
}

void tm__runtime_init(void) { pthread_once(&tm__init_once, init_once); }

/* Runs before main() (and before the program's own constructors), so the main thread is pinned
 * before it touches its memory. */
__attribute__((constructor)) static void tm__constructor(void) { tm__runtime_init(); }

/* The mask a decision asks for, or NULL (NONE, or RESTORE without a known original). */
static const unsigned long* decision_mask(const tm__decision* d, size_t* bytes) {
  if (d->action == TM__ACTION_SET && d->set >= 0) {
    *bytes = tm__rt.config.mask_words * sizeof(unsigned long);
    return tm__rt.config.sets + (size_t)d->set * tm__rt.config.mask_words;
  }
  if (d->action == TM__ACTION_RESTORE && tm__rt.config.original_set >= 0) {
    *bytes = tm__rt.config.mask_words * sizeof(unsigned long);
    return tm__rt.config.sets + (size_t)tm__rt.config.original_set * tm__rt.config.mask_words;
  }
  if (d->action == TM__ACTION_RESTORE && tm__rt.original_bytes > 0) {
    *bytes = tm__rt.original_bytes;
    return tm__rt.original;
  }
  return NULL;
}

void tm__describe_thread(tm__line* line, const char* label, long index, const char* library) {
  tm__line_str(line, label);
  if (index >= 0) {
    tm__line_str(line, " #");
    tm__line_long(line, index);
  }
  if (library) {
    tm__line_str(line, " (start routine in ");
    tm__line_str(line, library);
    tm__line_str(line, ")");
  }
}

static void report_failure(const tm__decision* d, const unsigned long* mask, size_t bytes,
                           int error, const char* label, long index, const char* library) {
  /* Only the first failure: a bad CPU would otherwise print once per thread. */
  if (atomic_exchange(&tm__rt.failure_reported, 1) != 0 && !tm__rt.verbose) return;
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "pin: cannot pin ");
  tm__describe_thread(&line, label, index, library);
  tm__line_str(&line, " to CPUs ");
  tm__line_cpus(&line, mask, bytes / sizeof(unsigned long));
  tm__line_str(&line, " (");
  tm__line_str(&line, d->reason);
  tm__line_str(&line, "): ");
  const char* why = strerrordesc_np(error);
  tm__line_str(&line, why ? why : "error");
  tm__line_str(&line, "; it runs unpinned (later failures are not reported)");
  tm__line_emit(&line);
}

static void report_decision(const tm__decision* d, const unsigned long* mask, size_t bytes,
                            const char* label, long index, const char* library, pid_t tid) {
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "pin: ");
  tm__describe_thread(&line, label, index, library);
  if (tid > 0) {
    tm__line_str(&line, " tid ");
    tm__line_long(&line, tid);
  }
  if (mask) {
    tm__line_str(&line, d->action == TM__ACTION_RESTORE ? " -> original CPUs " : " -> CPUs ");
    tm__line_cpus(&line, mask, bytes / sizeof(unsigned long));
  } else {
    tm__line_str(&line, " -> left as created");
  }
  tm__line_str(&line, " (");
  tm__line_str(&line, d->reason);
  tm__line_str(&line, ")");
  tm__line_emit(&line);
}

/* Whether the calling thread's affinity is already `mask` (then setting it again is skipped:
 * a new thread inherits its creator's mask, often the very set it is meant to get, and reading
 * the mask costs a fraction of changing it). */
static int already_has(const unsigned long* mask, size_t bytes) {
  unsigned long current[TM__ORIGINAL_WORDS];
  if (tm__prim_getaffinity_bytes(current, sizeof current) != 0) return 0;
  size_t words = bytes / sizeof(unsigned long);
  for (size_t i = 0; i < TM__ORIGINAL_WORDS; ++i)
    if (current[i] != (i < words ? mask[i] : 0UL)) return 0;
  return 1;
}

void tm__apply_to_self(const tm__decision* decision, const char* label, long index,
                       const char* library) {
  size_t bytes = 0;
  const unsigned long* mask = decision_mask(decision, &bytes);
  if (mask) {
    int saved_errno = errno;
    tm__view_internal(1);
    int rc = already_has(mask, bytes) ? 0 : tm__prim_setaffinity_seen(0, bytes, mask);
    tm__view_internal(0);
    if (rc == 0) {
      tm__t_pinned = decision->action == TM__ACTION_SET;
      if (tm__t_pinned) {
        tm__view_narrowed(decision->set);
      } else {
        tm__view_clear();
      }
    } else {
      report_failure(decision, mask, bytes, -rc, label, index, library);
    }
    errno = saved_errno;
  }
  if (tm__rt.verbose)
    report_decision(decision, mask, bytes, label, index, library, tm__prim_gettid());
}

void tm__apply_name(pthread_t thread, const tm__decision* decision, const char* name) {
  note_name_match(name);
  size_t bytes = 0;
  const unsigned long* mask = decision_mask(decision, &bytes);
  if (!mask) return;
  int self = pthread_equal(thread, pthread_self());
  tm__view_internal(1);
  int error = pthread_setaffinity_np(thread, bytes, (const cpu_set_t*)(const void*)mask);
  tm__view_internal(0);
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "thread named '");
  tm__line_str(&line, name);
  tm__line_str(&line, "'");
  line.text[line.length] = '\0';
  const char* label = line.text + tm__line_prefix_length();
  if (error != 0) {
    report_failure(decision, mask, bytes, error, label, -1, NULL);
    return;
  }
  if (self) {
    tm__t_pinned = decision->action == TM__ACTION_SET;
    if (tm__t_pinned) {
      tm__view_narrowed(decision->set);
    } else {
      tm__view_clear();
    }
  }
  if (tm__rt.verbose)
    report_decision(decision, mask, bytes, label, -1, NULL, self ? tm__prim_gettid() : 0);
}
