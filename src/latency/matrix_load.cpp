// Reading latency matrices: our JSON (schema threadmap.latency/1), our square CSV, and the
// lower-triangular CSV of nviennot/core-to-core-latency, which most published matrices use.
// Every rejection names the file, the line and the column (the 1-based cell index for CSV), so a
// user can open the file at the spot.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "src/core/json_text.hpp"
#include "src/latency/matrix.hpp"
#include "src/latency/matrix_files.hpp"
#include "src/os/files.hpp"
#include "src/os/small_text.hpp"

namespace threadmap::latency {
namespace {

struct CsvLine {
  std::size_t line_number = 0;  // 1-based line in the file
  std::vector<std::string_view> cells;
};

// Splits into non-blank lines of comma-separated, trimmed cells. No quoting: none of the
// formats we read quote anything, and a quote is then reported as a non-numeric cell.
std::vector<CsvLine> split_csv(std::string_view text) {
  std::vector<CsvLine> lines;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    std::string_view line = os::trimmed(text.substr(pos, end - pos));
    if (!line.empty()) {
      CsvLine parsed;
      parsed.line_number = line_number;
      std::size_t cell_start = 0;
      while (true) {
        std::size_t comma = line.find(',', cell_start);
        if (comma == std::string_view::npos) {
          parsed.cells.push_back(os::trimmed(line.substr(cell_start)));
          break;
        }
        parsed.cells.push_back(os::trimmed(line.substr(cell_start, comma - cell_start)));
        cell_start = comma + 1;
      }
      lines.push_back(std::move(parsed));
    }
    pos = end + 1;
  }
  return lines;
}

Error at(const std::string& name, std::size_t line, std::size_t column, const std::string& why) {
  return Error::invalid("cannot load latency matrix '" + name + "': line " + std::to_string(line) +
                        ", column " + std::to_string(column) + ": " + why);
}

// No core-to-core latency comes near 10 ms (the slowest recorded cross-node figures are a few
// microseconds); a cell beyond it is a unit mistake or a broken measurement, not a latency.
constexpr double kMaxLatencyNs = 1e7;
const char* const kLatencyRange = "a finite number of ns from 0 to 10000000";

bool in_range(double ns) { return std::isfinite(ns) && ns >= 0 && ns <= kMaxLatencyNs; }

// A latency cell: a finite number of nanoseconds in range.
bool parse_ns(std::string_view cell, double& out) {
  if (cell.empty()) return false;
  if (cell.front() == '+') cell.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), out);
  return ec == std::errc() && ptr == cell.data() + cell.size() && in_range(out);
}

bool parse_cpu(std::string_view cell, int& out) {
  if (cell.empty()) return false;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), out);
  return ec == std::errc() && ptr == cell.data() + cell.size() && out >= 0;
}

std::string quoted(std::string_view cell) { return "'" + std::string(cell) + "'"; }

// Fills the unknown direction of each pair from the known one and averages the two when both
// are given, so at(i, j) == at(j, i); says so when directions disagree by more than 10% (a
// one-way latency has no direction: such a file holds something else, or noise). Fails when no
// pair has a latency at all.
Status symmetrize(Matrix& m, const std::string& name) {
  std::size_t pairs = 0, known = 0, differing = 0;
  double worst = 1;
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      ++pairs;
      double a = m.at(i, j), b = m.at(j, i);
      if (!std::isnan(a) && !std::isnan(b)) {
        double lo = std::min(a, b), hi = std::max(a, b);
        if (hi - lo > 1.0 && hi > 1.1 * lo) {
          ++differing;
          worst = std::max(worst, lo > 0 ? hi / lo : std::numeric_limits<double>::infinity());
        }
      }
      double v = symmetric_at(m, i, j);
      if (!std::isnan(v)) ++known;
      m.at(i, j) = v;
      m.at(j, i) = v;
    }
  }
  if (known == 0)
    return Error::invalid("cannot load latency matrix '" + name +
                          "': no pair of CPUs has a latency (every cell off the diagonal is "
                          "empty or null)");
  if (differing > 0) {
    char worst_text[32];
    std::snprintf(worst_text, sizeof worst_text, std::isfinite(worst) ? "%.1fx" : "0 vs > 0",
                  worst);
    m.load_notes.push_back(std::to_string(differing) + " of " + std::to_string(pairs) +
                           " CPU pairs differ by direction by more than 10% (up to " + worst_text +
                           "): each pair's two directions were averaged");
  }
  return {};
}

// Row i of the matrix from the cells of `line` starting at `first_value` (0 for nviennot's
// CSV, 1 after the CPU label of ours); empty cells and the diagonal stay unmeasured.
Status read_row(const CsvLine& line, std::size_t first_value, std::size_t i,
                const std::string& name, Matrix& m) {
  for (std::size_t j = 0; j < m.size(); ++j) {
    std::string_view cell = line.cells[j + first_value];
    if (cell.empty() || i == j) continue;
    double v = 0;
    if (!parse_ns(cell, v)) {
      return at(name, line.line_number, j + first_value + 1,
                quoted(cell) + " is not a latency (" + kLatencyRange + ")");
    }
    m.at(i, j) = v;
  }
  return {};
}

// nviennot/core-to-core-latency: N lines of N cells, cell [i][j] filled for i > j (the first
// line is all empty). Rows are CPUs 0..N-1 in OS order. Cells above the diagonal are accepted
// when present (some forks write the full square).
Result<Matrix> parse_nviennot(const std::vector<CsvLine>& lines, const std::string& name) {
  const std::size_t n = lines.front().cells.size();
  if (lines.size() != n) {
    const auto& last = lines.back();
    return at(name, last.line_number, 1,
              "a lower-triangular matrix of " + std::to_string(n) + " columns needs " +
                  std::to_string(n) + " rows, the file has " + std::to_string(lines.size()));
  }
  std::vector<int> cpus(n);
  for (std::size_t i = 0; i < n; ++i) cpus[i] = static_cast<int>(i);
  Matrix m = make_matrix(cpus);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& line = lines[i];
    if (line.cells.size() != n) {
      return at(
          name, line.line_number, std::min(line.cells.size(), n) + 1,
          "row has " + std::to_string(line.cells.size()) + " cells, expected " + std::to_string(n));
    }
    if (Status st = read_row(line, 0, i, name, m); !st) return st.error();
  }
  if (auto st = symmetrize(m, name); !st) return st.error();
  m.cell_statistic = "as written by core-to-core-latency: the mean of its samples per pair";
  return m;
}

// Our square CSV: header "cpu,C0,C1,...", then one row per CPU "Ci,v,v,...".
Result<Matrix> parse_square(const std::vector<CsvLine>& lines, const std::string& name) {
  const auto& header = lines.front();
  std::vector<int> cpus;
  for (std::size_t j = 1; j < header.cells.size(); ++j) {
    int cpu = 0;
    if (!parse_cpu(header.cells[j], cpu)) {
      return at(name, header.line_number, j + 1,
                "header cell " + quoted(header.cells[j]) + " is not a CPU number");
    }
    if (!cpus.empty() && cpu <= cpus.back()) {
      return at(name, header.line_number, j + 1,
                "CPU numbers in the header must be ascending and unique");
    }
    cpus.push_back(cpu);
  }
  const std::size_t n = cpus.size();
  if (lines.size() != n + 1) {
    return at(name, lines.back().line_number, 1,
              "header names " + std::to_string(n) + " CPUs but the file has " +
                  std::to_string(lines.size() - 1) + " rows");
  }
  Matrix m = make_matrix(cpus);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& line = lines[i + 1];
    if (line.cells.size() != n + 1) {
      return at(name, line.line_number, std::min(line.cells.size(), n + 1) + 1,
                "row has " + std::to_string(line.cells.size()) + " cells, expected " +
                    std::to_string(n + 1) + " (CPU number + " + std::to_string(n) + " values)");
    }
    int row_cpu = 0;
    if (!parse_cpu(line.cells[0], row_cpu) || row_cpu != cpus[i]) {
      return at(name, line.line_number, 1,
                "row label " + quoted(line.cells[0]) + " should be CPU " + std::to_string(cpus[i]) +
                    " (rows follow the header order)");
    }
    if (Status st = read_row(line, 1, i, name, m); !st) return st.error();
  }
  if (auto st = symmetrize(m, name); !st) return st.error();
  m.cell_statistic = "as written in the square CSV";
  return m;
}

Result<Matrix> parse_csv(const std::string& text, const std::string& name, MatrixFormat* format) {
  auto lines = split_csv(text);
  if (lines.empty()) return Error::invalid("cannot load latency matrix '" + name + "': empty file");
  const auto& first = lines.front().cells;
  bool all_empty = true;
  for (auto c : first) all_empty = all_empty && c.empty();
  if (all_empty) {
    if (format) *format = MatrixFormat::nviennot_csv;
    return parse_nviennot(lines, name);
  }
  if (first.front() == "cpu" || first.front().empty()) {
    if (format) *format = MatrixFormat::square_csv;
    return parse_square(lines, name);
  }
  return at(name, lines.front().line_number, 1,
            "not a latency matrix: expected a header row 'cpu,0,1,...' or the all-empty first "
            "row of a lower-triangular (core-to-core-latency) CSV, found " +
                quoted(first.front()));
}

// How busy the machine was while the file's matrix was measured: its "measured_while_busy", or
// (files written before it) a busy "machine_state" that `threadmap latency --json` recorded.
std::string busy_of(const nlohmann::json& doc) {
  if (doc.contains("measured_while_busy") && doc["measured_while_busy"].is_string())
    return busy_summary(doc["measured_while_busy"].get<std::string>());
  if (!doc.contains("machine_state") || !doc["machine_state"].is_object()) return "";
  const auto& state = doc["machine_state"];
  if (!state.contains("verdict") || state["verdict"] != "busy") return "";
  if (state.contains("summary") && state["summary"].is_string() &&
      !state["summary"].get<std::string>().empty())
    return busy_summary(state["summary"].get<std::string>());
  return "others' work";
}

// The file's stability: its "stability" object when it has one, else the rule applied to its
// per-pair flags (files written before the object existed), else unknown (hand-made files).
Stability stability_of(const nlohmann::json& doc) {
  std::size_t moved = 0, checked = 0;
  if (doc.contains("stability") && doc["stability"].is_object()) {
    const auto& st = doc["stability"];
    auto count = [&](const char* key) -> std::size_t {
      return st.contains(key) && st[key].is_number_unsigned() ? st[key].get<std::size_t>() : 0;
    };
    moved = count("pairs_moved");
    checked = count("pairs_checked");
    if (checked > 0 && moved <= checked) return judge_stability(moved, checked);
  }
  if (doc.contains("pairs") && doc["pairs"].is_array()) {
    for (const auto& p : doc["pairs"]) {
      if (!p.is_object() || !p.contains("recheck")) continue;
      ++checked;
      if (p.contains("unstable") && p["unstable"].is_boolean() && p["unstable"].get<bool>())
        ++moved;
    }
  }
  return judge_stability(moved, checked);
}

Result<Matrix> parse_json(const std::string& text, const std::string& name) {
  const std::string prefix = "cannot load latency matrix '" + name + "': ";
  auto parsed = parse_json_text(text);
  if (!parsed) return Error::invalid(prefix + parsed.error().message);
  nlohmann::json doc = std::move(*parsed);
  if (!doc.is_object() || !doc.contains("cpus") || !doc.contains("matrix")) {
    return Error::invalid(prefix +
                          "JSON without \"cpus\" and \"matrix\" (expected schema "
                          "threadmap.latency/1)");
  }
  if (doc.contains("schema") &&
      (!doc["schema"].is_string() ||
       doc["schema"].get<std::string>().rfind("threadmap.latency/", 0) != 0)) {
    return Error::invalid(prefix + "\"schema\" is not threadmap.latency/*");
  }
  const auto& jcpus = doc["cpus"];
  if (!jcpus.is_array()) return Error::invalid(prefix + "\"cpus\" is not an array");
  std::vector<int> cpus;
  for (std::size_t k = 0; k < jcpus.size(); ++k) {
    if (!jcpus[k].is_number_integer() || jcpus[k].get<long long>() < 0 ||
        (!cpus.empty() && jcpus[k].get<long long>() <= cpus.back())) {
      return Error::invalid(prefix + "cpus[" + std::to_string(k) +
                            "] is not an ascending, unique CPU number");
    }
    cpus.push_back(jcpus[k].get<int>());
  }
  const auto& rows = doc["matrix"];
  if (!rows.is_array() || rows.size() != cpus.size()) {
    return Error::invalid(prefix + "\"matrix\" must have one row per CPU (" +
                          std::to_string(cpus.size()) + ")");
  }
  Matrix m = make_matrix(cpus);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].is_array() || rows[i].size() != cpus.size()) {
      return Error::invalid(prefix + "matrix[" + std::to_string(i) + "] must have " +
                            std::to_string(cpus.size()) + " values");
    }
    for (std::size_t j = 0; j < cpus.size(); ++j) {
      const auto& v = rows[i][j];
      if (v.is_null() || i == j) continue;
      if (!v.is_number() || !in_range(v.get<double>())) {
        return Error::invalid(prefix + "matrix[" + std::to_string(i) + "][" + std::to_string(j) +
                              "] = " + v.dump() + " is not a latency (" + kLatencyRange + ")");
      }
      m.at(i, j) = v.get<double>();
    }
  }
  if (auto st = symmetrize(m, name); !st) return st.error();
  if (doc.contains("cpu_model") && doc["cpu_model"].is_string()) {
    m.cpu_model = doc["cpu_model"].get<std::string>();
  }
  // Where it was measured, so a report can tell another machine's matrix from this one's.
  if (doc.contains("machine") && doc["machine"].is_object() &&
      doc["machine"].contains("hostname") && doc["machine"]["hostname"].is_string())
    m.host = doc["machine"]["hostname"].get<std::string>();
  m.stability = stability_of(doc);
  m.measured_busy = busy_of(doc);
  m.cell_statistic = doc.contains("statistic") && doc["statistic"].is_string()
                         ? doc["statistic"].get<std::string>()
                         : "as written in the JSON";
  return m;
}

}  // namespace

Result<Matrix> parse_matrix_text(const std::string& text, const std::string& name,
                                 MatrixFormat* format) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    return Error::invalid("cannot load latency matrix '" + name + "': empty file");
  }
  Result<Matrix> m = Error::invalid("");
  if (text[first] == '{') {
    if (format) *format = MatrixFormat::threadmap_json;
    m = parse_json(text, name);
  } else {
    m = parse_csv(text, name, format);
  }
  if (m) {
    m->source = name;
    if (m->size() < 2) {
      return Error::invalid("cannot load latency matrix '" + name +
                            "': it holds fewer than 2 CPUs");
    }
  }
  return m;
}

Result<Matrix> load_matrix(const std::string& path) {
  auto text = os::read_file(path, os::kDefaultReadLimit, "latency matrix");
  if (!text) return text.error();
  return parse_matrix_text(*text, path == "-" ? "stdin" : path);
}

}  // namespace threadmap::latency
