// A study: one optimization shared by any number of workers, in processes and on machines that
// coordinate through a Storage (docs/studies.md).
//
//   Study study = Study::load("sqlite:///study.db", "branin");
//   while (auto t = study.ask()) study.tell(*t, f(t->x));
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/optimizer.hpp"
#include "optimist/study/storage.hpp"

namespace optimist {

/// A trial handed out by Study::ask(): evaluate x and tell the value.
struct StudyTrial {
  std::size_t number = 0;  ///< the trial's number in the study
  Vector x;                ///< user point
  std::string origin;      ///< "asked" (the algorithm's), "enqueued" or "requeued"
  double suggest_s = 0.0;  ///< optimizer time spent proposing it (0 for a queued point)
  std::optional<double> lease_until;  ///< asked with a lease: held until this Unix time (infinity: until told)
  /// The optimizer's diagnostics when it proposed the trial (e.g. GP lengthscales); empty for a
  /// queued point. A trace line of the trial carries them (`optimist run --jobs`, `study export`).
  nlohmann::json diagnostics = nlohmann::json::object();
};

/// A tell by number, for Study::tell(tells): a value, or none and why the trial failed, or the
/// trial given back unevaluated (as Study::release).
struct StudyTell {
  std::size_t number = 0;
  std::optional<double> value;
  std::string error;  ///< without a value: why it failed (empty: "failed"), or why it is given back
  bool give_back = false;  ///< not evaluated: given back, as release(number, error, requeue)
  bool requeue = true;     ///< with give_back: its point queued again
};

/// An evaluation made elsewhere, for Study::add: a value, or none and why it failed.
struct StudyEvaluation {
  Vector x;
  std::optional<double> value;
  std::string error;  ///< without a value: why it failed (empty: "failed")
};

/// What Study::add does with an evaluation that has the parameters and value of an evaluation added
/// before (origin "told"): add it again (a measurement repeated on purpose), or refuse it: the same
/// history added twice (a file added again, a notebook cell run again) would count every
/// experiment twice. Failures are never compared (failing twice at a point is common).
enum class Duplicates { Allow, Refuse };

/// Thrown by Study::add with Duplicates::Refuse (nothing is added); names both evaluations.
class AddedTwice : public InvalidArgument {
 public:
  AddedTwice(const std::string& what, std::size_t index_in_list, std::size_t earlier_trial, double added_value)
      : InvalidArgument(what), index(index_in_list), trial(earlier_trial), value(added_value) {}
  std::size_t index;  ///< the evaluation's index in add()'s list
  std::size_t trial;  ///< the trial added before with the same parameters and value
  double value;
};

/// What to create: the study's name, space, direction, algorithm and settings.
struct StudyConfig {
  std::string name{};
  Space space{};
  Direction direction = Direction::Maximize;
  std::string algorithm = "auto";
  nlohmann::json options = nlohmann::json::object();  ///< algorithm options (without name, seed or budget)
  std::uint64_t seed = 0;
  std::optional<std::size_t> budget{};  ///< none: workers run until stopped
  std::optional<double> f_star{};
  StudySettings settings{};
};

struct StudyOptions {
  /// This worker's name in the trials it holds; empty: host:pid:random.
  std::string worker{};
  StorageOptions storage{};
  /// Heartbeat the trials this Study object asked (until told) from a background thread, every
  /// StudySettings::heartbeat_interval_s; off: call heartbeat() yourself.
  bool heartbeat_thread = true;
};

/// The algorithm options a study stores: defaults merged with `options`, with "name". The seed
/// and the horizon (the budget) are the study's own columns, given to the optimizer as its RunContext.
nlohmann::json resolve_study_options(const std::string& algorithm, const nlohmann::json& options);

/// The options the study's optimizer runs with: the stored ones (without the "seed" and "budget"
/// of a study stored before RunContext) resolved by today's version, i.e. with today's default for
/// an option added since the study was created. Throws InvalidArgument naming the study when
/// today's version refuses them (an option since removed).
nlohmann::json continued_study_options(const StudyRecord& study);

/// The options a run names (`named`, algorithm keys only) that differ from the study's
/// continued_study_options, as "key = stored there, asked here" items; empty when they agree.
/// Options a run leaves out continue as stored, so a study outlives a changed default.
std::vector<std::string> study_option_differences(const StudyRecord& study, const nlohmann::json& named);

/// The RunContext of the study's optimizer: its seed and its budget as the horizon (also for studies
/// stored before RunContext, whose options held "seed" and "budget").
RunContext study_run_context(const StudyRecord& study);

/// The study's optimizer, fresh: the one place where a study creates one.
std::unique_ptr<Optimizer> make_study_optimizer(const StudyRecord& study);

/// One handle on a study. Thread-safe: the threads of a worker may share one Study.
///
/// ask() locks the study, fails stale trials, brings this worker's cached optimizer up to date
/// with the events it has not seen (asks of other workers as pending trials, tells, failures, in
/// the study's event order), then hands out the first waiting trial or the optimizer's next point
/// as a running trial, and commits. With one worker the trials equal those of optimize() with the
/// same seed; with several, each ask sees every other pending trial.
class Study {
 public:
  /// Creates the study; throws InvalidArgument if the name is taken or the algorithm or its
  /// options are invalid.
  static Study create(const std::string& storage_url, const StudyConfig& config, StudyOptions options = {});
  /// Throws InvalidArgument listing the existing studies when there is none of that name.
  static Study load(const std::string& storage_url, const std::string& name, StudyOptions options = {});
  ~Study();
  Study(Study&&) noexcept;
  Study& operator=(Study&&) noexcept;

  const StudyRecord& record() const;
  const std::string& name() const { return record().name; }
  const Space& space() const { return record().space; }
  const std::string& worker() const;

  /// The next trial to evaluate, or nothing once the budget is used. Fails the stale running
  /// trials of others first, except within the grace period plus a heartbeat interval after this
  /// worker lost the storage (the others lost it too, and beat again once it is back).
  std::optional<StudyTrial> ask();
  /// As ask(), for a trial evaluated by hand or by a process that does not heartbeat (a lab
  /// experiment, `optimist study ask`): it is not failed as stale for `lease_s` seconds
  /// (std::numeric_limits<double>::infinity(): until told), heartbeat or not. Throws
  /// InvalidArgument unless lease_s > 0.
  std::optional<StudyTrial> ask(double lease_s);
  /// Records a value (in the objective's direction; must be finite). Throws InvalidArgument if the
  /// trial is not running (already told, or failed as stale).
  void tell(const StudyTrial& trial, double value);
  void tell_failed(const StudyTrial& trial, const std::string& error);
  /// Tells running trial `number`, whoever asked it (another process, a person: `optimist study
  /// tell`). Throws InvalidArgument naming the trial when there is none of that number, or it is
  /// waiting, or it was told already (saying what). A value for a trial failed as stale is kept,
  /// as for tell(trial, value).
  void tell(std::size_t number, double value);
  void tell_failed(std::size_t number, const std::string& error);
  /// Tells (or gives back) many trials by number in one transaction: all of them, or (one refused,
  /// as above, or one number twice) none; InvalidArgument naming the first refused.
  void tell(const std::vector<StudyTell>& tells);
  /// Gives back a trial this worker holds that will not be evaluated (the worker was interrupted):
  /// it is failed as stale and given back (TrialRecord::given_back), with `why`, does not count
  /// against the budget, and every worker's algorithm withdraws it (Optimizer::withdraw: as if it
  /// had not been asked). With `requeue` its point is queued again (the next ask hands it out
  /// first); without, the algorithm may ask it again or not.
  void release(const StudyTrial& trial, const std::string& why, bool requeue = true);
  /// The same for running trial `number`, whoever asked it (a lab sample cancelled before it was
  /// measured, a job killed by hand: `optimist study tell --give-back`). Throws InvalidArgument
  /// naming the trial when there is none of that number, or it is waiting, or it was told or
  /// failed already (saying what).
  void release(std::size_t number, const std::string& why, bool requeue = true);
  /// Gives back many trials by number in one transaction: all of them, or (one refused, as
  /// above, or one number twice) none.
  void release(const std::vector<std::size_t>& numbers, const std::string& why, bool requeue = true);

  /// Queues a point to evaluate before the algorithm's own (warm start); returns its number.
  /// With `skip_if_exists`, a point already waiting, running or evaluated (a failed one does not
  /// count) is not queued again: the number of that trial is returned.
  std::size_t enqueue(const Vector& x, bool skip_if_exists = false);
  /// Adds an evaluation made elsewhere (a point no worker asked); returns its number.
  std::size_t add(const Vector& x, double value);
  std::size_t add_failed(const Vector& x, const std::string& error);
  /// Adds many evaluations in one transaction: all of them or, if one is refused (a point
  /// outside the space, a value not finite; InvalidArgument naming its index), none. Returns their numbers.
  /// With Duplicates::Refuse, an evaluation with the parameters and value of one added before
  /// refuses them all (AddedTwice), checked in the same transaction (`optimist study add`, Python's
  /// Study.add by default).
  std::vector<std::size_t> add(const std::vector<StudyEvaluation>& evaluations, Duplicates duplicates = Duplicates::Allow);

  /// Every trial, in number order.
  std::vector<TrialRecord> trials();
  /// The best complete trial.
  std::optional<TrialRecord> best();
  /// The algorithm's answer given every finished trial; none before a successful one.
  std::optional<Vector> recommend();
  /// Trials that count against the budget so far.
  std::size_t budget_used();
  /// Changes the study's budget (none: unlimited), for every worker from its next ask; throws
  /// InvalidArgument for a budget below budget_used(). The algorithm keeps planning with the
  /// horizon it was created with (StudySettings::horizon), so workers agree on its state.
  void set_budget(std::optional<std::size_t> budget);
  /// Running trials held by other workers (a worker whose asks run out waits for these: one may
  /// go stale and come back as a waiting trial).
  std::size_t running_elsewhere();

  /// Refreshes the heartbeat of the trials this object asked and has not told yet.
  void heartbeat();
  /// Fails stale running trials now (ask() does it too); returns how many.
  std::size_t fail_stale();

  Storage& storage();

 private:
  struct Impl;
  explicit Study(std::unique_ptr<Impl> impl);
  std::optional<StudyTrial> ask_unguarded_or_note(std::optional<double> lease_s);
  std::optional<StudyTrial> ask_unguarded(std::optional<double> lease_s);
  std::unique_ptr<Impl> impl_;
};

}  // namespace optimist
