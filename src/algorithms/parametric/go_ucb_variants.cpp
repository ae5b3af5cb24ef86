#include "optimist/algorithms/parametric/go_ucb_variants.hpp"

#include <cmath>

namespace optimist {

GoUcbWorkshop::GoUcbWorkshop(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
                             std::shared_ptr<const ParametricModel> model)
    : GoUcb(space, direction, std::move(options), context, std::move(model), GoUcbVariant::Workshop) {}

Vector GoUcbWorkshop::current_parameters() const {
  return w_latest_.size() ? w_latest_ : GoUcb::current_parameters();
}

void GoUcbWorkshop::update_phase_two(const Observation&, double) {
  // Workshop Algorithm 1, step 2: re-fit the oracle on all data, warm-started at the last fit.
  const RegressionFit fit =
      fit_on_all_data(w_latest_.size() ? w_latest_ : initial_parameters(), options_.oracle.restarts, false);
  w_latest_ = fit.w;
  last_fit_sse_ = fit.sse;
}

double GoUcbWorkshop::acquisition_value(const Vector& x, Vector* grad) const {
  // sigma ||grad_w f_x(w_t)||_2 sqrt(U/t) + U/t; the last term is constant in x.
  const Vector w = current_parameters();
  Vector gw, gx;
  const double f = model().gradient_w(w, x, gw);
  const double t = static_cast<double>(n_successful());
  const double scale = options_.workshop_sigma * std::sqrt(options_.workshop_u / t);
  const double norm = gw.norm();
  if (grad) {
    model().gradient_x(w, x, *grad);
    if (norm > 0) {
      model().mixed_product(w, x, gw, gx);  // d/dx ||g||^2 / 2 = (dg/dx)^T g
      *grad += scale * gx / norm;
    }
  }
  return f + scale * norm + options_.workshop_u / t;
}

ExplorationFirst::ExplorationFirst(const Space& space, Direction direction, GoUcbOptions options,
                                   const RunContext& context, std::shared_ptr<const ParametricModel> model)
    : GoUcb(space, direction, std::move(options), context, std::move(model), GoUcbVariant::ExplorationFirst) {}

double ExplorationFirst::acquisition_value(const Vector& x, Vector* grad) const {
  const Vector w = current_parameters();
  if (grad) model().gradient_x(w, x, *grad);
  return model().value(w, x);
}

std::unique_ptr<GoUcb> make_go_ucb_variant(const Space& space, Direction direction, GoUcbOptions options,
                                           const RunContext& context, std::shared_ptr<const ParametricModel> model) {
  switch (options.variant) {
    case GoUcbVariant::Workshop:
      return std::make_unique<GoUcbWorkshop>(space, direction, std::move(options), context, std::move(model));
    case GoUcbVariant::ExplorationFirst:
      return std::make_unique<ExplorationFirst>(space, direction, std::move(options), context, std::move(model));
    case GoUcbVariant::GoUcb:
      break;
  }
  return std::make_unique<GoUcb>(space, direction, std::move(options), context, std::move(model));
}

}  // namespace optimist
