// `threadmap bench` as given, as checked and as one call: BenchCommandOptions holds the command
// line's values (one member per flag); bench_request() finds the bench in the registry and
// applies every default and every rule about which options go together; run_bench_command()
// runs it on this machine.
#pragma once

#include <optional>
#include <string>

#include "src/experiments/registry.hpp"
#include "threadmap/result.hpp"

namespace threadmap::experiments {

/// The options of `threadmap bench`, as given (one member per flag or positional; errors name
/// these members in Error::input). The JSON file it writes is the CLI's output.
struct BenchCommandOptions {
  std::string name;          ///< NAME: which bench
  std::optional<int> runs;   ///< --runs N
  bool quick = false;        ///< --quick
  std::string pair;          ///< --pair A,B
  std::string latency_file;  ///< --latency FILE
};

struct BenchCommand;
Result<BenchCommand> bench_request(const BenchCommandOptions& options);

/// `threadmap bench` checked: made only by bench_request (no public constructor).
struct BenchCommand {
 private:
  friend Result<BenchCommand> bench_request(const BenchCommandOptions& options);
  BenchCommand() = default;

 public:
  const BenchEntry* entry = nullptr;  ///< the bench of the registry
  BenchRequest request;               ///< runs (5, or 3 quick), quick, the pair, the matrix file
};

/// Checks `options`. Refuses with Fault::input, naming the member: a bench the registry lacks
/// (`name`); a pair or a latency matrix for a bench that takes neither; a pair that is not two
/// CPUs 'A,B'.
Result<BenchCommand> bench_request(const BenchCommandOptions& options);

/// Loads this machine's topology and runs the bench (its own errors; a latency file that cannot
/// be read is the work's fault, about `latency_file`).
Result<BenchResult> run_bench_command(const BenchCommand& command);

}  // namespace threadmap::experiments
