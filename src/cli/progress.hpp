// Live progress of a run on stderr: a redrawn bar on a terminal, sparse plain lines otherwise.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "optimist/core/driver.hpp"

namespace optimist::cli {

class ProgressDisplay {
 public:
  /// `objective` gives f* for the regret column; `time_limit` caps the ETA.
  ProgressDisplay(const Objective& objective, std::optional<double> time_limit, std::FILE* out = stderr);

  /// Called by the driver after every evaluation.
  void update(const Progress& p);
  /// Draws the final state and ends the bar's line. Call once after the run.
  void finish();

 private:
  std::string line(const Progress& p) const;

  const Objective& objective_;
  std::optional<double> time_limit_;
  std::FILE* out_;
  bool tty_;
  std::optional<Progress> last_;  ///< most recent update (its `last` pointer is not kept)
  std::size_t printed_done_ = 0;  ///< `done` of the last line written
  double drawn_at_ = -1.0;        ///< elapsed time of the last redraw (terminal mode)
  std::size_t decile_ = 0;        ///< last tenth of the budget reported (plain mode)
};

}  // namespace optimist::cli
