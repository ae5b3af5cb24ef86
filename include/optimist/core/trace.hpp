// The JSON Lines trace of a run (documented in docs/trace-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/driver.hpp"
#include "optimist/core/space.hpp"

namespace optimist {

/// The first line of a trace.
struct TraceMeta {
  std::string algorithm;
  nlohmann::json options = nlohmann::json::object();  ///< resolved algorithm options (with "name")
  /// What the algorithm decided for this run when it was created (Optimizer::decisions(); `auto`:
  /// the algorithm it runs and why); empty for most algorithms.
  nlohmann::json decisions = nlohmann::json::object();
  std::string problem;
  std::size_t dim = 0;
  std::uint64_t seed = 0;
  /// The meta line named its seed (every trace optimist writes does): a run without it cannot be
  /// continued as the same run.
  bool has_seed = true;
  double noise = 0.0;
  /// The objective was declared noisy (RunContext::noisy; implied by noise > 0). Traces written
  /// before it was recorded read as noise > 0.
  bool noisy = false;
  Direction direction = Direction::Maximize;
  std::optional<double> f_star;
  std::size_t budget = 0;
  /// The horizon the optimizer was created with (RunContext::horizon); unset: none (an anytime run),
  /// or a trace written before it was recorded (see recorded_run in experiment/run_setup.hpp).
  std::optional<std::size_t> horizon;
  nlohmann::json space;  ///< Space::to_json()
  /// Driver settings besides the budget that shaped the run (time_limit_s, target, batch,
  /// on_failure); empty when unknown (traces written before it existed).
  nlohmann::json run = nlohmann::json::object();
  /// The user's program for a run with --objective-command (then `problem` names it too); empty
  /// for a benchmark problem.
  std::string objective_command;
  /// The user's own objective (a function or a program: its evaluations were paid for), not a
  /// benchmark problem (meta key "user_objective", written when true): a finished trace saying so
  /// is kept under another name by a run that would write over it (TraceWriter).
  bool user_objective = false;
  /// The git commit of the optimist that wrote the trace (meta key "revision", written since stop
  /// 68; optimist::revision()); empty for older traces. to_json writes this build's.
  std::string revision;

  nlohmann::json to_json() const;
  static TraceMeta from_json(const nlohmann::json& j);
};

/// An exclusive advisory lock on a trace file, held while the object lives: two processes never
/// write the same trace at once, and a trace being resumed cannot be resumed by a second process
/// meanwhile. An open file description lock (fcntl F_OFD_SETLK on the whole file; flock where the
/// kernel has none): locks are per open file, so within one process hand a held lock to the
/// TraceWriter of the same path. A child forked while it is held does not hold it.
class TraceLock {
 public:
  /// Locks the file at `path`, creating it (empty) when `create` and it does not exist. Throws
  /// InvalidArgument naming the file when it cannot be opened or another process holds its lock.
  explicit TraceLock(const std::string& path, bool create = false);
  ~TraceLock();
  TraceLock(TraceLock&& other) noexcept;
  TraceLock& operator=(TraceLock&& other) noexcept;
  TraceLock(const TraceLock&) = delete;
  TraceLock& operator=(const TraceLock&) = delete;
  const std::string& path() const { return path_; }

  /// Whether some process (this one included) holds the lock of the trace at `path`: a run writes
  /// it, or resumes it. Tested without taking the lock, so a run starting meanwhile is never
  /// refused. Empty when it cannot be told: the file cannot be opened, the kernel cannot test the
  /// lock, or the file is on a file system shared between machines (NFS, SMB, FUSE, Lustre, ...),
  /// where a writer on another machine may hold a lock invisible here. Opens and closes the file,
  /// which releases a classic POSIX record lock (F_SETLK, lockf) this process held on it.
  static std::optional<bool> held(const std::string& path);

 private:
  std::string path_;
  int fd_ = -1;
};

/// Writes a trace line by line, flushing each line so that a killed run keeps every completed
/// evaluation. A trace is complete only once its final "recommend" line is written.
class TraceWriter {
 public:
  /// Opens (truncates) path; throws InvalidArgument naming the path if it cannot be written or
  /// another process writes it (the writer holds a TraceLock on it while it lives). A file already
  /// there is written over only if it is empty or a finished trace: any other file (a program, a
  /// space or config file, not a trace) is refused, and so is an unfinished trace (continue it with
  /// a resume); a finished trace of a run of someone's own objective (its meta's user_objective or
  /// objective_command) is renamed first, to the first free of NAME.1.jsonl, NAME.2.jsonl, ...
  /// (kept_as()).
  /// `earlier` (a resumed run's evaluations) follow the meta line; they are written to a
  /// temporary file in the same folder that replaces path only once complete, so resuming a
  /// trace in place never leaves it half-written. `held`: this process's lock on the trace read
  /// to resume it, taken before it was read (it stays with the caller); used when it is `path`'s
  /// file, however spelled (./run.jsonl, a link to it).
  /// `resumed_from`: the trace `earlier` was read from, when no lock on it is held (`held`
  /// names it otherwise): written over in place; any other file at `path` is checked as for a
  /// new run. With neither, `path` is taken for the trace resumed.
  TraceWriter(const std::string& path, const TraceMeta& meta, const Space& space,
              const std::vector<EvaluationRecord>& earlier = {}, const TraceLock* held = nullptr,
              const std::string& resumed_from = "");
  /// Writes one line and flushes it. A failed write (a full disk) throws, naming the path and the
  /// system's reason, and leaves the file ending at its last complete line.
  void write(const EvaluationRecord& record);
  /// The final line; x empty when the algorithm has no answer. stop_reason as to_string(StopReason).
  /// optimize() and minimize() write it themselves. After it, any further write throws
  /// std::logic_error: a trace ends at its recommend line.
  void write_recommend(const Vector& x, std::optional<double> f, std::optional<double> simple_regret,
                       const std::string& stop_reason = "budget");
  const std::string& path() const { return path_; }
  /// Where the finished trace found at path was moved, if one was (for the caller to say so).
  const std::string& kept_as() const { return kept_as_; }

 private:
  void write_line(const std::string& text);
  std::string path_;
  std::string kept_as_;
  Space space_;
  std::optional<TraceLock> lock_;
  std::ofstream out_;
  bool ended_ = false;  // the recommend line is written
};

/// A trace read back.
struct Trace {
  TraceMeta meta;
  std::vector<nlohmann::json> evaluations;  ///< the raw evaluation lines
  std::optional<nlohmann::json> recommend;  ///< present iff the run finished
  bool complete() const { return recommend.has_value(); }
};

/// What a run that writes its trace to `path` may do with the file there (TraceWriter checks it;
/// a caller that must refuse before it does anything else, e.g. creates a study, checks first).
/// Throws InvalidArgument for a file that is not a trace and, unless `continuing` (a trace that
/// starts with earlier evaluations: one there is its own), for an unfinished trace. Returns a
/// finished trace found there (with evaluations; not when continuing), else nothing.
std::optional<Trace> check_trace_destination(const std::string& path, bool continuing = false);

/// Reads a trace; throws InvalidArgument naming the file and line on malformed content.
/// A truncated last line (a killed writer) is ignored.
Trace read_trace(const std::string& path);
/// The same from a stream; `name` stands for the file in messages.
Trace read_trace(std::istream& in, const std::string& name);

/// JSON line of one evaluation (the format of docs/trace-format.md).
nlohmann::json evaluation_to_json(const EvaluationRecord& r, const Space& space);

/// Inverse of evaluation_to_json: keys other than the core fields become the diagnostics.
/// Throws InvalidArgument naming the field on a malformed line (x outside the space, an "ok"
/// evaluation without a finite y, an unknown status).
EvaluationRecord evaluation_from_json(const nlohmann::json& line, const Space& space);

/// Every evaluation of a trace read back (to resume its run); throws InvalidArgument naming the
/// evaluation when one is malformed, outside `space`, or not numbered 1, 2, ... in order.
std::vector<EvaluationRecord> evaluations_from_trace(const Trace& trace, const Space& space);

/// How a trace's space differs from a run's (both Space::to_json), parameter by parameter, for a
/// resume refused on it: "'x' is continuous [-1.0, 1.0] there, continuous [-2.0, 2.0] here; 'c' is
/// only there"; "" when they are equal.
std::string space_difference(const nlohmann::json& there, const nlohmann::json& here);

/// Marks `meta` (of the continued run) as resumed after `count` evaluations of `earlier`:
/// run.resumed_after = earlier's list plus count.
void record_resume(TraceMeta& meta, const TraceMeta& earlier, std::size_t count);

/// Records the run's start points (x0) as given, in `meta.run["x0"]` (Space::point_to_json each), so
/// that a resumed run evaluates those its trace does not hold; nothing when `points` is empty.
void record_start_points(TraceMeta& meta, const Space& space, const std::vector<Vector>& points);

/// Start points written as JSON (a list of Space::point_from_json points: an array in parameter
/// order or an object by name), as points of `space`; InvalidArgument naming the point
/// ("WHAT[k] POINT: ...") when one is not.
std::vector<Vector> start_points_from_json(const nlohmann::json& points, const Space& space, const std::string& what);

/// The start points `meta` records (run.x0; empty when none), by start_points_from_json.
std::vector<Vector> recorded_start_points(const TraceMeta& meta, const Space& space);

}  // namespace optimist
