#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>

#include "cli/format.hpp"

namespace optimist::cli {

namespace {
constexpr int kBarWidth = 20;
constexpr double kRedrawInterval = 0.05;  // seconds; faster redraws only cost terminal I/O
}  // namespace

ProgressDisplay::ProgressDisplay(const Objective& objective, std::optional<double> time_limit, std::FILE* out)
    : objective_(objective), time_limit_(time_limit), out_(out), tty_(isatty(fileno(out)) != 0) {}

std::string ProgressDisplay::line(const Progress& p) const {
  std::string s;
  const double frac = p.budget ? static_cast<double>(p.done) / static_cast<double>(p.budget) : 1.0;
  if (tty_) {
    const int filled = std::clamp(static_cast<int>(frac * kBarWidth), 0, kBarWidth);
    // Appended piecewise: "[" + std::string(...) trips a GCC 12 -Wrestrict false positive.
    s += '[';
    s.append(static_cast<std::size_t>(filled), '#');
    s.append(static_cast<std::size_t>(kBarWidth - filled), '-');
    s += "] ";
  }
  s += std::to_string(p.done) + "/" + std::to_string(p.budget);
  s += "  best " + fmt_num(p.best_y);
  if (objective_.optimum && p.best_f) s += "  regret " + fmt_num(objective_.regret(*p.best_f));
  if (p.cum_regret) s += "  cum " + fmt_num(p.cum_regret, 3);
  s += "  " + fmt_duration(p.elapsed_s);
  if (p.done > 0 && p.done < p.budget) {
    double eta = p.elapsed_s / static_cast<double>(p.done) * static_cast<double>(p.budget - p.done);
    if (time_limit_) eta = std::min(eta, std::max(0.0, *time_limit_ - p.elapsed_s));
    s += "  ETA " + fmt_duration(eta);
  }
  return s;
}

void ProgressDisplay::update(const Progress& p) {
  last_ = p;
  last_->last = nullptr;
  if (tty_) {
    if (p.done < p.budget && drawn_at_ >= 0 && p.elapsed_s - drawn_at_ < kRedrawInterval) return;
    // \r returns to the line start; ESC[K clears what a longer previous line left behind.
    std::fprintf(out_, "\r%s\x1b[K", line(p).c_str());
    drawn_at_ = p.elapsed_s;
  } else {
    // Plain output (pipes, CI): one line at about every tenth of the budget, and at the end.
    const std::size_t decile = p.budget ? p.done * 10 / p.budget : 10;
    if (decile <= decile_ && p.done < p.budget) return;
    decile_ = decile;
    std::fprintf(out_, "%s\n", line(p).c_str());
  }
  printed_done_ = p.done;
  std::fflush(out_);
}

void ProgressDisplay::finish() {
  if (!last_) return;
  if (tty_) {
    std::fprintf(out_, "\r%s\x1b[K\n", line(*last_).c_str());
  } else if (printed_done_ != last_->done) {
    std::fprintf(out_, "%s\n", line(*last_).c_str());
  }
  std::fflush(out_);
}

}  // namespace optimist::cli
