#include "optimist/core/space.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "core/text.hpp"

namespace optimist {

namespace {


[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InvalidArgument("parameter '" + name + "': " + what);
}

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

/// The doubles in [lower, upper], both ends included (finite bounds, lower <= upper): ordered bit
/// patterns, so it is exact however small the range.
std::uint64_t doubles_between(double lower, double upper) {
  const auto ordered = [](double x) {
    const auto bits = std::bit_cast<std::int64_t>(x);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;  // negatives: reversed below +0
  };
  return static_cast<std::uint64_t>(ordered(upper)) - static_cast<std::uint64_t>(ordered(lower)) + 1;
}

/// Fewer distinct values than this and a "continuous" parameter is a short list in disguise: the
/// algorithms' unit-cube points collapse onto the same few values (every algorithm then stops
/// with no free point left) or the scaling to the unit cube overflows.
constexpr std::uint64_t kMinContinuousValues = std::uint64_t{1} << 20;

/// The largest upper bound of a log-scale integer: near it a value's cell of [0,1] is about
/// 1/(2^40 * 28), some 300 doubles wide; at 2^53 it would be none.
constexpr long long kMaxLogInteger = 1LL << 40;

const char* kind_name(ParameterKind k) {
  switch (k) {
    case ParameterKind::Continuous: return "continuous";
    case ParameterKind::Integer: return "integer";
    case ParameterKind::Categorical: return "categorical";
  }
  return "?";
}

// Index of the equal-length interval of [0,1] holding u, for k intervals (appendix D.2).
std::size_t interval_index(double u, std::size_t k) {
  const double scaled = std::floor(std::clamp(u, 0.0, 1.0) * static_cast<double>(k));
  return std::min(static_cast<std::size_t>(scaled), k - 1);
}

double interval_center(std::size_t j, std::size_t k) {
  return (static_cast<double>(j) + 0.5) / static_cast<double>(k);
}

// "x" + std::to_string(i) trips GCC 12's -Wrestrict false positive (PR 105329); append instead.
std::string coordinate_name(std::size_t i) {
  std::string name = "x";
  name += std::to_string(i + 1);
  return name;
}

}  // namespace

std::size_t Parameter::cell_index(double u) const {
  const std::size_t k = cardinality();
  if (kind != ParameterKind::Integer || !log_scale) return interval_index(u, k);
  // The value v whose [v - 1/2, v + 1/2] holds the point exp(log(a - 1/2) + u L) of the log scale.
  const double low = std::log(lower - 0.5), span = std::log(upper + 0.5) - low;
  const double x = std::exp(low + std::clamp(u, 0.0, 1.0) * span);
  const double j = std::floor(x - (lower - 0.5));
  return j >= 0.0 ? static_cast<std::size_t>(std::min(j, static_cast<double>(k - 1))) : 0;  // NaN: 0
}

double Parameter::cell_center(std::size_t j) const {
  if (kind != ParameterKind::Integer || !log_scale) return interval_center(j, cardinality());
  const double low = std::log(lower - 0.5), span = std::log(upper + 0.5) - low;
  return (std::log(lower + static_cast<double>(j)) - low) / span;
}

std::size_t Parameter::cardinality() const {
  switch (kind) {
    case ParameterKind::Continuous: return 0;
    case ParameterKind::Integer: return static_cast<std::size_t>(upper - lower) + 1;
    case ParameterKind::Categorical: return choices.size();
  }
  return 0;
}

void Space::check_new_name(const std::string& name) const {
  if (name.empty()) throw InvalidArgument("parameter #" + std::to_string(params_.size() + 1) + ": empty name");
  if (index_.count(name)) fail(name, "duplicate name");
}

Space& Space::add_continuous(const std::string& name, double lower, double upper, bool log_scale) {
  check_new_name(name);
  if (!std::isfinite(lower) || !std::isfinite(upper))
    fail(name, "bounds must be finite, got [" + format_double(lower) + ", " + format_double(upper) + "]");
  if (!(lower < upper))
    fail(name, "empty or inverted bounds [" + format_double(lower) + ", " + format_double(upper) + "]; need lower < upper");
  if (log_scale && lower <= 0.0)
    fail(name, "log scale needs positive bounds, got lower = " + format_double(lower));
  const std::string range = "[" + format_double(lower) + ", " + format_double(upper) + "]";
  if (!std::isfinite(upper - lower))
    fail(name, "the width of " + range + " overflows a double; narrow the bounds or rescale the parameter");
  if (upper - lower < std::numeric_limits<double>::min() ||
      (log_scale && lower < std::numeric_limits<double>::min()))
    fail(name, "bounds " + range + " are too close to zero to scale (below 2.2e-308); rescale the parameter");
  if (const std::uint64_t n = doubles_between(lower, upper); n < kMinContinuousValues)
    fail(name, "bounds " + range + " hold only " + std::to_string(n) +
                   " distinct floating-point values; a continuous parameter needs at least 2^20 (about a "
                   "millionth of its magnitude): widen or rescale it, or make it an integer or a categorical");
  index_.emplace(name, params_.size());
  params_.push_back({name, ParameterKind::Continuous, lower, upper, log_scale, {}, {}});
  return *this;
}

Space& Space::add_integer(const std::string& name, long long lower, long long upper, bool log_scale) {
  check_new_name(name);
  if (lower > upper)
    fail(name, "inverted bounds [" + std::to_string(lower) + ", " + std::to_string(upper) + "]; need lower <= upper");
  if (std::fabs(static_cast<double>(lower)) >= kMaxExactInteger || std::fabs(static_cast<double>(upper)) >= kMaxExactInteger)
    fail(name, "integer bounds must be below 2^53 in magnitude");
  if (log_scale && lower < 1)
    fail(name, "a log-scale integer needs lower >= 1, got lower = " + std::to_string(lower));
  if (log_scale && upper > kMaxLogInteger)
    fail(name, "a log-scale integer needs upper <= 2^40 (1099511627776), got " + std::to_string(upper) +
                   "; use a log-scale continuous parameter and round it");
  index_.emplace(name, params_.size());
  params_.push_back({name, ParameterKind::Integer, static_cast<double>(lower), static_cast<double>(upper), log_scale, {}, {}});
  return *this;
}

Space& Space::add_categorical(const std::string& name, const std::vector<std::string>& choices) {
  check_new_name(name);
  if (choices.empty()) fail(name, "a categorical parameter needs at least one choice");
  std::set<std::string> seen;
  for (const auto& c : choices)
    if (!seen.insert(c).second) fail(name, "duplicate choice '" + c + "'");
  index_.emplace(name, params_.size());
  params_.push_back({name, ParameterKind::Categorical, 0.0, static_cast<double>(choices.size() - 1), false, choices, {}});
  return *this;
}

Space Space::box(std::size_t d, double lower, double upper) {
  if (d == 0) throw InvalidArgument("a box needs dimension >= 1, got 0");
  Space s;
  for (std::size_t i = 0; i < d; ++i) s.add_continuous(coordinate_name(i), lower, upper);
  return s;
}

Space Space::box(const Vector& lower, const Vector& upper) {
  if (lower.size() != upper.size() || lower.size() == 0)
    throw InvalidArgument("box bounds must be non-empty vectors of equal size, got sizes " +
                          std::to_string(lower.size()) + " and " + std::to_string(upper.size()));
  Space s;
  for (Eigen::Index i = 0; i < lower.size(); ++i) s.add_continuous(coordinate_name(static_cast<std::size_t>(i)), lower[i], upper[i]);
  return s;
}

std::size_t Space::index_of(const std::string& name) const {
  if (const auto it = index_.find(name); it != index_.end()) return it->second;
  constexpr std::size_t kListed = 20;  // a message, not a dump of a 10^5-parameter space
  std::string names;
  for (std::size_t i = 0; i < params_.size() && i < kListed; ++i) names += (i ? ", " : "") + params_[i].name;
  if (params_.size() > kListed) names += ", ... (" + std::to_string(params_.size()) + " in all)";
  throw InvalidArgument("unknown parameter '" + name + "'; parameters: " + names);
}

bool Space::is_continuous_box() const {
  return std::all_of(params_.begin(), params_.end(), [](const Parameter& p) {
    return p.kind == ParameterKind::Continuous && !p.log_scale;
  });
}

bool Space::has_discrete() const {
  return std::any_of(params_.begin(), params_.end(), [](const Parameter& p) { return p.kind != ParameterKind::Continuous; });
}

Vector Space::to_user(const Vector& u) const {
  if (static_cast<std::size_t>(u.size()) != dim())
    throw InvalidArgument("unit point has dimension " + std::to_string(u.size()) + ", the space has " + std::to_string(dim()));
  Vector x(u.size());
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (!std::isfinite(u[ii])) fail(p.name, "unit coordinate is not finite: " + format_double(u[ii]));
    const double t = std::clamp(u[ii], 0.0, 1.0);
    switch (p.kind) {
      case ParameterKind::Continuous:
        if (t <= 0.0 || t >= 1.0) {  // exact endpoints (exp(log(a)) != a in floating point)
          x[ii] = t <= 0.0 ? p.lower : p.upper;
          break;
        }
        x[ii] = p.log_scale ? std::exp(std::log(p.lower) + t * (std::log(p.upper) - std::log(p.lower)))
                            : p.lower + t * (p.upper - p.lower);
        x[ii] = std::clamp(x[ii], p.lower, p.upper);  // guard rounding near the ends
        break;
      case ParameterKind::Integer:
      case ParameterKind::Categorical:
        x[ii] = p.lower + static_cast<double>(p.cell_index(t));
        break;
    }
  }
  if (has_conditions()) {
    const std::vector<bool> on = active(x);
    for (std::size_t i = 0; i < dim(); ++i)
      if (!on[i]) x[static_cast<Eigen::Index>(i)] = params_[i].lower;
  }
  return x;
}

void Space::validate(const Vector& x) const {
  if (static_cast<std::size_t>(x.size()) != dim())
    throw InvalidArgument("point has dimension " + std::to_string(x.size()) + ", the space has " + std::to_string(dim()));
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    const double v = x[static_cast<Eigen::Index>(i)];
    if (!std::isfinite(v)) fail(p.name, "value is not finite: " + format_double(v));
    if (v < p.lower || v > p.upper)
      fail(p.name, "value " + format_double(v) + " is outside [" + format_double(p.lower) + ", " + format_double(p.upper) + "]");
    if (p.kind != ParameterKind::Continuous && v != std::round(v))
      fail(p.name, std::string(kind_name(p.kind)) + " value " + format_double(v) + " is not integral");
  }
}

Vector Space::to_unit(const Vector& x) const {
  validate(x);
  Vector u(x.size());
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    const auto ii = static_cast<Eigen::Index>(i);
    switch (p.kind) {
      case ParameterKind::Continuous:
        u[ii] = p.log_scale ? (std::log(x[ii]) - std::log(p.lower)) / (std::log(p.upper) - std::log(p.lower))
                            : (x[ii] - p.lower) / (p.upper - p.lower);
        u[ii] = std::clamp(u[ii], 0.0, 1.0);
        break;
      case ParameterKind::Integer:
      case ParameterKind::Categorical:
        u[ii] = p.cell_center(static_cast<std::size_t>(x[ii] - p.lower));
        break;
    }
  }
  return u;
}

Vector Space::snap_unit(const Vector& u) const {
  // As to_unit(to_user(u)) would: a point of another size or with a NaN is an error, not a guess.
  if (static_cast<std::size_t>(u.size()) != dim())
    throw InvalidArgument("unit point has " + std::to_string(u.size()) + " coordinates, the space has " + std::to_string(dim()));
  for (Eigen::Index i = 0; i < u.size(); ++i)
    if (std::isnan(u[i]))
      fail(params_[static_cast<std::size_t>(i)].name, "unit coordinate is not finite: nan");
  Vector s = u.cwiseMax(0.0).cwiseMin(1.0);
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    if (p.kind == ParameterKind::Continuous) continue;
    const auto ii = static_cast<Eigen::Index>(i);
    s[ii] = p.cell_center(p.cell_index(s[ii]));
  }
  deactivate_unit(s);
  return s;
}

nlohmann::json Space::point_to_json(const Vector& x) const {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < dim() && i < static_cast<std::size_t>(x.size()); ++i) {
    const Parameter& p = params_[i];
    const double v = x[static_cast<Eigen::Index>(i)];
    if (p.kind == ParameterKind::Categorical && v >= 0 && v < static_cast<double>(p.choices.size()) && v == std::round(v))
      out.push_back(p.choices[static_cast<std::size_t>(v)]);
    else if (p.kind == ParameterKind::Integer && std::isfinite(v))
      out.push_back(static_cast<long long>(v));
    else if (std::isfinite(v))
      out.push_back(v);
    else
      out.push_back(nullptr);
  }
  return out;
}

Vector Space::point_from_json(const nlohmann::json& j) const {
  const bool by_name = j.is_object();
  if (!j.is_array() && !by_name) throw InvalidArgument("a point must be a JSON array or object, got " + j.dump());
  if (!by_name && j.size() != dim())
    throw InvalidArgument("point " + j.dump() + " has " + std::to_string(j.size()) + " values, the space has " + std::to_string(dim()));
  if (by_name)
    for (const auto& [key, value] : j.items())
      if (!index_.count(key)) throw InvalidArgument("point " + j.dump() + " names unknown parameter '" + printable(key) + "'");
  Vector x(static_cast<Eigen::Index>(dim()));
  std::vector<std::size_t> left_out;  // conditional parameters a point by name may leave out where inactive
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    if (by_name && !j.contains(p.name) && p.condition) {
      x[static_cast<Eigen::Index>(i)] = p.lower;
      left_out.push_back(i);
      continue;
    }
    if (by_name && !j.contains(p.name)) fail(p.name, "missing from point " + j.dump());
    const nlohmann::json& v = by_name ? j.at(p.name) : j.at(i);
    double value;
    if (p.kind == ParameterKind::Categorical && v.is_string()) {
      const auto it = std::find(p.choices.begin(), p.choices.end(), v.get<std::string>());
      if (it == p.choices.end()) fail(p.name, "unknown choice " + v.dump());
      value = static_cast<double>(it - p.choices.begin());
    } else if (v.is_number()) {
      value = v.get<double>();
    } else {
      fail(p.name, "bad value " + v.dump());
    }
    x[static_cast<Eigen::Index>(i)] = value;
  }
  validate(x);
  if (!left_out.empty()) {
    const std::vector<bool> on = active(x);
    for (std::size_t i : left_out)
      if (on[i]) fail(params_[i].name, "missing from point " + j.dump() + " (its condition holds)");
  }
  return x;
}

nlohmann::json Space::to_json() const {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : params_) {
    nlohmann::json q = {{"name", p.name}, {"type", kind_name(p.kind)}};
    if (p.kind == ParameterKind::Categorical) {
      q["choices"] = p.choices;
    } else if (p.kind == ParameterKind::Integer) {
      q["lower"] = static_cast<long long>(p.lower);
      q["upper"] = static_cast<long long>(p.upper);
      if (p.log_scale) q["log"] = true;
    } else {
      q["lower"] = p.lower;
      q["upper"] = p.upper;
      if (p.log_scale) q["log"] = true;
    }
    if (p.condition) {
      const Parameter& parent = params_[p.condition->parent];
      nlohmann::json values = nlohmann::json::array();
      for (std::size_t j : p.condition->values) {
        if (parent.kind == ParameterKind::Categorical)
          values.push_back(parent.choices[j]);
        else
          values.push_back(static_cast<long long>(parent.lower) + static_cast<long long>(j));
      }
      q["condition"] = {{"parent", parent.name}, {"values", values}};
    }
    params.push_back(q);
  }
  return {{"parameters", params}};
}

namespace {

// An integer bound as written: an integer, or a float with an integral value (TOML's 1e3), below
// 2^53 in magnitude. A NaN, an infinity or 1e300 is an error here, never a conversion.
const nlohmann::json& required(const nlohmann::json& q, const char* key, const std::string& name) {
  if (!q.contains(key)) fail(name, std::string("needs '") + key + "'");
  return q.at(key);
}

double number(const nlohmann::json& q, const char* key, const std::string& name) {
  const nlohmann::json& v = required(q, key, name);
  if (!v.is_number()) fail(name, std::string("'") + key + "' must be a number, got " + v.dump());
  return v.get<double>();
}

long long integer_bound(const nlohmann::json& q, const char* key, const std::string& name) {
  const nlohmann::json& v = required(q, key, name);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() >= static_cast<std::uint64_t>(kMaxExactInteger))
    fail(name, std::string("integer bound '") + key + "' must be below 2^53 in magnitude, got " + v.dump());
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < kMaxExactInteger) return static_cast<long long>(d);
    fail(name, std::string("integer bound '") + key + "' must be an integer below 2^53 in magnitude, got " + format_double(d));
  }
  fail(name, std::string("integer bound '") + key + "' must be a number, got " + v.dump());
}

}  // namespace

Space Space::from_json(const nlohmann::json& j) {
  // A misspelled top-level key ("paramters" next to "parameters") is named, as unknown keys of a
  // parameter are: ignored, it would leave the space other than the file meant.
  if (j.is_object())
    for (const auto& [key, value] : j.items())
      if (key != "parameters")
        throw InvalidArgument("unknown top-level key '" + printable(key) + "'" + did_you_mean(key, {"parameters"}) +
                              " in the space; it takes only 'parameters', the list of parameters");
  const nlohmann::json& params = j.is_object() && j.contains("parameters") ? j.at("parameters") : j;
  if (!params.is_array() || params.empty())
    throw InvalidArgument("a space must be a non-empty array of parameters, got " + params.dump());
  Space s;
  // Conditions once every parameter is known: a parent written after its child is named as such,
  // not as unknown.
  std::vector<std::pair<std::string, nlohmann::json>> conditions;
  for (const auto& q : params) {
    if (!q.is_object() || !q.contains("name") || !q.at("name").is_string())
      throw InvalidArgument("a parameter needs a string \"name\", got " + q.dump());
    const std::string name = q.at("name").get<std::string>();
    try {
      if (q.contains("type") && !q.at("type").is_string())
        fail(name, "'type' must be a string (continuous, integer or categorical), got " + q.at("type").dump());
      const std::string type = q.value("type", std::string("continuous"));
      // A key no kind of parameter has, or one of another kind ("log" on a categorical, "choices"
      // on a float), is a mistake to name, not to ignore: the parameter would silently differ.
      const bool continuous = type == "continuous" || type == "float" || type == "real";
      if (!continuous && type != "integer" && type != "int" && type != "categorical")
        fail(name, "unknown type '" + type + "'; valid: continuous, integer, categorical (and the aliases float, real, int)");
      const std::set<std::string> allowed = type == "categorical"
                                                ? std::set<std::string>{"name", "type", "choices", "condition"}
                                                : std::set<std::string>{"name", "type", "lower", "upper", "log", "condition"};
      if (q.contains("log") && !q.at("log").is_boolean() && type != "categorical")
        fail(name, "'log' must be true or false, got " + q.at("log").dump());
      for (const auto& [key, value] : q.items())
        if (!allowed.contains(key))
          fail(name, "unknown key '" + key + "' (type " + type + " takes: " + [&] {
                 std::string list;
                 for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
                 return list;
               }() + ")");
      if (continuous) {
        s.add_continuous(name, number(q, "lower", name), number(q, "upper", name), q.value("log", false));
      } else if (type == "integer" || type == "int") {
        s.add_integer(name, integer_bound(q, "lower", name), integer_bound(q, "upper", name), q.value("log", false));
      } else if (type == "categorical") {
        const nlohmann::json& choices = required(q, "choices", name);
        if (!choices.is_array()) fail(name, "'choices' must be an array of strings, got " + choices.dump());
        std::vector<std::string> names;
        for (const auto& c : choices) {
          // A choice reaches the objective as the text written: 16 and "16" would be one choice.
          if (!c.is_string())
            fail(name, "choices must be strings, got " + c.dump() + " (write \"" +
                           (c.is_number() || c.is_boolean() ? c.dump() : std::string("...")) +
                           "\", or use an integer parameter)");
          names.push_back(c.get<std::string>());
        }
        s.add_categorical(name, names);
      }
      if (q.contains("condition")) conditions.emplace_back(name, q.at("condition"));
    } catch (const nlohmann::json::exception& e) {
      fail(name, std::string("malformed definition ") + q.dump() + ": " + e.what());
    }
  }
  for (const auto& [child, condition] : conditions) s.add_condition_from_json(child, condition);
  return s;
}

}  // namespace optimist
