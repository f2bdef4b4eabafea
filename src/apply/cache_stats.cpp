#include "src/apply/cache_stats.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

namespace threadmap::apply {
namespace {

constexpr std::string_view kTag = "tm-cache-stats/1";
constexpr std::string_view kRetiredPrefix = "retired.";

// A decimal integer, digits only (no sign, no spaces), that fits.
std::optional<std::uint64_t> decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A sum that stays at the largest value rather than wrap: a damaged file must not print a
// small number where a huge one was written.
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return b > std::numeric_limits<std::uint64_t>::max() - a
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

// Splits on single spaces; empty tokens (two spaces) are kept so a malformed line is seen.
std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t space = line.find(' ', start);
    out.push_back(line.substr(start, space == std::string_view::npos ? space : space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  return out;
}

}  // namespace

std::uint64_t CacheProcessStats::creates() const {
  return add(add(from_cache, from_system), bypassed);
}

std::uint64_t CacheStatsSummary::creates() const {
  return add(add(from_cache, from_system), bypassed);
}

std::optional<double> CacheStatsSummary::reuse() const {
  if (creates() == 0) return std::nullopt;
  return static_cast<double>(from_cache) / static_cast<double>(creates());
}

std::optional<CacheProcessStats> parse_cache_stats_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string_view> parts = tokens(line);
  if (parts.empty() || parts.front() != kTag) return std::nullopt;
  CacheProcessStats stats;
  bool has_pid = false, has_cache = false, has_system = false, has_bypassed = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view token = parts[i];
    std::size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    std::string_view key = token.substr(0, eq);
    std::string_view value = token.substr(eq + 1);
    if (key == "comm") {
      stats.comm = std::string(value);
      continue;
    }
    const bool retired = key.substr(0, kRetiredPrefix.size()) == kRetiredPrefix;
    const bool known = retired || key == "pid" || key == "ppid" || key == "from-cache" ||
                       key == "from-system" || key == "bypassed" || key == "final";
    if (!known) continue;  // a key of a later version, or a counter we do not show
    auto number = decimal(value);
    if (!number) return std::nullopt;
    if (retired) {
      std::string_view cause = key.substr(kRetiredPrefix.size());
      if (cause.empty()) return std::nullopt;
      if (*number == 0) continue;
      auto& slot = stats.retired[std::string(cause)];
      slot = add(slot, *number);
    } else if (key == "pid") {
      if (*number > static_cast<std::uint64_t>(std::numeric_limits<long>::max()))
        return std::nullopt;
      stats.pid = static_cast<long>(*number);
      has_pid = true;
    } else if (key == "ppid") {
      if (*number > static_cast<std::uint64_t>(std::numeric_limits<long>::max()))
        return std::nullopt;
      stats.ppid = static_cast<long>(*number);
    } else if (key == "final") {
      if (*number > 1) return std::nullopt;
      stats.final = *number == 1;
    } else if (key == "from-cache") {
      stats.from_cache = *number;
      has_cache = true;
    } else if (key == "from-system") {
      stats.from_system = *number;
      has_system = true;
    } else {
      stats.bypassed = *number;
      has_bypassed = true;
    }
  }
  if (!has_pid || !has_cache || !has_system || !has_bypassed) return std::nullopt;
  return stats;
}

namespace {

// Every line of the file whose process `wanted` accepts (all when it is empty), summed; a record
// that is not final of a process `running` says still runs counts as running, not unfinished.
CacheStatsSummary summarize(std::string_view text, const std::set<long>& wanted,
                            const std::set<long>& running) {
  CacheStatsSummary summary;
  std::map<std::string, std::uint64_t> retired;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t newline = text.find('\n', start);
    const bool cut_short = newline == std::string_view::npos;
    std::string_view line =
        text.substr(start, cut_short ? std::string_view::npos : newline - start);
    start = cut_short ? text.size() : newline + 1;
    if (line.empty()) continue;
    auto stats = cut_short ? std::nullopt : parse_cache_stats_line(line);
    if (!stats) {
      ++summary.unread_lines;
      continue;
    }
    if (!wanted.empty() && !wanted.count(stats->pid)) continue;
    summary.from_cache = add(summary.from_cache, stats->from_cache);
    summary.from_system = add(summary.from_system, stats->from_system);
    summary.bypassed = add(summary.bypassed, stats->bypassed);
    for (const auto& [cause, threads] : stats->retired)
      retired[cause] = add(retired[cause], threads);
    if (!stats->final) ++(running.count(stats->pid) ? summary.running : summary.unfinished);
    summary.processes.push_back(std::move(*stats));
  }
  for (const auto& [cause, threads] : retired) summary.retired.push_back({cause, threads});
  std::stable_sort(summary.retired.begin(), summary.retired.end(),
                   [](const CacheRetirement& a, const CacheRetirement& b) {
                     return a.threads > b.threads;  // ties keep the map's order: by name
                   });
  return summary;
}

}  // namespace

CacheStatsSummary summarize_cache_stats(std::string_view text) { return summarize(text, {}, {}); }

CacheStatsSummary summarize_cache_stats_of(std::string_view text, const std::set<long>& pids,
                                           const std::set<long>& running) {
  if (pids.empty()) return {};
  return summarize(text, pids, running);
}

}  // namespace threadmap::apply
