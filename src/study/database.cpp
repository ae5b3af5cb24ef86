// Parts shared by the backends: cells, the backoff and the URL dispatch.
#include "study/database.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include "optimist/core/types.hpp"

namespace optimist::study_detail {

namespace {
double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

std::int64_t Cell::integer() const {
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return *i;
  if (const auto* d = std::get_if<double>(&v_)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&v_)) {
    std::int64_t out = 0;
    const auto r = std::from_chars(s->data(), s->data() + s->size(), out);
    if (r.ec == std::errc()) return out;
    throw std::runtime_error("storage: expected an integer, read '" + *s + "'");
  }
  throw std::runtime_error("storage: expected an integer, read NULL");
}

double Cell::real() const {
  if (const auto* d = std::get_if<double>(&v_)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v_)) {
    // strtod is correctly rounded: the shortest text PostgreSQL writes reads back to the same double.
    char* end = nullptr;
    const double v = std::strtod(s->c_str(), &end);
    if (end != s->c_str()) return v;
    throw std::runtime_error("storage: expected a number, read '" + *s + "'");
  }
  throw std::runtime_error("storage: expected a number, read NULL");
}

std::string Cell::text() const {
  if (const auto* s = std::get_if<std::string>(&v_)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v_)) return format_double(*d);
  throw std::runtime_error("storage: expected text, read NULL");
}

bool Backoff::wait() {
  const double now = seconds_now();
  if (failures_++ == 0) start_ = now;
  if (now - start_ >= limit_s_) return false;
  static thread_local std::mt19937_64 jitter{std::random_device{}()};
  const double sleep = delay_ * std::uniform_real_distribution<double>(0.5, 1.5)(jitter);
  std::this_thread::sleep_for(std::chrono::duration<double>(std::min(sleep, limit_s_ - (now - start_))));
  delay_ = std::min(delay_ * 2.0, 2.0);
  return true;
}

double Backoff::elapsed_s() const { return failures_ == 0 ? 0.0 : seconds_now() - start_; }

std::unique_ptr<Database> connect(const std::string& url, double retry_s) {
  const auto colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
  if (scheme == "sqlite") {
    // As in SQLAlchemy and Optuna: sqlite:///rel/path.db is relative to the current folder,
    // sqlite:////abs/path.db absolute.
    if (url.rfind("sqlite:///", 0) != 0 || url.size() == 10)
      throw InvalidArgument("storage URL '" + url + "' names no file; expected sqlite:///relative/path.db or "
                            "sqlite:////absolute/path.db");
    return connect_sqlite(url, url.substr(10), retry_s);
  }
  if (scheme == "postgresql" || scheme == "postgres") return connect_postgres(url, retry_s);
  throw InvalidArgument("storage URL '" + url + "': " +
                        (scheme.empty() ? std::string("no scheme") : "unknown scheme '" + scheme + "'") +
                        "; expected sqlite:///path/to/study.db or postgresql://user@host[:port]/database");
}

}  // namespace optimist::study_detail
