// Creating optimizers by name: options as JSON, the run's seed and horizon as a RunContext.
//
//   auto opt = make_optimizer({{"name", "gp-ei"}, {"n_init", 8}}, space, Direction::Minimize,
//                             RunContext{.seed = 3, .horizon = 100});
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "optimist/core/optimizer.hpp"

namespace optimist {

/// One option of an algorithm: its key, default (which also fixes its JSON type) and help.
struct OptionSpec {
  std::string key;
  nlohmann::json default_value;
  std::string help;
  std::vector<std::string> allowed{};  ///< for string options: the accepted values (empty: any)
};

/// Validated options of one algorithm: defaults merged with what the user gave.
class OptionValues {
 public:
  OptionValues(std::string algorithm, nlohmann::json values)
      : algorithm_(std::move(algorithm)), values_(std::move(values)) {}
  /// Typed access; throws InvalidArgument naming the key and value on a type mismatch.
  template <class T>
  T get(const std::string& key) const;
  const nlohmann::json& json() const { return values_; }
  const std::string& algorithm() const { return algorithm_; }

 private:
  [[noreturn]] void type_error(const std::string& key, const char* expected) const;
  std::string algorithm_;
  nlohmann::json values_;
};

/// How an algorithm uses RunContext::horizon.
enum class HorizonUse {
  Unused,    ///< not at all
  Optional,  ///< plans with it when given, anytime otherwise (tree searches)
  Required,  ///< cannot run without it (GO-UCB's Phase I length)
};

/// What an algorithm can handle (docs/reliability.md, "Limits"): shown by `optimist list` and
/// checked by make_optimizer, which refuses a space or a horizon beyond them with a clear error
/// rather than letting a run crash or be killed for its memory hours later.
struct AlgorithmLimits {
  std::size_t max_dim = 0;     ///< largest space dimension; 0: none
  std::size_t max_points = 0;  ///< largest horizon (evaluations); 0: none
  /// Memory of a run of n evaluations in d dimensions, about
  /// bytes_per_point_dim * n * d + bytes_per_point_pair * n^2 bytes (the history and the
  /// driver's log are ~32 n d; a tree keeps a cell per evaluation, an exact GP n x n matrices).
  double bytes_per_point_dim = 32.0;
  double bytes_per_point_pair = 0.0;
  std::string note;  ///< what sets the limits, one line
  /// An integer option that caps the model's points (gp-*'s and turbo's max_model_points; empty:
  /// none). While it is > 0 the model holds at most twice its value: max_points does not apply,
  /// and the n^2 term counts the model's points, not the run's.
  std::string model_cap_option;
};

using OptimizerFactory =
    std::function<std::unique_ptr<Optimizer>(const Space&, Direction, const OptionValues&, const RunContext&)>;

struct AlgorithmInfo {
  std::string name;     ///< e.g. "random"
  std::string family;   ///< "baseline", "parametric", "kernel", "tree"
  std::string summary;  ///< one line
  bool batch = false;   ///< has a true batch form for ask(n)
  HorizonUse horizon = HorizonUse::Unused;
  std::string horizon_help;  ///< what the horizon sets, for `optimist list` (empty when unused)
  std::vector<OptionSpec> options;
  OptimizerFactory create;
  AlgorithmLimits limits;
};

/// All registered algorithms, built-ins first, in registration order (a snapshot: safe to call
/// while another thread registers).
std::vector<AlgorithmInfo> algorithms();
/// Throws InvalidArgument listing the valid names. The reference stays valid for the program's life.
const AlgorithmInfo& algorithm_info(const std::string& name);
/// Adds a user algorithm; throws InvalidArgument if the name is taken.
void register_algorithm(AlgorithmInfo info);

/// Full options {"name", every option} for spec = {"name": ..., option: value, ...}.
/// Throws InvalidArgument on a missing or unknown name, an unknown key (listing the valid keys),
/// a value of the wrong type or a string not among the allowed values. "seed" and "budget" are not
/// options: the run passes them in its RunContext (the error says so).
nlohmann::json resolve_options(const nlohmann::json& spec);

/// Creates the optimizer described by spec, e.g. {"name": "sobol", "scramble": false}, for the run
/// described by context (its seed and horizon). Throws InvalidArgument as resolve_options does, and
/// when an algorithm needs a horizon the context lacks.
std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& spec, const Space& space,
                                          Direction direction = Direction::Maximize, const RunContext& context = {});

/// Bytes a run of `n` evaluations in `d` dimensions needs, by the algorithm's memory model;
/// `model_cap`: the value of limits.model_cap_option (0: no cap).
double estimated_run_bytes(const AlgorithmLimits& limits, std::size_t n, std::size_t d, std::size_t model_cap = 0);
/// The memory optimist may count on: physical memory, or the cgroup's limit when lower.
double available_memory_bytes();
/// "12.3 GB", for the messages that compare a need with available_memory_bytes().
std::string gigabytes(double bytes);
/// Throws InvalidArgument naming the algorithm, the value and the limit when a run of `horizon`
/// evaluations (0: unknown) on `dim` parameters is beyond the algorithm's limits or would need
/// more memory than available_memory_bytes(); `model_cap` as for estimated_run_bytes.
/// make_optimizer calls it with the resolved options' cap.
void check_limits(const AlgorithmInfo& info, std::size_t dim, std::size_t horizon, std::size_t model_cap = 0);

/// The horizon of an algorithm with HorizonUse::Required; throws InvalidArgument naming the
/// algorithm when the context has none.
std::size_t required_horizon(const std::string& algorithm, const RunContext& context);

// ---- implementation of OptionValues::get ----
template <class T>
T OptionValues::get(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) type_error(key, "a value (missing)");
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) type_error(key, "true or false");
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    if (!it->is_number_integer() || (it->is_number_integer() && !it->is_number_unsigned() && it->template get<long long>() < 0))
      type_error(key, "a non-negative integer");
  } else if constexpr (std::is_integral_v<T>) {
    if (!it->is_number_integer()) type_error(key, "an integer");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!it->is_number()) type_error(key, "a number");
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) type_error(key, "a string");
  }
  return it->template get<T>();
}

}  // namespace optimist
