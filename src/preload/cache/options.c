/* The option table and its parser (see options.h for the table of variables). Runs once, from
 * the library constructor or the first interposed call, before any thread is cached. */
#include "options.h"

#include <string.h>

struct tm_option {
  const char *name;
  long long default_value;
  long long min, max;
  const char *help;
  long long value;
  int from_env;
};

static struct tm_option tm__options[TM_OPT_COUNT] = {
    [TM_OPT_ENABLE] = {"TM_CACHE", 1, 0, 1, "0 disables the thread cache", 1, 0},
    [TM_OPT_MAX_IDLE] = {"TM_CACHE_MAX_IDLE", 64, 0, 1 << 20, "most parked threads", 64, 0},
    [TM_OPT_MAX_IDLE_BYTES] = {"TM_CACHE_MAX_IDLE_BYTES", 1LL << 30, 0, 1LL << 50,
                               "most parked stack bytes", 1LL << 30, 0},
    [TM_OPT_IDLE_TIMEOUT_MS] = {"TM_CACHE_IDLE_TIMEOUT_MS", 1000, 0, 86400000LL,
                                "ms a parked thread waits before exiting (0: forever)", 1000, 0},
    [TM_OPT_TRIM] = {"TM_CACHE_TRIM", 0, 0, 1, "MADV_DONTNEED unused stack when parking", 0, 0},
    [TM_OPT_SPIN_NS] = {"TM_CACHE_SPIN_NS", -1, -1, 1000000000LL,
                        "-1 adaptive, 0 never, N fixed spin (ns)", -1, 0},
    [TM_OPT_STATS] = {"TM_CACHE_STATS", 0, 0, 1, "print counters at exit", 0, 0},
    [TM_OPT_VERBOSE] = {"TM_VERBOSE", 0, 0, 1, "print the configuration", 0, 0},
    [TM_OPT_MAX_UNJOINED] = {"TM_CACHE_MAX_UNJOINED", 8, 0, 1 << 20,
                             "most finished unjoined threads kept (kernel tasks)", 8, 0},
};

int tm__parse_int(const char *text, long long min, long long max, long long *out) {
  if (text == NULL || *text == '\0') return -1;
  int negative = 0;
  if (*text == '-') {
    negative = 1;
    ++text;
  }
  if (*text == '\0') return -1;
  long long v = 0;
  for (; *text; ++text) {
    if (*text < '0' || *text > '9') return -1;
    if (v > (max + 1LL) / 10 + 1) return -1; /* far out of range: stop before overflow */
    v = v * 10 + (*text - '0');
  }
  if (negative) v = -v;
  if (v < min || v > max) return -1;
  *out = v;
  return 0;
}

static const char *tm__env_value(char **env, const char *name) {
  size_t n = strlen(name);
  for (; env && *env; ++env)
    if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
  return NULL;
}

void tm__options_load(char **env) {
  for (int i = 0; i < TM_OPT_COUNT; ++i) {
    struct tm_option *o = &tm__options[i];
    o->value = o->default_value;
    o->from_env = 0;
    const char *text = tm__env_value(env, o->name);
    if (text == NULL) continue;
    long long v;
    if (tm__parse_int(text, o->min, o->max, &v) == 0) {
      o->value = v;
      o->from_env = 1;
    } else {
      struct tm_line line = {.len = 0};
      tm__line_str(&line, "thread cache: ignoring ");
      tm__line_str(&line, o->name);
      tm__line_str(&line, "='");
      tm__line_str(&line, text);
      tm__line_str(&line, "': expected an integer in [");
      tm__line_int(&line, o->min);
      tm__line_str(&line, ", ");
      tm__line_int(&line, o->max);
      tm__line_str(&line, "]; using ");
      tm__line_int(&line, o->default_value);
      tm__line_emit(&line);
    }
  }
}

long long tm__option(enum tm_option_id id) { return tm__options[id].value; }

void tm__options_print(void) {
  for (int i = 0; i < TM_OPT_COUNT; ++i) {
    const struct tm_option *o = &tm__options[i];
    struct tm_line line = {.len = 0};
    tm__line_str(&line, "thread cache option ");
    tm__line_str(&line, o->name);
    tm__line_str(&line, "=");
    tm__line_int(&line, o->value);
    tm__line_str(&line, o->from_env ? " (from environment; " : " (default; ");
    tm__line_str(&line, o->help);
    tm__line_str(&line, ")");
    tm__line_emit(&line);
  }
}
