// GO-UCB (ICML 2023) section 6.2 / appendix D.2: tuning scikit-learn's RandomForestClassifier,
// MLPClassifier and GradientBoostingClassifier on Breast-cancer, Australian and Diabetes. The
// objective (mean 5-fold CV accuracy, maximized) comes from scripts/hpo/hpo_worker.py, one
// persistent Python process per Problem instance; f* is unknown (the paper uses the best accuracy
// observed). docs/hpo.md lists the mapping and where sklearn 1.2 forced a deviation.
#include "optimist/problems/hpo_problems.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "optimist/core/external_objective.hpp"
#include "problems/builtin.hpp"

#ifndef OPTIMIST_SOURCE_DIR
#define OPTIMIST_SOURCE_DIR ""
#endif
#ifndef OPTIMIST_INSTALL_DATADIR
#define OPTIMIST_INSTALL_DATADIR ""
#endif

namespace optimist {

namespace {

constexpr double kBox = 10.0;            // appendix D.2: every task's domain is [0,10]^d
constexpr double kOpenEndMargin = 1e-3;  // the paper's open ends, as a fraction of the range
constexpr double kWorkerTimeout = 600.0; // seconds for one evaluation (the slowest takes a few)

enum class Kind { Integer, Real, Choice };

struct Hyperparameter {
  const char* name;  ///< sklearn's keyword
  Kind kind;
  double lower = 0.0;  ///< Integer and Real
  double upper = 0.0;
  bool open_lower = false;  ///< Real: the paper writes "(lower, ..."
  bool open_upper = false;
  std::vector<nlohmann::json> choices = {};  ///< Choice: sklearn values in the paper's order
};

Hyperparameter integer(const char* name, int lo, int hi) { return {name, Kind::Integer, double(lo), double(hi)}; }
Hyperparameter real(const char* name, double lo, double hi, bool open_lo, bool open_hi) {
  return {name, Kind::Real, lo, hi, open_lo, open_hi};
}
Hyperparameter choice(const char* name, std::vector<nlohmann::json> values) {
  return {name, Kind::Choice, 0.0, 0.0, false, false, std::move(values)};
}

// Appendix D.2, "Classification with Random Forest", items 1-7. The paper's "logloss" criterion
// is sklearn's "log_loss" (>= 1.1). Item 7: [0,5) True, [5,10] False, as the paper says.
const std::vector<Hyperparameter>& random_forest() {
  static const std::vector<Hyperparameter> hp = {
      integer("n_estimators", 20, 200),
      choice("criterion", {"gini", "entropy", "log_loss"}),
      integer("max_depth", 1, 10),
      integer("min_samples_split", 2, 10),
      integer("min_samples_leaf", 1, 10),
      choice("max_features", {"sqrt", "log2"}),
      choice("bootstrap", {true, false}),
  };
  return hp;
}

// Appendix D.2, "Classification with Multi-Layer Perceptron", items 1-8 (solver: sklearn's default
// adam, whose beta_1/beta_2 items 6-7 are; sklearn needs them in [0,1)). Items 2-3 are mapped
// linearly, as the paper's continuous map says, though they span four decades.
const std::vector<Hyperparameter>& mlp() {
  static const std::vector<Hyperparameter> hp = {
      choice("activation", {"identity", "logistic", "tanh", "relu"}),
      real("alpha", 1e-6, 1e-2, false, false),
      real("learning_rate_init", 1e-6, 1e-2, false, false),
      integer("max_iter", 100, 300),
      choice("shuffle", {true, false}),
      real("beta_1", 0.0, 1.0, true, true),
      real("beta_2", 0.0, 1.0, true, true),
      integer("n_iter_no_change", 1, 10),
  };
  return hp;
}

// Appendix D.2, "Classification with Gradient Boosting", items 1-11. sklearn 1.2 names: "logloss"
// -> "log_loss", "friedman mse" -> "friedman_mse", "squared error" -> "squared_error". Item 10 is
// typed float in the paper but lists the strings "sqrt"/"log2"; the strings are used.
const std::vector<Hyperparameter>& gradient_boosting() {
  static const std::vector<Hyperparameter> hp = {
      choice("loss", {"log_loss", "exponential"}),
      real("learning_rate", 0.0, 1.0, true, true),
      integer("n_estimators", 20, 200),
      real("subsample", 0.0, 1.0, true, true),
      choice("criterion", {"friedman_mse", "squared_error"}),
      integer("min_samples_split", 2, 10),
      integer("min_samples_leaf", 1, 10),
      real("min_weight_fraction_leaf", 0.0, 0.5, true, true),
      integer("max_depth", 1, 10),
      choice("max_features", {"sqrt", "log2"}),
      integer("max_leaf_nodes", 2, 10),
  };
  return hp;
}

const std::vector<Hyperparameter>& hyperparameters(const std::string& classifier) {
  if (classifier == "rf") return random_forest();
  if (classifier == "mlp") return mlp();
  if (classifier == "gb") return gradient_boosting();
  throw InvalidArgument("unknown HPO classifier '" + classifier + "'; expected rf, mlp or gb");
}

/// Index of the equal-length interval of [0,10] holding x, among k (the last one closed).
std::size_t interval_index(double x, std::size_t k) {
  const auto j = static_cast<std::size_t>(std::floor(x / kBox * static_cast<double>(k)));
  return std::min(j, k - 1);
}

struct Classifier {
  const char* key;
  const char* label;
};
struct Dataset {
  const char* key;
  const char* file;
  const char* label;
};
constexpr Classifier kClassifiers[] = {
    {"rf", "random forest"}, {"mlp", "multi-layer perceptron"}, {"gb", "gradient boosting"}};
constexpr Dataset kDatasets[] = {{"breast_cancer", "breast-cancer.dat", "Breast-cancer"},
                                 {"australian", "australian.dat", "Australian"},
                                 {"diabetes", "diabetes.dat", "Diabetes"}};

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Problem make_hpo_problem(const std::string& name, const Classifier& clf, const Dataset& data) {
  const auto& hp = hyperparameters(clf.key);
  const std::filesystem::path dataset = hpo_dataset_path(data.file);
  Problem p;
  p.name = name;
  p.dim = hp.size();
  for (const auto& h : hp) p.space.add_continuous(h.name, 0.0, kBox);
  p.direction = Direction::Maximize;
  p.f_star = std::nullopt;  // unknown ahead (paper: the best empirical accuracy)
  p.f = detail::python_worker_objective(
      {hpo_worker_path().string(), "--dataset", dataset.string(), "--classifier", clf.key},
      [classifier = std::string(clf.key)](const Vector& x) { return decode_hpo_point(classifier, x); });
  return p;
}

/// State shared by a Problem's copies (and so by its Objective): one worker, and the values it
/// gave. The worker is deterministic, so a repeated point (the driver's noise-free f right after
/// the observation, a recommendation already evaluated) is answered from memory.
struct WorkerState {
  explicit WorkerState(ExternalCommand command) : worker(std::move(command)) {}
  JsonLineProcess worker;
  std::mutex mutex;
  std::map<std::vector<double>, double> known;
};

}  // namespace

nlohmann::json decode_hpo_point(const std::string& classifier, const Vector& x) {
  const auto& hp = hyperparameters(classifier);
  if (static_cast<std::size_t>(x.size()) != hp.size())
    throw InvalidArgument("HPO classifier '" + classifier + "' expects a point of dimension " +
                          std::to_string(hp.size()) + ", got " + std::to_string(x.size()));
  nlohmann::json params = nlohmann::json::object();
  for (std::size_t i = 0; i < hp.size(); ++i) {
    const double v = x[static_cast<Eigen::Index>(i)];
    const Hyperparameter& h = hp[i];
    if (!(v >= 0.0 && v <= kBox))
      throw InvalidArgument("HPO coordinate " + std::to_string(i + 1) + " (" + h.name + ") must be in [0,10], got " +
                            format_double(v));
    switch (h.kind) {
      case Kind::Integer: {
        const auto k = static_cast<std::size_t>(h.upper - h.lower) + 1;
        params[h.name] = static_cast<long long>(h.lower) + static_cast<long long>(interval_index(v, k));
        break;
      }
      case Kind::Choice:
        params[h.name] = h.choices[interval_index(v, h.choices.size())];
        break;
      case Kind::Real: {
        const double margin = kOpenEndMargin * (h.upper - h.lower);
        const double lo = h.open_lower ? h.lower + margin : h.lower;
        const double hi = h.open_upper ? h.upper - margin : h.upper;
        params[h.name] = std::clamp(h.lower + (h.upper - h.lower) * v / kBox, lo, hi);
        break;
      }
    }
  }
  return params;
}

std::filesystem::path hpo_dataset_path(const std::string& file) {
  std::vector<std::filesystem::path> dirs;
  if (const std::string env = env_or_empty("OPTIMIST_DATASETS"); !env.empty()) {
    dirs.emplace_back(env);
  } else {
    dirs.emplace_back(std::filesystem::path("..") / "shared" / "datasets");
    if (std::string(OPTIMIST_SOURCE_DIR).size())
      dirs.emplace_back(std::filesystem::path(OPTIMIST_SOURCE_DIR) / ".." / "shared" / "datasets");
  }
  std::string tried;
  for (const auto& dir : dirs) {
    const auto path = dir / file;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path.lexically_normal();
    tried += (tried.empty() ? "" : ", ") + path.lexically_normal().string();
  }
  throw InvalidArgument("dataset '" + file + "' not found; tried " + tried +
                        " (set OPTIMIST_DATASETS to the folder holding it)");
}

std::filesystem::path hpo_script_path(const std::string& file, const char* env_var) {
  std::vector<std::filesystem::path> candidates;
  if (const std::string env = env_or_empty(env_var); !env.empty()) {
    candidates.emplace_back(env);
  } else {
    if (std::string(OPTIMIST_SOURCE_DIR).size())
      candidates.emplace_back(std::filesystem::path(OPTIMIST_SOURCE_DIR) / "scripts" / "hpo" / file);
    // An installed optimist: share/ next to the running program's bin/ (cmake --install --prefix P).
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "optimist" / "hpo" / file);
    if (std::string(OPTIMIST_INSTALL_DATADIR).size())
      candidates.emplace_back(std::filesystem::path(OPTIMIST_INSTALL_DATADIR) / "optimist" / "hpo" / file);
  }
  std::string tried;
  for (const auto& path : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
    tried += (tried.empty() ? "" : ", ") + path.string();
  }
  throw InvalidArgument("the worker script " + file + " was not found; tried " + (tried.empty() ? "nothing" : tried) +
                        " (set " + env_var + " to its path)");
}

std::filesystem::path hpo_worker_path() { return hpo_script_path("hpo_worker.py", "OPTIMIST_HPO_WORKER"); }

namespace detail {

std::function<double(const Vector&)> python_worker_objective(std::vector<std::string> script_args,
                                                              std::function<nlohmann::json(const Vector&)> params_of) {
  ExternalCommand command;
  const std::string python = env_or_empty("OPTIMIST_PYTHON");
  command.argv = {python.empty() ? "/usr/bin/python3" : python};
  command.argv.insert(command.argv.end(), script_args.begin(), script_args.end());
  // One BLAS/OpenMP thread: benchmark sweeps run evaluations side by side.
  command.env = {{"OMP_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1"}, {"MKL_NUM_THREADS", "1"}};
  command.timeout_s = kWorkerTimeout;
  auto state = std::make_shared<WorkerState>(std::move(command));
  return [state, params_of = std::move(params_of)](const Vector& x) {
    const nlohmann::json params = params_of(x);
    const std::vector<double> key(x.data(), x.data() + x.size());
    std::lock_guard<std::mutex> lock(state->mutex);
    if (const auto it = state->known.find(key); it != state->known.end()) return it->second;
    const double value = value_from_answer(state->worker.request({{"params", params}}));
    state->known.emplace(key, value);
    return value;
  };
}

std::vector<ProblemInfo> hpo_problems() {
  std::vector<ProblemInfo> v;
  for (const auto& data : kDatasets) {
    for (const auto& clf : kClassifiers) {
      ProblemInfo info;
      info.name = std::string("hpo_") + clf.key + "_" + data.key;
      const std::size_t d = hyperparameters(clf.key).size();
      info.summary = std::string("GO-UCB (ICML 2023) sec. 6.2: ") + clf.label + " on " + data.label +
                     ", 5-fold CV accuracy (scikit-learn worker; f* unknown)";
      info.min_dim = info.max_dim = info.default_dim = d;
      info.domain = "[0,10]^" + std::to_string(d);
      info.direction = Direction::Maximize;
      info.make = [name = info.name, clf, data](std::size_t) { return make_hpo_problem(name, clf, data); };
      v.push_back(std::move(info));
    }
  }
  return v;
}

}  // namespace detail

}  // namespace optimist
