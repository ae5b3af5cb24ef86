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
  std::vector<std::string> allowed;  ///< for string options: the accepted values
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
