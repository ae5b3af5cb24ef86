#include "optimist/solvers/mixed_maximizer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "optimist/core/point_set.hpp"
#include "optimist/core/sobol.hpp"

namespace optimist {

namespace {

constexpr std::size_t kBatch = 1024;  // points scored per batch call

struct Search {
  const DiscreteDomain& domain;
  const BoxObjective& f;
  const BoxBatchObjective& batch;
  const Vector& lower;
  const Vector& upper;
  const std::function<bool(const Vector&)>& excluded;
  MixedMaximizerResult result;

  // The box with the discrete coordinates' valid range (centres inside it, or the nearest value).
  Vector clamp(const Vector& u) const { return u.cwiseMax(lower).cwiseMin(upper); }
  Vector snap(const Vector& u) const {
    Vector s = clamp(u);
    for (std::size_t i : domain.discrete_dims()) {
      const auto ii = static_cast<Eigen::Index>(i);
      const auto [a, b] = domain.index_range(i, lower[ii], upper[ii]);
      s[ii] = domain.center(i, std::clamp(domain.index(i, s[ii]), a, b));
    }
    domain.deactivate(s);  // conditional parameters: one point per active part
    return s;
  }

  // The dimensions of `dims` active at u: a step along an inactive one changes nothing the
  // objective sees (snap sets it back).
  std::vector<std::size_t> active_only(const std::vector<std::size_t>& dims, const Vector& u) const {
    if (!domain.has_conditions()) return dims;
    const std::vector<bool> on = domain.active(u);
    std::vector<std::size_t> out;
    for (std::size_t i : dims)
      if (on[i]) out.push_back(i);
    return out;
  }

  double value(const Vector& u) {
    ++result.evaluations;
    const double v = f(u, nullptr);
    return std::isfinite(v) ? v : -HUGE_VAL;
  }

  Vector values(const Matrix& U) {
    result.evaluations += static_cast<std::size_t>(U.cols());
    Vector v(U.cols());
    if (batch) {
      for (Eigen::Index j0 = 0; j0 < U.cols(); j0 += static_cast<Eigen::Index>(kBatch)) {
        const Eigen::Index m = std::min<Eigen::Index>(static_cast<Eigen::Index>(kBatch), U.cols() - j0);
        v.segment(j0, m) = batch(U.middleCols(j0, m));
      }
    } else {
      for (Eigen::Index j = 0; j < U.cols(); ++j) v[j] = f(U.col(j), nullptr);
    }
    for (Eigen::Index j = 0; j < v.size(); ++j)
      if (!std::isfinite(v[j])) v[j] = -HUGE_VAL;
    return v;
  }

  // Keeps the best point that is not excluded (ties: the first seen).
  void record(const Vector& u, double v) {
    if (v > result.value && !excluded(u)) {
      result.value = v;
      result.x = u;
    }
  }

  Matrix columns(const std::vector<Vector>& points) const {
    Matrix U(static_cast<Eigen::Index>(domain.dim()), static_cast<Eigen::Index>(points.size()));
    for (std::size_t j = 0; j < points.size(); ++j) U.col(static_cast<Eigen::Index>(j)) = points[j];
    return U;
  }

  // L-BFGS-B over the coordinates `free` (the others fixed at u's), from u; returns the best point
  // and its value (u itself when nothing better is found).
  std::pair<Vector, double> refine(const Vector& u, double fu, const std::vector<std::size_t>& free,
                                   const BoxMaximizerOptions& box, Rng& rng) {
    if (free.empty()) return {u, fu};
    const auto m = static_cast<Eigen::Index>(free.size());
    Vector lo(m), hi(m), z(m);
    for (Eigen::Index k = 0; k < m; ++k) {
      const auto i = static_cast<Eigen::Index>(free[static_cast<std::size_t>(k)]);
      lo[k] = lower[i];
      hi[k] = upper[i];
      z[k] = u[i];
    }
    Vector full = u, g_full(u.size());
    const BoxObjective sub = [&](const Vector& zz, Vector* grad) {
      for (Eigen::Index k = 0; k < m; ++k) full[static_cast<Eigen::Index>(free[static_cast<std::size_t>(k)])] = zz[k];
      ++result.evaluations;
      if (!grad) return f(full, nullptr);
      g_full.setZero();
      const double v = f(full, &g_full);
      for (Eigen::Index k = 0; k < m; ++k) (*grad)[k] = g_full[static_cast<Eigen::Index>(free[static_cast<std::size_t>(k)])];
      return v;
    };
    BoxMaximizerOptions o = box;
    o.raw_samples = 0;
    o.restarts = 1;
    const BoxMaximizerResult r = maximize_in_box(sub, lo, hi, {z}, o, rng);
    if (!r.found() || !(r.value > fu)) return {u, fu};
    Vector out = u;
    for (Eigen::Index k = 0; k < m; ++k) out[static_cast<Eigen::Index>(free[static_cast<std::size_t>(k)])] = r.x[k];
    return {out, r.value};
  }
};

}  // namespace

MixedMaximizerResult maximize_mixed(const DiscreteDomain& domain, const BoxObjective& f, const BoxBatchObjective& batch,
                                    const Vector& lower, const Vector& upper, const std::vector<Vector>& starts,
                                    const std::function<bool(const Vector&)>& excluded,
                                    const MixedMaximizerOptions& options, Rng& rng) {
  const auto d = static_cast<Eigen::Index>(domain.dim());
  if (lower.size() != d || upper.size() != d)
    throw InvalidArgument("maximize_mixed: bounds of dimension " + std::to_string(lower.size()) + " and " +
                          std::to_string(upper.size()) + " for a space of dimension " + std::to_string(d));
  Search s{domain, f, batch, lower, upper, excluded, {}};
  const std::uint64_t combinations = domain.count(lower, upper);
  const Vector middle = 0.5 * (lower + upper);

  // Exact: every free valid point of a small discrete box.
  if (!domain.has_continuous() && combinations <= options.enumerate_limit) {
    std::vector<Vector> free;
    domain.enumerate(middle, lower, upper, [&](const Vector& u) {
      if (!excluded(u)) free.push_back(u);
      return true;
    });
    if (!free.empty()) {
      const Vector v = s.values(s.columns(free));
      Eigen::Index arg = 0;
      for (Eigen::Index j = 1; j < v.size(); ++j)
        if (v[j] > v[arg]) arg = j;
      s.result.x = free[static_cast<std::size_t>(arg)];
      s.result.value = v[arg];
    }
    s.result.enumerated = true;
    return s.result;
  }

  // Candidates: the starts and scrambled Sobol points, snapped to valid values.
  std::vector<Vector> cand;
  for (const Vector& u : starts) cand.push_back(s.snap(u));
  if (options.box.raw_samples > 0) {
    const SobolSequence sobol(domain.dim(), true, rng.next_u64());
    const Matrix P = sobol.points(0, options.box.raw_samples);
    for (Eigen::Index j = 0; j < P.cols(); ++j)
      cand.push_back(s.snap(lower + (upper - lower).cwiseProduct(Vector(P.col(j)))));
  }
  Vector scores = s.values(s.columns(cand));
  for (std::size_t j = 0; j < cand.size(); ++j) s.record(cand[j], scores[static_cast<Eigen::Index>(j)]);
  // A small discrete part next to continuous coordinates: every combination, with the continuous
  // part of the best candidate so far.
  if (domain.has_continuous() && combinations <= options.enumerate_limit && !cand.empty()) {
    Eigen::Index arg = 0;
    scores.maxCoeff(&arg);
    std::vector<Vector> extra;
    domain.enumerate(cand[static_cast<std::size_t>(arg)], lower, upper, [&](const Vector& u) {
      extra.push_back(u);
      return true;
    });
    const Vector v = s.values(s.columns(extra));
    for (std::size_t j = 0; j < extra.size(); ++j) s.record(extra[j], v[static_cast<Eigen::Index>(j)]);
    cand.insert(cand.end(), extra.begin(), extra.end());
    Vector all(scores.size() + v.size());
    all << scores, v;
    scores = std::move(all);
  }

  // Local searches from the best distinct candidates (ties: the first).
  std::vector<Eigen::Index> order(cand.size());
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return scores[a] > scores[b]; });
  std::vector<std::size_t> relaxed = domain.continuous_dims(), continuous = domain.continuous_dims();
  for (std::size_t i : domain.discrete_dims())
    if (!domain.is_categorical(i)) relaxed.push_back(i);
  std::sort(relaxed.begin(), relaxed.end());
  PointSet started;
  std::vector<Vector> around;
  std::size_t searches = 0;
  for (Eigen::Index j : order) {
    if (searches >= options.box.restarts || !std::isfinite(scores[j])) break;
    if (!started.insert(cand[static_cast<std::size_t>(j)])) continue;
    ++searches;
    Vector u = cand[static_cast<std::size_t>(j)];
    double fu = scores[j];
    for (std::size_t round = 0; round < options.max_rounds; ++round) {
      // (1) Continuous phase; the first round relaxes the integers too, then rounds them.
      auto [v, fv] = s.refine(u, fu, s.active_only(round == 0 ? relaxed : continuous, u), options.box, rng);
      if (round == 0 && relaxed.size() != continuous.size()) {
        v = s.snap(v);
        fv = s.value(v);
        if (!(fv > fu)) {
          v = u;
          fv = fu;
        }
      }
      s.record(v, fv);
      u = v;
      fu = fv;
      // (2) The best discrete neighbour, while it improves.
      around.clear();
      domain.neighbors(u, lower, upper, around);
      if (around.empty()) break;
      const Vector nv = s.values(s.columns(around));
      Eigen::Index arg = 0;
      for (Eigen::Index k = 0; k < nv.size(); ++k) {
        s.record(around[static_cast<std::size_t>(k)], nv[k]);
        if (nv[k] > nv[arg]) arg = k;
      }
      if (!(nv[arg] > fu)) break;
      u = around[static_cast<std::size_t>(arg)];
      fu = nv[arg];
    }
  }

  // Every point seen is excluded (a nearly exhausted region): scan the free combinations.
  if (!s.result.x && combinations <= options.scan_limit) {
    const Vector base = cand.empty() ? middle : cand[static_cast<std::size_t>(order.front())];
    std::vector<Vector> free;
    domain.enumerate(base, lower, upper, [&](const Vector& u) {
      if (!excluded(u)) free.push_back(u);
      return true;
    });
    if (!free.empty()) {
      const Vector v = s.values(s.columns(free));
      for (std::size_t j = 0; j < free.size(); ++j) s.record(free[j], v[static_cast<Eigen::Index>(j)]);
    }
  }
  return s.result;
}

}  // namespace optimist
