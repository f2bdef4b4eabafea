// threadmap run — placeholder until its issue lands: says so and exits non-zero.
#include "src/cli/command.hpp"

namespace threadmap::cli {

void add_run_command(CLI::App& app, Runner& selected) {
  auto* sub = app.add_subcommand("run", "(not built yet)");
  sub->allow_extras();
  sub->callback([&selected] {
    selected = [] { return fail(std::string("'run' is not built yet in this version")); };
  });
}

}  // namespace threadmap::cli
