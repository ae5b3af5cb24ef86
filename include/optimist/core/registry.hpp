// Creating optimizers by name with options given as JSON.
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
  std::uint64_t seed() const { return get<std::uint64_t>("seed"); }
  const nlohmann::json& json() const { return values_; }

 private:
  [[noreturn]] void type_error(const std::string& key, const char* expected) const;
  std::string algorithm_;
  nlohmann::json values_;
};

struct AlgorithmInfo {
  std::string name;     ///< e.g. "random"
  std::string family;   ///< "baseline", "parametric", "kernel", "tree"
  std::string summary;  ///< one line
  bool batch = false;   ///< has a true batch form for ask(n)
  std::vector<OptionSpec> options;  ///< "seed" (default 0) is implicit for every algorithm
  std::function<std::unique_ptr<Optimizer>(const Space&, Direction, const OptionValues&)> create;
};

/// All registered algorithms, built-ins first, in registration order.
const std::vector<AlgorithmInfo>& algorithms();
/// Throws InvalidArgument listing the valid names.
const AlgorithmInfo& algorithm_info(const std::string& name);
/// Adds a user algorithm; throws InvalidArgument if the name is taken.
void register_algorithm(AlgorithmInfo info);

/// Full options {"name", "seed", every option} for spec = {"name": ..., option: value, ...}.
/// Throws InvalidArgument on a missing or unknown name, an unknown key (listing the valid keys),
/// a value of the wrong type or a string not among the allowed values.
nlohmann::json resolve_options(const nlohmann::json& spec);

/// Creates the optimizer described by spec, e.g. {"name": "random", "seed": 3}.
std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& spec, const Space& space,
                                          Direction direction = Direction::Maximize);

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
