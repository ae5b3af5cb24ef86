#include "study/heartbeat.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

namespace optimist::study_detail {

Heartbeat::Heartbeat(std::string url, StorageOptions options, std::int64_t study_id, double interval_s)
    : url_(std::move(url)), options_(options), study_id_(study_id), interval_s_(interval_s) {
  // A beat must not retry longer than the grace period it protects against.
  options_.retry_s = std::min(options_.retry_s, interval_s_);
  thread_ = std::thread([this] { loop(); });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Heartbeat::add(std::size_t number) {
  std::lock_guard<std::mutex> lock(mutex_);
  numbers_.insert(number);
}

void Heartbeat::remove(std::size_t number) {
  std::lock_guard<std::mutex> lock(mutex_);
  numbers_.erase(number);
}

std::vector<std::size_t> Heartbeat::numbers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {numbers_.begin(), numbers_.end()};
}

std::optional<std::chrono::steady_clock::time_point> Heartbeat::last_failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_failure_;
}

void Heartbeat::loop() {
  std::unique_ptr<Storage> storage;
  // An outage is reported when it starts, every 30 s while it lasts, and when it ends: one line
  // per interval (54 lines in a 12 s outage) buried the worker's other messages.
  std::size_t failures = 0;
  auto reported = std::chrono::steady_clock::time_point();
  // Beats keep a fixed rate: the next one is due one interval after the last one was due, not
  // after it ended, so a slow beat (a loaded machine, a reconnect) does not push every later one
  // back and eat into the grace period. A beat later than a whole interval starts a new schedule.
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(interval_s_));
  auto due = std::chrono::steady_clock::now() + interval;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait_until(lock, due, [this] { return stop_; });
    if (stop_) return;
    due += interval;
    if (const auto now = std::chrono::steady_clock::now(); due <= now) due = now + interval;
    const std::vector<std::size_t> beat(numbers_.begin(), numbers_.end());
    if (beat.empty()) continue;
    lock.unlock();
    try {
      if (!storage) storage = std::make_unique<Storage>(url_, options_);
      storage->heartbeat(study_id_, beat);
      if (failures > 0) std::fprintf(stderr, "optimist: heartbeat restored after %zu failed attempt(s)\n", failures);
      failures = 0;
    } catch (const std::exception& e) {
      storage.reset();
      const auto now = std::chrono::steady_clock::now();
      {
        std::lock_guard<std::mutex> guard(mutex_);
        last_failure_ = now;
      }
      if (failures++ == 0 || now - reported >= std::chrono::seconds(30)) {
        reported = now;
        std::fprintf(stderr, "optimist: heartbeat of %zu running trial(s) failed (%zu time(s) so far): %s; trying again every %.3g s\n",
                     beat.size(), failures, e.what(), interval_s_);
      }
    }
    lock.lock();
  }
}

}  // namespace optimist::study_detail
