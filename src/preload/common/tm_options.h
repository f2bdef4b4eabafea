/* One option table for both preload libraries: {name, default, range, help}, read once from an
 * environ-style array without allocating. A bad value warns once ("threadmap: WHO: ignoring
 * NAME='v': expected an integer in [min, max]; using DEFAULT") and keeps the default; TM_VERBOSE
 * prints every option, its value and where it came from. */
#ifndef THREADMAP_PRELOAD_COMMON_TM_OPTIONS_H
#define THREADMAP_PRELOAD_COMMON_TM_OPTIONS_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

struct tm__option {
  const char *name; /* environment variable; starts with "TM_" (tm__options_read skips others) */
  long long default_value, min, max;
  const char *help;
  long long value; /* effective value after tm__options_read */
  int from_env;    /* 1: value came from the environment */
  /* Non-zero: a value that starts with '/' is a path, not an integer: VALUE becomes this and
   * TEXT points at the path (in the environment given to tm__options_read). */
  long long path_value;
  const char *text;
};

/* Reads every option of TABLE (COUNT entries, at most 64) from ENV (NULL-terminated "NAME=value"
 * strings, may be NULL); WHO names the library in warnings ("thread cache", "pin"). */
TM_HIDDEN void tm__options_read(struct tm__option *table, int count, char **env, const char *who);
/* Prints one line per option: value and origin (TM_VERBOSE=1). */
TM_HIDDEN void tm__options_show(const struct tm__option *table, int count, const char *who);
/* Parses a decimal integer (optional leading '-') in [MIN, MAX]; 0 on success, -1 otherwise
 * (*OUT untouched). */
TM_HIDDEN int tm__parse_int(const char *text, long long min, long long max, long long *out);

#ifdef __cplusplus
}
#endif

#endif
