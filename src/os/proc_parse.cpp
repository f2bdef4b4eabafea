#include "src/os/proc_parse.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "src/os/small_text.hpp"

namespace threadmap::os {
namespace {

std::optional<std::uint64_t> to_u64(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

// Calls fn(key, value) for each "key: value" / "key   :   value" line.
template <class Fn>
void for_each_key_value(std::string_view text, Fn fn) {
  while (!text.empty()) {
    auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    fn(trimmed(line.substr(0, colon)), trimmed(line.substr(colon + 1)));
  }
}

// The fields after ") ": field 3 first. Returns the view starting at field `n` (n >= 3).
std::string_view field_from(std::string_view after_comm, int n) {
  std::size_t pos = 0;
  for (int field = 3; field < n; ++field) {
    pos = after_comm.find(' ', pos);
    if (pos == std::string_view::npos) return {};
    ++pos;
  }
  return pos < after_comm.size() ? after_comm.substr(pos) : std::string_view{};
}

std::string_view after_comm(std::string_view text) {
  auto close = text.rfind(')');
  if (close == std::string_view::npos || close + 2 >= text.size()) return {};
  return text.substr(close + 2);
}

}  // namespace

std::optional<TaskStat> parse_task_stat(std::string_view text) {
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  std::string_view rest = after_comm(text);
  std::string_view cpu_field = field_from(rest, 39);
  if (rest.empty() || cpu_field.empty()) return std::nullopt;
  TaskStat st;
  auto tid = to_u64(text.substr(0, open));
  st.tid = tid ? static_cast<pid_t>(*tid) : 0;
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  st.state = rest[0];
  if (auto ppid = to_u64(field_from(rest, 4))) st.ppid = static_cast<pid_t>(*ppid);
  st.user_ticks = to_u64(field_from(rest, 14)).value_or(0);
  st.system_ticks = to_u64(field_from(rest, 15)).value_or(0);
  auto cpu = to_u64(cpu_field);
  if (!cpu) return std::nullopt;
  st.last_cpu = static_cast<int>(*cpu);
  return st;
}

std::vector<pid_t> parse_children_list(std::string_view text) {
  std::vector<pid_t> out;
  while (!text.empty()) {
    auto space = text.find_first_of(" \n");
    auto token = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    auto n = to_u64(token);
    if (n && *n > 0 && *n <= 0x7fffffff && token.find_first_not_of("0123456789") == token.npos)
      out.push_back(static_cast<pid_t>(*n));
  }
  return out;
}

int parse_task_stat_cpu(std::string_view text) {
  auto cpu = to_u64(field_from(after_comm(text), 39));
  return cpu ? static_cast<int>(*cpu) : -1;
}

std::uint64_t parse_task_stat_start_ticks(std::string_view text) {
  return to_u64(field_from(after_comm(text), 22)).value_or(0);
}

std::optional<SchedStat> parse_schedstat(std::string_view text) {
  auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto rest = text.substr(space + 1);
  auto run = to_u64(text.substr(0, space));
  auto wait = to_u64(rest.substr(0, rest.find(' ')));
  if (!run || !wait) return std::nullopt;
  return SchedStat{*run, *wait};
}

TaskStatus parse_task_status(std::string_view text) {
  TaskStatus st;
  for_each_key_value(text, [&](std::string_view key, std::string_view value) {
    if (key == "Name") {
      st.name = std::string(value);
    } else if (key == "Cpus_allowed_list") {
      st.cpus_allowed_list = std::string(value);
    } else if (key == "Mems_allowed_list") {
      st.mems_allowed_list = std::string(value);
    } else if (key == "voluntary_ctxt_switches") {
      st.voluntary_switches = to_u64(value);
    } else if (key == "nonvoluntary_ctxt_switches") {
      st.involuntary_switches = to_u64(value);
    } else if (key == "Tgid") {
      if (auto n = to_u64(value)) st.thread_group = static_cast<pid_t>(*n);
    } else if (key == "Threads") {
      if (auto n = to_u64(value)) st.threads = static_cast<long>(*n);
    }
  });
  return st;
}

TaskSched parse_task_sched(std::string_view text) {
  TaskSched st;
  for_each_key_value(text, [&](std::string_view key, std::string_view value) {
    if (key == "se.nr_migrations") {
      st.migrations = to_u64(value);
    } else if (key == "nr_switches") {
      st.switches = to_u64(value);
    } else if (key == "se.sum_exec_runtime") {
      // "1234.567890" ms with ns precision: split at the point to stay exact.
      auto dot = value.find('.');
      auto ms = to_u64(value.substr(0, dot));
      if (!ms) return;
      std::uint64_t ns = *ms * 1000000;
      if (dot != std::string_view::npos) {
        std::string_view frac = value.substr(dot + 1, 6);
        auto f = to_u64(frac);
        if (f) {
          std::uint64_t scale = 1;
          for (std::size_t i = frac.size(); i < 6; ++i) scale *= 10;
          ns += *f * scale;
        }
      }
      st.runtime_ns = ns;
    }
  });
  return st;
}

std::optional<std::string> parse_environ_value(std::string_view environ, std::string_view name) {
  std::size_t at = 0;
  while (at < environ.size()) {
    std::size_t end = environ.find('\0', at);
    if (end == std::string_view::npos) end = environ.size();
    const std::string_view entry = environ.substr(at, end - at);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name &&
        entry[name.size()] == '=')
      return std::string(entry.substr(name.size() + 1));
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace threadmap::os
