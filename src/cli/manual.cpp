// Man pages and shell completion written from the CLI11 app itself, so they list exactly the
// subcommands, options, value names and choices `--help` prints and cannot drift from it. The
// build runs these hidden modes (cmake/packaging.cmake) and installs what they print:
//   threadmap --help-man [--doc-dir DIR]        threadmap(1)
//   threadmap --help-man [--doc-dir DIR] SUB    threadmap-SUB(1)
//   threadmap --help-man --list                 the subcommand names, one a line
//   threadmap --help-completion bash|zsh
// DIR is where the documents are installed (default /usr/share/doc/threadmap); SEE ALSO names
// them there. Examples, exit statuses and the CPU-expression syntax are in manual_sections.cpp.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "src/cli/command.hpp"
#include "src/cli/manual_sections.hpp"
#include "src/core/text.hpp"
#include "threadmap/version.hpp"

namespace threadmap::cli {
namespace {

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  std::vector<const CLI::App*> subs;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    subs.push_back(s);
  return subs;
}

// Options `--help` shows (hidden ones have an empty group).
std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : app.get_options([](const CLI::Option*) { return true; }))
    if (!o->get_group().empty()) out.push_back(o);
  return out;
}

// As CLI11's own --help decides it (Formatter::make_option_opts).
bool takes_value(const CLI::Option& o) {
  return o.get_type_size() != 0 && !o.get_type_name().empty();
}

// The values an option takes from a fixed list, read back from its type name as --help
// prints it: "TEXT:{a,b,c}" (fixed_values or CLI::IsMember) or "TEXT:{a,b,c},..." (several,
// comma-separated).
struct FixedValues {
  std::vector<std::string> items;  ///< as declared: "bind:NODES"
  bool comma_list = false;
};

FixedValues fixed_values_of(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  auto open = type.find('{'), close = type.rfind('}');
  FixedValues out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  out.comma_list = type.compare(close + 1, 4, ",...") == 0;
  std::string list = type.substr(open + 1, close - open - 1), item;
  for (char c : list + ",") {
    if (c == ',') {
      if (!item.empty()) out.items.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

// What completion offers for a declared value: the part before its first capitalised
// placeholder ("bind:NODES" -> "bind:", "plan:FILE" -> "plan:"); "" when the value is all
// placeholder ("K/N").
std::string completion_word(const std::string& item) {
  std::size_t i = 0;
  while (i < item.size() && !std::isupper(static_cast<unsigned char>(item[i]))) ++i;
  return item.substr(0, i);
}

std::vector<std::string> completion_words(const FixedValues& values) {
  std::vector<std::string> out;
  for (const std::string& item : values.items) {
    std::string w = completion_word(item);
    if (!w.empty() && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  return out;
}

// The value's name as --help prints it, without CLI11's range/choice decoration.
std::string value_name(const CLI::Option& o) {
  std::string type = o.get_type_name();
  if (auto colon = type.find(':'); colon != std::string::npos) type.resize(colon);
  if (auto space = type.find(' '); space != std::string::npos) type.resize(space);
  return type.empty() ? "VALUE" : type;
}

std::vector<std::string> option_names(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const auto& s : o.get_snames()) names.push_back("-" + s);
  for (const auto& l : o.get_lnames()) names.push_back("--" + l);
  return names;
}

// roff: backslashes as \e, hyphens literal (\-), no line starting with a dot or a quote.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// "One of: a, b, c." under an option that takes a fixed list, with what its placeholders mean.
std::string values_roff(const FixedValues& values) {
  if (values.items.empty()) return "";
  std::string out = ".br\n" +
                    std::string(values.comma_list ? "A comma\\-separated list of: " : "One of: ") +
                    roff(joined(values.items, ", ")) + ".\n";
  bool placeholders = false;
  for (const auto& item : values.items) placeholders |= completion_word(item) != item;
  if (placeholders) out += "Words in capitals stand for a value you fill in.\n";
  return out;
}

std::string options_section(const CLI::App& app) {
  std::string out;
  std::vector<const CLI::Option*> positionals, options;
  for (const CLI::Option* o : visible_options(app))
    (o->nonpositional() ? options : positionals).push_back(o);
  if (!positionals.empty()) {
    out += ".SH ARGUMENTS\n";
    for (const CLI::Option* o : positionals)
      out += ".TP\n.I " + roff(o->get_name()) + "\n" + roff(o->get_description()) + "\n" +
             values_roff(fixed_values_of(*o));
  }
  if (!options.empty()) {
    out += ".SH OPTIONS\n";
    for (const CLI::Option* o : options) {
      std::string names;
      for (const auto& n : option_names(*o))
        names += (names.empty() ? "" : ", ") + std::string("\\fB") + roff(n) + "\\fR";
      if (takes_value(*o)) names += " \\fI" + roff(value_name(*o)) + "\\fR";
      out += ".TP\n" + names + "\n" + roff(o->get_description()) + "\n" +
             values_roff(fixed_values_of(*o));
    }
  }
  return out;
}

std::string entries_roff(const std::vector<ManualEntry>& entries) {
  std::string out;
  for (const ManualEntry& e : entries)
    out += ".TP\n.B " + roff(e.term) + "\n" + roff(e.text) + "\n";
  return out;
}

std::string examples_roff(const std::vector<ManualExample>& examples) {
  std::string out = ".SH EXAMPLES\n";
  for (const ManualExample& e : examples)
    out += ".TP\n.B " + roff(e.command) + "\n" + roff(e.what) + "\n";
  return out;
}

// "lstopo(1)" -> ".BR lstopo (1)".
std::string page_reference(const std::string& page) {
  auto open = page.find('(');
  if (open == std::string::npos) return ".BR " + roff(page);
  return ".BR " + roff(page.substr(0, open)) + " " + page.substr(open);
}

std::string documents_roff(const std::vector<std::string>& documents, const std::string& doc_dir) {
  if (documents.empty()) return "";
  std::string out = ".PP\nThe documentation installed with threadmap (Markdown):\n";
  for (const std::string& d : documents) out += ".br\n" + roff(doc_dir + "/" + d) + "\n";
  return out;
}

std::string header(const std::string& page, const std::string& name,
                   const std::string& description) {
  return ".TH " + upper(page) + " 1 \"\" \"threadmap " + THREADMAP_VERSION_STRING +
         "\" \"User Commands\"\n.SH NAME\n" + roff(name) + " \\- " + roff(description) + "\n";
}

std::string cpu_expressions_section() {
  const CpuExpressionSyntax syntax = cpu_expressions();
  return ".SH CPU EXPRESSIONS\n" + roff(syntax.intro) + "\n" + entries_roff(syntax.forms) +
         ".PP\n" + roff(syntax.outro) + "\n";
}

std::string main_page(const CLI::App& app, const std::string& doc_dir) {
  std::string desc = app.get_description();
  if (auto dash = desc.find(" — "); dash != std::string::npos) desc = desc.substr(dash + 5);
  std::string out = header("threadmap", "threadmap", desc);
  out += ".SH SYNOPSIS\n.B threadmap\n\\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".br\n.B threadmap\n\\-\\-help | \\-\\-version\n";
  out += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n";
  out +=
      ".PP\nEach subcommand has its own page, threadmap\\-\\fISUBCOMMAND\\fR(1), and prints "
      "the same options with \\fBthreadmap \\fISUBCOMMAND\\fB \\-\\-help\\fR.\n";
  out += ".SH SUBCOMMANDS\n";
  for (const CLI::App* s : subcommands_of(app))
    out += ".TP\n.B " + roff(s->get_name()) + "\n" + roff(s->get_description()) + "\n";
  out += options_section(app);
  out += cpu_expressions_section();
  out += examples_roff(main_examples());
  out += ".SH EXIT STATUS\n" + entries_roff(common_statuses()) +
         ".PP\nEach subcommand's page lists the statuses it returns.\n";
  out += ".SH SEE ALSO\n";
  for (const CLI::App* s : subcommands_of(app))
    out += ".BR threadmap\\-" + roff(s->get_name()) + " (1),\n";
  out +=
      ".BR hwloc\\-ls (1),\n.BR hwloc\\-calc (1),\n.BR likwid\\-pin (1),\n.BR numactl (8),\n"
      ".BR taskset (1)\n";
  out +=
      documents_roff({"README.md", "docs/install.md", "docs/design.md", "docs/json.md"}, doc_dir);
  return out;
}

std::string sub_page(const CLI::App& sub, const std::string& doc_dir) {
  const std::string name = "threadmap-" + sub.get_name();
  const CommandManual manual = command_manual(sub.get_name());
  std::string out = header(name, name, sub.get_description());
  out += ".SH SYNOPSIS\n.B threadmap " + roff(sub.get_name()) + "\n[\\fIOPTIONS\\fR]";
  for (const CLI::Option* o : visible_options(sub))
    if (!o->nonpositional()) out += " \\fI" + roff(o->get_name()) + "\\fR";
  out += "\n.SH DESCRIPTION\n" + roff(sub.get_description()) + ".\n";
  for (const std::string& p : manual.paragraphs) out += ".PP\n" + roff(p) + "\n";
  if (std::string footer = sub.get_footer(); !footer.empty() && footer != "\n")
    out += ".PP\n" + roff(footer) + "\n";
  out += options_section(sub);
  if (manual.takes_cpus)
    out += ".SH CPU EXPRESSIONS\nCPUs are given as " + roff(cpu_expression_brief()) +
           ". The full syntax is under CPU EXPRESSIONS in\n.BR threadmap (1).\n";
  if (!manual.examples.empty()) out += examples_roff(manual.examples);
  out += ".SH EXIT STATUS\n" + entries_roff(manual.statuses) +
         ".PP\nAn internal error (a bug in threadmap) exits 70, whatever the subcommand.\n";
  out += ".SH SEE ALSO\n.BR threadmap (1)";
  for (const std::string& page : manual.see_also) out += ",\n" + page_reference(page);
  out += "\n";
  out += documents_roff(manual.documents, doc_dir);
  return out;
}

// Single-quoted for the shell.
std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string words(const std::vector<std::string>& list) { return joined(list, " "); }

// The bash call that completes one option's fixed values: a word, or with `comma_list` the item
// after the last comma (the helpers are at the top of the script).
std::string bash_values(const FixedValues& values) {
  const std::string w = shell_quoted(words(completion_words(values)));
  return (values.comma_list ? "_threadmap_list " : "_threadmap_words ") + w;
}

std::string bash_completion(const CLI::App& app) {
  std::vector<std::string> top = {"--help", "--version"};
  for (const CLI::App* s : subcommands_of(app)) top.push_back(s->get_name());
  std::string out =
      "# bash completion for threadmap, written by `threadmap --help-completion bash` from the\n"
      "# same option tables as --help.\n"
      "# Words from a fixed list; no space after a word that ends in ':' (a value follows).\n"
      "_threadmap_words() {\n"
      "  COMPREPLY=($(compgen -W \"$1\" -- \"$cur\"))\n"
      "  if [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *: ]]; then compopt -o nospace; fi\n"
      "}\n"
      "# Comma-separated items from a fixed list: complete the one after the last comma.\n"
      "_threadmap_list() {\n"
      "  local done=\n"
      "  [[ $cur == *,* ]] && done=${cur%,*},\n"
      "  COMPREPLY=($(compgen -P \"$done\" -W \"$1\" -- \"${cur##*,}\"))\n"
      "  compopt -o nospace\n"
      "}\n"
      "_threadmap() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= i\n"
      "  # bash splits words at ':' and '=': '--mem bind:0' and '--policy=x' arrive in pieces.\n"
      "  if [[ $cur == : || $prev == : ]]; then return 0; fi\n"
      "  if [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    if [[ ${COMP_WORDS[i]} == -- ]]; then\n"
      "      # After --: a program and its arguments.\n"
      "      if ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- \"$cur\")); fi\n"
      "      return 0\n"
      "    fi\n"
      "    [[ -z $sub && ${COMP_WORDS[i]} != -* ]] && sub=${COMP_WORDS[i]}\n"
      "  done\n"
      "  case $sub in\n"
      "    '')\n"
      "      COMPREPLY=($(compgen -W " +
      shell_quoted(words(top)) +
      " -- \"$cur\"))\n"
      "      ;;\n";
  for (const CLI::App* s : subcommands_of(app)) {
    std::vector<std::string> opts, positional_values, file_opts;
    std::string value_cases;
    for (const CLI::Option* o : visible_options(*s)) {
      const FixedValues values = fixed_values_of(*o);
      if (!o->nonpositional()) {
        for (const auto& w : completion_words(values)) positional_values.push_back(w);
        continue;
      }
      auto names = option_names(*o);
      opts.insert(opts.end(), names.begin(), names.end());
      if (!takes_value(*o)) continue;
      std::string pattern = joined(names, "|");
      if (!completion_words(values).empty())
        value_cases += "        " + pattern + ") " + bash_values(values) + "; return 0 ;;\n";
      else
        file_opts.push_back(pattern);
    }
    out += "    " + s->get_name() + ")\n      case $prev in\n" + value_cases;
    if (!file_opts.empty()) {
      // A value: files (the default completion) unless the option lists its values.
      out += "        " + joined(file_opts, "|") + ") return 0 ;;\n";
    }
    out += "      esac\n      COMPREPLY=($(compgen -W " +
           shell_quoted(words(opts) +
                        (positional_values.empty() ? "" : " " + words(positional_values))) +
           " -- \"$cur\"))\n      ;;\n";
  }
  out += "  esac\n}\ncomplete -o default -F _threadmap threadmap\n";
  return out;
}

// zsh _arguments wants '[', ']', ':' and '\' in descriptions and values escaped.
std::string zsh_text(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The action completing one value: its fixed words ("(a b c)"; compadd -S '' when a word ends
// in ':', so the value can follow), a comma-separated list of them (_sequence), or a file.
std::string zsh_action(const FixedValues& values) {
  std::vector<std::string> list = completion_words(values);
  if (list.empty()) return "_files";
  std::vector<std::string> escaped;
  for (const auto& w : list) escaped.push_back(zsh_text(w));
  if (values.comma_list) return "_sequence compadd - " + words(escaped);
  bool prefix = false;
  for (const auto& w : list) prefix |= w.back() == ':';
  if (prefix) return "compadd -S '' - " + words(escaped);
  return "(" + words(escaped) + ")";
}

std::string zsh_completion(const CLI::App& app) {
  std::string out =
      "#compdef threadmap\n"
      "# zsh completion for threadmap, written by `threadmap --help-completion zsh` from the same\n"
      "# option tables as --help.\n"
      "_threadmap() {\n"
      "  local curcontext=$curcontext state line ret=1\n"
      "  local -a subcommands\n"
      "  subcommands=(\n";
  for (const CLI::App* s : subcommands_of(app))
    out += "    " + shell_quoted(s->get_name() + ":" + s->get_description()) + "\n";
  out +=
      "  )\n"
      "  _arguments -C '(- *)'{-h,--help}'[Print help]' '(- *)--version[Print the version]' \\\n"
      "    '1: :->subcommand' '*:: :->arguments' && ret=0\n"
      "  case $state in\n"
      "    subcommand) _describe -t subcommands 'threadmap subcommand' subcommands && ret=0 ;;\n"
      "    arguments)\n"
      "      case $words[1] in\n";
  for (const CLI::App* s : subcommands_of(app)) {
    out += "        " + s->get_name() + ")\n          _arguments -s \\\n";
    bool has_command = false;
    for (const CLI::Option* o : visible_options(*s)) {
      const FixedValues values = fixed_values_of(*o);
      if (!o->nonpositional()) {
        if (o->get_name() == "command") {
          has_command = true;
        } else {
          out += "            " +
                 shell_quoted(":" + zsh_text(o->get_name()) + ":" + zsh_action(values)) + " \\\n";
        }
        continue;
      }
      for (const auto& n : option_names(*o)) {
        std::string spec = n + "[" + zsh_text(o->get_description()) + "]";
        if (takes_value(*o)) spec += ":" + zsh_text(value_name(*o)) + ":" + zsh_action(values);
        out += "            " + shell_quoted(spec) + " \\\n";
      }
    }
    // A program to run goes after --: complete it as a command line of its own.
    if (has_command) out += "            '*:: :_normal' \\\n";
    out += "            && ret=0 ;;\n";
  }
  out +=
      "      esac ;;\n"
      "  esac\n"
      "  return ret\n"
      "}\n"
      "_threadmap \"$@\"\n";
  return out;
}

}  // namespace

int hidden_manual_mode(const CLI::App& app, int argc, char** argv) {
  const std::string mode = argv[1];
  std::string doc_dir = "/usr/share/doc/threadmap";
  std::vector<std::string> rest;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--doc-dir" && i + 1 < argc)
      doc_dir = argv[++i];
    else
      rest.push_back(argv[i]);
  }
  const std::string what = rest.empty() ? "" : rest[0];
  if (mode == "--help-completion") {
    if (what == "bash") return print(bash_completion(app)), 0;
    if (what == "zsh") return print(zsh_completion(app)), 0;
    return fail(Error::bad_input("", "--help-completion takes bash or zsh"));
  }
  if (what.empty()) return print(main_page(app, doc_dir)), 0;
  if (what == "--list") {
    for (const CLI::App* s : subcommands_of(app)) print(s->get_name() + "\n");
    return 0;
  }
  if (what == "--cpu-types") {  // the grammar's one list, for the tests that check the docs
    for (const std::string& type : cpu_expression_types()) print(type + "\n");
    return 0;
  }
  for (const CLI::App* s : subcommands_of(app))
    if (s->get_name() == what) return print(sub_page(*s, doc_dir)), 0;
  return fail(Error::bad_input("", "unknown subcommand '" + what + "' (see 'threadmap --help')"));
}

}  // namespace threadmap::cli
