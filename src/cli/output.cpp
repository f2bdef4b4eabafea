// Output helpers shared by the subcommands: the one-line error format, stdout, file writing.
// Everything goes through src/os, which writes whole files or nothing.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/apply/run_options.hpp"
#include "src/cli/command.hpp"
#include "src/monitor/process_id.hpp"
#include "src/os/files.hpp"
#include "src/os/process.hpp"

namespace threadmap::cli {
namespace {

int g_stdout_error = 0;  // first errno of a failed write to stdout (EPIPE, ENOSPC on /dev/full)
int g_after_separator = -1;
std::string g_command_line;       // "threadmap report --quick", for the pages' headers
std::vector<std::string> g_args;  // the arguments as typed, before "--"

// Long flags with a short spelling: a message names the one the user typed.
constexpr std::pair<const char*, const char*> kShortSpellings[] = {{"--output", "-o"}};

}  // namespace

int exit_for(const Error& error) {
  switch (error.fault) {
    case Fault::input:
      return 2;
    case Fault::start:
      return os::start_failure_status(error);
    case Fault::work:
      break;
  }
  return 1;
}

namespace {
std::set<const CLI::Option*>& declared_options() {
  static std::set<const CLI::Option*> options;
  return options;
}
}  // namespace

CLI::Option* FlagTable::add(std::string_view member, CLI::Option* option, const void* value) {
  rows_.push_back({std::string(member), option, "", value});
  declared_options().insert(option);
  return option;
}

bool FlagTable::declared(const CLI::Option* option) { return declared_options().count(option) > 0; }

void FlagTable::add_named(std::string_view member, std::string name) {
  rows_.push_back({std::string(member), nullptr, std::move(name), nullptr});
}

std::string FlagTable::flag_of(std::string_view member) const {
  for (const Row& row : rows_)
    if (row.member == member) return row.option ? as_typed(row.option->get_name()) : row.name;
  return "";
}

std::string FlagTable::flag_for(const void* value) const {
  for (const Row& row : rows_)
    if (row.value == value && row.option) return as_typed(row.option->get_name());
  return "";
}

std::vector<std::string> FlagTable::members() const {
  std::vector<std::string> out;
  for (const Row& row : rows_) out.push_back(row.member);
  return out;
}

CLI::Option* add_gpus_option(CLI::App* sub, FlagTable& table, int& gpus, const std::string& help) {
  CLI::Option* option = table.add("gpus", sub->add_option("--gpus", gpus, help)
                                              ->expected(0, 1)
                                              ->default_str("1")
                                              ->check(CLI::Range(1, 64)));
  sub->parse_complete_callback([option, &gpus] {
    if (option->count() > 0 && gpus <= 0) gpus = 1;
  });
  return option;
}

std::string error_text(const Error& error, const FlagTable& flags) {
  const std::string flag = error.input.empty() ? "" : flags.flag_of(error.input);
  return flag.empty() ? error.message : "bad " + flag + ": " + error.message;
}

int fail(const Error& error, const FlagTable& flags) {
  os::write_stderr("threadmap: " + error_text(error, flags) + "\n");
  return exit_for(error);
}

int fail(const Error& error) { return fail(error, FlagTable{}); }

int fail(const std::string& message) {
  os::write_stderr("threadmap: " + message + "\n");
  return 1;
}

void print(const std::string& text) {
  if (int e = os::write_stdout(text); e != 0 && g_stdout_error == 0) g_stdout_error = e;
}

int finish(int status) {
  if (g_stdout_error == 0) return status;
  fail(std::string("cannot write to stdout: ") + std::strerror(g_stdout_error));
  return status != 0 ? status : 1;
}

Status write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    print(text);
    return {};
  }
  return os::write_file(path, text);
}

void record_command_line(int argc, char** argv) {
  std::vector<std::string> args{"threadmap"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  g_command_line = apply::shell_join(args);
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") break;
    g_args.emplace_back(argv[i]);
  }
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      g_after_separator = argc - i - 1;
      return;
    }
}

int arguments_after_separator() { return g_after_separator; }

const std::string& command_line_text() { return g_command_line; }

std::string as_typed(const std::string& flag) {
  for (const auto& [long_form, short_form] : kShortSpellings) {
    if (flag != long_form) continue;
    bool long_used = false, short_used = false;
    for (const std::string& a : g_args) {
      long_used = long_used || a == long_form || a.rfind(std::string(long_form) + "=", 0) == 0;
      short_used = short_used || a.rfind(short_form, 0) == 0;
    }
    if (short_used && !long_used) return short_form;
  }
  return flag;
}

CLI::Validator process_id_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto pid = monitor::parse_process_id(text);  // the rule `watch PID` applies too
        return pid ? "" : pid.error().message;
      },
      "PID");
}

CLI::Validator positive_seconds_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || std::isnan(v) || v <= 0)
          return "bad duration '" + text + "': expected seconds, more than 0 (e.g. 2.5)";
        if (v > 1e7)
          return "bad duration '" + text + "': too large (at most 10000000 s, about 115 days)";
        return "";
      },
      "SECONDS");
}

CLI::Validator non_empty_cpus_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.find_first_not_of(" \t") == std::string::npos)
          return "empty CPU expression (for every allowed CPU, say all)";
        return "";
      },
      "");
}

bool stdout_is_tty() { return os::stdout_is_terminal(); }
bool stderr_is_tty() { return os::stderr_is_terminal(); }

}  // namespace threadmap::cli
