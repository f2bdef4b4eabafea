/* The share and the answers built from it (see pin_share.h). Pure: no kernel call. */
#include "pin_share.h"

#include <string.h>

#define TM__WORD_BITS (sizeof(unsigned long) * 8)

static void add_set(const tm__pin_config* config, int32_t set, unsigned long* share) {
  if (set < 0 || (size_t)set >= config->set_count) return;
  const unsigned long* mask = config->sets + (size_t)set * config->mask_words;
  size_t words = config->mask_words < TM_PIN_SHARE_WORDS ? config->mask_words : TM_PIN_SHARE_WORDS;
  for (size_t i = 0; i < words; ++i) share[i] |= mask[i];
}

static size_t count(const unsigned long* share) {
  size_t n = 0;
  for (size_t i = 0; i < TM_PIN_SHARE_WORDS; ++i) n += (size_t)__builtin_popcountl(share[i]);
  return n;
}

size_t tm__share_from_config(const tm__pin_config* config, const unsigned long* allowed,
                             size_t allowed_words, unsigned long* share) {
  memset(share, 0, TM_PIN_SHARE_WORDS * sizeof(unsigned long));
  add_set(config, config->main_set, share);
  for (size_t i = 0; i < config->slot_count; ++i) add_set(config, config->slot_sets[i], share);
  for (size_t i = 0; i < config->cycle_count; ++i) add_set(config, config->cycle_sets[i], share);
  for (size_t i = 0; i < config->pattern_count; ++i) {
    int kind = config->patterns[i].kind;
    if (kind == TM__PATTERN_NAME || kind == TM__PATTERN_LIB)
      add_set(config, config->patterns[i].set, share);
  }
  if (allowed) {
    int meets = 0;
    for (size_t i = 0; i < TM_PIN_SHARE_WORDS && i < allowed_words; ++i)
      meets |= (share[i] & allowed[i]) != 0;
    if (meets)
      for (size_t i = 0; i < TM_PIN_SHARE_WORDS; ++i)
        share[i] &= i < allowed_words ? allowed[i] : 0UL;
  }
  return count(share);
}

int tm__share_contains(const unsigned long* share, const unsigned long* mask, size_t size) {
  size_t words = size / sizeof(unsigned long);
  for (size_t i = 0; i < words; ++i) {
    unsigned long allowed = i < TM_PIN_SHARE_WORDS ? share[i] : 0UL;
    if (mask[i] & ~allowed) return 0;
  }
  return 1;
}

int tm__share_write(const unsigned long* share, unsigned long* mask, size_t size) {
  if (size == 0 || size % sizeof(unsigned long) != 0) return -1;
  size_t words = size / sizeof(unsigned long);
  for (size_t i = words; i < TM_PIN_SHARE_WORDS; ++i)
    if (share[i] != 0) return -1;
  for (size_t i = 0; i < words; ++i) mask[i] = i < TM_PIN_SHARE_WORDS ? share[i] : 0UL;
  return 0;
}
