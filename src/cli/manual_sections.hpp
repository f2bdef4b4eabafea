// What a man page says beyond the option tables: examples, the exit statuses each subcommand
// really returns, the CPU-expression syntax and the installed documents to read next. The
// option tables come from CLI11 (manual.cpp); this is the prose they cannot hold, as plain text
// (manual.cpp escapes it for roff).
#pragma once

#include <string>
#include <vector>

namespace threadmap::cli {

/// One example: a command line and what it does.
struct ManualExample {
  std::string command;
  std::string what;
};

/// A term and what it means: an exit status ("3", "128+N") and when it is returned, or a
/// CPU expression and what it selects.
struct ManualEntry {
  std::string term;
  std::string text;
};

/// The prose of one subcommand's page.
struct CommandManual {
  std::vector<std::string> paragraphs;  ///< DESCRIPTION after the one-line summary
  std::vector<ManualExample> examples;
  std::vector<ManualEntry> statuses;   ///< EXIT STATUS, in order
  std::vector<std::string> documents;  ///< files under the documentation directory
  std::vector<std::string> see_also;   ///< other man pages: "taskset(1)"
  bool takes_cpus = false;             ///< an option takes a CPU expression
};

/// The prose of subcommand `name`'s page; an empty CommandManual for a name it does not know
/// (tests/integration/manuals checks every subcommand has examples and exit statuses).
CommandManual command_manual(const std::string& name);

/// threadmap(1)'s section on CPU expressions: each form with an example and what it means.
struct CpuExpressionSyntax {
  std::string intro;
  std::vector<ManualEntry> forms;  ///< {"core:0-3", "the CPUs of cores 0 to 3 ..."}
  std::string outro;
};
CpuExpressionSyntax cpu_expressions();

/// Every TYPE a CPU expression's TYPE:INDEXES term takes ("pu", "core", "die", ..., "gpu",
/// "nic", "pci"): the one list the man pages, --help and README are generated from or checked
/// against (tests/integration/manuals/cpu_grammar.sh).
const std::vector<std::string>& cpu_expression_types();

/// The one-line form of the grammar for an option's --help: "a list (0-3,8), a mask (0xff),
/// all, or TYPE:INDEXES locations (pu, core, die, ...; gpu:N, nic:NAME, pci:BUSID)".
std::string cpu_expression_brief();

/// threadmap(1)'s examples: the usual path from measuring to checking.
std::vector<ManualExample> main_examples();

/// The exit statuses every subcommand shares (threadmap(1)).
std::vector<ManualEntry> common_statuses();

}  // namespace threadmap::cli
