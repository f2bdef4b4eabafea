// The CLI's plumbing: each subcommand lives in its own file, registers its options with CLI11
// and, when selected, hands main() a runner. Runners only parse, call the library, render and
// print; they compute nothing themselves.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "threadmap/result.hpp"

namespace threadmap::cli {

/// Runs the selected subcommand and returns the process exit status.
using Runner = std::function<int()>;

void add_topo_command(CLI::App& app, Runner& selected);
void add_ps_command(CLI::App& app, Runner& selected);
void add_pin_command(CLI::App& app, Runner& selected);
void add_latency_command(CLI::App& app, Runner& selected);
void add_plan_command(CLI::App& app, Runner& selected);
void add_run_command(CLI::App& app, Runner& selected);
void add_watch_command(CLI::App& app, Runner& selected);
void add_bench_command(CLI::App& app, Runner& selected);
void add_report_command(CLI::App& app, Runner& selected);

/// Prints "threadmap: MESSAGE" on stderr and returns exit status 1.
int fail(const Error& error);
/// Same, for a message built in the CLI (bad option combinations).
int fail(const std::string& message);
/// Writes `text` to stdout.
void print(const std::string& text);
/// Writes `text` to `path` ("-" = stdout). Fails naming the path.
Status write_file(const std::string& path, const std::string& text);
/// True when stdout is a terminal (progress bars and colors only then).
bool stdout_is_tty();
/// True when stderr is a terminal.
bool stderr_is_tty();

}  // namespace threadmap::cli
