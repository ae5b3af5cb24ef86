// Fuzz target: sequences of ask/tell calls on every algorithm, as a user's own loop (or a study,
// or the Optuna sampler) makes them: batches, pending trials, tells out of order, failures,
// withdrawn asks, other workers' points, warm-start points, extreme values, recommend(). The
// contract of docs/architecture.md holds whatever the order: asked points lie in the space, a
// deterministic objective's evaluated or pending point is never asked again while free points
// remain (SpaceExhausted only when none does), the history and the pending trials are what was
// told and asked, misuse (a trial told twice, a withdrawn one told) is refused with
// InvalidArgument, and nothing else throws, crashes or hangs. A replay of the history into a
// fresh optimizer then asks without error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <utility>

#include "fuzz_support.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/point_set.hpp"

using namespace optimist;

namespace {

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

const std::vector<Space>& spaces() {
  static const std::vector<Space> all = [] {
    std::vector<Space> s(6);
    s[0].add_continuous("a", -1.0, 2.0).add_continuous("b", 1e-3, 10.0, true).add_integer("n", 0, 4).add_categorical("c", {"u", "v", "w"});
    s[1].add_integer("k", 0, 3).add_categorical("c", {"u", "v"}).add_integer("m", 1, 100, true);  // finite: 4 x 2 x 100
    s[2].add_integer("k", -1, 1).add_categorical("c", {"u", "v"});                               // finite: 6 points
    s[3].add_continuous("x", 0.0, 1.0);
    // Conditional parameters: mixed, and finite (a: 1 point; b: n = 1, 2 with m's 3 values, n = 3..5: 9).
    s[4].add_categorical("kernel", {"linear", "rbf", "poly"}).add_integer("degree", 2, 4).add_continuous("gamma", 1e-3, 1.0, true);
    s[4].add_condition("degree", "kernel", {"poly"}).add_condition("gamma", "kernel", {"rbf", "poly"});
    s[5].add_categorical("kind", {"a", "b"}).add_integer("n", 1, 5).add_integer("m", 0, 2);
    s[5].add_condition("n", "kind", {"b"}).add_condition("m", "n", {"1", "2"});  // finite: 10 points
    return s;
  }();
  return all;
}

// Values a user may tell: ordinary ones, ties, and the extremes the algorithms must survive.
double value_from(std::uint8_t b, const Vector& x) {
  static const double kValues[] = {0.0, 1.0, -1.0, 1e300, -1e300, 1e-300, std::numeric_limits<double>::max(),
                                   -std::numeric_limits<double>::max(), 42.5, -3.25e-7};
  if (b < 128) {
    double y = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) y += std::sin(3.0 * x[i] + i) * (i + 1);
    return y;
  }
  return kValues[b % std::size(kValues)];
}

// A point of the space from bytes (for add_pending and warm-start tells).
Vector point_from(Bytes& in, const Space& space) {
  Vector u(static_cast<Eigen::Index>(space.dim()));
  for (Eigen::Index i = 0; i < u.size(); ++i) u[i] = in.next() / 255.0;
  return space.to_user(space.snap_unit(u));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  static const std::vector<AlgorithmInfo> kAlgorithms = algorithms();
  Bytes in(data, size);
  const AlgorithmInfo& info = kAlgorithms[in.next() % kAlgorithms.size()];
  const std::uint8_t setup = in.next();
  const Space& space = spaces()[setup % spaces().size()];
  const bool noisy = (setup / 4) % 2 == 1;
  const Direction direction = (setup / 8) % 2 == 1 ? Direction::Maximize : Direction::Minimize;
  const RunContext context{.seed = setup, .horizon = 1 + in.next() % 40u, .noisy = noisy};
  std::unique_ptr<Optimizer> opt;
  // A horizon too short for an algorithm's defaults (GO-UCB's N >= 2, exploration-first's Phase II)
  // is refused with InvalidArgument at creation (fuzz_options covers creation).
  fuzz::refuse_only_with([&] { opt = make_optimizer({{"name", info.name}}, space, direction, context); });
  if (!opt) return 0;

  std::deque<Trial> open;          // asked or added, not yet told or withdrawn
  std::vector<Trial> closed;       // told or withdrawn
  PointSet taken;                  // user points evaluated or pending (deterministic objectives)
  std::size_t told = 0, asks = 0;
  const std::string who = info.name + (noisy ? " (noisy)" : "");
  const auto check_asked = [&](const Trial& t) {
    try {
      space.validate(t.x);
    } catch (const std::exception& e) {
      fuzz::bug(who + ": asked a point outside the space: " + e.what());
    }
    if (!noisy) OPTIMIST_FUZZ_CHECK(!taken.contains(t.x), who + ": asked a point evaluated or pending");
  };
  try {
    for (int op = 0; op < 32 && !in.empty(); ++op) {
      const std::uint8_t code = in.next();
      switch (code % 8) {
        case 0: {  // ask, up to 3 at once (at most 10 asks per input: some algorithms are slow under ASan)
          if (++asks > 10) break;
          const std::optional<std::uint64_t> left = opt->remaining_points();
          std::vector<Trial> trials;
          try {
            trials = opt->ask(1 + (code / 8) % 3);
          } catch (const SpaceExhausted&) {
            OPTIMIST_FUZZ_CHECK(left && *left == 0, who + ": SpaceExhausted with points left");
            break;
          }
          OPTIMIST_FUZZ_CHECK(!trials.empty(), who + ": ask returned no trial");
          OPTIMIST_FUZZ_CHECK(!left || trials.size() <= *left, who + ": asked more points than are free");
          for (const Trial& t : trials) {
            check_asked(t);
            taken.insert(t.x);
            open.push_back(t);
          }
          break;
        }
        case 1:    // tell the oldest or the newest open trial
        case 2: {  // tell_failed it
          if (open.empty()) break;
          const bool newest = (code / 8) % 2 == 1;
          const Trial t = newest ? open.back() : open.front();
          newest ? open.pop_back() : open.pop_front();
          if (code % 8 == 1) opt->tell(t, value_from(in.next(), t.x));
          else opt->tell_failed(t, "failed");
          closed.push_back(t);
          ++told;
          break;
        }
        case 3: {  // withdraw the oldest open trial: its point is free again
          if (open.empty()) break;
          const Trial t = open.front();
          open.pop_front();
          opt->withdraw(t);
          taken.erase(t.x);
          closed.push_back(t);
          break;
        }
        case 4: {  // another worker's point
          const Trial t = opt->add_pending(point_from(in, space));
          taken.insert(t.x);
          open.push_back(t);
          break;
        }
        case 5: {  // a warm-start point (or the value of a pending trial at that point)
          const Vector x = point_from(in, space);
          const auto it = std::find_if(open.begin(), open.end(), [&](const Trial& t) { return t.x == x; });
          if (it != open.end()) {
            closed.push_back(*it);
            open.erase(it);
          } else {
            taken.insert(x);
          }
          opt->tell(x, value_from(in.next(), x));
          ++told;
          break;
        }
        case 6:  // the answer
          if (opt->n_successful() > 0) space.validate(opt->recommend());
          break;
        case 7: {  // misuse: a closed trial told or withdrawn again is refused
          if (closed.empty()) break;
          const Trial& t = closed[in.next() % closed.size()];
          bool refused = false;
          try {
            (code / 8) % 2 ? opt->withdraw(t) : opt->tell(t, 1.0);
          } catch (const InvalidArgument&) {
            refused = true;
          }
          OPTIMIST_FUZZ_CHECK(refused, who + ": a closed trial was accepted again");
          break;
        }
      }
      OPTIMIST_FUZZ_CHECK(opt->history().size() == told, who + ": the history holds " + std::to_string(opt->history().size()) +
                                                             " evaluations for " + std::to_string(told) + " told");
      OPTIMIST_FUZZ_CHECK(opt->pending().size() == open.size(), who + ": " + std::to_string(opt->pending().size()) +
                                                                   " pending for " + std::to_string(open.size()) + " open");
    }
    if (std::getenv("OPTIMIST_FUZZ_VERBOSE"))
      std::fprintf(stderr, "%s: %zu asks, %zu told, %zu open, %zu closed\n", who.c_str(), asks, told, open.size(), closed.size());
    // The history replayed into a fresh optimizer (a resume) asks without error.
    auto replayed = make_optimizer({{"name", info.name}}, space, direction, context);
    for (const Observation& obs : opt->history()) {
      if (obs.failed) replayed->tell_failed(obs.trial.x, obs.error);
      else replayed->tell(obs.trial.x, obs.value);
    }
    if (!replayed->exhausted()) {
      try {
        const Trial t = replayed->ask();
        space.validate(t.x);
        if (!noisy)
          for (const Observation& obs : opt->history())
            OPTIMIST_FUZZ_CHECK(obs.trial.x != t.x, who + ": a replay asked an evaluated point");
      } catch (const SpaceExhausted&) {
        fuzz::bug(who + ": a replay that is not exhausted refused to ask");
      }
    }
  } catch (const std::exception& e) {
    fuzz::bug(who + ": unexpected exception: " + e.what());
  }
  return 0;
}
