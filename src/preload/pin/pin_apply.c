/* threadmap pin preload — applying decisions to threads (affinity, by creation or by name),
 * saying what was done (TM_VERBOSE) or what failed (once), and at the end the name rules no
 * thread took. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "../common/tm_prim.h"
#include "pin_runtime.h"
#include "pin_view.h"

/* Set on threads whose affinity we changed. initial-exec: the library is loaded at start-up
 * (LD_PRELOAD), so its TLS is static and reading it never calls __tls_get_addr (which may
 * allocate). */
static __thread int tm__t_pinned __attribute__((tls_model("initial-exec")));

int tm__self_pinned(void) { return tm__t_pinned; }

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
  if (!tm__rt.active || !tm__rt.config.has_name_rules || tm__prim_getpid() != tm__rt.init_pid)
    return;
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
