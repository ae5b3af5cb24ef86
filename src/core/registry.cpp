#include "optimist/core/registry.hpp"

#include <mutex>

#include "algorithms/builtin.hpp"

namespace optimist {

namespace {

std::vector<AlgorithmInfo>& mutable_registry() {
  static std::vector<AlgorithmInfo> registry = builtin_algorithms();
  return registry;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::string join_names(const std::vector<AlgorithmInfo>& infos) {
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

}  // namespace

void OptionValues::type_error(const std::string& key, const char* expected) const {
  const auto it = values_.find(key);
  throw InvalidArgument(algorithm_ + ": option '" + key + "' must be " + expected + ", got " +
                        (it == values_.end() ? std::string("nothing") : it->dump()));
}

const std::vector<AlgorithmInfo>& algorithms() { return mutable_registry(); }

const AlgorithmInfo& algorithm_info(const std::string& name) {
  for (const auto& a : algorithms())
    if (a.name == name) return a;
  throw InvalidArgument("unknown algorithm '" + name + "'; valid algorithms: " + join_names(algorithms()));
}

void register_algorithm(AlgorithmInfo info) {
  std::lock_guard lock(registry_mutex());
  if (info.name.empty() || !info.create) throw InvalidArgument("register_algorithm: a name and a factory are required");
  for (const auto& a : algorithms())
    if (a.name == info.name) throw InvalidArgument("register_algorithm: '" + info.name + "' is already registered");
  mutable_registry().push_back(std::move(info));
}

nlohmann::json resolve_options(const nlohmann::json& spec) {
  if (!spec.is_object()) throw InvalidArgument("algorithm options must be a JSON object, got " + spec.dump());
  if (!spec.contains("name") || !spec.at("name").is_string())
    throw InvalidArgument("algorithm options need a string \"name\"; valid algorithms: " + join_names(algorithms()));
  const AlgorithmInfo& info = algorithm_info(spec.at("name").get<std::string>());

  nlohmann::json resolved = {{"name", info.name}, {"seed", 0}};
  for (const auto& o : info.options) resolved[o.key] = o.default_value;
  for (const auto& [key, value] : spec.items()) {
    if (key == "name") continue;
    if (!resolved.contains(key)) {
      std::string valid = "seed";
      for (const auto& o : info.options) valid += ", " + o.key;
      throw InvalidArgument(info.name + ": unknown option '" + key + "'; valid options: " + valid);
    }
    const nlohmann::json& def = resolved.at(key);
    if (key == "seed") {
      if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<long long>() >= 0))
        throw InvalidArgument(info.name + ": option 'seed' must be a non-negative integer, got " + value.dump());
    } else if (!same_kind(def, value)) {
      throw InvalidArgument(info.name + ": option '" + key + "' must be of the type of its default " + def.dump() +
                            ", got " + value.dump());
    }
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

std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& spec, const Space& space, Direction direction) {
  const nlohmann::json resolved = resolve_options(spec);
  const AlgorithmInfo& info = algorithm_info(resolved.at("name").get<std::string>());
  return info.create(space, direction, OptionValues(info.name, resolved));
}

}  // namespace optimist
