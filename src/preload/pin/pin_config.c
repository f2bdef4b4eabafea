/* Parsing TM_PIN_CONFIG (format in pin_config.h) without allocation: one pass measures, a second
 * pass fills the caller's arena. Both passes run the same code so they cannot disagree. */
#include "pin_config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define TM__WORD_BITS (sizeof(unsigned long) * CHAR_BIT)

/* State shared by both passes. In the measuring pass `config` is NULL. */
typedef struct scan_state {
  tm__pin_config* config; /* NULL while measuring */
  char* text_copy;        /* arena copy of the whole text (fill pass) */
  const char* text;       /* original text */
  size_t sets, patterns, cycle_sets;
  int mem_seen, from_seen, original_seen;
  long max_cpu, max_slot, max_skip;
  char* error;
  size_t error_size;
} scan_state;

static int fail(scan_state* st, const char* why, const char* entry, size_t entry_len) {
  if (st->error && st->error_size > 0) {
    int shown = entry_len > 60 ? 60 : (int)entry_len;
    snprintf(st->error, st->error_size, "invalid TM_PIN_CONFIG entry '%.*s': %s", shown, entry,
             why);
  }
  return -1;
}

/* Parses a decimal number in [0, max] from s[0..len). */
static int parse_index(const char* s, size_t len, long max, long* out) {
  if (len == 0 || len > 9) return -1;
  long v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  if (v > max) return -1;
  *out = v;
  return 0;
}

/* Parses "N" / "A-B" items joined by ','. Sets bits in `mask` when non-NULL; raises *max_cpu. */
static int parse_cpus(const char* s, size_t len, unsigned long* mask, long* max_cpu) {
  if (len == 0) return -1;
  size_t i = 0;
  while (i <= len) {
    size_t end = i;
    while (end < len && s[end] != ',') ++end;
    size_t dash = i;
    while (dash < end && s[dash] != '-') ++dash;
    long first = 0, last = 0;
    if (parse_index(s + i, dash - i, TM_PIN_MAX_CPU, &first) != 0) return -1;
    if (dash < end) {
      if (parse_index(s + dash + 1, end - dash - 1, TM_PIN_MAX_CPU, &last) != 0) return -1;
      if (last < first) return -1;
    } else {
      last = first;
    }
    if (last > *max_cpu) *max_cpu = last;
    if (mask) {
      for (long c = first; c <= last; ++c)
        mask[(size_t)c / TM__WORD_BITS] |= 1UL << ((size_t)c % TM__WORD_BITS);
    }
    if (end == len) break;
    i = end + 1;
    if (i == len) return -1; /* trailing comma */
  }
  return 0;
}

static int key_is(const char* key, size_t key_len, const char* want);

/* Parses a node list ("N" / "A-B" items joined by ',', nodes <= TM_PIN_MAX_NODE) into `mask`
 * (TM_PIN_NODE_WORDS words, may be NULL); raises *max_node. */
static int parse_nodes(const char* s, size_t len, unsigned long* mask, int* max_node) {
  long max_seen = -1;
  if (parse_cpus(s, len, NULL, &max_seen) != 0 || max_seen > TM_PIN_MAX_NODE) return -1;
  if (max_seen > *max_node) *max_node = (int)max_seen;
  if (mask) parse_cpus(s, len, mask, &max_seen);
  return 0;
}

/* mem=MODE[:NODES] */
static int parse_mem(scan_state* st, const char* v, size_t vlen, const char* e, size_t len) {
  tm__pin_config* cfg = st->config;
  if (st->mem_seen++) return fail(st, "mem given twice", e, len);
  size_t colon = 0;
  while (colon < vlen && v[colon] != ':') ++colon;
  int mode = TM__MEM_UNSET;
  if (key_is(v, colon, "local")) mode = TM__MEM_LOCAL;
  if (key_is(v, colon, "interleave")) mode = TM__MEM_INTERLEAVE;
  if (key_is(v, colon, "bind")) mode = TM__MEM_BIND;
  if (key_is(v, colon, "preferred")) mode = TM__MEM_PREFERRED;
  if (mode == TM__MEM_UNSET)
    return fail(st, "expected mem=local, interleave:NODES, bind:NODES or preferred:NODE", e, len);
  if (mode == TM__MEM_LOCAL) {
    if (colon != vlen) return fail(st, "mem=local takes no nodes", e, len);
  } else {
    if (colon == vlen) return fail(st, "expected MODE:NODES", e, len);
    int max_node = -1;
    unsigned long one[TM_PIN_NODE_WORDS];
    memset(one, 0, sizeof one);
    if (parse_nodes(v + colon + 1, vlen - colon - 1, one, &max_node) != 0)
      return fail(st, "bad node list (nodes 0-1023)", e, len);
    if (mode == TM__MEM_PREFERRED) {
      size_t bits = 0;
      for (size_t w = 0; w < TM_PIN_NODE_WORDS; ++w) bits += (size_t)__builtin_popcountl(one[w]);
      if (bits != 1) return fail(st, "preferred takes one node", e, len);
    }
    if (cfg) {
      memcpy(cfg->mem_nodes, one, sizeof one);
      cfg->mem_max_node = max_node;
    }
  }
  if (cfg) {
    cfg->mem_mode = mode;
    cfg->has_mem_rules = 1;
  }
  return 0;
}

/* Adds a CPU set from s[0..len); returns its index or -1. */
static int32_t add_set(scan_state* st, const char* s, size_t len) {
  unsigned long* mask = NULL;
  if (st->config) mask = st->config->sets + st->sets * st->config->mask_words;
  if (parse_cpus(s, len, mask, &st->max_cpu) != 0) return -1;
  return (int32_t)st->sets++;
}

/* Position of the last ':' in s[0..len), or len when there is none. */
static size_t last_colon(const char* s, size_t len) {
  for (size_t i = len; i > 0; --i)
    if (s[i - 1] == ':') return i - 1;
  return len;
}

static int add_pattern(scan_state* st, int kind, const char* pat, size_t pat_len, int32_t set) {
  if (pat_len == 0) return -1;
  if (st->config) {
    tm__pattern_rule* rule = &st->config->patterns[st->patterns];
    char* copy = st->text_copy + (pat - st->text);
    copy[pat_len] = '\0';
    rule->kind = kind;
    rule->pattern = copy;
    rule->set = set;
    if (kind == TM__PATTERN_NAME || kind == TM__PATTERN_SKIPNAME || kind == TM__PATTERN_NAMEMEM)
      st->config->has_name_rules = 1;
    if (kind == TM__PATTERN_NAMEMEM) st->config->has_mem_rules = 1;
    if (kind == TM__PATTERN_LIB || kind == TM__PATTERN_SKIPLIB) st->config->has_lib_rules = 1;
  }
  st->patterns++;
  return 0;
}

static int key_is(const char* key, size_t key_len, const char* want) {
  return strlen(want) == key_len && memcmp(key, want, key_len) == 0;
}

/* What a scan_* function answers for an entry whose key is not its own. */
#define TM__OTHER_KEY 1

/* Entries whose value is a CPU set: main, slot, cycle, original. */
static int scan_cpu_entry(scan_state* st, const char* e, size_t len, size_t eq, const char* v,
                          size_t vlen) {
  tm__pin_config* cfg = st->config;
  if (key_is(e, eq, "main")) {
    if (cfg && cfg->main_set >= 0) return fail(st, "main given twice", e, len);
    int32_t set = add_set(st, v, vlen);
    if (set < 0) return fail(st, "bad CPU list", e, len);
    if (cfg) cfg->main_set = set;
    return 0;
  }
  if (key_is(e, eq, "slot")) {
    size_t colon = last_colon(v, vlen);
    long slot = 0;
    if (colon == vlen || parse_index(v, colon, TM_PIN_MAX_INDEX, &slot) != 0)
      return fail(st, "expected slot=N:CPUS", e, len);
    if (slot > st->max_slot) st->max_slot = slot;
    int32_t set = add_set(st, v + colon + 1, vlen - colon - 1);
    if (set < 0) return fail(st, "bad CPU list", e, len);
    if (cfg) {
      if (cfg->slot_sets[slot] >= 0) return fail(st, "slot given twice", e, len);
      cfg->slot_sets[slot] = set;
    }
    return 0;
  }
  if (key_is(e, eq, "cycle")) {
    if (st->cycle_sets > 0) return fail(st, "cycle given twice", e, len);
    size_t i = 0;
    size_t count = 0;
    while (i <= vlen) {
      size_t end = i;
      while (end < vlen && v[end] != '/') ++end;
      int32_t set = add_set(st, v + i, end - i);
      if (set < 0) return fail(st, "bad CPU list in cycle", e, len);
      if (cfg) cfg->cycle_sets[count] = set;
      ++count;
      if (end == vlen) break;
      i = end + 1;
    }
    st->cycle_sets = count;
    return 0;
  }
  if (key_is(e, eq, "original")) {
    if (st->original_seen++) return fail(st, "original given twice", e, len);
    int32_t set = add_set(st, v, vlen);
    if (set < 0) return fail(st, "bad CPU list", e, len);
    if (cfg) cfg->original_set = set;
    return 0;
  }
  return TM__OTHER_KEY;
}

/* Entries that choose threads: skip, skipname, skiplib, name, lib, and from (who passed them). */
static int scan_rule_entry(scan_state* st, const char* e, size_t len, size_t eq, const char* v,
                           size_t vlen) {
  tm__pin_config* cfg = st->config;
  if (key_is(e, eq, "skip")) {
    long index = 0;
    if (parse_index(v, vlen, TM_PIN_MAX_INDEX, &index) != 0)
      return fail(st, "expected skip=N", e, len);
    if (index > st->max_skip) st->max_skip = index;
    if (cfg) cfg->skip_index[index] = 1;
    return 0;
  }
  if (key_is(e, eq, "skipname") || key_is(e, eq, "skiplib")) {
    int kind = key_is(e, eq, "skipname") ? TM__PATTERN_SKIPNAME : TM__PATTERN_SKIPLIB;
    if (add_pattern(st, kind, v, vlen, -1) != 0) return fail(st, "empty pattern", e, len);
    return 0;
  }
  if (key_is(e, eq, "name") || key_is(e, eq, "lib")) {
    int kind = key_is(e, eq, "name") ? TM__PATTERN_NAME : TM__PATTERN_LIB;
    size_t colon = last_colon(v, vlen);
    if (colon == vlen || colon == 0) return fail(st, "expected GLOB:CPUS", e, len);
    int32_t set = add_set(st, v + colon + 1, vlen - colon - 1);
    if (set < 0) return fail(st, "bad CPU list", e, len);
    if (add_pattern(st, kind, v, colon, set) != 0) return fail(st, "empty pattern", e, len);
    return 0;
  }
  if (key_is(e, eq, "from")) {
    long pid = 0;
    if (parse_index(v, vlen, 999999999L, &pid) != 0 || pid == 0)
      return fail(st, "expected from=PID", e, len);
    if (st->from_seen++) return fail(st, "from given twice", e, len);
    if (cfg) cfg->from_pid = pid;
    return 0;
  }
  return TM__OTHER_KEY;
}

/* Entries of memory policies: mem, mainmem, namemem, slotmem. */
static int scan_memory_entry(scan_state* st, const char* e, size_t len, size_t eq, const char* v,
                             size_t vlen) {
  tm__pin_config* cfg = st->config;
  if (key_is(e, eq, "mem")) return parse_mem(st, v, vlen, e, len);
  if (key_is(e, eq, "mainmem")) {
    long node = 0;
    if (parse_index(v, vlen, TM_PIN_MAX_NODE, &node) != 0)
      return fail(st, "expected mainmem=NODE (0-1023)", e, len);
    if (cfg) {
      if (cfg->main_mem_node >= 0) return fail(st, "mainmem given twice", e, len);
      cfg->main_mem_node = (int32_t)node;
      cfg->has_mem_rules = 1;
    }
    return 0;
  }
  if (key_is(e, eq, "namemem")) {
    size_t colon = last_colon(v, vlen);
    long node = 0;
    if (colon == vlen || colon == 0 ||
        parse_index(v + colon + 1, vlen - colon - 1, TM_PIN_MAX_NODE, &node) != 0)
      return fail(st, "expected namemem=GLOB:NODE (NODE 0-1023)", e, len);
    if (add_pattern(st, TM__PATTERN_NAMEMEM, v, colon, (int32_t)node) != 0)
      return fail(st, "empty pattern", e, len);
    return 0;
  }
  if (key_is(e, eq, "slotmem")) {
    size_t colon = last_colon(v, vlen);
    long slot = 0, node = 0;
    if (colon == vlen || parse_index(v, colon, TM_PIN_MAX_INDEX, &slot) != 0 ||
        parse_index(v + colon + 1, vlen - colon - 1, TM_PIN_MAX_NODE, &node) != 0)
      return fail(st, "expected slotmem=N:NODE (NODE 0-1023)", e, len);
    if (slot > st->max_slot) st->max_slot = slot;
    if (cfg) {
      if (cfg->slot_mem_nodes[slot] >= 0) return fail(st, "slotmem given twice", e, len);
      cfg->slot_mem_nodes[slot] = (int32_t)node;
      cfg->has_mem_rules = 1;
    }
    return 0;
  }
  return TM__OTHER_KEY;
}

static int scan_entry(scan_state* st, const char* e, size_t len) {
  tm__pin_config* cfg = st->config;
  if (len == 0) return fail(st, "empty entry (stray ';')", e, len);
  if (key_is(e, len, "inherit")) {
    if (cfg) cfg->inherit = 1;
    return 0;
  }
  if (key_is(e, len, "overrideaffinity")) {
    if (cfg) cfg->override_affinity = 1;
    return 0;
  }
  size_t eq = 0;
  while (eq < len && e[eq] != '=') ++eq;
  if (eq == len) return fail(st, "expected KEY=VALUE", e, len);
  const char* v = e + eq + 1;
  size_t vlen = len - eq - 1;
  int r = scan_cpu_entry(st, e, len, eq, v, vlen);
  if (r == TM__OTHER_KEY) r = scan_rule_entry(st, e, len, eq, v, vlen);
  if (r == TM__OTHER_KEY) r = scan_memory_entry(st, e, len, eq, v, vlen);
  return r == TM__OTHER_KEY ? fail(st, "unknown key", e, len) : r;
}

static int scan(scan_state* st) {
  size_t header_len = strlen(TM_PIN_CONFIG_HEADER);
  const char* text = st->text;
  if (strncmp(text, TM_PIN_CONFIG_HEADER, header_len) != 0 ||
      (text[header_len] != ';' && text[header_len] != '\0')) {
    if (st->error && st->error_size > 0)
      snprintf(st->error, st->error_size,
               "invalid TM_PIN_CONFIG: does not start with '" TM_PIN_CONFIG_HEADER
               "' (written by another threadmap version?)");
    return -1;
  }
  if (text[header_len] == '\0') return 0;
  const char* p = text + header_len + 1;
  for (;;) {
    const char* end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (scan_entry(st, p, len) != 0) return -1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

int tm__pin_config_parse(const char* text, void* arena, size_t arena_size, size_t* arena_needed,
                         tm__pin_config* config, char* error, size_t error_size) {
  if (error && error_size > 0) error[0] = '\0';
  scan_state st;
  memset(&st, 0, sizeof st);
  st.text = text;
  st.max_cpu = -1;
  st.max_slot = -1;
  st.max_skip = -1;
  st.error = error;
  st.error_size = error_size;
  if (scan(&st) != 0) return -1;

  size_t mask_words = st.max_cpu < 0 ? 1 : (size_t)st.max_cpu / TM__WORD_BITS + 1;
  size_t slot_count = (size_t)(st.max_slot + 1);
  size_t skip_count = (size_t)(st.max_skip + 1);
  size_t text_len = strlen(text);
  size_t off_sets = 0;
  size_t off_patterns = align8(off_sets + st.sets * mask_words * sizeof(unsigned long));
  size_t off_slots = align8(off_patterns + st.patterns * sizeof(tm__pattern_rule));
  size_t off_slotmem = align8(off_slots + slot_count * sizeof(int32_t));
  size_t off_cycle = align8(off_slotmem + slot_count * sizeof(int32_t));
  size_t off_skip = align8(off_cycle + st.cycle_sets * sizeof(int32_t));
  size_t off_text = align8(off_skip + skip_count);
  size_t needed = align8(off_text + text_len + 1);
  if (arena_needed) *arena_needed = needed;
  if (!arena) return 0;
  if (arena_size < needed || !config) {
    if (error && error_size > 0) snprintf(error, error_size, "TM_PIN_CONFIG arena too small");
    return -1;
  }

  char* base = (char*)arena;
  memset(base, 0, needed);
  memset(config, 0, sizeof *config);
  config->mask_words = mask_words;
  config->sets = (unsigned long*)(void*)(base + off_sets);
  config->patterns = (tm__pattern_rule*)(void*)(base + off_patterns);
  config->slot_sets = (int32_t*)(void*)(base + off_slots);
  config->slot_count = slot_count;
  config->slot_mem_nodes = (int32_t*)(void*)(base + off_slotmem);
  config->mem_mode = TM__MEM_UNSET;
  config->mem_max_node = -1;
  config->main_mem_node = -1;
  config->cycle_sets = (int32_t*)(void*)(base + off_cycle);
  config->skip_index = (unsigned char*)(base + off_skip);
  config->skip_count = skip_count;
  config->main_set = -1;
  config->from_pid = -1;
  config->original_set = -1;
  for (size_t i = 0; i < slot_count; ++i) config->slot_sets[i] = config->slot_mem_nodes[i] = -1;
  char* text_copy = base + off_text;
  memcpy(text_copy, text, text_len + 1);

  scan_state fill;
  memset(&fill, 0, sizeof fill);
  fill.config = config;
  fill.text = text;
  fill.text_copy = text_copy;
  fill.max_cpu = -1;
  fill.max_slot = -1;
  fill.max_skip = -1;
  fill.error = error;
  fill.error_size = error_size;
  if (scan(&fill) != 0) return -1;
  config->set_count = fill.sets;
  config->pattern_count = fill.patterns;
  config->cycle_count = fill.cycle_sets;
  return 0;
}

int tm__pin_config_set_has(const tm__pin_config* config, int32_t set, int cpu) {
  if (set < 0 || (size_t)set >= config->set_count || cpu < 0) return 0;
  size_t word = (size_t)cpu / TM__WORD_BITS;
  if (word >= config->mask_words) return 0;
  const unsigned long* mask = config->sets + (size_t)set * config->mask_words;
  return (mask[word] >> ((size_t)cpu % TM__WORD_BITS)) & 1UL ? 1 : 0;
}

int tm__name_memory_node(const tm__pin_config* config, const char* name) {
  if (!name) return -1;
  for (size_t i = 0; i < config->pattern_count; ++i) {
    const tm__pattern_rule* rule = &config->patterns[i];
    if (rule->kind == TM__PATTERN_NAMEMEM && tm__glob_match(rule->pattern, name)) return rule->set;
  }
  return -1;
}

int tm__slot_memory_node(const tm__pin_config* config, long slot) {
  if (slot < 0 || (size_t)slot >= config->slot_count) return -1;
  return config->slot_mem_nodes[slot];
}

tm__mem_decision tm__decide_memory(const tm__pin_config* config, int node) {
  tm__mem_decision d = {TM__MEM_UNSET, -1, "no memory rule"};
  if (!config->has_mem_rules) return d;
  if (node >= 0) {
    d.mode = TM__MEM_PREFERRED;
    d.node = node;
    d.reason = "plan memory node";
  } else if (config->mem_mode != TM__MEM_UNSET) {
    d.mode = config->mem_mode;
    d.reason = "--mem";
  } else {
    d.mode = TM__MEM_DEFAULT;
    d.reason = "no memory node for this thread";
  }
  return d;
}
