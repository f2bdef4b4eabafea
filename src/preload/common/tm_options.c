/* The option table reader shared by both preload libraries (see tm_options.h). */
#include "tm_options.h"

#include <string.h>

#include "tm_line.h"

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

/* The value of each option in ENV (its first occurrence), in VALUES: one pass over the
 * environment, which every process that loads a preload library reads once (entries that do
 * not start with "TM_" cost three comparisons). */
static void tm__env_values(char **env, const struct tm__option *table, int count,
                           const char **values) {
  for (int i = 0; i < count; ++i) values[i] = NULL;
  for (; env && *env; ++env) {
    const char *e = *env;
    if (e[0] != 'T' || e[1] != 'M' || e[2] != '_') continue;
    for (int i = 0; i < count; ++i) {
      size_t n = strlen(table[i].name);
      if (values[i] == NULL && strncmp(e, table[i].name, n) == 0 && e[n] == '=') {
        values[i] = e + n + 1;
        break;
      }
    }
  }
}

void tm__options_read(struct tm__option *table, int count, char **env, const char *who) {
  const char *values[64];
  if (count > 64) count = 64; /* the tables have 2 and 13 options */
  tm__env_values(env, table, count, values);
  for (int i = 0; i < count; ++i) {
    struct tm__option *o = &table[i];
    o->value = o->default_value;
    o->from_env = 0;
    o->text = NULL;
    const char *text = values[i];
    if (text == NULL) continue;
    long long v;
    if (o->path_value != 0 && text[0] == '/') {
      o->value = o->path_value;
      o->from_env = 1;
      o->text = text;
    } else if (tm__parse_int(text, o->min, o->max, &v) == 0) {
      o->value = v;
      o->from_env = 1;
    } else {
      tm__line line;
      tm__line_start(&line);
      tm__line_str(&line, who);
      tm__line_str(&line, ": ignoring ");
      tm__line_str(&line, o->name);
      tm__line_str(&line, "='");
      tm__line_str(&line, text);
      tm__line_str(&line, "': expected an integer in [");
      tm__line_long(&line, o->min);
      tm__line_str(&line, ", ");
      tm__line_long(&line, o->max);
      tm__line_str(&line, "]; using ");
      tm__line_long(&line, o->default_value);
      tm__line_emit(&line);
    }
  }
}

void tm__options_show(const struct tm__option *table, int count, const char *who) {
  for (int i = 0; i < count; ++i) {
    const struct tm__option *o = &table[i];
    tm__line line;
    tm__line_start(&line);
    tm__line_str(&line, who);
    tm__line_str(&line, " option ");
    tm__line_str(&line, o->name);
    tm__line_str(&line, "=");
    tm__line_long(&line, o->value);
    tm__line_str(&line, o->from_env ? " (from environment; " : " (default; ");
    tm__line_str(&line, o->help);
    tm__line_str(&line, ")");
    tm__line_emit(&line);
  }
}
