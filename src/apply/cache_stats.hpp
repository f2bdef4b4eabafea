// The thread cache's statistics file read back: `TM_CACHE_STATS=FILE` makes every process of a
// run under the cache append one `tm-cache-stats/1` line at its end (the format is in
// docs/thread-cache.md, "Statistics"), and `threadmap run --thread-cache --stats` sums them for
// the whole process tree. Pure: the text in, the figures out (reading the file is os::read_file).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace threadmap::apply {

/// One process's line: who it was and what its creates did.
struct CacheProcessStats {
  long pid = 0;
  long ppid = 0;     ///< 0 when the line does not say
  std::string comm;  ///< the process's comm as the cache wrote it (spaces and '=' as '_')
  std::uint64_t from_cache = 0;   ///< creates served by a parked thread
  std::uint64_t from_system = 0;  ///< creates that made a new cacheable thread
  std::uint64_t bypassed = 0;     ///< creates handed to glibc untouched
  /// Physical threads retired, by cause (`idle-timeout`, `fork`, `syscall-N`, ...); causes with
  /// no thread are left out.
  std::map<std::string, std::uint64_t> retired;
  /// false when the line says `final=0`: the record of a process that created threads and
  /// ended without its last update (a raw exit_group as Go's runtime makes, a killing signal);
  /// its counts are as of its last update. true when it says `final=1` or nothing (older
  /// libraries wrote their line only at a normal end).
  bool final = true;

  std::uint64_t creates() const;  ///< the three above (at most the largest value: never wraps)
};

/// One retirement cause over the whole run.
struct CacheRetirement {
  std::string cause;
  std::uint64_t threads = 0;
};

/// The whole run: every process's line, the sums, and what could not be read.
struct CacheStatsSummary {
  std::vector<CacheProcessStats> processes;  ///< in the file's order (the order they ended)
  std::uint64_t from_cache = 0;
  std::uint64_t from_system = 0;
  std::uint64_t bypassed = 0;
  /// Retirements summed over the processes: most threads first, then by cause name.
  std::vector<CacheRetirement> retired;
  /// Lines that were not read: another format or version, a value that is not a number, a
  /// required key missing, or the last line cut short (no newline). Their figures are left out.
  int unread_lines = 0;
  /// Processes whose record is not final (see CacheProcessStats::final): counted as of their
  /// last update.
  int unfinished = 0;
  /// Processes whose record is not final because they still run (a watch that ended before
  /// its process): counted as of their last update.
  int running = 0;

  std::uint64_t creates() const;  ///< the three sums above (never wraps)
  /// from_cache / creates; nullopt when nothing was created.
  std::optional<double> reuse() const;
};

/// One line (without its newline). nullopt when it is not a complete `tm-cache-stats/1` line:
/// another tag, a token without '=', a known key whose value is not a decimal integer, a
/// retirement without a cause, or `pid`, `from-cache`, `from-system` or `bypassed` missing. Keys
/// it does not know are ignored, whatever their value, as the format asks of readers (the
/// `pad=000...` that fills a live record to its fixed width among them). Numbers may be
/// zero-padded; `final` is 0 or 1.
std::optional<CacheProcessStats> parse_cache_stats_line(std::string_view line);

/// Every line of a statistics file, summed. Empty lines are skipped; a last line without its
/// newline was cut short (the cache writes each line whole, newline included) and is unread.
CacheStatsSummary summarize_cache_stats(std::string_view text);

/// The records of the processes in `pids` only (a watch's process and the ones it followed),
/// summed as summarize_cache_stats does; lines of other processes are skipped, unreadable ones
/// still counted. A record that is not final of a process in `running` is counted in
/// `running`, not in `unfinished`. No pids: an empty summary.
CacheStatsSummary summarize_cache_stats_of(std::string_view text, const std::set<long>& pids,
                                           const std::set<long>& running);

}  // namespace threadmap::apply
