// The integer and categorical part of a Space seen from the unit cube: value j of a parameter with
// k values owns [j/k, (j+1)/k) and is represented by the centre (j + 1/2)/k (Space, appendix D.2
// of GO-UCB), or for a log-scale integer the cell and position of its value on the log scale
// (Parameter::cell_index, cell_center). Snapping, enumeration, neighbours and the nearest free point are shared by the
// Optimizer's no-repeat rule, the mixed acquisition maximizer, TuRBO's candidates and the trees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "optimist/core/space.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

class DiscreteDomain {
 public:
  explicit DiscreteDomain(const Space& space);

  std::size_t dim() const { return cardinality_.size(); }
  /// Integer and categorical dimensions, in order.
  const std::vector<std::size_t>& discrete_dims() const { return discrete_; }
  const std::vector<std::size_t>& continuous_dims() const { return continuous_; }
  bool has_discrete() const { return !discrete_.empty(); }
  bool has_continuous() const { return !continuous_.empty(); }
  /// Number of values of dimension i; 0 for a continuous one.
  std::size_t cardinality(std::size_t i) const { return cardinality_[i]; }
  bool is_categorical(std::size_t i) const { return categorical_[i] != 0; }
  /// Above this many choices a categorical parameter is modelled by its position in the list of
  /// choices, as an integer, and its local search visits a bounded set of neighbours: one-hot
  /// inputs of that width would make every model step cost as much as the choices (docs/discrete.md).
  static constexpr std::size_t kMaxModelledCategories = 64;
  /// Per dimension: the number of categories of a categorical parameter with at most
  /// kMaxModelledCategories choices, 0 otherwise (the models' description of the inputs: the
  /// categorical kernel, GO-UCB's one-hot network, TuRBO's sampled paths).
  std::vector<std::size_t> categories() const;

  /// The value index of unit coordinate u in discrete dimension i.
  std::size_t index(std::size_t i, double u) const;
  /// The unit coordinate of value j of discrete dimension i (the centre of its interval; a
  /// log-scale integer's own log position).
  double center(std::size_t i, std::size_t j) const;
  /// Discrete coordinates moved to their centres, continuous ones clamped into [0, 1], inactive
  /// ones (conditional parameters, Space::add_condition) at their fixed values.
  Vector snap(const Vector& u) const;
  /// Sets the inactive coordinates of a snapped point to their fixed values (Space::deactivate_unit).
  void deactivate(Vector& u) const { space_.deactivate_unit(u); }
  /// Per dimension, whether it is active at u (all true without conditions).
  std::vector<bool> active(const Vector& u) const { return space_.active_unit(u); }
  bool has_conditions() const { return space_.has_conditions(); }
  /// The value indices [first, last] of discrete dimension i whose centres lie in [lo, hi];
  /// when none does, the single value nearest to (lo + hi) / 2.
  std::pair<std::size_t, std::size_t> index_range(std::size_t i, double lo, double hi) const;

  /// The number of combinations of discrete values inside the box (saturating at 2^64 - 1); 1
  /// without discrete dimensions. With conditions an upper bound: enumerate() skips combinations
  /// that differ only in inactive coordinates.
  std::uint64_t count(const Vector& lower, const Vector& upper) const;
  /// Calls f(u) for every combination of the discrete values inside the box, in mixed-radix order
  /// (first discrete dimension fastest), the continuous coordinates of u taken from `base`; stops
  /// early when f returns false. With conditions each point once: u has its inactive coordinates
  /// at their fixed values.
  void enumerate(const Vector& base, const Vector& lower, const Vector& upper,
                 const std::function<bool(const Vector&)>& f) const;
  /// The snapped points one step from u inside the box: an integer one value up or down, a
  /// categorical any other value; continuous coordinates kept; inactive dimensions not moved and
  /// the children a move deactivates set to their fixed values. Appended to out.
  void neighbors(const Vector& u, const Vector& lower, const Vector& upper, std::vector<Vector>& out) const;
  /// Distance used to rank free points: squared unit-cube distance over integer and continuous
  /// dimensions, plus (1/k)^2 for each categorical that differs.
  double distance2(const Vector& a, const Vector& b) const;

  /// The point nearest to snap(u) for which is_free is true, searched breadth-first over discrete
  /// neighbours in the whole cube (within one ring, the smallest distance2 wins; ties: the first
  /// found). Deterministic. Empty when none is found within max_visits points or u has no
  /// discrete dimension and is not free.
  std::optional<Vector> nearest_free(const Vector& u, const std::function<bool(const Vector&)>& is_free,
                                     std::size_t max_visits = 200000) const;

 private:
  Space space_;                    // the conditions
  std::vector<Parameter> params_;  // each dimension's cell map
  std::vector<std::size_t> cardinality_;
  std::vector<char> categorical_;
  std::vector<std::size_t> discrete_, continuous_;
};

}  // namespace optimist
