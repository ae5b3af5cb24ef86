// Tree search at the edges a user reaches: POO with rho_max near 1 (a huge D_max), and StoSOO's
// ordered leaves against Algorithm 1's scan of every leaf of a depth.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "optimist/algorithms/registry.hpp"
#include "optimist/algorithms/tree/poo.hpp"
#include "optimist/algorithms/tree/stosoo.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

void drive(Optimizer& opt, const Objective& obj, std::uint64_t steps) {
  for (std::uint64_t t = 0; t < steps; ++t) {
    Trial tr = opt.ask();
    opt.tell(tr, obj.function(tr.x));
  }
}

}  // namespace

TEST(TreeEdges, PooCreatesInstancesOnlyAsItsEvaluationsReachThem) {
  // rho_max = 0.9999: D_max = ln 2 / ln(1/rho_max) = 6931, so Algorithm 1's "while N < D_max/2
  // ln(n / ln n)" runs many passes. Each pass performs its n evaluations before the condition is
  // tested again, so after 60 evaluations at most 60 instances exist (all passes built at once:
  // 65536 instances, and 10 GB at rho_max = 0.999999).
  const Problem p = make_problem("garland");
  for (const bool noisy : {true, false}) {
    auto opt = make_optimizer({{"name", "poo"}, {"rho_max", 0.9999}}, p.space, p.direction, {.seed = 1, .noisy = noisy});
    drive(*opt, p.objective(noisy ? 0.1 : 0.0, 3), 60);
    const auto& poo = dynamic_cast<const Poo&>(*opt);
    EXPECT_LE(poo.instances().size(), 60u) << (noisy ? "noisy" : "deterministic");
    EXPECT_GE(poo.instances().size(), 2u);
    EXPECT_EQ(opt->history().size(), 60u);
  }
}

TEST(TreeEdges, StoSooOrderedLeavesPickWhatAlgorithmOnesScanPicks) {
  // Algorithm 1 as a scan: at depth h the leaf of largest b = mu^ + sqrt(ln(n k / delta) / (2 T))
  // (+inf at T = 0, ties: lower node index) is evaluated if T < k, else expanded if b >= v_max.
  const Problem p = make_problem("branin");
  const std::uint64_t n = 3000;
  auto opt = make_optimizer({{"name", "stosoo"}}, p.space, p.direction, {.seed = 2, .horizon = n, .noisy = true});
  const auto& sto = dynamic_cast<const StoSoo&>(*opt);
  const Objective obj = p.objective(5.0, 4);
  const double log_term = std::log(static_cast<double>(n) * sto.k() / sto.delta());

  Partition tree(p.space.dim(), 2);
  std::vector<double> sum{0.0};
  std::vector<std::uint32_t> count{0};
  std::vector<std::vector<std::uint32_t>> leaves{{0}};
  std::size_t h = 0;
  double v_max = -HUGE_VAL;
  bool progress = false;
  auto b_value = [&](std::uint32_t v) {
    return count[v] ? sum[v] / count[v] + std::sqrt(log_term / (2.0 * count[v])) : HUGE_VAL;
  };
  auto next = [&]() -> std::uint32_t {
    for (std::size_t guard = 0;; ++guard) {
      const std::size_t limit = std::min<std::size_t>(leaves.size() - 1, sto.h_max());
      if (h > limit) {
        if (!progress && guard > 0) ADD_FAILURE() << "the scan found nothing to do";
        h = 0;
        v_max = -HUGE_VAL;
        progress = false;
      }
      const std::size_t d = h++;
      auto& level = leaves[d];
      if (level.empty()) continue;
      std::size_t best = 0;
      for (std::size_t j = 1; j < level.size(); ++j) {
        const double b = b_value(level[j]), bb = b_value(level[best]);
        if (b > bb || (b == bb && level[j] < level[best])) best = j;
      }
      const double best_b = b_value(level[best]);
      if (best_b < v_max) continue;
      progress = true;
      const std::uint32_t v = level[best];
      if (count[v] < sto.k()) return v;
      level.erase(level.begin() + static_cast<std::ptrdiff_t>(best));
      const std::uint32_t first = tree.split(v);
      sum.resize(tree.size(), 0.0);
      count.resize(tree.size(), 0);
      if (leaves.size() <= d + 1) leaves.resize(d + 2);
      for (unsigned c = 0; c < tree.num_children(v); ++c) leaves[d + 1].push_back(first + c);
      v_max = best_b;
    }
  };
  for (std::uint64_t t = 0; t < n; ++t) {
    const std::uint32_t v = next();
    Vector u(static_cast<Eigen::Index>(p.space.dim()));
    tree.center(v, u.data());
    Trial tr = opt->ask();
    ASSERT_LE((tr.unit - p.space.snap_unit(u)).cwiseAbs().maxCoeff(), 1e-12) << "evaluation " << t;
    const double y = obj.function(tr.x);
    opt->tell(tr, y);
    sum[v] += -y;  // branin is minimized: the tree maximizes -f
    ++count[v];
  }
}
