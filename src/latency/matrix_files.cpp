// Writers for latency matrices. Numbers are written with enough digits to round-trip at the
// precision anyone measures (0.01 ns), not the 17 digits a double could carry.
#include "src/latency/matrix_files.hpp"

#include <fmt/format.h>

#include <cmath>

namespace threadmap::latency {
namespace {

nlohmann::json ns_value(double v) {
  if (!std::isfinite(v)) return nullptr;
  return std::round(v * 1000.0) / 1000.0;
}

nlohmann::json groups_json(const std::vector<CpuSet>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : groups) out.push_back(cpu_array(g));
  return out;
}

nlohmann::json pair_json(const latency::PairStats& p) {
  nlohmann::json j = {
      {"cpus", {p.cpu_a, p.cpu_b}},
      {"initiator", p.cpu_a},
      {"reported_ns", ns_value(p.reported_ns)},
      {"median_ns", ns_value(p.median_ns)},
      {"min_ns", ns_value(p.min_ns)},
      {"p90_ns", ns_value(p.p90_ns)},
      {"ci95_ns", {ns_value(p.ci_low_ns), ns_value(p.ci_high_ns)}},
      {"samples", p.samples},
      {"round_trips_per_sample", p.round_trips_per_batch},
      {"converged", p.converged},
      {"elapsed_ms", ns_value(p.elapsed_ms)},
      {"unstable", p.unstable},
      {"multimodal", p.multimodal},
  };
  if (p.rechecked) {
    // The interval above is within-run precision; what a rerun may give is this spread.
    const double mean = (p.median_ns + p.recheck_median_ns) / 2;
    j["between_pass_spread_pct"] =
        ns_value(mean > 0 ? std::abs(p.median_ns - p.recheck_median_ns) / mean * 100 : 0.0);
    j["recheck"] = {{"median_ns", ns_value(p.recheck_median_ns)},
                    {"ci95_ns", {ns_value(p.recheck_ci_low_ns), ns_value(p.recheck_ci_high_ns)}}};
  }
  if (!p.modes_ns.empty()) {
    nlohmann::json modes = nlohmann::json::array();
    for (double m : p.modes_ns) modes.push_back(ns_value(m));
    j["modes_ns"] = modes;
  }
  if (!p.represents.empty()) j["represents"] = p.represents;
  return j;
}

}  // namespace

nlohmann::json topology_comparison_json(const latency::TopologyComparison& comparison,
                                        const std::string& topology_source) {
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& c : comparison.lines) {
    lines.push_back({{"latency_level", c.latency_level},
                     {"hwloc_level", c.hwloc_level},
                     {"relation", latency::relation_name(c.relation)},
                     {"sentence", c.sentence}});
  }
  return {{"topology", topology_source},
          {"levels", lines},
          {"smt_agrees", comparison.smt_agrees},
          {"domains_agree", comparison.domains_agree}};
}

nlohmann::json cpu_array(const CpuSet& cpus) {
  nlohmann::json out = nlohmann::json::array();
  for (int c : cpus.to_vector()) out.push_back(c);
  return out;
}

std::string latency_csv(const latency::Matrix& matrix) {
  std::string out = "cpu";
  for (int c : matrix.cpus) out += fmt::format(",{}", c);
  out += '\n';
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    out += std::to_string(matrix.cpus[i]);
    for (std::size_t j = 0; j < matrix.size(); ++j) {
      double v = matrix.at(i, j);
      if (std::isfinite(v)) {
        out += fmt::format(",{:.3f}", v);
      } else {
        out += ',';
      }
    }
    out += '\n';
  }
  return out;
}

nlohmann::json latency_json(const latency::Matrix& matrix, const latency::DomainAnalysis& domains,
                            const latency::Measurement* measurement) {
  nlohmann::json doc;
  doc["schema"] = "threadmap.latency/1";
  doc["unit"] = "ns";
  doc["quantity"] = "one-way latency = round trip / 2";
  doc["source"] = matrix.source;
  doc["cpu_model"] = matrix.cpu_model;
  nlohmann::json cpus = nlohmann::json::array();
  for (int c : matrix.cpus) cpus.push_back(c);
  doc["cpus"] = cpus;
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t j = 0; j < matrix.size(); ++j) row.push_back(ns_value(matrix.at(i, j)));
    rows.push_back(row);
  }
  doc["matrix"] = rows;

  nlohmann::json levels = nlohmann::json::array();
  for (std::size_t l = 0; l < domains.levels.size(); ++l) {
    levels.push_back(
        {{"name", domains.level_names[l]},
         {"cut_ns", ns_value(domains.level_cut_ns[l])},
         {"gap_ratio", ns_value(domains.level_gap_ratio[l])},
         {"identified_by",
          l < domains.level_source.size() ? domains.level_source[l] : std::string("latency")},
         {"note", l < domains.level_note.size() ? domains.level_note[l] : std::string()},
         {"groups", groups_json(domains.levels[l])}});
  }
  doc["levels"] = levels;
  doc["domains"] = groups_json(domains.domains);
  doc["smt_siblings"] = groups_json(domains.smt_siblings);
  doc["smt_found"] = domains.smt_found;
  doc["smt_reason"] = domains.smt_reason;
  // Read back by `latency --load` and `plan --latency`: an unstable matrix infers no structure.
  doc["stability"] = {{"state", matrix.stability.state},
                      {"pairs_moved", matrix.stability.pairs_moved},
                      {"pairs_checked", matrix.stability.pairs_checked},
                      {"reason", matrix.stability.reason}};
  // Read back by the same readers: values measured beside others' work are marked wherever used.
  doc["measured_while_busy"] =
      matrix.measured_busy.empty() ? nlohmann::json(nullptr) : nlohmann::json(matrix.measured_busy);

  if (measurement) {
    const auto& m = *measurement;
    doc["statistic"] =
        matrix.cell_statistic +
        "; ci95_ns = within-run 95% CI of the median (order statistics): the precision of this "
        "pass, not what a rerun gives; between_pass_spread_pct = |pass 1 - pass 2| / mean";
    doc["method"] = latency::method_name(m.method);
    doc["clock_resolution_ns"] = ns_value(m.clock_resolution_ns);
    doc["min_batch_ns"] = ns_value(m.min_batch_ns);
    doc["precision"] = m.precision;
    doc["budget_ms"] = m.budget_ms;
    doc["total_s"] = ns_value(m.total_s);
    doc["passes_s"] = ns_value(m.passes_s);
    doc["quick"] = m.quick;
    doc["line_placement"] = m.line_placement;
    doc["machine"] = {
        {"hostname", m.hostname}, {"kernel", m.kernel}, {"cpu_model", matrix.cpu_model}};
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : m.pairs) pairs.push_back(pair_json(p));
    doc["pairs"] = pairs;
    doc["notes"] = m.notes;
  } else {
    doc["statistic"] =
        matrix.cell_statistic.empty() ? "as stored in " + matrix.source : matrix.cell_statistic;
  }
  return doc;
}

}  // namespace threadmap::latency
