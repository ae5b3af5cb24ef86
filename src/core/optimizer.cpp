#include "optimist/core/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace optimist {

namespace {
// The safety net's moves of continuous coordinates ("fallback" in ASCII).
constexpr std::uint64_t kFallbackStream = 0x66616c6c6261636bULL;
// A finite space is scanned in full for a free point when the breadth-first search gives up, up
// to this size.
constexpr std::uint64_t kFullScanLimit = 10'000'000;
// How far outside [0, 1] a proposed coordinate may lie (an inner solver's round-off) before it
// is an error: a point in user coordinates, not a clipped boundary point.
constexpr double kUnitSlack = 1e-6;

// Throws std::logic_error naming what is wrong with a point an algorithm gave (`what`: "propose()"
// or "recommend_unit()"); a defect of the algorithm, not of the user's input.
void check_unit_point(const std::string& algorithm, const char* what, const Vector& u, const Space& space) {
  const std::string who = algorithm + ": " + what + " returned ";
  if (static_cast<std::size_t>(u.size()) != space.dim())
    throw std::logic_error(who + "a point of " + std::to_string(u.size()) + " coordinates; the space has " +
                           std::to_string(space.dim()));
  for (std::size_t i = 0; i < space.dim(); ++i) {
    const double v = u[static_cast<Eigen::Index>(i)];
    const std::string at = " for parameter '" + space[i].name + "' (coordinate " + std::to_string(i) + ")";
    if (!std::isfinite(v)) throw std::logic_error(who + format_double(v) + at);
    if (v < -kUnitSlack || v > 1.0 + kUnitSlack)
      throw std::logic_error(who + format_double(v) + at + ", outside the unit cube [0, 1]: points are unit-cube "
                             "coordinates (Space::to_unit maps a user point there)");
  }
}
}  // namespace

Optimizer::Optimizer(std::string name, Space space, Direction direction, const RunContext& context)
    : name_(std::move(name)), space_(std::move(space)), direction_(direction), context_(context), domain_(space_),
      finite_size_(space_.finite_size()) {
  if (space_.empty()) throw InvalidArgument(name_ + ": the search space has no parameters");
}

Trial Optimizer::ask() { return ask(1).front(); }

std::vector<Trial> Optimizer::ask(std::size_t n) {
  if (n == 0) throw InvalidArgument(name_ + ": ask(n) needs n >= 1, got 0");
  std::size_t want = supports_batch() ? n : 1;
  if (const auto left = remaining_points()) {
    if (*left == 0) {
      std::string msg = name_ + ": the search space is exhausted: each of its " + std::to_string(*finite_size_) +
                        " points has been evaluated";
      if (!pending_.empty()) msg += " or is pending (" + std::to_string(pending_.size()) + " pending)";
      throw SpaceExhausted(msg + " (a deterministic objective; declare it noisy to evaluate points again)");
    }
    want = static_cast<std::size_t>(std::min<std::uint64_t>(want, *left));
  }
  std::vector<Vector> units = propose(want);
  if (units.empty() || units.size() > want)
    throw std::logic_error(name_ + ": propose() returned " + std::to_string(units.size()) + " points for n = " + std::to_string(want));
  std::vector<Trial> trials;
  trials.reserve(units.size());
  PointSet batch;
  for (auto& u : units) {
    check_unit_point(name_, "propose()", u, space_);
    Trial t;
    t.x = user_point(u);
    if (avoids_repeats() && (is_taken_user(t.x) || batch.contains(t.x))) {
      // Safety net: the algorithm proposed a point evaluated or pending; the nearest free one
      // replaces it (there is one: at most remaining_points() are asked).
      const std::optional<Vector> v = free_point_near(u, &batch);
      if (!v) throw std::logic_error(name_ + ": no free point left although remaining_points() > 0");
      t.x = space_.to_user(*v);
      ++repeats_replaced_;
    }
    batch.insert(t.x);
    t.id = next_id_++;
    // The unit point is recomputed from x so that replaying x from a trace (tell(x, y)) gives
    // the algorithm bit-identical data; it differs from u by rounding only.
    t.unit = space_.to_unit(t.x);
    pending_.push_back(t);
    note_pending(t.x);
    trials.push_back(std::move(t));
  }
  return trials;
}

void Optimizer::note_pending(const Vector& x) {
  PointRecord& r = points_[PointKey(x)];
  if (r.evaluated == 0 && r.pending == 0) ++n_taken_;
  ++r.pending;
}

void Optimizer::note_withdrawn(const Vector& x) {
  const auto it = points_.find(PointKey(x));
  if (it == points_.end() || it->second.pending == 0) return;
  if (--it->second.pending == 0 && it->second.evaluated == 0) {
    points_.erase(it);
    --n_taken_;
  }
}

void Optimizer::note_evaluated(const Vector& x, bool pending_before, const std::optional<double>& maximized_value) {
  PointRecord& r = points_[PointKey(x)];
  if (r.evaluated == 0 && r.pending == 0) ++n_taken_;
  if (pending_before && r.pending > 0) --r.pending;
  if (r.evaluated++ == 0) ++n_distinct_evaluated_;
  if (maximized_value && !r.has_value) {
    r.has_value = true;
    r.value = *maximized_value;
  }
}

bool Optimizer::is_taken_user(const Vector& x) const { return points_.count(PointKey(x)) > 0; }

bool Optimizer::is_taken(const Vector& u) const { return is_taken_user(user_point(u)); }

std::optional<double> Optimizer::evaluated_value(const Vector& u) const {
  const auto it = points_.find(PointKey(user_point(u)));
  if (it == points_.end() || !it->second.has_value) return std::nullopt;
  return it->second.value;
}

bool Optimizer::evaluated_failed(const Vector& u) const {
  const auto it = points_.find(PointKey(user_point(u)));
  return it != points_.end() && it->second.evaluated > 0 && !it->second.has_value;
}

bool Optimizer::exhausted() const {
  return avoids_repeats() && finite_size_ && n_distinct_evaluated_ >= *finite_size_;
}

std::optional<std::uint64_t> Optimizer::remaining_points() const {
  if (!avoids_repeats() || !finite_size_) return std::nullopt;
  return *finite_size_ - std::min<std::uint64_t>(*finite_size_, n_taken_);
}

std::optional<Vector> Optimizer::free_point_near(const Vector& u, const PointSet* also) const {
  const auto is_free = [&](const Vector& v) {
    const Vector x = space_.to_user(v);
    return !is_taken_user(x) && !(also && also->contains(x));
  };
  if (auto v = domain_.nearest_free(u, is_free)) return v;
  if (finite_size_) {
    // The breadth-first search gave up (a space almost full): the first free point in order.
    if (*finite_size_ > kFullScanLimit) return std::nullopt;
    std::optional<Vector> found;
    const Vector zero = Vector::Zero(u.size()), one = Vector::Ones(u.size());
    domain_.enumerate(zero, zero, one, [&](const Vector& v) {
      if (is_free(v)) found = v;
      return !found;
    });
    return found;
  }
  // A space with continuous parameters: move them by a growing deterministic amount.
  Rng rng(derive_seed(derive_seed(context_.seed, kFallbackStream), history_.size() + pending_.size()));
  const Vector base = domain_.snap(u);
  double radius = 1e-6;
  for (int attempt = 0; attempt < 200; ++attempt, radius = std::min(1.0, 2.0 * radius)) {
    Vector v = base;
    for (std::size_t i : domain_.continuous_dims()) {
      const auto ii = static_cast<Eigen::Index>(i);
      v[ii] = std::clamp(base[ii] + radius * (2.0 * rng.uniform() - 1.0), 0.0, 1.0);
    }
    if (auto w = domain_.nearest_free(v, is_free)) return w;
  }
  return std::nullopt;
}

Vector Optimizer::free_uniform_point(Rng& rng, const PointSet* also) const {
  const auto d = static_cast<Eigen::Index>(space_.dim());
  const auto is_free = [&](const Vector& v) {
    const Vector x = space_.to_user(v);
    return !is_taken_user(x) && !(also && also->contains(x));
  };
  Vector u = rng.uniform_vector(d);
  if (!avoids_repeats()) return u;
  for (int attempt = 1; attempt < 64 && !is_free(domain_.snap(u)); ++attempt) u = rng.uniform_vector(d);
  if (is_free(domain_.snap(u))) return u;
  if (finite_size_ && *finite_size_ <= kFullScanLimit) {
    // Few free points left: one of them, uniformly.
    std::vector<Vector> free;
    const Vector zero = Vector::Zero(d), one = Vector::Ones(d);
    domain_.enumerate(zero, zero, one, [&](const Vector& v) {
      if (is_free(v)) free.push_back(v);
      return true;
    });
    if (!free.empty()) return free[rng.below(free.size())];
  }
  return free_point_near(u, also).value_or(u);
}

void Optimizer::store(const Trial& trial, double value) {
  Observation obs{trial, value, false, {}};
  const double y = maximized(obs);
  if (best_index_) values_all_equal_ = values_all_equal_ && y == maximized(history_[*best_index_]);
  history_.push_back(obs);
  ++n_successful_;
  const double sign = direction_sign(direction_);  // the best as told, not as clamped for the models
  if (!best_index_ || sign * value > sign * history_[*best_index_].value) best_index_ = history_.size() - 1;
  observe(history_.back(), y);
}

namespace {

// A trial told with another point than it was asked at (its x edited after ask(), e.g. rounded)
// would record the value at the asked point: refused. An empty x (a trial named by its id) is fine.
void check_unchanged(const std::string& name, const Trial& told, const Trial& asked) {
  if (told.x.size() == 0 || (told.x.size() == asked.x.size() && told.x == asked.x)) return;
  auto text = [](const Vector& x) {  // every digit: an edit may be a rounding in the 17th
    std::string out = "[";
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (i) out += ", ";
      out += format_double(x[i]);
    }
    return out + "]";
  };
  throw InvalidArgument(name + ": trial " + std::to_string(asked.id) + " was asked at x = " + text(asked.x) +
                        " but is told with x = " + text(told.x) + ": a trial's point cannot change after ask(); to record "
                        "the point you evaluated, give the trial back (tell_failed with its asked point) and tell(x, value)");
}

}  // namespace

void Optimizer::tell(const Trial& trial, double value) {
  if (!std::isfinite(value))
    throw InvalidArgument(name_ + ": told value " + format_double(value) + " is not finite; report failures with tell_failed");
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->id == trial.id) {
      check_unchanged(name_, trial, *it);
      Trial t = std::move(*it);
      pending_.erase(it);
      note_evaluated(t.x, true, direction_sign(direction_) * value);
      store(t, value);
      return;
    }
  }
  throw InvalidArgument(name_ + ": trial " + std::to_string(trial.id) + " is not pending (told, withdrawn, or never asked)");
}

void Optimizer::tell(const Vector& told_x, double value) {
  if (!std::isfinite(value)) throw InvalidArgument(name_ + ": told value " + format_double(value) + " is not finite");
  const Vector x = space_.canonical(told_x);  // validated; inactive parameters at their fixed values
  for (const auto& t : pending_)
    if (t.x == x) return tell(Trial(t), value);
  note_evaluated(x, false, direction_sign(direction_) * value);
  store(external_trial(x), value);
}

Trial Optimizer::external_trial(const Vector& x) {
  Trial t;
  t.id = next_id_++;
  t.unit = space_.to_unit(x);
  t.x = x;
  return t;
}

Trial Optimizer::add_pending(const Vector& given_x) {
  const Vector x = space_.canonical(given_x);
  Trial t = external_trial(x);
  pending_.push_back(t);
  note_pending(t.x);
  observe_pending(pending_.back());
  return t;
}

void Optimizer::withdraw(const Trial& trial) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->id == trial.id) {
      check_unchanged(name_, trial, *it);
      const Trial t = std::move(*it);
      pending_.erase(it);
      note_withdrawn(t.x);
      observe_withdrawn(t);
      return;
    }
  }
  throw InvalidArgument(name_ + ": trial " + std::to_string(trial.id) + " is not pending (told, withdrawn, or never asked)");
}

void Optimizer::tell_failed(const Trial& trial, const std::string& error) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->id == trial.id) {
      check_unchanged(name_, trial, *it);
      Observation obs{std::move(*it), 0.0, true, error};
      pending_.erase(it);
      note_evaluated(obs.trial.x, true, std::nullopt);
      history_.push_back(std::move(obs));
      observe_failure(history_.back());
      return;
    }
  }
  throw InvalidArgument(name_ + ": trial " + std::to_string(trial.id) + " is not pending (told, withdrawn, or never asked)");
}

void Optimizer::tell_failed(const Vector& told_x, const std::string& error) {
  const Vector x = space_.canonical(told_x);
  for (const auto& t : pending_)
    if (t.x == x) return tell_failed(Trial(t), error);
  note_evaluated(x, false, std::nullopt);
  history_.push_back(Observation{external_trial(x), 0.0, true, error});
  observe_failure(history_.back());
}

const Observation* Optimizer::best() const { return best_index_ ? &history_[*best_index_] : nullptr; }

Vector Optimizer::recommend_unit() const {
  if (!best_index_) throw std::logic_error(name_ + ": recommend() before any successful observation");
  return history_[*best_index_].trial.unit;
}

Vector Optimizer::recommend() const {
  const Vector raw = recommend_unit();
  check_unit_point(name_, "recommend_unit()", raw, space_);
  const Vector unit = space_.snap_unit(raw);
  // An evaluated point is returned as it was told: the unit cube's round trip moves user values
  // (a warm start's 0.1 came back as 0.10000000000000009).
  if (best_index_ && history_[*best_index_].trial.unit == unit) return history_[*best_index_].trial.x;
  for (const Observation& obs : history_)
    if (!obs.failed && obs.trial.unit == unit) return obs.trial.x;
  return space_.to_user(unit);
}

Rng Optimizer::rng_for_ask() const { return Rng(derive_seed(context_.seed, history_.size() + pending_.size())); }

void Optimizer::model_data(Matrix& unit_points, Vector& values, std::optional<double> failed_value) const {
  if (!failed_value) return successful_data(unit_points, values);
  const auto n = static_cast<Eigen::Index>(history_.size());
  unit_points.resize(static_cast<Eigen::Index>(space_.dim()), n);
  values.resize(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Observation& obs = history_[static_cast<std::size_t>(k)];
    unit_points.col(k) = obs.trial.unit;
    values[k] = obs.failed ? *failed_value : maximized(obs);
  }
}

void Optimizer::successful_data(Matrix& unit_points, Vector& values) const {
  unit_points.resize(static_cast<Eigen::Index>(space_.dim()), static_cast<Eigen::Index>(n_successful_));
  values.resize(static_cast<Eigen::Index>(n_successful_));
  Eigen::Index k = 0;
  for (const auto& obs : history_) {
    if (obs.failed) continue;
    unit_points.col(k) = obs.trial.unit;
    values[k] = maximized(obs);
    ++k;
  }
}

}  // namespace optimist
