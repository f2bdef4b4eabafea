// Man pages and shell completion written from the CLI11 app itself, so they list exactly the
// subcommands, options, value names and choices `--help` prints and cannot drift from it. The
// build runs these hidden modes (cmake/packaging.cmake) and installs what they print:
//   threadmap --help-man            threadmap(1)
//   threadmap --help-man SUB        threadmap-SUB(1)
//   threadmap --help-man --list     the subcommand names, one a line
//   threadmap --help-completion bash|zsh
#include <cstdio>
#include <string>
#include <vector>

#include "src/cli/command.hpp"
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

// "TEXT:{a,b,c}" -> {"a","b","c"}: the values a validator accepts, when it lists them.
std::vector<std::string> choices(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  auto open = type.find('{'), close = type.rfind('}');
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string list = type.substr(open + 1, close - open - 1), item;
  for (char c : list + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
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

// roff: backslashes doubled, hyphens in names kept literal, a line never starting with a dot.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

std::string options_section(const CLI::App& app) {
  std::string out;
  std::vector<const CLI::Option*> positionals, options;
  for (const CLI::Option* o : visible_options(app))
    (o->nonpositional() ? options : positionals).push_back(o);
  if (!positionals.empty()) {
    out += ".SH ARGUMENTS\n";
    for (const CLI::Option* o : positionals) {
      out += ".TP\n.I " + roff(o->get_name()) + "\n" + roff(o->get_description()) + "\n";
      if (auto c = choices(*o); !c.empty()) {
        std::string list;
        for (const auto& v : c) list += (list.empty() ? "" : ", ") + v;
        out += ".br\nOne of: " + roff(list) + ".\n";
      }
    }
  }
  if (!options.empty()) {
    out += ".SH OPTIONS\n";
    for (const CLI::Option* o : options) {
      std::string names;
      for (const auto& n : option_names(*o))
        names += (names.empty() ? "" : ", ") + std::string("\\fB") + roff(n) + "\\fR";
      if (takes_value(*o)) names += " \\fI" + roff(value_name(*o)) + "\\fR";
      out += ".TP\n" + names + "\n" + roff(o->get_description()) + "\n";
      if (auto c = choices(*o); !c.empty()) {
        std::string list;
        for (const auto& v : c) list += (list.empty() ? "" : ", ") + v;
        out += ".br\nOne of: " + roff(list) + ".\n";
      }
    }
  }
  return out;
}

std::string header(const std::string& page, const std::string& name,
                   const std::string& description) {
  return ".TH " + upper(page) + " 1 \"\" \"threadmap " + THREADMAP_VERSION_STRING +
         "\" \"User Commands\"\n.SH NAME\n" + roff(name) + " \\- " + roff(description) + "\n";
}

std::string main_page(const CLI::App& app) {
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
  out +=
      ".SH EXIT STATUS\nOne rule for every subcommand: the same mistake gives the same status "
      "and the same line everywhere.\n.TP\n.B 0\nSuccess.\n.TP\n.B 1\nThe command line "
      "was fine but the work failed (a file unreadable or malformed, a process gone, a "
      "measurement that could not be made).\n.TP\n.B 2\nThe command line is wrong (a value "
      "that cannot work, such as an unknown policy or a CPU this machine lacks; options that do "
      "not go together; a missing argument); nothing was read, measured or run.\n.TP\n.B 3\n"
      "job and fleet with \\-\\-strict: the records or reports have findings.\n.TP\n"
      ".B 126, 127\nrun and watch: the program could not be started (not executable, not "
      "found), as a shell says.\n.TP\n.B 130\ntune stopped by Ctrl\\-C (what was measured "
      "is reported).\n.PP\nrun and watch exit with the program's own status when it failed "
      "(128 + N when signal N ended it).\n";
  out += ".SH SEE ALSO\n";
  std::string refs;
  for (const CLI::App* s : subcommands_of(app))
    refs += (refs.empty() ? "" : ",\n") + std::string(".BR threadmap\\-") + roff(s->get_name()) +
            " (1)";
  out += refs +
         ",\n.BR hwloc\\-ls (1),\n.BR likwid\\-pin (1),\n.BR numactl (8),\n"
         ".BR taskset (1)\n";
  return out;
}

std::string sub_page(const CLI::App& app, const CLI::App& sub) {
  const std::string name = "threadmap-" + sub.get_name();
  std::string out = header(name, name, sub.get_description());
  out += ".SH SYNOPSIS\n.B threadmap " + roff(sub.get_name()) + "\n[\\fIOPTIONS\\fR]";
  for (const CLI::Option* o : visible_options(sub))
    if (!o->nonpositional()) out += " \\fI" + roff(o->get_name()) + "\\fR";
  out += "\n.SH DESCRIPTION\n" + roff(sub.get_description()) + ".\n";
  if (std::string footer = sub.get_footer(); !footer.empty() && footer != "\n")
    out += ".PP\n" + roff(footer) + "\n";
  out += options_section(sub);
  out +=
      ".SH EXIT STATUS\n0 on success, 1 when the work failed, 2 when the command line is "
      "wrong (see\n.BR threadmap (1)).\n";
  out += ".SH SEE ALSO\n.BR threadmap (1)\n";
  (void)app;
  return out;
}

// Single-quoted for the shell.
std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string bash_completion(const CLI::App& app) {
  std::vector<std::string> top = {"--help", "--version"};
  for (const CLI::App* s : subcommands_of(app)) top.push_back(s->get_name());
  std::string out =
      "# bash completion for threadmap, written by `threadmap --help-completion bash` from the\n"
      "# same option tables as --help.\n"
      "_threadmap() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= i\n"
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
      auto c = choices(*o);
      if (!o->nonpositional()) {
        positional_values.insert(positional_values.end(), c.begin(), c.end());
        continue;
      }
      auto names = option_names(*o);
      opts.insert(opts.end(), names.begin(), names.end());
      if (!takes_value(*o)) continue;
      std::string pattern;
      for (const auto& n : names) pattern += (pattern.empty() ? "" : "|") + n;
      if (!c.empty())
        value_cases += "        " + pattern + ") COMPREPLY=($(compgen -W " +
                       shell_quoted(words(c)) + " -- \"$cur\")); return 0 ;;\n";
      else
        file_opts.push_back(pattern);
    }
    out += "    " + s->get_name() + ")\n      case $prev in\n" + value_cases;
    if (!file_opts.empty()) {
      std::string pattern;
      for (const auto& p : file_opts) pattern += (pattern.empty() ? "" : "|") + p;
      // A value: files (the default completion) unless the option lists its values.
      out += "        " + pattern + ") return 0 ;;\n";
    }
    out += "      esac\n      COMPREPLY=($(compgen -W " +
           shell_quoted(words(opts) +
                        (positional_values.empty() ? "" : " " + words(positional_values))) +
           " -- \"$cur\"))\n      ;;\n";
  }
  out += "  esac\n}\ncomplete -o default -F _threadmap threadmap\n";
  return out;
}

// zsh _arguments wants ']' and ':' in descriptions escaped, and single quotes closed around.
std::string zsh_text(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
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
      auto c = choices(*o);
      if (!o->nonpositional()) {
        if (o->get_name() == "command") {
          has_command = true;
        } else {
          out += "            " +
                 shell_quoted(":" + zsh_text(o->get_name()) + ":" +
                              (c.empty() ? std::string("_files") : "(" + words(c) + ")")) +
                 " \\\n";
        }
        continue;
      }
      for (const auto& n : option_names(*o)) {
        std::string spec = n + "[" + zsh_text(o->get_description()) + "]";
        if (takes_value(*o))
          spec += ":" + zsh_text(value_name(*o)) + ":" +
                  (c.empty() ? std::string("_files") : "(" + words(c) + ")");
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
  const std::string what = argc > 2 ? argv[2] : "";
  if (mode == "--help-completion") {
    if (what == "bash") return print(bash_completion(app)), 0;
    if (what == "zsh") return print(zsh_completion(app)), 0;
    return fail(Error::bad_input("", "--help-completion takes bash or zsh"));
  }
  if (what.empty()) return print(main_page(app)), 0;
  if (what == "--list") {
    for (const CLI::App* s : subcommands_of(app)) print(s->get_name() + "\n");
    return 0;
  }
  for (const CLI::App* s : subcommands_of(app))
    if (s->get_name() == what) return print(sub_page(app, *s)), 0;
  return fail(Error::bad_input("", "unknown subcommand '" + what + "' (see 'threadmap --help')"));
}

}  // namespace threadmap::cli
