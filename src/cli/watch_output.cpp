#include "src/cli/watch_output.hpp"

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/os/files.hpp"
#include "src/render/cache_stats_json.hpp"
#include "src/render/watch_timeline.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {

namespace {

Outputs declared(const WatchOutputs& outputs) {
  Outputs out;
  out.declare("--json", &outputs.json_path);
  out.declare("--timeline", &outputs.timeline_path);
  return out;
}

}  // namespace

Status check_watch_outputs(const WatchOutputs& outputs) {
  if (!outputs.timeline_path.empty())
    if (auto format = render::image_format_for(outputs.timeline_path); !format)
      return format.error().with_context("bad --timeline").as_bad_input("");
  return declared(outputs).check();
}

bool print_watch_outcome(const Result<monitor::WatchResult>& watched, const WatchOutputs& outputs,
                         bool summary_to_stderr, const apply::CacheStatsSummary* cache) {
  if (!watched) {
    fail(watched.error().with_context("watch"));
    return false;
  }
  const monitor::WatchResult& w = *watched;
  // A program that ends before the first sample is still a program: say so, as its summary.
  std::string text = w.history.samples() == 0 ? render::watch_empty_text(w.summary)
                                              : render::watch_summary_text(w.summary);
  if (summary_to_stderr) {
    os::write_stderr(text);
  } else {
    print(text);
  }
  if (w.summary.processes_not_followed > 0)
    os::write_stderr("threadmap: warning: watch --follow followed " +
                     std::to_string(w.summary.max_processes) + " processes; " +
                     std::to_string(w.summary.processes_not_followed) +
                     " more were found and not watched\n");
  // Everything is rendered first and written together, so a failing picture leaves no JSON.
  Outputs out = declared(outputs);
  if (out.wanted(&outputs.json_path)) {
    nlohmann::json json = render::watch_json(w.summary, w.history);
    if (cache) json["thread_cache"] = render::cache_stats_json(*cache);
    out.set(&outputs.json_path, json.dump(2) + "\n");
  }
  if (out.wanted(&outputs.timeline_path)) {
    auto format = render::image_format_for(outputs.timeline_path);
    if (!format) return fail(format.error()) == 0;
    auto drawn = render::watch_timeline_image(w.history, *format, w.summary.duration_s);
    if (!drawn) return fail(drawn.error()) == 0;
    out.set(&outputs.timeline_path, std::move(*drawn));
  }
  if (auto st = out.commit(); !st) return fail(st.error()) == 0;
  return true;
}

}  // namespace threadmap::cli
