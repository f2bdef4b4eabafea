#include "src/cli/watch_output.hpp"

#include "src/cli/command.hpp"
#include "src/os/files.hpp"
#include "src/render/watch_timeline.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {

Status check_watch_outputs(const WatchOutputs& outputs) {
  if (!outputs.json_path.empty())
    if (auto st = os::check_writable(outputs.json_path); !st)
      return st.error().with_context("bad --json");
  if (!outputs.timeline_path.empty()) {
    if (auto format = render::image_format_for(outputs.timeline_path); !format)
      return format.error().with_context("bad --timeline");
    if (auto st = os::check_writable(outputs.timeline_path); !st)
      return st.error().with_context("bad --timeline");
  }
  return {};
}

bool print_watch_outcome(const Result<monitor::WatchResult>& watched, const WatchOutputs& outputs,
                         bool summary_to_stderr) {
  if (!watched) {
    fail(watched.error().with_context("watch"));
    return false;
  }
  const monitor::WatchResult& w = *watched;
  // A program that ends before the first sample is still a program: say so, as its summary.
  std::string text = w.history.samples() == 0
                         ? render::watch_empty_text(w.summary)
                         : render::watch_summary_text(w.summary);
  if (summary_to_stderr) {
    os::write_stderr(text);
  } else {
    print(text);
  }
  // Everything is rendered first and written last, so a failing picture leaves no JSON behind.
  std::string json;
  if (!outputs.json_path.empty()) json = render::watch_json(w.summary, w.history).dump(2) + "\n";
  std::string image;
  if (!outputs.timeline_path.empty()) {
    auto format = render::image_format_for(outputs.timeline_path);
    if (!format) return fail(format.error()) == 0;
    auto drawn = render::watch_timeline_image(w.history, *format);
    if (!drawn) return fail(drawn.error()) == 0;
    image = std::move(*drawn);
  }
  if (!outputs.json_path.empty())
    if (auto st = os::write_file(outputs.json_path, json); !st) return fail(st.error()) == 0;
  if (!outputs.timeline_path.empty())
    if (auto st = os::write_file(outputs.timeline_path, image); !st) return fail(st.error()) == 0;
  return true;
}

}  // namespace threadmap::cli
