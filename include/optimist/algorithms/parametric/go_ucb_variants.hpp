// The GO-UCB workshop paper's algorithms as small types over GoUcb: the same Phase I, oracle,
// trust region and acquisition maximizer, with their own Phase II update and acquisition value.
#pragma once

#include <memory>

#include "optimist/algorithms/parametric/go_ucb.hpp"

namespace optimist {

/// Workshop Algorithm 1 (go-ucb-workshop): eq. (2) re-fitted on all data each round, warm-started
/// at the last fit, and the section-4 bonus sigma ||grad_w f_x(w_t)||_2 sqrt(U/t) + U/t.
class GoUcbWorkshop final : public GoUcb {
 public:
  /// options.variant must be GoUcbVariant::Workshop.
  GoUcbWorkshop(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
                std::shared_ptr<const ParametricModel> model = nullptr);
  Vector current_parameters() const override;

 protected:
  void update_phase_two(const Observation& obs, double ys) override;
  double acquisition_value(const Vector& x, Vector* grad) const override;

 private:
  Vector w_latest_;  // the last round's fit
};

/// Workshop Lemma 15 (exploration-first): explore uniformly for n = ceil(N^(2/3)) steps, fit w once,
/// then maximize f_{w_0} (no bonus, no update).
class ExplorationFirst final : public GoUcb {
 public:
  /// options.variant must be GoUcbVariant::ExplorationFirst.
  ExplorationFirst(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
                   std::shared_ptr<const ParametricModel> model = nullptr);

 protected:
  void update_phase_two(const Observation&, double) override {}  // w stays at w_0
  double acquisition_value(const Vector& x, Vector* grad) const override;
};

/// The type of options.variant: GoUcb, GoUcbWorkshop or ExplorationFirst.
std::unique_ptr<GoUcb> make_go_ucb_variant(const Space& space, Direction direction, GoUcbOptions options,
                                           const RunContext& context, std::shared_ptr<const ParametricModel> model = nullptr);

}  // namespace optimist
