// The `threadmap run` line tune prints for a candidate is the inverse of the `run` parser: pasted
// into a shell, the real `threadmap run` prepares exactly the launch tune measured (the same
// options, apply::RunOptions, checked by the same apply::run_request on both sides). Each
// candidate's run arguments are run with a shell that prints the environment it was started with
// (/proc/self/environ: the preload libraries clear their variables from the live environment so
// that programs it starts do not inherit them), and that is compared with what
// apply::prepare_command makes of the candidate's options: the pin configuration, the memory
// policy, the preloaded libraries.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "src/apply/run_command.hpp"
#include "src/tune/candidates.hpp"
#include "tests/integration/run/run_helpers.hpp"

namespace {

using namespace threadmap;

// NAME=VALUE lines, for the variables threadmap sets (TM_*) and LD_PRELOAD.
std::map<std::string, std::string> ours(const std::string& env_output) {
  std::map<std::string, std::string> vars;
  std::istringstream in(env_output);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = line.substr(0, eq);
    if (name.starts_with("TM_") || name == "LD_PRELOAD") vars[name] = line.substr(eq + 1);
  }
  return vars;
}

// What prepare_run sets, in the same form.
std::map<std::string, std::string> expected(const os::LaunchSpec& spec) {
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : spec.set_env)
    if (name.starts_with("TM_") || name == "LD_PRELOAD") vars[name] = value;
  if (!spec.preload.empty()) vars["LD_PRELOAD"] = os::compose_ld_preload(spec.preload, nullptr);
  return vars;
}

TEST(TuneRunLine, EveryCandidatesLineLaunchesWhatTuneMeasured) {
#ifdef THREADMAP_SANITIZED
  GTEST_SKIP() << "the preloaded program would need the sanitizer runtime first";
#endif
  auto topology = Topology::load_this_machine();
  ASSERT_TRUE(topology);
  const std::string list =
      "os,compact,scatter,one-core,cpus:0,cache" +
      std::string(tune::nodes_with_cpus(*topology) > 1 ? ",mem-local,mem-interleave" : "");
  auto set =
      tune::make_candidates(list, *topology, {"sh", "-c", "tr '\\0' '\\n' < /proc/$$/environ"},
                            /*thread_cache=*/true);
  ASSERT_TRUE(set) << set.error().message;
  int compared = 0;
  for (const tune::Candidate& c : set->list) {
    if (c.is_os()) continue;
    auto checked = apply::run_request(c.options);
    ASSERT_TRUE(checked) << c.name << ": " << checked.error().message;
    auto prepared = apply::prepare_command(*checked, {}, /*watch_for_record=*/false);
    ASSERT_TRUE(prepared) << c.name << ": " << prepared.error().message;
    const os::LaunchSpec* spec = &prepared->launch;
    // The arguments exactly as the run line prints them (shell-quoted), run by a shell.
    std::vector<std::string> args = apply::run_arguments(c.options);
    tm_test::Output o =
        tm_test::run(std::string(THREADMAP_BIN) + " " + apply::shell_join(args) + " </dev/null");
    ASSERT_EQ(o.status, 0) << c.name << ": " << o.err;
    const auto got = ours(o.out);
    const auto want = expected(*spec);
    EXPECT_FALSE(want.empty()) << c.name << ": the candidate applies nothing";
    for (const auto& [name, value] : want) {
      auto it = got.find(name);
      ASSERT_NE(it, got.end()) << c.name << ": " << name << " not set by `threadmap "
                               << apply::shell_join(args) << "`";
      EXPECT_EQ(it->second, value) << c.name << ": " << name;
    }
    ++compared;
  }
  EXPECT_GE(compared, 4);
}

}  // namespace
