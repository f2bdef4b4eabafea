#include "src/cluster/rank_export.hpp"

#include <algorithm>

#include "src/core/text.hpp"

namespace threadmap::cluster {
namespace {

bool one_each(const std::vector<std::vector<int>>& sets) {
  return std::all_of(sets.begin(), sets.end(), [](const auto& s) { return s.size() == 1; });
}

// map_X:a,b,c when every rank has exactly one, mask_X:0x..,0x.. otherwise.
std::string per_rank(const char* what, const std::vector<std::vector<int>>& sets) {
  std::vector<std::string> items;
  const bool map = one_each(sets);
  for (const auto& s : sets) items.push_back(map ? std::to_string(s[0]) : plain_hex_mask(s));
  return std::string(map ? "map_" : "mask_") + what + ":" + joined(items, ",");
}

}  // namespace

std::string plain_hex_mask(const std::vector<int>& bits) {
  if (bits.empty()) return "0x0";
  const int top = *std::max_element(bits.begin(), bits.end());
  std::vector<int> nibbles(static_cast<size_t>(top / 4 + 1), 0);
  for (int b : bits)
    if (b >= 0) nibbles[static_cast<size_t>(b / 4)] |= 1 << (b % 4);
  std::string out = "0x";
  for (auto it = nibbles.rbegin(); it != nibbles.rend(); ++it) out += "0123456789abcdef"[*it];
  return out;
}

const std::vector<std::string>& rank_export_names() {
  static const std::vector<std::string> names = {"slurm", "rankfile", "wrapper"};
  return names;
}

Result<RankExport> parse_rank_export(std::string_view text) {
  if (text == "slurm") return RankExport::slurm;
  if (text == "rankfile") return RankExport::rankfile;
  if (text == "wrapper") return RankExport::wrapper;
  return Error::invalid("unknown format '" + std::string(text) +
                        "' for rank shares (slurm, rankfile or wrapper)");
}

std::string export_ranks(const std::vector<RankShare>& shares, RankExport format,
                         const std::string& host) {
  if (format == RankExport::wrapper) return export_ranks(shares, {}, format, host);
  std::string out;
  if (format == RankExport::slurm) {
    std::vector<std::vector<int>> cpus, nodes;
    bool nodes_known = true;
    for (const RankShare& s : shares) {
      cpus.push_back(s.cpus.to_vector());
      nodes.push_back(s.memory_nodes);
      nodes_known = nodes_known && !s.memory_nodes.empty();
    }
    out += "# " + std::to_string(shares.size()) +
           " ranks per node, one share each (CPUs and memory nodes are OS numbers)\n";
    out += "srun --ntasks-per-node=" + std::to_string(shares.size()) +
           " --cpu-bind=" + per_rank("cpu", cpus);
    if (nodes_known) out += " --mem-bind=" + per_rank("mem", nodes);
    out += " CMD\n";
    if (!nodes_known) out += "# NUMA nodes unknown: no --mem-bind\n";
    return out;
  }
  out += "# Open MPI rankfile, physical CPU numbers (OS numbering, as in /proc):\n";
  out += "#   mpirun --use-hwthread-cpus --mca rmaps_rank_file_physical 1 --rankfile FILE CMD\n";
  for (size_t k = 0; k < shares.size(); ++k) {
    std::vector<std::string> cpus;
    for (int cpu : shares[k].cpus.to_vector()) cpus.push_back(std::to_string(cpu));
    out += "rank " + std::to_string(k) + "=" + host + " slot=" + joined(cpus, ",") + "\n";
  }
  return out;
}

}  // namespace threadmap::cluster
