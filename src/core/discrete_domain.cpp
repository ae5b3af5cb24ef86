#include "optimist/core/discrete_domain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "optimist/core/point_set.hpp"

namespace optimist {

DiscreteDomain::DiscreteDomain(const Space& space) : space_(space) {
  for (std::size_t i = 0; i < space.dim(); ++i) {
    const Parameter& p = space[i];
    params_.push_back(p);
    const bool discrete = p.kind != ParameterKind::Continuous;
    cardinality_.push_back(discrete ? p.cardinality() : 0);
    categorical_.push_back(p.kind == ParameterKind::Categorical ? 1 : 0);
    (discrete ? discrete_ : continuous_).push_back(i);
  }
}

std::vector<std::size_t> DiscreteDomain::categories() const {
  std::vector<std::size_t> c(dim(), 0);
  for (std::size_t i = 0; i < dim(); ++i)
    if (categorical_[i] && cardinality_[i] <= kMaxModelledCategories) c[i] = cardinality_[i];
  return c;
}

std::size_t DiscreteDomain::index(std::size_t i, double u) const { return params_[i].cell_index(u); }

double DiscreteDomain::center(std::size_t i, std::size_t j) const { return params_[i].cell_center(j); }

Vector DiscreteDomain::snap(const Vector& u) const {
  Vector s = u.cwiseMax(0.0).cwiseMin(1.0);
  for (std::size_t i : discrete_) {
    const auto ii = static_cast<Eigen::Index>(i);
    s[ii] = center(i, index(i, s[ii]));
  }
  space_.deactivate_unit(s);
  return s;
}

std::pair<std::size_t, std::size_t> DiscreteDomain::index_range(std::size_t i, double lo, double hi) const {
  const std::size_t k = cardinality_[i];
  if (params_[i].log_scale) {
    // Centres increase with j: the first at or above lo and the last at or below hi.
    std::size_t first = index(i, lo), last = index(i, hi);
    if (center(i, first) < lo) ++first;
    if (last > 0 && center(i, last) > hi) --last;
    if (first <= last && first < k && center(i, last) <= hi) return {first, last};
    const std::size_t mid = index(i, 0.5 * (lo + hi));
    return {mid, mid};
  }
  // Centres (j + 1/2)/k in [lo, hi]  <=>  j in [lo k - 1/2, hi k - 1/2].
  const double a = std::ceil(lo * static_cast<double>(k) - 0.5), b = std::floor(hi * static_cast<double>(k) - 0.5);
  const double first = std::max(a, 0.0), last = std::min(b, static_cast<double>(k - 1));
  if (first <= last) return {static_cast<std::size_t>(first), static_cast<std::size_t>(last)};
  const std::size_t mid = index(i, 0.5 * (lo + hi));
  return {mid, mid};
}

std::uint64_t DiscreteDomain::count(const Vector& lower, const Vector& upper) const {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t n = 1;
  for (std::size_t i : discrete_) {
    const auto ii = static_cast<Eigen::Index>(i);
    const auto [a, b] = index_range(i, lower[ii], upper[ii]);
    const std::uint64_t m = b - a + 1;
    n = n > kMax / m ? kMax : n * m;
  }
  return n;
}

void DiscreteDomain::enumerate(const Vector& base, const Vector& lower, const Vector& upper,
                               const std::function<bool(const Vector&)>& f) const {
  std::vector<std::pair<std::size_t, std::size_t>> range;
  for (std::size_t i : discrete_) {
    const auto ii = static_cast<Eigen::Index>(i);
    range.push_back(index_range(i, lower[ii], upper[ii]));
  }
  std::vector<std::size_t> idx(discrete_.size());
  for (std::size_t q = 0; q < discrete_.size(); ++q) idx[q] = range[q].first;
  Vector u = base.cwiseMax(0.0).cwiseMin(1.0);
  for (;;) {
    for (std::size_t q = 0; q < discrete_.size(); ++q)
      u[static_cast<Eigen::Index>(discrete_[q])] = center(discrete_[q], idx[q]);
    bool first_of_its_kind = true;  // an inactive coordinate at the first value of its range
    if (space_.has_conditions()) {
      const std::vector<bool> on = space_.active_unit(u);
      for (std::size_t q = 0; q < discrete_.size() && first_of_its_kind; ++q)
        first_of_its_kind = on[discrete_[q]] || idx[q] == range[q].first;
      if (first_of_its_kind) {
        Vector v = u;
        space_.deactivate_unit(v);
        if (!f(v)) return;
      }
    } else if (!f(u)) {
      return;
    }
    std::size_t q = 0;
    for (; q < discrete_.size(); ++q) {  // mixed-radix increment, first dimension fastest
      if (idx[q] < range[q].second) {
        ++idx[q];
        break;
      }
      idx[q] = range[q].first;
    }
    if (q == discrete_.size()) return;
  }
}

void DiscreteDomain::neighbors(const Vector& u, const Vector& lower, const Vector& upper, std::vector<Vector>& out) const {
  const Vector s = snap(u);
  const std::vector<bool> on = space_.has_conditions() ? space_.active_unit(s) : std::vector<bool>();
  for (std::size_t i : discrete_) {
    if (!on.empty() && !on[i]) continue;
    const auto ii = static_cast<Eigen::Index>(i);
    const std::size_t j = index(i, s[ii]);
    const auto [a, b] = index_range(i, lower[ii], upper[ii]);
    const auto emit = [&](std::size_t v) {
      Vector n = s;
      n[ii] = center(i, v);
      space_.deactivate_unit(n);  // a parent's move resets the children it deactivates (no-op without conditions)
      out.push_back(std::move(n));
    };
    if (categorical_[i] && b - a < kMaxModelledCategories) {
      for (std::size_t v = a; v <= b; ++v)
        if (v != j) emit(v);
    } else if (categorical_[i]) {
      // Many choices: the adjacent ones (which keep every choice reachable) and 64 spread evenly
      // over the rest, so that a step costs a bounded number of evaluations.
      const std::size_t span = b - a + 1;
      const std::size_t stride = (span + kMaxModelledCategories - 1) / kMaxModelledCategories;
      if (j > a && j - 1 <= b) emit(j - 1);
      if (j + 1 <= b && j + 1 >= a) emit(j + 1);
      const std::size_t from = std::clamp(j, a, b) - a;
      for (std::size_t k = 1; k < kMaxModelledCategories; ++k) {
        const std::size_t v = a + (from + k * stride) % span;
        if (v != j && v + 1 != j && v != j + 1) emit(v);
      }
    } else {
      if (j > a && j - 1 <= b) emit(j - 1);
      if (j + 1 <= b && j + 1 >= a) emit(j + 1);
    }
  }
}

double DiscreteDomain::distance2(const Vector& a, const Vector& b) const {
  double d = 0.0;
  for (std::size_t i = 0; i < dim(); ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    if (categorical_[i]) {
      if (index(i, a[ii]) != index(i, b[ii])) d += 1.0 / static_cast<double>(cardinality_[i] * cardinality_[i]);
    } else {
      d += (a[ii] - b[ii]) * (a[ii] - b[ii]);
    }
  }
  return d;
}

std::optional<Vector> DiscreteDomain::nearest_free(const Vector& u, const std::function<bool(const Vector&)>& is_free,
                                                   std::size_t max_visits) const {
  const Vector start = snap(u);
  if (is_free(start)) return start;
  if (discrete_.empty()) return std::nullopt;
  const Vector lower = Vector::Zero(static_cast<Eigen::Index>(dim())), upper = Vector::Ones(static_cast<Eigen::Index>(dim()));
  PointSet seen;
  seen.insert(start);
  std::vector<Vector> ring{start}, next, around;
  std::size_t visits = 1;
  while (!ring.empty() && visits < max_visits) {
    next.clear();
    std::optional<Vector> best;
    double best_d = std::numeric_limits<double>::infinity();
    for (const Vector& p : ring) {
      around.clear();
      neighbors(p, lower, upper, around);
      for (Vector& n : around) {
        if (!seen.insert(n)) continue;
        ++visits;
        if (is_free(n)) {
          const double d = distance2(n, start);
          if (d < best_d) {
            best_d = d;
            best = n;
          }
        } else {
          next.push_back(std::move(n));
        }
      }
    }
    if (best) return best;
    ring.swap(next);
  }
  return std::nullopt;
}

}  // namespace optimist
