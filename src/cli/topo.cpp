// threadmap topo [--topology FILE.xml] [--json | --summary]: the tree, then the devices (GPUs,
// NICs, NVMe drives) with their locality.
#include <memory>

#include "src/cli/command.hpp"
#include "src/core/devices.hpp"
#include "src/render/device_view.hpp"
#include "src/render/topology_view.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {
namespace {

struct TopoOptions {
  std::string topology_file;
  bool json = false;
  bool summary = false;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

int run_topo(const TopoOptions& opt) {
  // topo's one library call is core's loader, which does not know what its path was called;
  // the file is the request member `topology_file`, as in latency, plan and bench.
  auto topo = opt.topology_file.empty() ? Topology::load_this_machine()
                                        : Topology::load_xml(opt.topology_file);
  if (!topo && !opt.topology_file.empty())
    return fail(topo.error().about("topology_file"), opt.flags);
  if (!topo) return fail(topo.error());
  // The summary counts devices; the table and JSON also give UUIDs (a management library).
  DeviceInventory devices = device_inventory(*topo, /*management=*/!opt.summary);
  if (opt.json) {
    nlohmann::json doc = render::topology_json(*topo);
    render::add_devices(doc, devices);
    print(doc.dump(2) + "\n");
  } else if (opt.summary) {
    print(render::topology_summary(*topo) + "; " + render::device_counts_text(devices) + "\n");
  } else {
    print(render::topology_tree(*topo) + render::device_table_text(devices));
  }
  return 0;
}

}  // namespace

void add_topo_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<TopoOptions>();
  auto* sub = app.add_subcommand(
      "topo",
      "Show the topology: packages, NUMA, caches, cores, SMT siblings, allowed CPUs, and the "
      "GPUs, NICs and NVMe drives with the CPUs and NUMA node near each");
  TM_OPTION(opt->flags, sub, "--topology", *opt, topology_file,
            "Load another machine from an hwloc XML export (lstopo --of xml)");
  auto* json =
      TM_FLAG(opt->flags, sub, "--json", *opt, json, "Print JSON (schema threadmap.topology/1)");
  TM_FLAG(opt->flags, sub, "--summary", *opt, summary, "Print one line")->excludes(json);
  sub->callback([&selected, opt] { selected = [opt] { return run_topo(*opt); }; });
}

}  // namespace threadmap::cli
