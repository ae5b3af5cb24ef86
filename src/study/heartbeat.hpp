// The background thread that keeps a worker's running trials alive.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "optimist/study/storage.hpp"

namespace optimist::study_detail {

/// Every `interval_s` (at a fixed rate) refreshes the heartbeat of the trials in its set, through its own
/// connection (opened in the thread). A failure is reported on stderr and retried next beat: the
/// trials go stale only if beats keep failing for the grace period.
class Heartbeat {
 public:
  Heartbeat(std::string url, StorageOptions options, std::int64_t study_id, double interval_s);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;
  void add(std::size_t number);
  void remove(std::size_t number);
  std::vector<std::size_t> numbers() const;
  /// When a beat last failed (the storage lost), if ever.
  std::optional<std::chrono::steady_clock::time_point> last_failure() const;

 private:
  void loop();
  std::string url_;
  StorageOptions options_;
  std::int64_t study_id_;
  double interval_s_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::set<std::size_t> numbers_;
  std::optional<std::chrono::steady_clock::time_point> last_failure_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace optimist::study_detail
