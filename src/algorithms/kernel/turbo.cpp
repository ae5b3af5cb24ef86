// TuRBO-1 and TuRBO-m (Eriksson et al. 2019): the regions' runs, their GP fits, Thompson candidates
// (continuous and discrete) and the batch. Above 400 lines: the discrete and continuous candidate
// sets share the region's geometry; the trust region itself is bo/trust_region.hpp.
#include "optimist/algorithms/kernel/turbo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/kernel/model_fit.hpp"
#include "optimist/algorithms/bo/pending_points.hpp"
#include "optimist/core/sobol.hpp"
#include "optimist/models/gp/adam_fit.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

namespace {

constexpr std::uint64_t kFitStream = 0x7475'7262'6f00'0001ULL;
constexpr std::uint64_t kDesignStream = 0x7475'7262'6f00'0002ULL;

// The reference implementation's GP (turbo_1.py / gp.py): Matern-5/2 ARD, lengthscales in
// [0.005, 2], outputscale in [0.05, 20], noise in [5e-4, 0.2] on standardized outputs, fitted by
// maximum likelihood (no priors).
GpOptions turbo_model_options(const TurboOptions& o, const std::vector<std::size_t>& categories) {
  GpOptions g;
  g.kernel = o.kernel;
  g.categories = categories;  // categorical parameters (empty: none)
  g.category_distance = o.categorical_distance;
  g.use_priors = false;
  g.min_lengthscale = 0.005;
  g.max_lengthscale = 2.0;
  g.min_outputscale = 0.05;
  g.max_outputscale = 20.0;
  g.min_noise_variance = 5e-4;
  g.max_noise_variance = 0.2;
  g.fit = kernel_detail::warm_fit_options();
  g.explicit_inverse = false;  // its Thompson samples use the factor, never predict_with_gradient
  if (o.recipe == TurboRecipe::Reference) g.output_scaling = OutputScaling::MedianPopulationSd;
  if (o.recipe == TurboRecipe::Ml && o.prior == TurboPrior::Gamma) {
    g.use_priors = true;
    g.lengthscale_prior = GammaPrior{3.0, 6.0};
    g.outputscale_prior = GammaPrior{2.0, 0.15};
  }
  return g;
}

}  // namespace

// ---- Turbo ----

void Turbo::fit_run_model(GaussianProcess& gp, bool thorough, Rng& rng) const {
  if (options_.recipe == TurboRecipe::Ml) {
    kernel_detail::fit_hyperparameters(gp, thorough, rng);
    return;
  }
  // Reference (gp.py, train_gp with hypers = {}): a new model every step on y standardized by
  // its median and population sd (OutputScaling::MedianPopulationSd), initialized at lengthscale
  // 0.5, outputscale 1, noise 0.005 and mean 0, then 50 Adam steps of lr 0.1.
  GaussianProcess fresh(gp.dim(), gp.options());
  fresh.set_data(gp.inputs(), gp.outputs());
  GpHyperparameters h;
  h.lengthscales = Vector::Constant(gp.dim(), 0.5);
  h.outputscale = 1.0;
  h.noise_variance = 0.005;
  h.mean = 0.0;
  fresh.set_hyperparameters(h);
  fit_hyperparameters_adam(fresh);
  gp = std::move(fresh);
}

Turbo::Turbo(const Space& space, Direction direction, TurboOptions options, const RunContext& context)
    : Optimizer("turbo", space, direction, context),
      options_(std::move(options)),
      n_init_(options_.n_init > 0 ? options_.n_init : std::clamp<std::size_t>(2 * space.dim(), 2, 50)),
      n_candidates_(options_.n_candidates > 0 ? options_.n_candidates : std::min<std::size_t>(100 * space.dim(), 5000)) {
  // The enums are checked for values outside their tables (a cast integer): IsValid of Ceres.
  if (!kKernelTypeNames.contains(options_.kernel) || !kInitialDesignNames.contains(options_.init) ||
      !kTurboPriorNames.contains(options_.prior) || !kTurboRecipeNames.contains(options_.recipe) ||
      !kThompsonSamplerNames.contains(options_.sampler) || !kCategoryDistanceNames.contains(options_.categorical_distance))
    throw InvalidArgument("turbo: an option holds a value outside its enum (kernel, init, prior, recipe, sampler or "
                          "categorical_distance)");
  if (options_.n_candidates > kMaxRawSamples)
    throw InvalidArgument("turbo: option 'n_candidates' must be at most " + std::to_string(kMaxRawSamples) + ", got " +
                          std::to_string(options_.n_candidates));
  if (options_.max_model_points != 0 && options_.max_model_points < 2)
    throw InvalidArgument("turbo: option 'max_model_points' must be 0 (no cap) or >= 2, got " + std::to_string(options_.max_model_points));
  if (options_.batch_size == 0) throw InvalidArgument("turbo: option 'batch_size' must be >= 1");
  if (options_.success_tolerance == 0) throw InvalidArgument("turbo: option 'success_tolerance' must be >= 1");
  if (options_.trust_regions == 0 || options_.trust_regions > 100)
    throw InvalidArgument("turbo: option 'trust_regions' must be in [1, 100], got " + std::to_string(options_.trust_regions));
  if (!(options_.length_min > 0.0 && options_.length_min <= options_.length_init && options_.length_init <= options_.length_max))
    throw InvalidArgument("turbo: need 0 < length_min <= length_init <= length_max, got " + std::to_string(options_.length_min) +
                          ", " + std::to_string(options_.length_init) + ", " + std::to_string(options_.length_max));
  const TrustRegion tr = TrustRegion::counters(
      options_.length_init, options_.length_min, options_.length_max, options_.success_tolerance,
      options_.failure_tolerance > 0 ? options_.failure_tolerance
                                     : TrustRegion::default_failure_tolerance(space.dim(), options_.batch_size));
  const auto d = static_cast<Eigen::Index>(space.dim());
  const std::vector<std::size_t> cats = domain().categories();
  if (std::any_of(cats.begin(), cats.end(), [](std::size_t k) { return k > 0; })) categories_ = cats;
  for (std::size_t r = 0; r < options_.trust_regions; ++r)
    regions_.push_back(Region{tr, Matrix(d, 0), Vector(), 0, 0, 0.0, 0.0, GaussianProcess(d, turbo_model_options(options_, categories_)),
                              {}, false, 0, 0, make_design(r, 0)});
}

nlohmann::json Turbo::diagnostics() const {
  const TrustRegion& tr = regions_.front().tr;
  nlohmann::json j = {{"tr_length", tr.length}, {"tr_restarts", tr.restarts}, {"tr_successes", tr.successes}, {"tr_failures", tr.failures}};
  if (regions_.size() > 1) {
    std::vector<double> lengths;
    std::vector<std::size_t> sizes;
    for (const Region& g : regions_) {
      lengths.push_back(g.tr.length);
      sizes.push_back(static_cast<std::size_t>(g.y.size()));
    }
    j["tr_lengths"] = lengths;
    j["tr_sizes"] = sizes;
  }
  return j;
}

const GaussianProcess& Turbo::model(std::size_t r) const {
  const Region& region = regions_.at(r);
  sync(region);
  return region.gp;
}

void Turbo::sync(const Region& region) const {
  for (const Pending& p : region.unsynced) {
    region.gp.add_point(p.unit, p.value);  // the factor is extended (O(n^2)) at the update below, hyperparameters kept
    if (!p.fit) continue;
    const std::size_t n = p.run_size;
    const std::size_t cap = options_.max_model_points;
    // As gp-ei's: a local model that has grown to twice the cap between refits (past 20 x the cap)
    // is refitted, so its size stays bounded however long the run.
    const bool model_full = cap > 0 && static_cast<std::size_t>(region.gp.size()) >= 2 * cap;
    // The reference recipe refits every step by design; "ml" follows refit_every.
    if (options_.recipe == TurboRecipe::Ml && region.fitted && !model_full &&
        !refit_due(n, region.last_fit, options_.refit_every))
      continue;
    // Multi-start fit at the run's first fit and whenever its data has doubled, warm refits
    // otherwise; the seed depends only on the told history (replay contract).
    Rng rng(derive_seed(derive_seed(seed(), kFitStream), p.stream));
    if (options_.recipe == TurboRecipe::Ml && cap > 0 && n > cap) {
      // The local model: the cap points of the run nearest its best point (the trust region's
      // centre), in the current lengthscales.
      const auto X = region.X.leftCols(static_cast<Eigen::Index>(n));
      const auto y = region.y.head(static_cast<Eigen::Index>(n));
      Eigen::Index best = 0;
      y.maxCoeff(&best);
      const Matrix Xn = X;
      const std::vector<Eigen::Index> idx =
          kernel_detail::subset_indices(Xn, Xn.col(best), region.gp.kernel().lengthscales(), cap, cap, rng);
      GaussianProcess local(region.gp.dim(), region.gp.options());
      local.set_hyperparameters(region.gp.hyperparameters());
      local.set_data(Xn(Eigen::all, idx), Vector(y)(idx));
      region.gp = std::move(local);
    }
    const bool thorough = region.last_thorough_fit == 0 || n >= 2 * region.last_thorough_fit;
    fit_run_model(region.gp, thorough, rng);
    if (thorough) region.last_thorough_fit = n;
    region.last_fit = n;
    region.fitted = true;
  }
  region.unsynced.clear();
  region.gp.update();  // the factorization once, not in each copy an ask makes
}

std::size_t Turbo::asked_by(const Trial& trial) const {
  for (const auto& [id, r] : proposed_by_)
    if (id == trial.id) return r;
  return 0;
}

std::size_t Turbo::region_of(const Trial& trial) {
  for (auto it = proposed_by_.begin(); it != proposed_by_.end(); ++it)
    if (it->first == trial.id) {
      const std::size_t r = it->second;
      proposed_by_.erase(it);
      return r;
    }
  return nearest_region(trial);
}

std::size_t Turbo::nearest_region(const Trial& trial) const {
  if (regions_.size() == 1) return 0;
  // External tell: the region whose centre is nearest in the infinity norm scaled by its length
  // (a run with no data yet only takes the point when no run has data).
  std::size_t best = 0;
  double best_dist = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    const Region& g = regions_[r];
    double dist = std::numeric_limits<double>::max();
    if (g.y.size() > 0) {
      Eigen::Index arg = 0;
      g.y.maxCoeff(&arg);
      dist = (trial.unit - g.X.col(arg)).lpNorm<Eigen::Infinity>() / g.tr.length;
    }
    if (dist < best_dist) {
      best_dist = dist;
      best = r;
    }
  }
  return best;
}

// Another worker's pending point belongs to the region it lies nearest (as an external tell).
void Turbo::observe_pending(const Trial& trial) { proposed_by_.emplace_back(trial.id, nearest_region(trial)); }

// A withdrawn ask belongs to no region: its region's next ask continues its design as before.
void Turbo::observe_withdrawn(const Trial& trial) {
  std::erase_if(proposed_by_, [&](const auto& entry) { return entry.first == trial.id; });
}

void Turbo::restart(Region& g) {
  // TuRBO-1 restart: forget the run (its data and GP), start a fresh design.
  g.tr.restart();
  g.design = make_design(static_cast<std::size_t>(&g - regions_.data()), g.tr.restarts);
  g.X.resize(g.X.rows(), 0);
  g.y.resize(0);
  g.told = 0;
  g.batch_count = 0;
  g.gp = GaussianProcess(g.gp.dim(), turbo_model_options(options_, categories_));
  g.unsynced.clear();
  g.fitted = false;
  g.last_thorough_fit = 0;
  g.last_fit = 0;
}

void Turbo::observe_failure(const Observation& obs) { ++regions_[region_of(obs.trial)].told; }

void Turbo::observe(const Observation& obs, double y) {
  // Everything below is a function of the told sequence (and of which region asked each point),
  // so replaying the history rebuilds the same trust regions (state recomputed here, never in propose).
  Region& g = regions_[region_of(obs.trial)];
  ++g.told;
  const Vector& u = obs.trial.unit;
  const auto run_size = static_cast<std::size_t>(g.y.size());
  const bool in_design = run_size < n_init_;
  const double run_best = run_size > 0 ? g.y.maxCoeff() : -std::numeric_limits<double>::infinity();
  const Eigen::Index k = g.X.cols();
  g.X.conservativeResize(Eigen::NoChange, k + 1);
  g.X.col(k) = u;
  g.y.conservativeResize(k + 1);
  g.y[k] = y;
  if (in_design) {
    // The design is not judged (the reference adjusts the region only after trust-region batches).
    g.unsynced.push_back({u, y, run_size + 1 == n_init_, history().size(), run_size + 1});
    return;
  }
  if (g.batch_count == 0) {
    g.best_before_batch = run_best;
    g.batch_best = y;
  }
  g.batch_best = std::max(g.batch_best, y);
  if (++g.batch_count >= options_.batch_size) {
    g.batch_count = 0;
    // Reference rule (maximization form): success if the batch beats the run's best by 1e-3 |best|.
    const bool success = g.batch_best > g.best_before_batch + 1e-3 * std::abs(g.best_before_batch);
    if (g.tr.update(success) == TrustRegion::Event::Collapsed) {
      restart(g);
      return;
    }
  }
  g.unsynced.push_back({u, y, true, history().size(), run_size + 1});
}

std::size_t Turbo::rff_features() const {
  // Past 300 points half the features: the step's largest cost at n = 500 (docs/gp-bo.md, "Fewer
  // features past 300 points"); Matheron's update corrects the prior draw at the data, where the
  // candidates of a shrunken region lie. Shorter runs keep their traces.
  if (options_.rff_features > 0) return options_.rff_features;
  return history().size() < 300 ? 1024 : 512;
}

Matrix Turbo::candidates(const GaussianProcess& gp, const Region& region, const Vector& center, Rng& rng,
                         std::optional<Vector> lower, std::optional<Vector> upper) const {
  const auto d = static_cast<Eigen::Index>(space().dim());
  const auto m = static_cast<Eigen::Index>(n_candidates_);
  // Region L_i = l_i / prod(l)^(1/d) * L around the center (volume L^d), clipped to the cube.
  const Vector& l = gp.kernel().lengthscales();
  const Vector weights = l / std::exp(l.array().log().mean());
  const Vector half = 0.5 * region.tr.length * weights;
  const Vector lb = lower ? *lower : Vector((center - half).cwiseMax(0.0)), ub = upper ? *upper : Vector((center + half).cwiseMin(1.0));
  const SobolSequence sobol(space().dim(), true, rng.next_u64());
  Matrix pert = sobol.points(0, n_candidates_);
  pert = (lb.replicate(1, m) + (ub - lb).asDiagonal() * pert).cwiseMin(ub.replicate(1, m));
  // Perturb each coordinate with probability min(1, 20/d), at least one per candidate.
  const double p = std::min(1.0, 20.0 / static_cast<double>(d));
  Matrix C = center.replicate(1, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    bool any = false;
    for (Eigen::Index i = 0; i < d; ++i)
      if (rng.uniform() < p) {
        C(i, j) = pert(i, j);
        any = true;
      }
    if (!any) {
      const auto i = static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(d)));
      C(i, j) = pert(i, j);
    }
  }
  return C;
}

Matrix Turbo::discrete_candidates(const GaussianProcess& gp, const Region& region, const Vector& center, Rng& rng) const {
  // TuRBO's candidates (Eriksson et al. 2019, sec. 2: points of the trust region around the best
  // point, each coordinate perturbed with probability min(1, 20/d)) restricted to valid integer
  // and categorical values and to free points. A discrete coordinate's region reaches at least its
  // two neighbouring values; categorical coordinates are not ordered: instead of the box, at most
  // `radius` of them differ from the centre, the radius shrinking with the length (Casmopolitan's
  // Hamming trust region, Wan et al. 2021, sec. 4.1). The region of this ask doubles until it
  // holds a free point.
  const DiscreteDomain& dom = domain();
  const auto d = static_cast<Eigen::Index>(space().dim());
  const Vector& l = gp.kernel().lengthscales();
  const Vector weights = l / std::exp(l.array().log().mean());
  std::size_t n_cat = 0;
  for (std::size_t i = 0; i < dom.dim(); ++i) n_cat += dom.is_categorical(i) ? 1 : 0;
  const auto free = [&](const Vector& u) { return !avoids_repeats() || !is_taken(u); };
  const auto differing = [&](const Vector& u) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < dom.dim(); ++i)
      if (dom.is_categorical(i) && dom.index(i, u[static_cast<Eigen::Index>(i)]) != dom.index(i, center[static_cast<Eigen::Index>(i)])) ++k;
    return k;
  };
  for (double length = region.tr.length;; length *= 2.0) {
    const bool whole = length >= 2.0;  // the box covers the cube
    Vector half = 0.5 * length * weights;
    for (std::size_t i : dom.discrete_dims()) {
      const auto ii = static_cast<Eigen::Index>(i);
      half[ii] = dom.is_categorical(i) ? 1.0 : std::max(half[ii], 1.0 / static_cast<double>(dom.cardinality(i)));
    }
    if (whole) half.setConstant(1.0);
    const Vector lb = (center - half).cwiseMax(0.0), ub = (center + half).cwiseMin(1.0);
    const std::size_t radius =
        whole ? n_cat : std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(static_cast<double>(n_cat) * std::min(1.0, length / region.tr.length_init))));
    PointSet seen;
    std::vector<Vector> out;
    const auto add = [&](const Vector& u) {
      if (differing(u) <= radius && free(u) && seen.insert(u)) out.push_back(u);
    };
    if (!dom.has_continuous() && dom.count(lb, ub) <= n_candidates_) {
      dom.enumerate(center, lb, ub, [&](const Vector& u) {
        add(u);
        return true;
      });
    } else {
      const Matrix C = candidates(gp, region, center, rng, lb, ub);
      for (Eigen::Index j = 0; j < C.cols(); ++j) {
        Vector u = dom.snap(C.col(j));
        // Too many categoricals changed: keep the first `radius` changes in a random order.
        if (differing(u) > radius) {
          std::vector<std::size_t> changed;
          for (std::size_t i = 0; i < dom.dim(); ++i)
            if (dom.is_categorical(i) && dom.index(i, u[static_cast<Eigen::Index>(i)]) != dom.index(i, center[static_cast<Eigen::Index>(i)]))
              changed.push_back(i);
          for (std::size_t k = changed.size(); k > 1; --k) std::swap(changed[k - 1], changed[rng.below(k)]);
          for (std::size_t k = radius; k < changed.size(); ++k)
            u[static_cast<Eigen::Index>(changed[k])] = center[static_cast<Eigen::Index>(changed[k])];
        }
        add(u);
      }
    }
    if (!out.empty() || whole) {
      Matrix M(d, static_cast<Eigen::Index>(out.size()));
      for (std::size_t j = 0; j < out.size(); ++j) M.col(static_cast<Eigen::Index>(j)) = out[j];
      return M;
    }
  }
}

DesignSequence Turbo::make_design(std::size_t r, std::size_t restarts) const {
  // Region 0 keeps TuRBO-1's streams; every other region has its own.
  const std::uint64_t stream = r == 0 ? kDesignStream : derive_seed(kDesignStream, r);
  return DesignSequence(options_.init, space().dim(), n_init_, derive_seed(derive_seed(seed(), stream), restarts),
                        derive_seed(derive_seed(seed(), stream + 1), restarts));
}

std::vector<Vector> Turbo::propose(std::size_t n) {
  for (const Region& g : regions_) sync(g);
  Rng rng = rng_for_ask();
  const std::size_t m = regions_.size();
  std::vector<Vector> out;
  std::vector<std::size_t> owner;  // region of each point of out
  std::vector<std::size_t> pending_in(m, 0);
  for (const Trial& t : pending()) ++pending_in[asked_by(t)];
  auto planned = [&](std::size_t r) { return static_cast<std::size_t>(std::count(owner.begin(), owner.end(), r)); };
  bool any_data = false;
  for (const Region& g : regions_) any_data = any_data || g.y.size() > 0;

  // Designs: every run short of n_init told + pending points gets its next design point; while no
  // run has data, region 0 goes on designing (a Thompson sample needs a model).
  // Integer and categorical spaces: no point evaluated, pending or already in this batch.
  const bool discrete = space().has_discrete() && avoids_repeats();
  PointSet chosen;
  auto design = [&](std::size_t r) {
    Vector u = regions_[r].design.point(regions_[r].told + pending_in[r] + planned(r), rng);
    if (discrete) {
      if (auto v = free_point_near(u, &chosen)) u = *v;
      chosen.insert(user_point(u));
    }
    out.push_back(std::move(u));
    owner.push_back(r);
  };
  for (std::size_t r = 0; r < m; ++r)
    while (out.size() < n && static_cast<std::size_t>(regions_[r].y.size()) + pending_in[r] + planned(r) < n_init_) design(r);
  while (out.size() < n && !any_data) design(0);

  const std::size_t q = n - out.size();
  if (q > 0) {
    // Each run with data: Kriging-believer fantasies of its pending and designed points, candidates
    // around its best point, q Thompson samples.
    std::vector<Matrix> cands(m), samples(m);
    for (std::size_t r = 0; r < m; ++r) {
      const Region& g = regions_[r];
      if (g.y.size() == 0) continue;
      GaussianProcess gp = g.gp;
      if (!g.fitted) {
        Rng fit_rng(derive_seed(derive_seed(seed(), kFitStream), history().size()));
        fit_run_model(gp, true, fit_rng);
      }
      auto fantasize = [&](const Vector& unit_point) { add_believed_point(gp, unit_point); };
      for (const Trial& t : pending())
        if (asked_by(t) == r) fantasize(t.unit);
      for (std::size_t i = 0; i < out.size(); ++i)
        if (owner[i] == r) fantasize(stored_unit(out[i]));
      Eigen::Index best = 0;
      g.y.maxCoeff(&best);
      cands[r] = discrete ? discrete_candidates(gp, g, g.X.col(best), rng) : candidates(gp, g, g.X.col(best), rng);
      if (cands[r].cols() == 0) continue;
      samples[r] = options_.sampler == ThompsonSampler::Exact ? gp.sample_posterior(cands[r], q, rng)
                                               : pathwise_thompson_samples(gp, cands[r], q, rff_features(), rng);
      if (options_.recipe == TurboRecipe::Reference) {
        // The reference samples y = f + noise (gp.likelihood(gp(X_cand)).sample()).
        const double sd = std::sqrt(gp.hyperparameters().noise_variance) * gp.output_scale();
        for (Eigen::Index j = 0; j < samples[r].cols(); ++j)
          for (Eigen::Index i = 0; i < samples[r].rows(); ++i) samples[r](i, j) += sd * rng.normal();
      }
    }
    // Point j of the batch: the argmax of sample column j over every region's candidates not yet
    // chosen (turbo_m.py's _select_candidates; with m = 1, TuRBO-1's).
    std::vector<std::vector<char>> taken(m);
    for (std::size_t r = 0; r < m; ++r) taken[r].assign(static_cast<std::size_t>(cands[r].cols()), 0);
    for (std::size_t j = 0; j < q; ++j) {
      std::size_t arg_r = m;
      Eigen::Index arg = -1;
      for (std::size_t r = 0; r < m; ++r)
        for (Eigen::Index i = 0; i < cands[r].cols(); ++i)
          if (!taken[r][static_cast<std::size_t>(i)] && !(discrete && chosen.contains(user_point(cands[r].col(i)))) &&
              (arg < 0 || samples[r](i, static_cast<Eigen::Index>(j)) > samples[arg_r](arg, static_cast<Eigen::Index>(j)))) {
            arg_r = r;
            arg = i;
          }
      if (arg < 0) break;
      taken[arg_r][static_cast<std::size_t>(arg)] = 1;
      if (discrete) chosen.insert(user_point(cands[arg_r].col(arg)));
      out.push_back(cands[arg_r].col(arg));
      owner.push_back(arg_r);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) proposed_by_.emplace_back(next_trial_id() + i, owner[i]);
  return out;
}

}  // namespace optimist
