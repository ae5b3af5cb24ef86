// POO (Grill, Valko & Munos, NIPS 2015), which runs HOO instances (hoo.hpp) over a grid of rho
// values sharing the budget and keeps the one with the best average reward. docs/tree-search.md.
#pragma once

#include <cstdint>
#include <vector>

#include "optimist/algorithms/tree/hoo.hpp"

namespace optimist {

/// POO (Grill, Valko & Munos 2015, Algorithm 1) over HOO instances.
class Poo : public TreeOptimizer {
 public:
  /// Which i the rhos rho_max^(2N/(2i+1)) of the N instances a round adds take.
  enum class RhoGrid {
    Dyadic,   ///< i = 0..N-1: every rho <= rho_max, uniform in 1/ln(1/rho) (default)
    Printed,  ///< i = 1..N as printed in Algorithm 1: the last rho exceeds rho_max
  };
  Poo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context, double nu_max,
      double rho_max,
      Hoo::Output output, double noise_range = 1.0, RhoGrid grid = RhoGrid::Dyadic);
  const std::vector<HooTree>& instances() const { return instances_; }
  /// s* = argmax_s mu^[s], the instance POO outputs from (ties: the first).
  std::size_t best_instance() const;

 protected:
  bool decide() override;
  void record(const Step& step, double y) override;
  Vector step_point(const Step& step) const override;
  Vector recommend_unit() const override;

 private:
  struct Work {
    std::uint32_t instance;
    std::uint64_t evaluations;
  };
  void add_instance(double rho);
  double nu_max_, rho_max_, d_max_;
  Hoo::Output output_;
  double noise_range_ = 1.0;
  RhoGrid grid_ = RhoGrid::Dyadic;
  std::vector<HooTree> instances_;
  std::vector<Work> work_;
  std::size_t work_pos_ = 0;
  std::uint64_t n_ = 0, N_ = 1;  ///< the paper's n (evaluations) and N (instances)
};

inline constexpr EnumNames<Poo::RhoGrid, 2> kRhoGridNames{
    {{{Poo::RhoGrid::Dyadic, "dyadic"}, {Poo::RhoGrid::Printed, "printed"}}}};

AlgorithmInfo poo_info();

}  // namespace optimist
