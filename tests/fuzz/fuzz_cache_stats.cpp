// Fuzzes the thread cache's statistics file reader (`run --thread-cache --stats`): the file's
// path is in every process's environment, so any program of the tree may write anything there.
// Any input gives a summary whose read lines and unread lines account for every non-empty line,
// whose sums are the processes' own (or saturated), and whose causes are ordered most first.
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "src/apply/cache_stats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto summary = threadmap::apply::summarize_cache_stats(text);
  std::size_t lines = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) ++lines;
    start = end + 1;
  }
  if (summary.processes.size() + static_cast<std::size_t>(summary.unread_lines) != lines)
    std::abort();
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  unsigned __int128 cache = 0;
  for (const auto& p : summary.processes) cache += p.from_cache;
  if (cache <= kMax ? summary.from_cache != cache : summary.from_cache != kMax) std::abort();
  for (std::size_t i = 1; i < summary.retired.size(); ++i)
    if (summary.retired[i].threads > summary.retired[i - 1].threads) std::abort();
  for (const auto& r : summary.retired)
    if (r.cause.empty() || r.threads == 0) std::abort();
  return 0;
}
