// The CLI's plumbing: each subcommand lives in its own file, registers its options with CLI11
// and, when selected, hands main() a runner. Runners only parse, call the library, render and
// print; they compute nothing themselves.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::cli {

/// Runs the selected subcommand and returns the process exit status.
using Runner = std::function<int()>;

/// A CLI11 validator: digits only (an unsigned option would otherwise take "-1" as 2^64-1).
CLI::Validator whole_number();

/// The values an option takes from a fixed list (the library's own list, so they cannot drift),
/// declared once on the option: --help shows them ("TEXT:{compact,scatter,round-robin}"), the
/// man pages list them and the bash and zsh completion offer them (manual.cpp). A capitalised
/// part is a placeholder the user fills in: "bind:NODES" completes to "bind:", "K/N" not at
/// all. `comma_list`: the option takes several, joined by commas ("os,compact"). It checks
/// nothing itself: the library parses the value and names what is wrong in its own words.
CLI::Validator fixed_values(const std::vector<std::string>& values, bool comma_list = false);

/// A CLI11 parse error message in our words (parse_errors.cpp): names the option and value.
std::string parse_error_text(const std::string& raw);

void add_topo_command(CLI::App& app, Runner& selected);
void add_ps_command(CLI::App& app, Runner& selected);
void add_pin_command(CLI::App& app, Runner& selected);
void add_latency_command(CLI::App& app, Runner& selected);
void add_plan_command(CLI::App& app, Runner& selected);
void add_run_command(CLI::App& app, Runner& selected);
void add_watch_command(CLI::App& app, Runner& selected);
void add_bench_command(CLI::App& app, Runner& selected);
void add_report_command(CLI::App& app, Runner& selected);
void add_job_command(CLI::App& app, Runner& selected);
void add_fleet_command(CLI::App& app, Runner& selected);
void add_tune_command(CLI::App& app, Runner& selected);

/// Prints "threadmap: MESSAGE" on stderr and returns exit status 1: the command line was fine
/// but the work failed (a file unreadable, a CPU not allowed, a process gone).
int fail(const Error& error);
/// Same, for a message built in the CLI.
int fail(const std::string& message);
/// Prints "threadmap: MESSAGE" on stderr and returns exit status 2: the command line itself is
/// wrong (an option value that cannot be valid, options that conflict, a missing argument);
/// nothing was read, measured or run.
int usage_error(const Error& error);
int usage_error(const std::string& message);
/// For checks made before any work (options, output paths): a value that cannot be valid
/// (EINVAL: conflicting outputs, a malformed value) is a usage error (2); anything else (a
/// directory that does not exist, permission denied) a failure (1).
int reject(const Error& error);
/// The process exit status for a subcommand that returned `status`: a failed write to stdout
/// (a closed pipe, a full disk) makes an otherwise successful command fail, after one line.
int finish(int status);
/// Writes `text` to stdout (a failure is remembered for finish()).
void print(const std::string& text);
/// Writes `text` to `path` ("-" = stdout). Fails naming the path.
Status write_file(const std::string& path, const std::string& text);
/// Remembers where "--" stood on the command line (main calls it before parsing): CLI11 gives
/// positionals before and after it to the same option, and `watch 1234` must not start a
/// program called 1234 while `watch -- CMD` must.
void record_command_line(int argc, char** argv);
/// Arguments after "--", or -1 when the command line has no "--".
int arguments_after_separator();
/// The command line record_command_line saw, as "threadmap ARGS..." shell-quoted (shown in the
/// HTML pages' headers); "" before it was called.
const std::string& command_line_text();

/// Validates a process or thread id option: a positive integer that fits a pid_t. The message
/// says so plainly instead of CLI11's numeric range.
CLI::Validator process_id_validator();

/// Validates a duration in seconds: finite, more than 0, at most ~115 days.
CLI::Validator positive_seconds_validator();

/// Refuses an empty CPU expression (`--cpus ''` must not quietly mean every CPU).
CLI::Validator non_empty_cpus_validator();

/// True when stdout is a terminal (progress bars and colors only then).
bool stdout_is_tty();
/// True when stderr is a terminal.
bool stderr_is_tty();

/// `threadmap --help-man [SUB|--list]` and `--help-completion bash|zsh` (manual.cpp): the man
/// pages and shell completion written from `app`, the same tables `--help` prints. Returns the
/// exit status.
int hidden_manual_mode(const CLI::App& app, int argc, char** argv);

}  // namespace threadmap::cli
