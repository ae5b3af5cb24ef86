// Conditional parameters (Space::add_condition): which parameters are active at a point, their
// fixed values where they are not, and the number of distinct points of a finite conditional space.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/text.hpp"
#include "optimist/core/space.hpp"

namespace optimist {

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InvalidArgument("parameter '" + name + "': " + what);
}

}  // namespace

Space& Space::add_condition(const std::string& child, const std::string& parent, const std::vector<std::string>& values) {
  const std::size_t c = index_of(child);
  if (!index_.count(parent))
    fail(child, "condition on unknown parameter '" + printable(parent) + "'" + [&] {
      std::vector<std::string> names;
      for (const auto& q : params_) names.push_back(q.name);
      return did_you_mean(parent, names);
    }());
  const std::size_t p = index_of(parent);
  Parameter& q = params_[c];
  const Parameter& pp = params_[p];
  if (q.condition) fail(child, "has a condition already (on '" + params_[q.condition->parent].name + "'); a parameter takes one");
  if (pp.kind == ParameterKind::Continuous)
    fail(child, "condition on continuous parameter '" + parent + "'; a parent must be an integer or a categorical");
  if (p >= c)
    fail(child, "its condition's parent '" + parent + "' must come before it" + (p == c ? " (it names itself)" : ""));
  if (values.empty()) fail(child, "condition on '" + parent + "' lists no values");
  std::set<std::size_t> indices;
  for (const std::string& v : values) {
    std::size_t j = 0;
    if (pp.kind == ParameterKind::Categorical) {
      const auto it = std::find(pp.choices.begin(), pp.choices.end(), v);
      if (it == pp.choices.end())
        fail(child, "condition value '" + printable(v) + "' is not a choice of '" + parent + "'" + did_you_mean(v, pp.choices));
      j = static_cast<std::size_t>(it - pp.choices.begin());
    } else {
      long long k = 0;
      std::size_t used = 0;
      try {
        k = std::stoll(v, &used);
      } catch (const std::out_of_range&) {
        fail(child, "condition value " + printable(v) + " is outside '" + parent + "''s range [" + format_double(pp.lower) +
                        ", " + format_double(pp.upper) + "]");
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != v.size())
        fail(child, "condition value '" + printable(v) + "' of integer parameter '" + parent + "' is not an integer");
      if (static_cast<double>(k) < pp.lower || static_cast<double>(k) > pp.upper)
        fail(child, "condition value " + v + " is outside '" + parent + "''s range [" + format_double(pp.lower) + ", " +
                        format_double(pp.upper) + "]");
      j = static_cast<std::size_t>(static_cast<double>(k) - pp.lower);
    }
    if (!indices.insert(j).second) fail(child, "condition value '" + printable(v) + "' is listed twice");
  }
  q.condition = Parameter::Condition{p, std::vector<std::size_t>(indices.begin(), indices.end())};
  ++n_conditions_;
  return *this;
}

void Space::add_condition_from_json(const std::string& child, const nlohmann::json& condition) {
  if (!condition.is_object() || !condition.contains("parent") || !condition.at("parent").is_string() ||
      !condition.contains("values") || !condition.at("values").is_array())
    fail(child, "'condition' must be {\"parent\": name, \"values\": [...]}, got " + condition.dump());
  for (const auto& [key, value] : condition.items())
    if (key != "parent" && key != "values")
      fail(child, "unknown key '" + printable(key) + "' in its condition (it takes parent and values)");
  std::vector<std::string> values;
  for (const auto& v : condition.at("values")) {
    if (v.is_string())
      values.push_back(v.get<std::string>());
    else if (v.is_number_integer())
      values.push_back(v.dump());
    else if (v.is_number_float() && std::abs(v.get<double>()) < 9e15 && v.get<double>() == std::floor(v.get<double>()))
      values.push_back(std::to_string(static_cast<long long>(v.get<double>())));  // TOML's 2.0
    else if (v.is_number())
      values.push_back(v.dump());  // add_condition names what is wrong (a continuous parent, not an integer)
    else
      fail(child, "condition value " + v.dump() + " must be a choice (a string) or an integer");
  }
  add_condition(child, condition.at("parent").get<std::string>(), values);
}

bool Space::condition_holds(std::size_t i, const std::vector<bool>& active, std::size_t parent_value) const {
  const auto& c = *params_[i].condition;
  return active[c.parent] && std::binary_search(c.values.begin(), c.values.end(), parent_value);
}

namespace {

void check_size(const Vector& x, std::size_t dim) {
  if (static_cast<std::size_t>(x.size()) != dim)
    throw InvalidArgument("point has dimension " + std::to_string(x.size()) + ", the space has " + std::to_string(dim));
}

}  // namespace

std::vector<bool> Space::active(const Vector& x) const {
  check_size(x, dim());
  std::vector<bool> on(dim(), true);
  if (!has_conditions()) return on;
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    if (!p.condition) continue;
    const Parameter& parent = params_[p.condition->parent];
    const double v = x[static_cast<Eigen::Index>(p.condition->parent)] - parent.lower;
    on[i] = condition_holds(i, on, v >= 0.0 ? static_cast<std::size_t>(v) : 0);
  }
  return on;
}

std::vector<bool> Space::active_unit(const Vector& u) const {
  check_size(u, dim());
  std::vector<bool> on(dim(), true);
  if (!has_conditions()) return on;
  for (std::size_t i = 0; i < dim(); ++i) {
    const Parameter& p = params_[i];
    if (!p.condition) continue;
    const std::size_t parent = p.condition->parent;
    on[i] = condition_holds(i, on, params_[parent].cell_index(u[static_cast<Eigen::Index>(parent)]));
  }
  return on;
}

Vector Space::canonical(const Vector& x) const {
  validate(x);
  if (!has_conditions()) return x;
  Vector out = x;
  const std::vector<bool> on = active(x);
  for (std::size_t i = 0; i < dim(); ++i)
    if (!on[i]) out[static_cast<Eigen::Index>(i)] = params_[i].lower;
  return out;
}

void Space::deactivate_unit(Vector& u) const {
  if (!has_conditions()) return;
  const std::vector<bool> on = active_unit(u);
  for (std::size_t i = 0; i < dim(); ++i) {
    if (on[i]) continue;
    const Parameter& p = params_[i];
    u[static_cast<Eigen::Index>(i)] = p.kind == ParameterKind::Continuous ? 0.0 : p.cell_center(0);
  }
}

std::optional<std::uint64_t> Space::finite_size() const {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const auto mul = [](std::uint64_t a, std::uint64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; };
  const auto add = [](std::uint64_t a, std::uint64_t b) { return a > kMax - b ? kMax : a + b; };
  for (const auto& p : params_)
    if (p.kind == ParameterKind::Continuous) return std::nullopt;
  if (!has_conditions()) {
    std::uint64_t n = 1;
    for (const auto& p : params_) n = mul(n, p.cardinality());
    return n;
  }
  // The conditions form a forest (one parent each, parents first): a parameter's count is, summed
  // over its values, the product of its children's counts where the value activates them (1, their
  // fixed value, where it does not); the space's is the product of the roots'. Children come after
  // their parents, so one backward pass computes every count.
  std::vector<std::vector<std::size_t>> children(dim());
  for (std::size_t i = 0; i < dim(); ++i)
    if (params_[i].condition) children[params_[i].condition->parent].push_back(i);
  std::vector<std::uint64_t> count(dim(), 1);
  for (std::size_t i = dim(); i-- > 0;) {
    const std::uint64_t k = params_[i].cardinality();
    if (children[i].empty()) {
      count[i] = k;
      continue;
    }
    // Values that some child lists, one by one; the others activate no child and count 1 each.
    std::set<std::size_t> listed;
    for (std::size_t c : children[i]) listed.insert(params_[c].condition->values.begin(), params_[c].condition->values.end());
    std::uint64_t total = k - listed.size();
    for (std::size_t j : listed) {
      std::uint64_t product = 1;
      for (std::size_t c : children[i]) {
        const auto& values = params_[c].condition->values;
        if (std::binary_search(values.begin(), values.end(), j)) product = mul(product, count[c]);
      }
      total = add(total, product);
    }
    count[i] = total;
  }
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < dim(); ++i)
    if (!params_[i].condition) n = mul(n, count[i]);
  return n;
}

}  // namespace optimist
