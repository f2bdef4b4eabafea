#include "src/latency/matrix_mismatch.hpp"

namespace threadmap::latency {

std::vector<std::string> matrix_mismatch_notes(const Matrix& matrix, const Topology& topo) {
  std::vector<std::string> notes;
  CpuSet matrix_cpus = CpuSet::from_vector(matrix.cpus);
  if (!matrix_cpus.is_subset_of(topo.complete_cpus()))
    notes.push_back("the latency matrix (" + matrix.source + ") covers CPUs " +
                    matrix_cpus.to_list() + " but this machine has " +
                    topo.complete_cpus().to_list() +
                    ": it was probably measured on another "
                    "machine");
  if (!matrix.cpu_model.empty() && !topo.cpu_model().empty() &&
      matrix.cpu_model != topo.cpu_model())
    notes.push_back("the latency matrix was measured on a '" + matrix.cpu_model +
                    "', this machine is a '" + topo.cpu_model() + "'");
  return notes;
}

}  // namespace threadmap::latency
