// Fuzz target: a trace file as `optimist dashboard` reads it (TraceFollower), whole and in two
// parts, the second appended after a first read (a run writing it; the first byte says where the
// cut falls). refresh() never throws (a malformed file is the summary's error); the two reads agree
// on every trial and on whether the file is in error; a trial's params have the space's length and
// a categorical one is a choice (a trace may give its index); every answer serializes.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dashboard/api.hpp"
#include "dashboard/trace_follower.hpp"
#include "fuzz_support.hpp"

using namespace optimist;
namespace fs = std::filesystem;

namespace {

const fs::path& folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("optimist-fuzz-trace-view-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void write(const fs::path& path, const std::string& text, std::ios::openmode mode) {
  std::ofstream out(path, std::ios::binary | mode);
  out << text;
}

std::string answer(const dashboard::TraceFollower& f) {
  std::string s = dashboard::json_text(dashboard::to_json(f.summary()));
  for (const dashboard::Trial& t : f.trials()) s += dashboard::json_text(dashboard::trial_json(t));
  return s;
}

void check_params(const dashboard::TraceFollower& f) {
  if (!f.has_meta() || !f.meta().space.is_object()) return;
  Space space;
  try {
    space = Space::from_json(f.meta().space);
  } catch (const InvalidArgument&) {
    return;  // the file's error: no trial is read against it
  }
  for (const dashboard::Trial& t : f.trials()) {
    OPTIMIST_FUZZ_CHECK(t.params.is_array() && t.params.size() == space.dim(), "trial " + std::to_string(t.number) + ": params " + t.params.dump());
    for (std::size_t i = 0; i < space.dim(); ++i)
      if (space[i].kind == ParameterKind::Categorical)
        OPTIMIST_FUZZ_CHECK(t.params[i].is_string(), "trial " + std::to_string(t.number) + ": categorical " + t.params[i].dump());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text = fuzz::text(data + 1, size - 1);
  const std::size_t cut = text.size() * data[0] / 255;
  const fs::path whole_path = folder() / "whole.jsonl", parts_path = folder() / "parts.jsonl";
  fs::remove(whole_path);
  fs::remove(parts_path);
  try {
    write(whole_path, text, std::ios::trunc);
    dashboard::TraceFollower whole(whole_path.string());
    whole.keep_trials();
    whole.refresh();

    write(parts_path, text.substr(0, cut), std::ios::trunc);
    dashboard::TraceFollower parts(parts_path.string());
    parts.keep_trials();
    parts.refresh();
    write(parts_path, text.substr(cut), std::ios::app);
    parts.refresh();

    const std::string whole_error = whole.summary().error, parts_error = parts.summary().error;
    OPTIMIST_FUZZ_CHECK(whole_error.empty() == parts_error.empty(), "whole: '" + whole_error + "', in parts: '" + parts_error + "'");
    if (whole_error.empty()) {
      OPTIMIST_FUZZ_CHECK(whole.trials().size() == parts.trials().size(),
                          std::to_string(whole.trials().size()) + " trials whole, " + std::to_string(parts.trials().size()) + " in parts");
      for (std::size_t k = 0; k < whole.trials().size(); ++k) {
        dashboard::Trial a = whole.trials()[k], b = parts.trials()[k];
        a.started_at = b.started_at = a.completed_at = b.completed_at = std::nullopt;  // both from the same lines; kept apart from the clock
        OPTIMIST_FUZZ_CHECK(dashboard::trial_json(a) == dashboard::trial_json(b),
                            "trial " + std::to_string(k) + ": " + dashboard::json_text(dashboard::trial_json(a)) + " vs " +
                                dashboard::json_text(dashboard::trial_json(b)));
      }
    }
    check_params(whole);
    check_params(parts);
    (void)answer(whole);
    (void)answer(parts);
  } catch (const std::exception& e) {
    fuzz::bug(std::string("unexpected exception: ") + e.what());
  }
  return 0;
}
