#include "optimist/core/optimizer.hpp"

#include <cmath>
#include <stdexcept>

namespace optimist {

Optimizer::Optimizer(std::string name, Space space, Direction direction, const RunContext& context)
    : name_(std::move(name)), space_(std::move(space)), direction_(direction), context_(context) {
  if (space_.empty()) throw InvalidArgument(name_ + ": the search space has no parameters");
}

Trial Optimizer::ask() { return ask(1).front(); }

std::vector<Trial> Optimizer::ask(std::size_t n) {
  if (n == 0) throw InvalidArgument(name_ + ": ask(n) needs n >= 1, got 0");
  std::vector<Vector> units = propose(supports_batch() ? n : 1);
  if (units.empty() || units.size() > n)
    throw std::logic_error(name_ + ": propose() returned " + std::to_string(units.size()) + " points for n = " + std::to_string(n));
  std::vector<Trial> trials;
  trials.reserve(units.size());
  for (auto& u : units) {
    if (static_cast<std::size_t>(u.size()) != space_.dim() || !u.allFinite())
      throw std::logic_error(name_ + ": propose() returned a malformed point");
    Trial t;
    t.id = next_id_++;
    t.x = space_.to_user(space_.snap_unit(u));
    // The unit point is recomputed from x so that replaying x from a trace (tell(x, y)) gives
    // the algorithm bit-identical data; it differs from u by rounding only.
    t.unit = space_.to_unit(t.x);
    pending_.push_back(t);
    trials.push_back(std::move(t));
  }
  return trials;
}

void Optimizer::store(const Trial& trial, double value) {
  Observation obs{trial, value, false, {}};
  history_.push_back(obs);
  ++n_successful_;
  const double y = maximized(obs);
  if (!best_index_ || y > maximized(history_[*best_index_])) best_index_ = history_.size() - 1;
  observe(history_.back(), y);
}

void Optimizer::tell(const Trial& trial, double value) {
  if (!std::isfinite(value))
    throw InvalidArgument(name_ + ": told value " + format_double(value) + " is not finite; report failures with tell_failed");
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->id == trial.id) {
      Trial t = std::move(*it);
      pending_.erase(it);
      store(t, value);
      return;
    }
  }
  throw InvalidArgument(name_ + ": trial " + std::to_string(trial.id) + " is not pending (told twice or never asked)");
}

void Optimizer::tell(const Vector& x, double value) {
  if (!std::isfinite(value)) throw InvalidArgument(name_ + ": told value " + format_double(value) + " is not finite");
  space_.validate(x);
  for (const auto& t : pending_)
    if (t.x == x) return tell(Trial(t), value);
  store(external_trial(x), value);
}

Trial Optimizer::external_trial(const Vector& x) {
  Trial t;
  t.id = next_id_++;
  t.unit = space_.to_unit(x);
  t.x = x;
  return t;
}

Trial Optimizer::add_pending(const Vector& x) {
  space_.validate(x);
  Trial t = external_trial(x);
  pending_.push_back(t);
  observe_pending(pending_.back());
  return t;
}

void Optimizer::tell_failed(const Trial& trial, const std::string& error) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->id == trial.id) {
      Observation obs{std::move(*it), 0.0, true, error};
      pending_.erase(it);
      history_.push_back(std::move(obs));
      observe_failure(history_.back());
      return;
    }
  }
  throw InvalidArgument(name_ + ": trial " + std::to_string(trial.id) + " is not pending");
}

void Optimizer::tell_failed(const Vector& x, const std::string& error) {
  space_.validate(x);
  for (const auto& t : pending_)
    if (t.x == x) return tell_failed(Trial(t), error);
  history_.push_back(Observation{external_trial(x), 0.0, true, error});
  observe_failure(history_.back());
}

const Observation* Optimizer::best() const { return best_index_ ? &history_[*best_index_] : nullptr; }

Vector Optimizer::recommend_unit() const {
  if (!best_index_) throw std::logic_error(name_ + ": recommend() before any successful observation");
  return history_[*best_index_].trial.unit;
}

Vector Optimizer::recommend() const {
  return space_.to_user(space_.snap_unit(recommend_unit()));
}

Rng Optimizer::rng_for_ask() const { return Rng(derive_seed(context_.seed, history_.size() + pending_.size())); }

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
