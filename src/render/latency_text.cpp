// Long lists are cut: a 512-CPU machine has 256 SMT pairs, which the JSON carries in full.
#include "src/render/latency_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/core/text.hpp"
#include "src/latency/matrix_summary.hpp"
#include "src/render/text_fill.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

// The matrix's stability in one line; "unknown" for files that carry no per-pair checks.
std::string stability_line(const latency::Stability& st) {
  if (st.state == "unknown")
    return "stability unknown (the matrix carries no second pass per pair); analysed as given";
  if (st.state == "unstable") return "UNSTABLE: " + st.reason;
  return "stable: " + st.reason;
}

// A stable matrix measured beside others' work held still at the wrong values: said with it.
std::string stability_line(const latency::Matrix& m) {
  std::string out = stability_line(m.stability);
  if (!m.measured_busy.empty() && m.stability.state == "stable")
    out +=
        "; but the machine was busy while it was measured, so these are stable values of a "
        "busy machine";
  return out;
}

// Groups as "[0-7,64-71]  [8-15,72-79] ...", wrapped at ~100 columns with `indent`.
std::string groups_line(const std::vector<CpuSet>& groups, std::size_t max_shown,
                        std::size_t indent = 11) {
  std::string out, line;
  for (std::size_t g = 0; g < groups.size() && g < max_shown; ++g) {
    std::string item = "[" + groups[g].to_list() + "]";
    if (!line.empty() && indent + line.size() + 2 + item.size() > 100) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : "  ") + item;
  }
  out += line;
  if (groups.size() > max_shown) out += fmt::format("  ... ({} more)", groups.size() - max_shown);
  return out;
}

std::string sizes_of(const std::vector<CpuSet>& groups) {
  std::vector<std::size_t> sizes;
  for (const auto& g : groups) sizes.push_back(g.count());
  std::sort(sizes.begin(), sizes.end());
  if (sizes.empty()) return "";
  const char* plural = sizes.front() == 1 ? "" : "s";
  if (sizes.size() == 1) return fmt::format("{} CPU{}", sizes.front(), plural);
  if (sizes.front() == sizes.back()) return fmt::format("{} CPU{} each", sizes.front(), plural);
  return fmt::format("{}-{} CPUs", sizes.front(), sizes.back());
}

std::string cpu_list(const std::vector<int>& cpus, std::size_t max_shown) {
  std::string out =
      CpuSet::from_vector(
          std::vector<int>(cpus.begin(),
                           cpus.begin() + static_cast<long>(std::min(max_shown, cpus.size()))))
          .to_list();
  if (cpus.size() > max_shown) out += fmt::format(" +{}", cpus.size() - max_shown);
  return out;
}

std::string ns(double v) { return std::isfinite(v) ? fmt::format("{:.1f}", v) : "-"; }

// Said with the numbers wherever they are shown: values measured beside others' work.
std::string busy_warning(const latency::Matrix& matrix) {
  if (matrix.measured_busy.empty()) return "";
  return "WARNING: measured while the machine was busy (" + matrix.measured_busy +
         "): these values include others' load, not only the hardware's; remeasure on a quiet "
         "machine\n";
}

}  // namespace

std::string latency_provenance(const latency::Matrix& matrix,
                               const latency::Measurement* measurement) {
  if (!measurement) {
    std::string out = fmt::format(
        "one-way core-to-core latency in ns, loaded from {} ({} CPUs{}); cells {}\n", matrix.source,
        matrix.size(), matrix.cpu_model.empty() ? "" : ", " + matrix.cpu_model,
        matrix.cell_statistic.empty() ? "as stored" : matrix.cell_statistic);
    for (const auto& note : matrix.load_notes) out += "note: " + note + "\n";
    return fill_lines(out + busy_warning(matrix));
  }
  const auto& m = *measurement;
  const latency::PassAgreement agreement = latency::pass_agreement(m);
  std::string out = fmt::format(
      "one-way core-to-core latency in ns = round trip / 2, method {}, on {} ({} CPUs): per pair "
      "the median of its timed batches (>= {:.0f} us each, clock resolution {:.0f} ns), "
      "{} pair{}, {} batches in the first passes; {} measuring, {} of it in the pair passes\n",
      latency::method_name(m.method), matrix.cpu_model.empty() ? "this machine" : matrix.cpu_model,
      matrix.size(), m.min_batch_ns / 1000, m.clock_resolution_ns, m.pairs.size(),
      m.pairs.size() == 1 ? "" : "s", agreement.samples, duration_text(m.total_s),
      duration_text(m.passes_s));
  // Wherever the numbers are shown (terminal, report), say when they did not hold still.
  std::string example;
  if (agreement.first_unsteady >= 0) {
    const latency::PairStats& p = m.pairs[static_cast<std::size_t>(agreement.first_unsteady)];
    // The matrix's value first, so the number a reader looks up is the one the text gives.
    example = fmt::format("CPUs {}-{}: {} ns in the matrix", p.cpu_a, p.cpu_b, ns(p.reported_ns));
    example += p.rechecked
                   ? fmt::format(" (passes {} and {} ns)", ns(p.median_ns), ns(p.recheck_median_ns))
                   : fmt::format(" (one pass, {} ns)", ns(p.median_ns));
    if (!p.modes_ns.empty()) {
      example += ", modes at";
      for (double v : p.modes_ns) example += " " + ns(v);
      example += " ns";
    }
  }
  if (agreement.rechecked > 0)
    out += fmt::format(
        "between-pass spread: median {:.1f}%, worst {:.1f}% (the within-run 95% "
        "intervals are narrower: they are one pass's precision)\n",
        agreement.median_spread_pct, agreement.worst_spread_pct);
  if (agreement.unsteady > 0)
    out += fmt::format(
        "WARNING: {} of {} pairs did not hold still (unstable between passes or in separate "
        "modes; {}): treat their values as one observation, not a fact\n",
        agreement.unsteady, m.pairs.size(), example);
  return fill_lines(out + busy_warning(matrix));
}

namespace {

// The spread of the whole matrix in one line: the first thing that says whether placement
// matters here at all.
std::string spread_line(const latency::Matrix& matrix) {
  const latency::PairSpread s = latency::pair_spread(matrix);
  if (s.pairs == 0) return "";
  // One value (one pair, or all alike) is said once, not as "min 31.0, median 31.0, max 31.0".
  if (ns(s.min_ns) == ns(s.max_ns))
    return s.pairs == 1 ? fmt::format("pairs: {} ns (the one pair)\n", ns(s.min_ns))
                        : fmt::format("pairs: {} ns, all {} of them\n", ns(s.min_ns), s.pairs);
  return fmt::format("pairs: min {} ns, median {} ns, max {} ns over {} pair(s) ({:.1f}x spread)\n",
                     ns(s.min_ns), ns(s.median_ns), ns(s.max_ns), s.pairs, s.max_over_min);
}

// Why no domains are shown for a matrix whose pairs moved, and what to do instead.
std::string not_inferred_text(const latency::DomainAnalysis& d) {
  return "\nlatency domains: none inferred. The pairs did not hold still, so a grouping read "
         "from this matrix would describe where the host had the vCPUs at that moment, not the "
         "machine. Place by the topology (plan does so and says why), or pin the VM's vCPUs to "
         "host cores and measure again.\n" +
         fmt::format("  SMT: not inferred ({})\n", d.not_inferred);
}

// One level of the domains: its groups, where it was cut and what identified it.
std::string level_text(const latency::DomainAnalysis& d, std::size_t l) {
  std::string how;
  if (d.level_gap_ratio[l] > 0) {
    how = fmt::format("joined below {} ns, next merge {:.2f}x slower", ns(d.level_cut_ns[l]),
                      d.level_gap_ratio[l]);
  } else if (l == 0) {
    how = "no SMT siblings visible in the latencies";
  } else {
    how = "everything";
  }
  const std::string source = l < d.level_source.size() ? d.level_source[l] : std::string("latency");
  std::string out = fmt::format(
      "  {:<8} {:>4} group{}, {} ({}; identified by: {})\n", d.level_names[l], d.levels[l].size(),
      d.levels[l].size() == 1 ? "" : "s", sizes_of(d.levels[l]), how, source);
  if (l < d.level_note.size() && !d.level_note[l].empty())
    out += "           " + d.level_note[l] + "\n";
  if (d.levels[l].size() > 1 && !(l == 0 && !d.smt_found)) {
    out += "           " + groups_line(d.levels[l], l == 0 ? 8 : 16) + "\n";
  }
  return out;
}

std::string domains_text(const latency::DomainAnalysis& d) {
  std::string out =
      "\nlatency domains (average-linkage clustering of the matrix; a level starts where\n"
      "the merge latency jumps):\n";
  for (std::size_t l = 0; l < d.levels.size(); ++l) out += fill_lines(level_text(d, l), 100, 13);
  out += fmt::format("  domains for placement (CPUs sharing a cache):\n           {}\n",
                     groups_line(d.domains, 64));
  out += fill_lines(fmt::format("  SMT: {} ({})\n", d.smt_found ? "yes" : "no", d.smt_reason));
  return out;
}

// Where CPU numbering misleads: each CPU's next number against its nearest partner.
std::string numbering_text(const latency::NumberingLies& numbering) {
  std::string out =
      "\nnumbering lies: next CPU number vs nearest partner (one-way ns; worst first)\n";
  TextTable table({"cpu>", "next cpu>", "ns>", "nearest partner(s)", "ns>", "cost>"});
  for (const auto& c : numbering.worst) {
    if (c.next_cpu < 0) continue;
    table.add_row({std::to_string(c.cpu), std::to_string(c.next_cpu), ns(c.next_ns),
                   cpu_list(c.nearest, 6), ns(c.nearest_ns), fmt::format("{:.2f}x", c.cost_ratio)});
  }
  out += table.str();
  out += fmt::format("  {} of {} CPUs have a partner >1.5x nearer than the next CPU number\n",
                     numbering.far_numbered, numbering.cpus.size());
  return out;
}

// Every measured pair with its statistics and flags; only for small runs (16 pairs or fewer),
// where a reader can take the table in.
std::string pairs_table(const std::vector<latency::PairStats>& pairs) {
  TextTable table({"pair", "reported ns>", "median ns>", "within-run 95% CI ns", "min ns>",
                   "p90 ns>", "re-check ns>", "between-pass>", "batches>", "flags"});
  for (const auto& p : pairs) {
    std::string flags;
    if (!p.converged) flags += "not-converged ";
    if (p.unstable) flags += "UNSTABLE ";
    if (p.multimodal) flags += "multimodal ";
    if (!p.modes_ns.empty()) {
      flags += "modes";
      for (double v : p.modes_ns) flags += " " + ns(v);
    }
    if (!p.represents.empty()) flags += "represents " + p.represents;
    table.add_row({fmt::format("{}-{}", p.cpu_a, p.cpu_b), ns(p.reported_ns), ns(p.median_ns),
                   ns(p.ci_low_ns) + "-" + ns(p.ci_high_ns), ns(p.min_ns), ns(p.p90_ns),
                   p.rechecked ? ns(p.recheck_median_ns) : "-",
                   p.rechecked ? fmt::format("{:.1f}%", latency::between_pass_pct(p)) : "-",
                   std::to_string(p.samples), flags});
  }
  return table.str();
}

// How precise one pass was against how much a rerun moved: the within-run interval alone would
// promise more than the machine keeps.
std::string precision_lines(const latency::Measurement& m) {
  std::string out;
  const latency::PassAgreement a = latency::pass_agreement(m);
  if (std::isfinite(a.median_halfwidth_pct)) {
    out += fmt::format(
        "  {} of {} pairs converged to +-{:.1f}% (median within-run 95%-CI half-width {:.1f}% "
        "of the median, worst {:.1f}%: the precision of one pass, not what a rerun gives)\n",
        a.converged, a.pairs, m.precision * 100, a.median_halfwidth_pct, a.worst_halfwidth_pct);
  }
  // The between-pass spread and the warning about pairs that moved are said once, in the
  // provenance above the matrix; here only what it cannot say.
  if (a.rechecked == 0)
    out +=
        "  between-pass spread: not measured (--no-recheck): rerun to see how much the "
        "numbers move\n";
  return out;
}

std::string measurement_text(const latency::Measurement& m) {
  std::string out = fill_lines("\nmeasurement: line placement: " + m.line_placement + "\n");
  if (m.pairs.size() <= 16) out += pairs_table(m.pairs);
  out += fill_lines(precision_lines(m), 100, 4);
  if (!m.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& note : m.notes) out += fill_lines("  - " + note + "\n", 100, 2);
  }
  return out;
}

}  // namespace

std::string latency_analysis_text(const LatencyTextInput& in) {
  const auto& d = *in.domains;
  std::string out = spread_line(*in.matrix);
  out += fill_lines("\nstability: " + stability_line(*in.matrix) + "\n");
  // A matrix that did not hold still gets no domains, and nothing read from them (the topology
  // comparison, the numbering); how it was measured and its notes (quick mode, the pairs that
  // moved) are still what the user needs to judge it.
  if (!d.not_inferred.empty()) {
    out += not_inferred_text(d);
  } else {
    out += domains_text(d);
    if (in.comparison) {
      out += "\ncompared with the topology (" + in.topology_source + "):\n";
      for (const auto& line : in.comparison->lines) out += "  " + line.sentence + "\n";
    }
    if (in.numbering) out += numbering_text(*in.numbering);
  }
  if (in.measurement) out += measurement_text(*in.measurement);
  return out;
}

}  // namespace threadmap::render
