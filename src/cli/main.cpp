// threadmap: one binary, one subcommand per file. main() only wires them up and turns parse
// errors into one line on stderr.
#include <cstdio>
#include <exception>
#include <string>

#include "src/cli/command.hpp"
#include "threadmap/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"threadmap — measure the machine, plan thread placement, apply it, verify it held"};
  app.name("threadmap");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("threadmap ") + THREADMAP_VERSION_STRING);
  threadmap::cli::Runner selected;
  for (const threadmap::cli::Subcommand& sub : threadmap::cli::subcommands())
    sub.add(app, selected);
  threadmap::cli::record_command_line(argc, argv);
  // CLI11 calls an unknown first word "not expected"; say what it is.
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    known = known || (argc > 1 && sub->check_name(argv[1]));
  // Hidden: man pages and shell completion from this very app (src/cli/manual.cpp).
  if (argc > 1 &&
      (std::string(argv[1]) == "--help-man" || std::string(argv[1]) == "--help-completion"))
    return threadmap::cli::finish(threadmap::cli::hidden_manual_mode(app, argc, argv));
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr, "threadmap: unknown subcommand '%s' (see 'threadmap --help')\n", argv[1]);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "threadmap: %s (see 'threadmap --help')\n",
                 threadmap::cli::parse_error_text(e.what()).c_str());
    return 2;
  }
  if (!selected) return 2;
  // Library calls report failures as Result values; an exception reaching here is a bug, but
  // the user still gets one line and a non-zero exit instead of an abort.
  try {
    return threadmap::cli::finish(selected());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "threadmap: internal error: %s\n", e.what());
    return 70;  // EX_SOFTWARE
  }
}
