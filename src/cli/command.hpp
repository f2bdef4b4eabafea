// The CLI's plumbing: each subcommand lives in its own file, registers its options with CLI11
// and, when selected, hands main() a runner. Runners only parse, call the library, render and
// print; they compute nothing themselves.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <span>
#include <string>
#include <string_view>
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

/// One subcommand in the one table of them (commands.cpp): main() declares these and no other.
struct Subcommand {
  std::string_view name;
  void (*add)(CLI::App& app, Runner& selected);
  /// The library function that checks its options as given into the checked command, named
  /// ("apply::run_request"); "" for a command that has none yet.
  std::string_view check;
  /// Whether the checked command can be made only by that check (no public constructor),
  /// as the compiler sees the check's return type.
  bool only_from_check = false;
};
/// Every subcommand, in --help order.
std::span<const Subcommand> subcommands();

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

/// A command's one table from request member to the flag that sets it, filled as the options
/// are declared (TM_OPTION, TM_FLAG): the flag's name is the declaration's own (CLI11's option),
/// the member's is the options struct's (a misspelled one does not compile), so neither is typed
/// twice. Library errors name a member (Error::input); the one error line names its flag.
class FlagTable {
 public:
  /// Records that `option` sets member `member`, stored at `value`; returns `option` for more
  /// CLI11 calls.
  CLI::Option* add(std::string_view member, CLI::Option* option, const void* value = nullptr);
  /// Records a member set by no option of its own (watch's "pid" and "command", split from one
  /// positional): `name` is what the error line calls it.
  void add_named(std::string_view member, std::string name);
  /// The flag of `member` as the user may have typed it ("--cpus", "-o"); "" when none sets it.
  std::string flag_of(std::string_view member) const;
  /// The flag of the member stored at `value` (an output's path: Outputs names it); "" when none.
  std::string flag_for(const void* value) const;
  /// Every member in the table, in declaration order.
  std::vector<std::string> members() const;
  /// Whether `option` was declared through some FlagTable (TM_OPTION/TM_FLAG): every option of
  /// every subcommand must be (tests/unit/cli).
  static bool declared(const CLI::Option* option);

 private:
  struct Row {
    std::string member;
    const CLI::Option* option = nullptr;
    std::string name;             // add_named's, when option is null
    const void* value = nullptr;  // where the member is stored
  };
  std::vector<Row> rows_;
};

/// Declares CLI11 option `flag` (add_option) for member `member` of `object`, and records it in
/// `table`: the member is written once, checked by the compiler. Returns the CLI::Option*.
#define TM_OPTION(table, sub, flag, object, member, ...) \
  (table).add(#member, (sub)->add_option(flag, (object).member, __VA_ARGS__), &(object).member)
/// TM_OPTION for a switch (add_flag).
#define TM_FLAG(table, sub, flag, object, member, ...) \
  (table).add(#member, (sub)->add_flag(flag, (object).member, __VA_ARGS__), &(object).member)

/// `--gpus [N]` as `run` and `plan` declare it: N GPUs per rank, 1 when given alone (CLI11
/// leaves the value at 0 then; settled once the command line is parsed).
CLI::Option* add_gpus_option(CLI::App* sub, FlagTable& table, int& gpus, const std::string& help);

/// The exit status of a command that failed with `error`, the same rule for every subcommand
/// (docs/architecture.md): 2 when a value given cannot work (Fault::input: the command line is
/// wrong, nothing was read, measured or run), 127 or 126 when the program to run could not be
/// started (Fault::start, as a shell says), 1 when the work failed (Fault::work: a file
/// unreadable, a CPU not allowed, a process gone).
int exit_for(const Error& error);
/// The text of the one error line: "bad FLAG: MESSAGE" when `error` is about a member that
/// `flags` names, else MESSAGE. The same mistake reads the same in every command.
std::string error_text(const Error& error, const FlagTable& flags);
/// Prints "threadmap: " + error_text(error, flags) on stderr and returns exit_for(error).
int fail(const Error& error, const FlagTable& flags);
int fail(const Error& error);
/// Prints "threadmap: MESSAGE" on stderr and returns 1: a failure found by the CLI itself (a
/// write to stdout, a pin that did not take).
int fail(const std::string& message);
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
/// `flag` as the user spelled it: "-o" when they typed -o rather than --output, so a message
/// names what is on their command line.
std::string as_typed(const std::string& flag);

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
