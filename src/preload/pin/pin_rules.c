/* Rule matching: which CPU set a thread gets at creation, per slot, and when it names itself.
 * Pure functions over a parsed configuration, so they are unit-tested without a preload. */
#include <stddef.h>

#include "pin_config.h"

/* Matches one bracket expression at *pattern against c; advances *pattern past ']'.
 * Returns 1 match, 0 no match, -1 malformed (treated as a literal '['). */
static int match_bracket(const char** pattern, char c) {
  const char* p = *pattern + 1;
  int negate = 0;
  if (*p == '!' || *p == '^') {
    negate = 1;
    ++p;
  }
  int matched = 0;
  int first = 1;
  while (*p && (first || *p != ']')) {
    char lo = *p;
    char hi = lo;
    if (p[1] == '-' && p[2] && p[2] != ']') {
      hi = p[2];
      p += 3;
    } else {
      p += 1;
    }
    if (c >= lo && c <= hi) matched = 1;
    first = 0;
  }
  if (*p != ']') return -1;
  *pattern = p + 1;
  return matched != negate;
}

int tm__glob_match(const char* pattern, const char* text) {
  /* Iterative matcher with one backtrack point for the last '*': linear for typical patterns
   * and needs no recursion or allocation. */
  const char* star_p = NULL;
  const char* star_t = NULL;
  for (;;) {
    if (*pattern == '*') {
      while (*pattern == '*') ++pattern;
      if (*pattern == '\0') return 1;
      star_p = pattern;
      star_t = text;
      continue;
    }
    if (*text == '\0') return *pattern == '\0';
    int ok = 0;
    const char* next = pattern + 1;
    if (*pattern == '?') {
      ok = 1;
    } else if (*pattern == '[') {
      const char* q = pattern;
      int r = match_bracket(&q, *text);
      if (r < 0) {
        ok = (*text == '[');
      } else {
        ok = r;
        next = q;
      }
    } else if (*pattern == '\\' && pattern[1]) {
      ok = (pattern[1] == *text);
      next = pattern + 2;
    } else {
      ok = (*pattern == *text);
    }
    if (ok) {
      pattern = next;
      ++text;
      continue;
    }
    if (!star_p) return 0;
    pattern = star_p;
    text = ++star_t;
  }
}

static tm__decision decision(int action, int32_t set, const char* reason) {
  tm__decision d;
  d.action = action;
  d.set = set;
  d.reason = reason;
  return d;
}

tm__decision tm__decide_created(const tm__pin_config* config, long created_index,
                                const char* library) {
  if (created_index >= 0 && (size_t)created_index < config->skip_count &&
      config->skip_index[created_index])
    return decision(TM__ACTION_RESTORE, -1, "skip index");
  if (library && config->has_lib_rules) {
    for (size_t i = 0; i < config->pattern_count; ++i) {
      const tm__pattern_rule* rule = &config->patterns[i];
      if (rule->kind != TM__PATTERN_LIB && rule->kind != TM__PATTERN_SKIPLIB) continue;
      if (!tm__glob_match(rule->pattern, library)) continue;
      if (rule->kind == TM__PATTERN_SKIPLIB)
        return decision(TM__ACTION_RESTORE, -1, "skiplib rule");
      return decision(TM__ACTION_SET, rule->set, "lib rule");
    }
  }
  return decision(TM__ACTION_SLOT, -1, "slot");
}

tm__decision tm__decide_slot(const tm__pin_config* config, long slot) {
  if (slot >= 0 && (size_t)slot < config->slot_count && config->slot_sets[slot] >= 0)
    return decision(TM__ACTION_SET, config->slot_sets[slot], "slot rule");
  if (config->cycle_count > 0 && slot >= 0)
    return decision(TM__ACTION_SET, config->cycle_sets[(size_t)slot % config->cycle_count],
                    "cycle");
  return decision(TM__ACTION_RESTORE, -1, "no rule");
}

tm__decision tm__decide_name(const tm__pin_config* config, const char* name) {
  if (!name || !config->has_name_rules) return decision(TM__ACTION_NONE, -1, "no name rule");
  for (size_t i = 0; i < config->pattern_count; ++i) {
    const tm__pattern_rule* rule = &config->patterns[i];
    if (rule->kind != TM__PATTERN_NAME && rule->kind != TM__PATTERN_SKIPNAME) continue;
    if (!tm__glob_match(rule->pattern, name)) continue;
    if (rule->kind == TM__PATTERN_SKIPNAME)
      return decision(TM__ACTION_RESTORE, -1, "skipname rule");
    return decision(TM__ACTION_SET, rule->set, "name rule");
  }
  return decision(TM__ACTION_NONE, -1, "no name rule");
}
