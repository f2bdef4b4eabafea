#include "src/experiments/bench_command.hpp"

#include "threadmap/cpuset.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::experiments {
namespace {

// "3,17" -> {3, 17}.
Result<CpuPair> parse_pair(const std::string& text) {
  auto bad = [&] { return Error::bad_input("pair", "'" + text + "': expected two CPUs, 'A,B'"); };
  auto comma = text.find(',');
  if (comma == std::string::npos) return bad();
  auto a = CpuSet::parse_list(text.substr(0, comma));
  auto b = CpuSet::parse_list(text.substr(comma + 1));
  if (!a || !b || a->count() != 1 || b->count() != 1) return bad();
  return CpuPair{a->first(), b->first()};
}

}  // namespace

Result<BenchCommand> bench_request(const BenchCommandOptions& o) {
  BenchCommand command;
  command.entry = find_bench(o.name);
  if (!command.entry) return Error::bad_input("name", "unknown bench '" + o.name + "'");
  if (!command.entry->takes_pair_and_latency)
    for (auto [member, given] :
         {std::pair{"pair", !o.pair.empty()}, std::pair{"latency_file", !o.latency_file.empty()}})
      if (given)
        return Error::bad_input(member,
                                "a CPU pair and a latency matrix apply to 'pingpong' only, "
                                "not '" +
                                    o.name + "'");
  if (!o.pair.empty()) {
    auto pair = parse_pair(o.pair);
    if (!pair) return pair.error();
    command.request.pair = *pair;
  }
  command.request.latency_file = o.latency_file;
  command.request.options.quick = o.quick;
  command.request.options.runs = o.runs.value_or(o.quick ? 3 : 5);
  return command;
}

Result<BenchResult> run_bench_command(const BenchCommand& command) {
  auto topo = Topology::load_this_machine();
  if (!topo) return topo.error();
  // Through the registry: a bench bound to a corner of the machine by a launcher says so.
  return run_bench(command.entry->name, *topo, command.request);
}

}  // namespace threadmap::experiments
