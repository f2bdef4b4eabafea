#include "src/fleet/fleet_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "src/core/sample_stats.hpp"
#include "src/os/files.hpp"

namespace threadmap::fleet {
namespace {

// A categorical item: its name, the kind of difference, and how to read it from a host.
struct Item {
  const char* name;
  const char* kind;
  std::function<std::string(const HostRecord&)> value;
};

std::string number(int n) { return n < 0 ? "unknown" : std::to_string(n); }

const std::vector<Item>& items() {
  static const std::vector<Item> list = {
      {"CPUs", "missing_cpus", [](const HostRecord& h) { return h.complete_cpus; }},
      {"allowed CPUs", "allowed_cpus", [](const HostRecord& h) { return h.allowed_cpus; }},
      {"SMT", "smt", [](const HostRecord& h) { return std::string(h.smt ? "on" : "off"); }},
      {"NUMA nodes", "numa_mode", [](const HostRecord& h) { return number(h.numa_nodes); }},
      {"L3 domains", "l3_domains", [](const HostRecord& h) { return number(h.l3_domains); }},
      {"cores", "cores", [](const HostRecord& h) { return number(h.cores); }},
      {"kernel", "kernel", [](const HostRecord& h) { return h.kernel; }},
  };
  return list;
}

struct Sample {
  const HostRecord* host;
  double value;
  double ci;  ///< the host's own interval on it (0: none)
};

// One measured metric over a group's fair hosts: its noise (MetricNoise) and `off` for each
// host beyond the floor. Ratios to the median, in logs: 2x slower and 2x faster are as far.
void compare_metric(const std::string& metric, std::vector<Sample>& samples, double min_ratio,
                    double default_ratio, const FleetRules& rules, FleetGroup& group,
                    const std::function<void(const Sample&, double, double)>& off) {
  samples.erase(std::remove_if(samples.begin(), samples.end(),
                               [](const Sample& x) { return !(x.value > 0); }),
                samples.end());
  const size_t n = samples.size();
  if (n < static_cast<size_t>(rules.min_hosts_for_median)) return;
  std::vector<double> logs;
  for (const Sample& x : samples) logs.push_back(std::log(x.value));
  const double med = median(logs);
  std::vector<double> dev;
  for (double l : logs) dev.push_back(std::fabs(l - med));
  const double sigma = 1.4826 * median(dev);
  MetricNoise noise;
  noise.metric = metric;
  noise.hosts = static_cast<int>(n);
  noise.spread = std::exp(sigma);
  if (n >= static_cast<size_t>(rules.min_hosts_for_noise)) {
    noise.floor = std::max(std::exp(rules.noise_sigmas * sigma), min_ratio);
    noise.basis = fmt::format("measured: {:.0f} robust sigmas of {} hosts", rules.noise_sigmas, n);
  } else {
    noise.floor = std::max(std::exp(rules.noise_sigmas * sigma), default_ratio);
    noise.basis = fmt::format("default for groups under {} hosts", rules.min_hosts_for_noise);
  }
  noise.limit = rules.too_noisy_ratio;
  noise.too_noisy = noise.spread > rules.too_noisy_ratio;
  group.noise.push_back(noise);
  if (noise.too_noisy) return;
  const double median = std::exp(med);
  for (size_t i = 0; i < n; ++i)
    if (std::exp(dev[i]) > noise.floor &&
        std::fabs(samples[i].value - median) > rules.latency_ci_factor * samples[i].ci)
      off(samples[i], median, noise.floor);
}

using Found = std::map<const HostRecord*, std::vector<Difference>>;

// Categorical items: the value more than half the hosts share is the reference, and each host
// that differs from it is named.
void categorical_differences(const std::vector<const HostRecord*>& members, FleetGroup& group,
                             Found& found) {
  const size_t n = members.size();
  for (const Item& item : items()) {
    std::map<std::string, size_t> votes;
    for (const HostRecord* h : members) ++votes[item.value(*h)];
    auto best = std::max_element(votes.begin(), votes.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best->second * 2 <= n) {
      if (votes.size() > 1) group.majority[item.name] = "no majority";
      continue;
    }
    group.majority[item.name] = best->first;
    if (votes.size() == 1) continue;
    for (const HostRecord* h : members) {
      const std::string v = item.value(*h);
      // A host missing CPUs has fewer allowed ones too: one finding says it.
      if (std::string(item.kind) == "allowed_cpus" && found.count(h) &&
          std::any_of(found[h].begin(), found[h].end(),
                      [](const Difference& d) { return d.kind == "missing_cpus"; }))
        continue;
      // Allowed CPUs narrowed by a launcher: the reason the host's report recorded goes with it.
      const std::string why = std::string(item.kind) == "allowed_cpus" && !h->allowed_reason.empty()
                                  ? "; its report: " + h->allowed_reason
                                  : "";
      if (v != best->first)
        found[h].push_back(
            {item.kind, fmt::format("{}: {} (the group's {} of {} hosts: {}){}", item.name,
                                    v.empty() ? "unknown" : v, best->second, n, best->first, why)});
    }
  }
}

// The hosts whose measurements may be compared: an unstable matrix or a busy machine is set
// aside with the reason, so its numbers never move the group's median.
std::vector<const HostRecord*> fair_hosts(const std::vector<const HostRecord*>& members,
                                          const std::string& key, FleetGroup& group,
                                          std::vector<SetAside>& aside) {
  std::vector<const HostRecord*> fair;
  for (const HostRecord* h : members) {
    if (h->stability == "unknown" && h->machine_verdict == MachineVerdict::unknown)
      ++group.conditions_unknown;
    if (h->stability == "unstable") {
      aside.push_back({h->host, h->file, key, "unstable",
                       fmt::format("measurement unstable on {}{}", h->host,
                                   h->stability_reason.empty() ? "" : ": " + h->stability_reason)});
    } else if (h->machine_verdict == MachineVerdict::busy) {
      aside.push_back({h->host, h->file, key, "busy",
                       fmt::format("busy while measured on {}{}", h->host,
                                   h->machine_summary.empty() ? "" : ": " + h->machine_summary)});
    } else {
      fair.push_back(h);
    }
  }
  return fair;
}

// Latency per CPU: off the group's median beyond its noise floor and the CPU's intervals; one
// finding per host listing its first few CPUs.
void latency_differences(const std::vector<const HostRecord*>& fair, const FleetRules& rules,
                         FleetGroup& group, Found& found) {
  std::map<int, std::vector<Sample>> rows;
  for (const HostRecord* h : fair)
    for (const auto& [cpu, ns] : h->latency_row_ns) {
      auto ci = h->latency_row_ci_ns.find(cpu);
      rows[cpu].push_back({h, ns, ci == h->latency_row_ci_ns.end() ? 0.0 : ci->second});
    }
  std::map<const HostRecord*, std::vector<std::string>> slow;
  std::map<const HostRecord*, double> worst, floor_of;
  for (auto& [cpu, samples] : rows)
    compare_metric(
        fmt::format("latency CPU {}", cpu), samples, rules.latency_min_ratio,
        rules.latency_default_ratio, rules, group,
        [&](const Sample& x, double median, double floor) {
          std::vector<std::string>& off = slow[x.host];
          worst[x.host] = std::max(worst[x.host], x.value / median);
          floor_of[x.host] = std::max(floor_of[x.host], floor);
          if (off.size() < 4)
            off.push_back(fmt::format("CPU {} {:.0f} ns vs {:.0f}", cpu, x.value, median));
          else if (off.size() == 4)
            off.push_back("...");
        });
  for (const auto& [h, off] : slow) {
    std::string list;
    for (const std::string& t : off) list += (list.empty() ? "" : ", ") + t;
    found[h].push_back(
        {"latency", fmt::format("latency off the group's median (up to {:.2f}x, "
                                "beyond the group's noise floor {:.2f}x and {:.0f}x "
                                "its interval): {}",
                                worst[h], floor_of[h], rules.latency_ci_factor, list)});
  }
}

// Benchmarks: each bench's median per host against the group's, in the bench's direction.
void bench_differences(const std::vector<const HostRecord*>& fair, const FleetRules& rules,
                       FleetGroup& group, Found& found) {
  std::map<std::string, std::vector<Sample>> values;
  for (const HostRecord* h : fair)
    for (const auto& [bench, v] : h->bench_median) values[bench].push_back({h, v, 0.0});
  for (auto& [bench, samples] : values)
    compare_metric(
        "bench " + bench, samples, rules.bench_min_ratio, rules.bench_default_ratio, rules, group,
        [&](const Sample& x, double med, double floor) {
          const HostRecord* h = x.host;
          const bool higher_better =
              h->bench_higher_is_better.count(bench) && h->bench_higher_is_better.at(bench);
          const bool worse = higher_better ? x.value < med : x.value > med;
          const std::string unit = h->bench_unit.count(bench) ? h->bench_unit.at(bench) : "";
          found[h].push_back(
              {"bench", fmt::format("{} {:.3g} {} vs the group's median {:.3g} ({}, "
                                    "{:.2f}x; the group's noise floor {:.2f}x)",
                                    bench, x.value, unit, med, worse ? "worse" : "better",
                                    std::max(x.value / med, med / x.value), floor)});
        });
}

void compare_group(const std::vector<const HostRecord*>& members, const std::string& key,
                   const FleetRules& rules, FleetGroup& group, Found& found,
                   std::vector<SetAside>& aside) {
  categorical_differences(members, group, found);
  // Measurements: only of hosts that measured under fair conditions.
  const std::vector<const HostRecord*> fair = fair_hosts(members, key, group, aside);
  if (fair.size() < static_cast<size_t>(rules.min_hosts_for_median)) return;
  latency_differences(fair, rules, group, found);
  bench_differences(fair, rules, group, found);
}

}  // namespace

FleetReport compare_fleet(const std::vector<HostRecord>& hosts, const FleetRules& rules) {
  FleetReport report;
  report.hosts = static_cast<int>(hosts.size());
  std::map<std::string, std::vector<const HostRecord*>> by_key;
  for (const HostRecord& h : hosts)
    by_key[fmt::format("{}, {} package(s)", h.cpu_model.empty() ? "unknown CPU" : h.cpu_model,
                       number(h.packages))]
        .push_back(&h);
  std::vector<std::pair<FleetGroup, std::vector<Outlier>>> groups;
  for (auto& [key, members] : by_key) {
    std::sort(members.begin(), members.end(),
              [](const HostRecord* a, const HostRecord* b) { return a->host < b->host; });
    FleetGroup group;
    group.key = key;
    for (const HostRecord* h : members) group.hosts.push_back(h->host);
    std::map<const HostRecord*, std::vector<Difference>> found;
    compare_group(members, key, rules, group, found, report.set_aside);
    std::vector<Outlier> outliers;
    for (const HostRecord* h : members)
      if (auto it = found.find(h); it != found.end())
        outliers.push_back({h->host, h->file, key, it->second});
    group.outliers = static_cast<int>(outliers.size());
    groups.push_back({std::move(group), std::move(outliers)});
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    if ((a.first.outliers > 0) != (b.first.outliers > 0)) return a.first.outliers > 0;
    return a.first.hosts.size() > b.first.hosts.size();
  });
  for (auto& [group, outliers] : groups) {
    report.groups.push_back(std::move(group));
    for (Outlier& o : outliers) report.outliers.push_back(std::move(o));
  }
  return report;
}

Result<FleetReport> load_fleet(const std::string& dir, const FleetRules& rules) {
  auto names = os::list_directory(dir);
  if (!names) return names.error();
  std::vector<std::string> files;
  for (const std::string& name : *names) {
    const std::string path = dir + "/" + name;
    if (os::is_directory(path)) {
      if (os::is_regular_file(path + "/report.json")) files.push_back(path + "/report.json");
    } else if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
      files.push_back(path);
    }
  }
  // Parsing dominates (10,000 reports): split it over the CPUs this process may use.
  std::vector<Result<HostRecord>> parsed(files.size(), Error::invalid(""));
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), 8));
  auto work = [&](size_t first) {
    for (size_t i = first; i < files.size(); i += workers) {
      auto text = os::read_file(files[i]);
      parsed[i] = text ? parse_host_record(*text, files[i]) : Result<HostRecord>(text.error());
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool) t.join();
  std::vector<HostRecord> hosts;
  std::vector<std::string> unreadable;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!parsed[i]) {
      unreadable.push_back(parsed[i].error().message);
      continue;
    }
    HostRecord h = std::move(*parsed[i]);
    if (h.host.empty()) h.host = files[i];
    hosts.push_back(std::move(h));
  }
  // Two reports of one HostName (a copy, a rerun) are told apart by their files.
  std::map<std::string, int> named;
  for (const HostRecord& h : hosts) ++named[h.host];
  for (HostRecord& h : hosts)
    if (named[h.host] > 1 && h.host != h.file) h.host += " (" + h.file + ")";
  if (hosts.empty())
    return Error::invalid("no machine reports (DIR/<host>/report.json or DIR/*.json) in " + dir +
                          (unreadable.empty() ? "" : ": " + unreadable.front()));
  FleetReport report = compare_fleet(hosts, rules);
  report.dir = dir;
  report.unreadable = std::move(unreadable);
  return report;
}

}  // namespace threadmap::fleet
