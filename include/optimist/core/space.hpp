// The search space: ordered, named parameters and the map to and from the unit cube.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist {

enum class ParameterKind { Continuous, Integer, Categorical };

struct Parameter {
  std::string name;
  ParameterKind kind = ParameterKind::Continuous;
  double lower = 0.0;  ///< continuous and integer only
  double upper = 1.0;
  bool log_scale = false;            ///< continuous and integer
  std::vector<std::string> choices;  ///< categorical only

  /// Space::add_condition: the parameter matters only when an earlier integer or categorical
  /// parameter (`parent`, itself active) holds one of `values` (its value indices, sorted).
  struct Condition {
    std::size_t parent = 0;
    std::vector<std::size_t> values;
  };
  std::optional<Condition> condition;  ///< empty: always active

  /// Number of distinct values for integer and categorical parameters; 0 for continuous.
  std::size_t cardinality() const;
  /// Integer and categorical: the index j in [0, cardinality()) of the value whose cell of [0,1]
  /// holds u (clamped into [0,1]).
  std::size_t cell_index(double u) const;
  /// Integer and categorical: the unit coordinate representing value j: its cell's centre
  /// (j + 1/2)/k, or a log-scale integer's own position on the log scale.
  double cell_center(std::size_t j) const;
};

/// An ordered list of parameters. Algorithms work in the unit cube [0,1]^d; the Space maps unit
/// points to user points and back. In a user point (a Vector) an integer parameter holds an
/// integral value and a categorical parameter holds the index of its choice.
///
/// Unit-cube map (GO-UCB appendix D.2): continuous parameters are affine (or affine in log x on
/// a log scale); an integer or categorical parameter with k values splits [0,1] into k
/// equal-length intervals, value j owning [j/k, (j+1)/k) and mapping back to the interval's center.
/// A log-scale integer over [a, b] is the log-scale map of [a - 1/2, b + 1/2], each value v
/// owning the cell of [v - 1/2, v + 1/2] (so 1 owns far more of [0,1] than 1000 does) and mapping
/// back to log v.
class Space {
 public:
  Space() = default;

  /// Contract: finite lower < upper; lower > 0 when log_scale; a new name; upper - lower finite
  /// (not [-1e308, 1e308]); at least 2^20 doubles between the bounds (not [1e12, 1e12 + 1]:
  /// use a shifted parameter). Throws InvalidArgument naming the parameter otherwise.
  Space& add_continuous(const std::string& name, double lower, double upper, bool log_scale = false);
  /// Contract: lower <= upper, both representable exactly (|value| < 2^53); on a log scale
  /// 1 <= lower and upper <= 2^40 (above, the cells of adjacent values are too thin for doubles).
  Space& add_integer(const std::string& name, long long lower, long long upper, bool log_scale = false);
  /// Contract: at least one choice, choices distinct.
  Space& add_categorical(const std::string& name, const std::vector<std::string>& choices);

  /// Makes `child` a conditional parameter: it matters only when `parent` holds one of `values`
  /// (an SVM's gamma only for the kernels "rbf" and "poly"). Where it does not (it is inactive),
  /// every point of the space holds its fixed value, the lower bound (a categorical: the first
  /// choice): points differing only there are one point to the no-repeat rule and the models.
  /// Contract: parent is an integer or categorical parameter added before child (chains
  /// allowed: a parent may be conditional itself); values non-empty, distinct, the parent's
  /// choices (an integer parent: its values written in decimal); child has no condition yet.
  /// Throws InvalidArgument naming the offending name or value.
  Space& add_condition(const std::string& child, const std::string& parent, const std::vector<std::string>& values);
  /// True when some parameter has a condition.
  bool has_conditions() const { return n_conditions_ > 0; }
  /// Per parameter, whether it is active at user point x (size dim()).
  std::vector<bool> active(const Vector& x) const;
  /// x with every inactive parameter at its fixed value (validated first; x itself when the space
  /// has no condition).
  Vector canonical(const Vector& x) const;
  /// For a unit point whose integer and categorical coordinates are snapped: sets every inactive
  /// coordinate to its fixed value's unit coordinate (0, or the first value's cell centre).
  void deactivate_unit(Vector& u) const;
  /// Per parameter, whether it is active at unit point u.
  std::vector<bool> active_unit(const Vector& u) const;

  /// [lower, upper]^d with parameters named x1 ... xd.
  static Space box(std::size_t d, double lower, double upper);
  /// The box with per-dimension bounds (equal-sized vectors).
  static Space box(const Vector& lower, const Vector& upper);

  std::size_t dim() const { return params_.size(); }
  bool empty() const { return params_.empty(); }
  const Parameter& operator[](std::size_t i) const { return params_.at(i); }
  const std::vector<Parameter>& parameters() const { return params_; }
  /// Throws InvalidArgument listing the names if absent.
  std::size_t index_of(const std::string& name) const;
  /// True when every parameter is continuous and on a linear scale.
  bool is_continuous_box() const;
  /// True when at least one parameter is an integer or a categorical.
  bool has_discrete() const;
  /// The number of distinct points when every parameter is an integer or a categorical (the
  /// product of the cardinalities, saturating at 2^64 - 1; with conditions, the points whose
  /// inactive parameters hold their fixed values); empty when a parameter is continuous.
  std::optional<std::uint64_t> finite_size() const;

  /// Unit point -> user point (inactive parameters at their fixed values). Contract: u.size() ==
  /// dim(); entries are clamped into [0,1].
  Vector to_user(const Vector& u) const;
  /// User point -> unit point. Throws InvalidArgument naming the parameter if x is outside.
  Vector to_unit(const Vector& x) const;
  /// Throws InvalidArgument if x has the wrong size, a non-finite entry, or a value outside
  /// a parameter's domain (non-integral integer, bad category index).
  void validate(const Vector& x) const;
  /// Snaps a unit point to the representative of its cell: centers of integer and categorical
  /// intervals; continuous coordinates unchanged (to_unit(to_user(u)) may differ from them by an
  /// ulp or two). On integer and categorical coordinates equal to to_unit(to_user(u)). Inactive
  /// coordinates are set to their fixed values (deactivate_unit).
  Vector snap_unit(const Vector& u) const;

  /// User point as JSON: an array with numbers, and strings for categorical values.
  nlohmann::json point_to_json(const Vector& x) const;
  /// Inverse of point_to_json; also accepts an object keyed by name, which may leave out a
  /// conditional parameter where it is inactive.
  Vector point_from_json(const nlohmann::json& j) const;

  /// {"parameters": [{"name", "type": "continuous"|"integer"|"categorical", ...}]}; a conditional
  /// parameter has "condition": {"parent": name, "values": [choices, or integers]}.
  nlohmann::json to_json() const;
  /// Inverse of to_json (the "parameters" array or the whole object). Throws InvalidArgument.
  static Space from_json(const nlohmann::json& j);

 private:
  void check_new_name(const std::string& name) const;
  /// Whether parameter i is active, given the activity of the earlier ones and the value index of
  /// its parent.
  bool condition_holds(std::size_t i, const std::vector<bool>& active, std::size_t parent_value) const;
  /// from_json's "condition": {"parent": name, "values": [...]}.
  void add_condition_from_json(const std::string& child, const nlohmann::json& condition);
  std::vector<Parameter> params_;
  std::size_t n_conditions_ = 0;
  // name -> position: adding and looking up a parameter stays O(1) in spaces of 10^5 parameters.
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace optimist
