#include "dashboard/trace_follower.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "core/text.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::dashboard {

namespace {

// The evaluation line's own fields (docs/trace-format.md); every other key is a diagnostic.
// `trial` and `worker`: written by `run --jobs` and `study export` (a "trial" diagnostic was plotted).
constexpr std::array<std::string_view, 14> kCoreFields = {
    "i", "x", "y", "f", "regret", "cum_regret", "best_f", "suggest_s", "eval_s", "tell_s", "status", "error",
    "trial", "worker"};

bool is_core_field(const std::string& key) {
  for (std::string_view k : kCoreFields)
    if (key == k) return true;
  return false;
}

std::optional<double> number_at(const nlohmann::json& line, const char* key) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Evaluations the run kept in flight, from its meta's `run` settings (docs/trace-format.md).
std::size_t parallelism(const nlohmann::json& run) {
  if (!run.is_object()) return 1;
  for (const char* key : {"jobs", "parallel"}) {
    const auto it = run.find(key);
    if (it != run.end() && it->is_number_unsigned()) return std::clamp<std::size_t>(it->get<std::size_t>(), 1, 1024);
  }
  return 1;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

}  // namespace

TraceFollower::TraceFollower(std::string path, std::chrono::milliseconds writer_check_interval)
    : path_(std::move(path)), writer_check_interval_(writer_check_interval), generation_(next_generation()) {}

void TraceFollower::keep_trials() {
  if (keep_trials_) return;
  keep_trials_ = true;
  reread_ = true;
}

void TraceFollower::reset() {
  offset_ = 0;
  lines_ = 0;
  error_.clear();
  first_line_.clear();
  has_meta_ = false;
  meta_ = TraceMeta{};
  trials_.clear();
  last_number_.reset();
  recommend_ = nullptr;
  counts_ = StateCounts{};
  best_ = Best{};
  slots_.clear();
  writer_gone_ = false;
  writer_recheck_ = true;
}

void TraceFollower::refresh() {
  read_appended();
  if (!writer_check_due()) return;
  const std::optional<bool> held = TraceLock::held(path_);
  if (held != false) {
    writer_gone_ = false;  // a writer, or no way to tell (another machine's file system): running
    return;
  }
  // The writer may have written its end line, and exited, between the read and the test.
  read_appended();
  // (Replaced meanwhile, by a resume: tested again at the next refresh.)
  writer_gone_ = !writer_recheck_ && has_meta_ && recommend_.is_null() && error_.empty();
}

bool TraceFollower::writer_check_due() {
  // Only a run without its end line can have lost its writer; a malformed trace is an error.
  if (!has_meta_ || !recommend_.is_null() || !error_.empty()) {
    writer_gone_ = false;
    return false;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!writer_recheck_ && now - writer_checked_at_ < writer_check_interval_) return false;
  writer_recheck_ = false;
  writer_checked_at_ = now;
  return true;
}

std::string TraceFollower::resume_hint() const {
  const auto ends_with = [&](std::string_view suffix) {
    return path_.size() >= suffix.size() && path_.compare(path_.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // A bench run's trace in progress: the bench continues its unfinished runs when run again.
  if (ends_with(".jsonl.partial")) return "the same optimist bench command";
  const auto& catalog = problems();
  const bool benchmark =
      std::any_of(catalog.begin(), catalog.end(), [&](const ProblemInfo& p) { return p.name == meta_.problem; });
  // The absolute path: the page's reader is not in the dashboard's folder.
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path_, ec);
  const std::string path = ec ? path_ : absolute.lexically_normal().string();
  // A command stored in a trace is not run unless named again (`run --resume` refuses it otherwise).
  if (!meta_.objective_command.empty())
    return "optimist run --resume " + shell_word(path) + " --objective-command " + shell_word(meta_.objective_command);
  if (benchmark) return "optimist run --resume " + shell_word(path);
  // A run of one's own function continues where the function is (as `run --resume` says).
  return "minimize(..., resume=" + nlohmann::json(path).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         ") in Python, MinimizeOptions::resume in C++";
}

void TraceFollower::read_appended() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    error_ = "cannot read '" + path_ + "': " + std::strerror(errno);
    return;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const double mtime = static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
  // Replaced (another inode), cut, rewritten in place by a new run (`run --out` truncates the same
  // inode, and may have grown past our offset since the last look: its meta line differs), or
  // written again after a malformed line: read from the start.
  const bool changed = static_cast<std::uint64_t>(st.st_ino) != inode_ || size < offset_ || rewritten() ||
                       (!error_.empty() && mtime != error_mtime_);
  // The trials a client holds are another file's: it must drop them, not merge new ones in.
  if (changed && (offset_ > 0 || has_meta_)) generation_ = next_generation();
  if (reread_ || changed) reset();
  reread_ = false;
  inode_ = static_cast<std::uint64_t>(st.st_ino);
  mtime_ = mtime;
  // A malformed line stops reading until the file changes: it will not heal by itself.
  if (size == offset_ || !error_.empty()) return;

  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    error_ = "cannot read '" + path_ + "': " + std::strerror(errno);
    return;
  }
  in.seekg(static_cast<std::streamoff>(offset_));
  std::string chunk(size - offset_, '\0');
  in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  chunk.resize(static_cast<std::size_t>(in.gcount()));

  // Only lines ended by '\n' are taken: the writer may be in the middle of the last one.
  std::size_t start = 0;
  for (std::size_t end; (end = chunk.find('\n', start)) != std::string::npos; start = end + 1) {
    ++lines_;
    const std::string_view line(chunk.data() + start, end - start);
    if (offset_ == 0) first_line_.assign(chunk.data() + start, end + 1 - start);
    if (!blank(line)) consume_line(std::string(line), lines_);
    if (!error_.empty()) {
      error_mtime_ = mtime_;
      return;
    }
    offset_ += end + 1 - start;
  }
}

bool TraceFollower::rewritten() const {
  if (first_line_.empty()) return false;
  std::ifstream in(path_, std::ios::binary);
  std::string head(first_line_.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return static_cast<std::size_t>(in.gcount()) != head.size() || head != first_line_;
}

void TraceFollower::consume_line(const std::string& text, std::size_t line_number) {
  const std::string where = path_ + ":" + std::to_string(line_number) + ": ";
  try {
    const nlohmann::json line = nlohmann::json::parse(text);
    if (!line.is_object()) throw InvalidArgument("expected a JSON object, got " + json_text(line));
    if (!has_meta_) {
      if (!line.contains("meta")) throw InvalidArgument("the first line must be {\"meta\": {...}}");
      meta_ = TraceMeta::from_json(line);
      has_meta_ = true;
      space_.reset();
      if (meta_.space.is_object()) {
        try {
          space_ = Space::from_json(meta_.space);
        } catch (const InvalidArgument&) {  // an older or edited meta: its lines are read as they are
        }
      }
    } else if (line.contains("recommend")) {
      recommend_ = line.at("recommend");
    } else if (line.contains("i")) {
      add_evaluation(line);
    } else {
      throw InvalidArgument("unrecognized line (neither an evaluation nor recommend)");
    }
  } catch (const nlohmann::json::exception& e) {
    error_ = where + e.what();
  } catch (const InvalidArgument& e) {
    error_ = where + e.what();
  }
}

void TraceFollower::add_evaluation(const nlohmann::json& line) {
  // A line --resume refuses (x of another length, a text y) is the file's error, not a trial.
  std::optional<EvaluationRecord> read;
  if (space_) read = evaluation_from_json(line, *space_);
  Trial t;
  const auto& i = line.at("i");
  if (!i.is_number_unsigned()) throw InvalidArgument("\"i\" must be a positive integer, got " + json_text(i));
  t.number = i.get<std::uint64_t>();
  if (last_number_ && t.number <= *last_number_)
    throw InvalidArgument("evaluation " + std::to_string(t.number) + " follows evaluation " +
                          std::to_string(*last_number_) + " (numbers must increase)");
  last_number_ = t.number;
  const std::string status = line.value("status", "ok");
  if (status != "ok" && status != "failed")
    throw InvalidArgument("\"status\" must be \"ok\" or \"failed\", got \"" + status + "\"");
  t.state = status == "ok" ? TrialState::Complete : TrialState::Failed;
  // As the API promises, a categorical as its choice: a trace may give the choice's index
  // (docs/trace-format.md, Points), which the page drew nowhere on the axis and showed as a number.
  t.params = read ? space_->point_to_json(read->x) : line.value("x", nlohmann::json::array());
  t.value = number_at(line, "y");
  t.f = number_at(line, "f");
  t.regret = number_at(line, "regret");
  if (const auto e = line.find("error"); e != line.end() && e->is_string()) t.error = e->get<std::string>();
  const auto worker = line.find("worker");
  t.worker = worker != line.end() && worker->is_string() ? worker->get<std::string>() : "run";
  // A trace has durations, not timestamps: the run's clock is their running sum, over as many
  // slots as the run kept evaluations in flight (`run --jobs K`, Python's n_parallel), each line
  // taking the slot free first (one slot drew a --jobs 3 run as three times longer, sequential).
  if (slots_.empty()) slots_.assign(parallelism(meta_.run), 0.0);
  const auto slot = std::min_element(slots_.begin(), slots_.end());
  t.started_at = *slot + number_at(line, "suggest_s").value_or(0.0);
  t.completed_at = *t.started_at + number_at(line, "eval_s").value_or(0.0);
  *slot = *t.completed_at + number_at(line, "tell_s").value_or(0.0);
  for (const auto& [key, value] : line.items())
    if (!is_core_field(key)) t.diagnostics[key] = value;

  counts_.add(t.state);
  best_.consider(t, meta_.direction);
  if (keep_trials_) {
    t.json = json_text(trial_json(t));  // a trace's trials never change once written
    trials_.push_back(std::move(t));
  }
}

StudySummary TraceFollower::summary() const {
  StudySummary s;
  s.kind = "trace";
  s.error = error_;
  s.updated_at = mtime_;
  s.counts = counts_;
  s.best_value = best_.value;
  s.best_number = best_.number;
  s.finished = !recommend_.is_null();
  s.stopped = writer_gone_;
  if (s.stopped) s.resume = resume_hint();
  s.generation = std::to_string(generation_);
  if (has_meta_) {
    s.algorithm = meta_.algorithm;
    s.problem = meta_.problem;
    s.direction = meta_.direction;
    s.f_star = meta_.f_star;
    s.budget = meta_.budget;
  }
  return s;
}

StudyDetail TraceFollower::detail() const {
  StudyDetail d;
  d.summary = summary();
  d.recommend = recommend_;
  if (!has_meta_) return d;
  d.space = meta_.space;
  d.options = meta_.options;
  d.extra = {{"path", path_}, {"seed", meta_.seed}, {"noise", meta_.noise}, {"dim", meta_.dim}, {"run", meta_.run}};
  // What `auto` chose and why, and the options an algorithm resolved itself (the trace's meta).
  if (!meta_.decisions.empty()) d.extra["decisions"] = meta_.decisions;
  if (!meta_.objective_command.empty()) d.extra["objective_command"] = meta_.objective_command;
  return d;
}

}  // namespace optimist::dashboard
