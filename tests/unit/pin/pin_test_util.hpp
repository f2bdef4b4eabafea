// Parses a TM_PIN_CONFIG text the way the preload does (measure, then fill an arena).
#pragma once

#include <string>
#include <vector>

#include "pin_config.h"

struct ParsedConfig {
  std::vector<unsigned char> arena;
  tm__pin_config config{};
  std::string error;
  bool ok = false;
};

inline ParsedConfig parse_config(const std::string& text) {
  ParsedConfig out;
  char error[256] = {0};
  size_t needed = 0;
  if (tm__pin_config_parse(text.c_str(), nullptr, 0, &needed, nullptr, error, sizeof error) != 0) {
    out.error = error;
    return out;
  }
  out.arena.resize(needed);
  if (tm__pin_config_parse(text.c_str(), out.arena.data(), out.arena.size(), nullptr, &out.config,
                           error, sizeof error) != 0) {
    out.error = error;
    return out;
  }
  out.ok = true;
  return out;
}

// CPUs of set `set` as a vector, for comparisons.
inline std::vector<int> cpus_of(const tm__pin_config& config, int set) {
  std::vector<int> cpus;
  for (int c = 0; c < static_cast<int>(config.mask_words * sizeof(unsigned long) * 8); ++c)
    if (tm__pin_config_set_has(&config, set, c)) cpus.push_back(c);
  return cpus;
}
