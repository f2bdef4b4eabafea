// Latency results as files: the writers of our square CSV and JSON (schema "threadmap.latency/1",
// documented in docs/latency.md). Their reader, latency::load_matrix / parse_matrix_text, sits
// beside them (matrix_load.cpp): one home per data format, so the two cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/latency/compare.hpp"
#include "src/latency/domains.hpp"
#include "src/latency/matrix.hpp"
#include "src/latency/measurement.hpp"

namespace threadmap::latency {

/// Square CSV: header "cpu,0,1,..." (OS CPU numbers), then one row per CPU "0,ns,ns,..."; one-way
/// ns, diagonal 0, unmeasured cells empty.
std::string latency_csv(const latency::Matrix& matrix);

/// The JSON document: matrix, levels/domains/SMT siblings and, when `measurement` is given,
/// per-pair statistics, flags, method, clock resolution and machine metadata.
nlohmann::json latency_json(const latency::Matrix& matrix, const latency::DomainAnalysis& domains,
                            const latency::Measurement* measurement);

/// The comparison with a topology as the JSON document's "topology_comparison" value:
/// {"topology": source, "levels": [{latency_level, hwloc_level, relation, sentence}, ...]}.
nlohmann::json topology_comparison_json(const latency::TopologyComparison& comparison,
                                        const std::string& topology_source);

/// A CpuSet as a JSON array of CPU numbers.
nlohmann::json cpu_array(const CpuSet& cpus);

}  // namespace threadmap::latency
