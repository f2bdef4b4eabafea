#include "src/render/cache_stats_text.hpp"

#include <cstdint>

#include "src/render/safe_text.hpp"

namespace threadmap::render {
namespace {

// A share as a percentage with one decimal, rounded down: 1999 of 2000 is 99.9%, never 100.0%.
std::string percent(std::uint64_t part, std::uint64_t whole) {
  const auto value = static_cast<std::uint64_t>(static_cast<long double>(part) * 1000.0L /
                                                static_cast<long double>(whole));
  return std::to_string(value / 10) + "." + std::to_string(value % 10) + "%";
}

std::string plural(std::uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string cache_stats_text(const apply::CacheStatsSummary& summary,
                             std::size_t max_process_rows) {
  const std::string prefix = "threadmap: thread cache: ";
  std::string out;
  auto unread = [&] {
    if (summary.unread_lines > 0)
      out += prefix + plural(static_cast<std::uint64_t>(summary.unread_lines), "line", "lines") +
             " of the statistics file left out: damaged or cut short\n";
  };
  if (summary.processes.empty()) {
    out += prefix +
           "no process wrote statistics (a process that ends by a signal writes none, and a "
           "cache library older than TM_CACHE_STATS=FILE writes none at all)\n";
    unread();
    return out;
  }
  const std::uint64_t creates = summary.creates();
  out += prefix + plural(summary.processes.size(), "process", "processes") + ", " +
         plural(creates, "thread create", "thread creates");
  if (creates > 0) {
    out += ": " + std::to_string(summary.from_cache) + " served from the cache (" +
           percent(summary.from_cache, creates) + "), " + std::to_string(summary.from_system) +
           " new threads, " + std::to_string(summary.bypassed) + " handed to glibc";
  }
  out += " (counted by the cache in each process)\n";
  if (summary.running > 0)
    out += prefix + plural(static_cast<std::uint64_t>(summary.running), "process", "processes") +
           " still running: counted as of " + (summary.running == 1 ? "its" : "their") +
           " last update (rewritten when one of its threads parks)\n";
  if (summary.unfinished > 0)
    out += prefix + plural(static_cast<std::uint64_t>(summary.unfinished), "process", "processes") +
           " ended without a last update (a raw exit_group, a signal): counted as of " +
           (summary.unfinished == 1 ? "its" : "their") + " last update\n";
  out += prefix + "threads retired: ";
  if (summary.retired.empty()) {
    out += "none\n";
  } else {
    for (std::size_t i = 0; i < summary.retired.size(); ++i) {
      out += (i ? ", " : "") + terminal_safe(summary.retired[i].cause) + " " +
             std::to_string(summary.retired[i].threads);
    }
    out += " (cause, threads; most first)\n";
  }
  if (summary.processes.size() > 1) {
    std::size_t shown = 0, more = 0, idle = 0;
    for (const auto& p : summary.processes) {
      const std::uint64_t n = p.creates();
      if (n == 0) {
        ++idle;
        continue;
      }
      if (shown == max_process_rows) {
        ++more;
        continue;
      }
      ++shown;
      out += prefix + "  pid " + std::to_string(p.pid) + " " +
             terminal_safe(p.comm.empty() ? "?" : p.comm) + ": " + plural(n, "create", "creates") +
             ", " + percent(p.from_cache, n) + " from the cache\n";
    }
    if (more > 0)
      out += prefix + "  and " + plural(more, "more process", "more processes") +
             " that created threads\n";
    if (idle > 0)
      out += prefix + "  " + plural(idle, "process", "processes") + " created no thread\n";
  }
  unread();
  return out;
}

}  // namespace threadmap::render
