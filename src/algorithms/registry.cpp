#include "optimist/algorithms/registry.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>
#include <new>
#include <set>
#include <shared_mutex>
#include <stdexcept>

#include "algorithms/builtin.hpp"
#include "core/text.hpp"

namespace optimist {

namespace {

// A deque never moves its elements, so algorithm_info() can hand out references while another
// thread registers; reads share the lock, registration takes it alone.
struct Registry {
  Registry() {
    for (auto& info : builtin_algorithms()) entries.push_back(std::move(info));
  }
  std::shared_mutex mutex;
  std::deque<AlgorithmInfo> entries;
};

Registry& registry() {
  static Registry r;  // built-ins registered once, thread-safely (a function-local static)
  return r;
}

std::string join_names(const std::deque<AlgorithmInfo>& infos) {
  std::string out;
  for (const auto& a : infos) out += (out.empty() ? "" : ", ") + a.name;
  return out;
}

// The JSON type of a default fixes the accepted type of the user's value.
bool same_kind(const nlohmann::json& def, const nlohmann::json& v) {
  if (def.is_number_float()) return v.is_number();
  if (def.is_number_unsigned()) return v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0);
  if (def.is_number_integer()) return v.is_number_integer();
  if (def.is_null()) return true;  // option without a fixed type (e.g. "auto" or a number)
  return def.type() == v.type();
}

// No option takes NaN or infinity (TOML configs and the Python API can give them; JSON cannot).
bool all_finite(const nlohmann::json& v) {
  if (v.is_number_float()) return std::isfinite(v.get<double>());
  if (v.is_array() || v.is_object()) {
    for (const auto& item : v)
      if (!all_finite(item)) return false;
  }
  return true;
}

// "seed" and "budget" were options before RunContext; a spec written for that API gets told where they went.
[[noreturn]] void run_setting_error(const std::string& algorithm, const std::string& key) {
  throw InvalidArgument(algorithm + ": '" + key + "' is not an algorithm option: the run passes its " +
                        (key == "seed" ? "seed as RunContext::seed (CLI: --seed)"
                                       : "horizon, its number of evaluations, as RunContext::horizon (CLI: --budget)"));
}

}  // namespace

void OptionValues::type_error(const std::string& key, const char* expected) const {
  const auto it = values_.find(key);
  throw InvalidArgument(algorithm_ + ": option '" + key + "' must be " + expected + ", got " +
                        (it == values_.end() ? std::string("nothing") : it->dump()));
}

std::vector<AlgorithmInfo> algorithms() {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  return {r.entries.begin(), r.entries.end()};
}

const AlgorithmInfo& algorithm_info(const std::string& name) {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  for (const auto& a : r.entries)
    if (a.name == name) return a;
  std::vector<std::string> names;
  for (const auto& a : r.entries) names.push_back(a.name);
  throw InvalidArgument("unknown algorithm '" + name + "'" + did_you_mean(name, names) + "; valid algorithms: " + join_names(r.entries));
}

namespace {

// A user's definition, checked once at registration rather than met as a puzzle at some later run.
void check_definition(const AlgorithmInfo& info) {
  const std::string who = "register_algorithm: '" + info.name + "': ";
  // The name becomes a folder (bench), a flag value and a trace field.
  if (!folder_safe_name(info.name)) throw InvalidArgument(who + "a name is letters, digits, - _ . + (it names folders and traces)");
  std::set<std::string> keys;
  for (const OptionSpec& o : info.options) {
    const std::string option = who + "option '" + o.key + "': ";
    if (o.key.empty() || o.key == "name") throw InvalidArgument(who + "an option may not be named '" + o.key + "'");
    if (o.key == "seed" || o.key == "budget")
      throw InvalidArgument(option + "the run's " + o.key + " reaches the factory in its RunContext, not as an option");
    if (!keys.insert(o.key).second) throw InvalidArgument(option + "declared twice");
    if (!o.allowed.empty() && (!o.default_value.is_string() ||
                               std::find(o.allowed.begin(), o.allowed.end(), o.default_value.get<std::string>()) == o.allowed.end()))
      throw InvalidArgument(option + "its default " + o.default_value.dump() + " is not among its allowed values");
  }
}

}  // namespace

void register_algorithm(AlgorithmInfo info) {
  if (info.name.empty() || !info.create) throw InvalidArgument("register_algorithm: a name and a factory are required");
  check_definition(info);
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  for (const auto& a : r.entries)
    if (a.name == info.name) throw InvalidArgument("register_algorithm: '" + info.name + "' is already registered");
  r.entries.push_back(std::move(info));
}

nlohmann::json resolve_options(const nlohmann::json& spec) {
  if (!spec.is_object()) throw InvalidArgument("algorithm options must be a JSON object, got " + spec.dump());
  if (!spec.contains("name") || !spec.at("name").is_string()) {
    Registry& r = registry();
    std::shared_lock lock(r.mutex);
    throw InvalidArgument("algorithm options need a string \"name\"; valid algorithms: " + join_names(r.entries));
  }
  const AlgorithmInfo& info = algorithm_info(spec.at("name").get<std::string>());

  nlohmann::json resolved = {{"name", info.name}};
  for (const auto& o : info.options) resolved[o.key] = o.default_value;
  for (const auto& [key, value] : spec.items()) {
    if (key == "name") continue;
    if (!resolved.contains(key)) {
      if (key == "seed" || key == "budget") run_setting_error(info.name, key);
      std::string valid;
      std::vector<std::string> keys;
      for (const auto& o : info.options) {
        valid += (valid.empty() ? "" : ", ") + o.key;
        keys.push_back(o.key);
      }
      // `auto` (the default) takes no options: a user setting one meant a particular algorithm.
      const std::string hint = info.name == "auto" ? " (auto chooses the algorithm itself; name one to set its options, e.g. gp-ei: --algorithm gp-ei, or algorithm=\"gp-ei\" in Python)"
                                                   : " (the seed is set with the run, not as an option)";
      throw InvalidArgument(info.name + ": unknown option '" + key + "'" + did_you_mean(key, keys) + "; valid options: " +
                            (valid.empty() ? "none" : valid) + hint);
    }
    const nlohmann::json& def = resolved.at(key);
    if (!all_finite(value))
      throw InvalidArgument(info.name + ": option '" + key + "' must be finite, got NaN or infinity (" +
                            value.dump() + " once written as JSON)");
    if (def.is_number_unsigned() && value.is_number_integer() && !same_kind(def, value))
      throw InvalidArgument(info.name + ": option '" + key + "' must be a non-negative integer, got " + value.dump());
    if (!same_kind(def, value))
      throw InvalidArgument(info.name + ": option '" + key + "' must be of the type of its default " + def.dump() +
                            ", got " + value.dump());
    for (const auto& o : info.options) {
      if (o.key != key || o.allowed.empty()) continue;
      const std::string s = value.is_string() ? value.get<std::string>() : value.dump();
      if (std::find(o.allowed.begin(), o.allowed.end(), s) == o.allowed.end()) {
        std::string valid;
        for (const auto& a : o.allowed) valid += (valid.empty() ? "" : ", ") + a;
        throw InvalidArgument(info.name + ": option '" + key + "' got " + value.dump() + "; valid values: " + valid);
      }
    }
    resolved[key] = value;
  }
  return resolved;
}

double estimated_run_bytes(const AlgorithmLimits& limits, std::size_t n, std::size_t d, std::size_t model_cap) {
  const std::size_t m = model_cap > 0 && !limits.model_cap_option.empty() ? std::min(n, 2 * model_cap) : n;  // model points
  const double nd = static_cast<double>(n) * static_cast<double>(d), nn = static_cast<double>(m) * static_cast<double>(m);
  return limits.bytes_per_point_dim * nd + limits.bytes_per_point_pair * nn;
}

double available_memory_bytes() {
  double bytes = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  // A container's limit (cgroup v2, then v1) when it is lower.
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(file);
    double limit = 0;
    if (in >> limit && limit > 0 && limit < bytes) bytes = limit;
  }
  return bytes;
}

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

void check_limits(const AlgorithmInfo& info, std::size_t dim, std::size_t horizon, std::size_t model_cap) {
  const AlgorithmLimits& l = info.limits;
  const bool capped = model_cap > 0 && !l.model_cap_option.empty();
  const std::string why = l.note.empty() ? "" : " (" + l.note + ")";
  if (l.max_dim > 0 && dim > l.max_dim)
    throw InvalidArgument(info.name + " handles at most " + std::to_string(l.max_dim) + " parameters" + why +
                          ", this space has " + std::to_string(dim) +
                          "; random search and the tree searches (sequool, soo, hoo, ...) have no dimension limit");
  if (l.max_points > 0 && !capped && horizon > l.max_points)
    throw InvalidArgument(info.name + " handles at most " + std::to_string(l.max_points) + " evaluations" +
                          (l.model_cap_option.empty() ? "" : " with " + l.model_cap_option + " = 0") + why + ", the run plans " +
                          std::to_string(horizon) +
                          (l.model_cap_option.empty() ? "" : "; with " + l.model_cap_option + " > 0 (the default) any number"));
  const double need = estimated_run_bytes(l, horizon, dim, model_cap), have = available_memory_bytes();
  if (horizon > 0 && need > have)
    throw InvalidArgument(info.name + " with " + std::to_string(horizon) + " evaluations of " + std::to_string(dim) +
                          " parameters would need about " + gigabytes(need) + " of memory, more than the " +
                          gigabytes(have) + " here; lower the budget or the dimension");
}

std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& spec, const Space& space, Direction direction,
                                          const RunContext& context) {
  const nlohmann::json resolved = resolve_options(spec);
  const AlgorithmInfo& info = algorithm_info(resolved.at("name").get<std::string>());
  if (info.horizon == HorizonUse::Required) (void)required_horizon(info.name, context);
  std::size_t model_cap = 0;
  if (const std::string& cap = info.limits.model_cap_option; !cap.empty() && resolved.contains(cap) && resolved.at(cap).is_number_unsigned())
    model_cap = resolved.at(cap).get<std::size_t>();
  check_limits(info, space.dim(), context.horizon.value_or(0), model_cap);
  std::unique_ptr<Optimizer> optimizer;
  try {
    optimizer = info.create(space, direction, OptionValues(info.name, resolved), context);
  } catch (const InvalidArgument&) {
    throw;  // names its value already
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // A user's factory failing otherwise: said with the algorithm's name.
    throw std::runtime_error("algorithm '" + info.name + "': creating the optimizer failed: " + e.what());
  }
  // A factory registered by a user that returns nothing: said here, not a crash at the first ask.
  if (!optimizer) throw InvalidArgument("algorithm '" + info.name + "': its factory returned no optimizer (a null pointer)");
  return optimizer;
}

std::size_t required_horizon(const std::string& algorithm, const RunContext& context) {
  if (!context.horizon)
    throw InvalidArgument(algorithm + " needs the run's horizon, its total number of evaluations N: pass "
                          "RunContext::horizon (the CLI and the bench runner pass --budget)");
  return *context.horizon;
}

}  // namespace optimist
