// threadmap latency — placeholder until its issue lands: says so and exits non-zero.
#include "src/cli/command.hpp"

namespace threadmap::cli {

void add_latency_command(CLI::App& app, Runner& selected) {
  auto* sub = app.add_subcommand("latency", "(not built yet)");
  sub->allow_extras();
  sub->callback([&selected] {
    selected = [] { return fail(std::string("'latency' is not built yet in this version")); };
  });
}

}  // namespace threadmap::cli
