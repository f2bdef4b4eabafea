// threadmap watch — placeholder until its issue lands: says so and exits non-zero.
#include "src/cli/command.hpp"

namespace threadmap::cli {

void add_watch_command(CLI::App& app, Runner& selected) {
  auto* sub = app.add_subcommand("watch", "(not built yet)");
  sub->allow_extras();
  sub->callback([&selected] {
    selected = [] { return fail(std::string("'watch' is not built yet in this version")); };
  });
}

}  // namespace threadmap::cli
