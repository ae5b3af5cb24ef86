// Parts shared by the backends: cells, the backoff and the URL dispatch.
#include "study/database.hpp"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>
#include <utility>

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>

#include "optimist/core/types.hpp"
#include "optimist/study/storage.hpp"

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

std::atomic<bool>& give_up_flag() {
  static std::atomic<bool> flag{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "give_up_storage_retries() is called from a signal handler");
  return flag;
}

bool Backoff::wait() {
  if (give_up_flag().load(std::memory_order_relaxed)) return false;
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

// The first and last '@' that may end the user info of a URL whose authority starts at `authority`;
// npos when there is none. libpq ends the user info at its first '@' when no '/' comes before it
// ('?' and '=' do not end it); the last '@' before the parameters is where a password with a raw
// '@' or '/' ends. An '@' after a '/' is a password's only when no parameter ('?...=') comes
// before it: "u:top/secret@host" is one, "host/db?application_name=x@y" is not.
std::pair<std::size_t, std::size_t> user_info_ends(const std::string& url, std::size_t authority) {
  const std::size_t first = url.find('@', authority);
  if (first == std::string::npos) return {std::string::npos, std::string::npos};
  if (url.find('/', authority) < first) {
    const std::size_t query = url.find('?', authority);
    if (query < first && url.find('=', query) < first) return {std::string::npos, std::string::npos};
  }
  const std::size_t query_after = url.find('?', first);
  return {first, url.rfind('@', query_after == std::string::npos ? std::string::npos : query_after - 1)};
}

// The password in a postgresql:// URL: after the first ':' of the user info, and the value of a
// "password" parameter. The user info is taken to end at the last of its possible '@'s: a
// password holding a raw '@' (refused by parse_storage_url) is then hidden whole.
std::string redact_postgres(const std::string& url, std::size_t authority) {
  std::string out = url.substr(0, authority);
  const std::size_t at = user_info_ends(url, authority).second;
  std::size_t end = authority;
  if (at != std::string::npos) {
    const std::string user_info = url.substr(authority, at - authority);
    const auto colon = user_info.find(':');
    out += colon == std::string::npos ? user_info : user_info.substr(0, colon) + ":***";
    end = at;
  }
  std::string rest = url.substr(end);
  const auto query = rest.find('?');
  if (query == std::string::npos) return out + rest;
  out += rest.substr(0, query + 1);
  std::string params = rest.substr(query + 1);
  std::size_t begin = 0;
  while (begin <= params.size()) {
    const std::size_t amp = std::min(params.find('&', begin), params.size());
    const std::string param = params.substr(begin, amp - begin);
    const auto eq = param.find('=');
    const std::string key = param.substr(0, eq);
    // libpq also accepts percent-encoded keys: any key that decodes to "password" is redacted.
    std::string decoded;
    for (std::size_t i = 0; i < key.size(); ++i) {
      if (key[i] == '%' && i + 2 < key.size() && std::isxdigit(static_cast<unsigned char>(key[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
        decoded += static_cast<char>(std::stoi(key.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += key[i];
      }
    }
    out += (begin == 0 ? "" : "&") + (decoded == "password" && eq != std::string::npos ? key + "=***" : param);
    begin = amp + 1;
  }
  return out;
}

}  // namespace optimist::study_detail

namespace optimist {

namespace {
// A libpq key=value connection string ("host=db password=secret"): each password value, quoted
// ('it''s' or 'a\'b') or not, becomes ***.
std::string redact_key_values(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t key = text.find("password", i);
    if (key == std::string::npos) break;
    std::size_t j = key + 8;
    while (j < text.size() && text[j] == ' ') ++j;
    const bool starts_word = key == 0 || text[key - 1] == ' ' || text[key - 1] == '\t';
    if (!starts_word || j >= text.size() || text[j] != '=') {
      out += text.substr(i, key + 8 - i);
      i = key + 8;
      continue;
    }
    ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    out += text.substr(i, j - i) + "***";
    if (j < text.size() && text[j] == '\'') {
      for (++j; j < text.size() && text[j] != '\''; ++j)
        if (text[j] == '\\') ++j;
      ++j;
    } else {
      while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    }
    i = j;
  }
  return out + (i < text.size() ? text.substr(i) : "");
}
}  // namespace

std::string redact_url(const std::string& url) {
  const auto colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
  if (scheme == "postgresql" || scheme == "postgres") return study_detail::redact_postgres(url, colon + 3);
  if (scheme == "sqlite") return url;
  // No scheme: perhaps a libpq key=value string, whose password=... is hidden.
  if (colon == std::string::npos) return redact_key_values(url);
  // Anything else (a mistyped scheme): the text after "://" up to an '@' may be a password.
  return study_detail::redact_postgres(url, colon + 3);
}

}  // namespace optimist

namespace optimist::study_detail {

StorageUrl parse_storage_url(const std::string& url) {
  const auto colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
  StorageUrl out;
  if (scheme == "sqlite") {
    // As in SQLAlchemy and Optuna: sqlite:///rel/path.db is relative to the current folder,
    // sqlite:////abs/path.db absolute.
    if (url.rfind("sqlite:///", 0) != 0 || url.size() == 10)
      throw InvalidArgument("storage URL '" + url + "' names no file; expected sqlite:///relative/path.db or "
                            "sqlite:////absolute/path.db");
    out.backend = "sqlite";
    out.path = url.substr(10);
    if (out.path.find('\0') != std::string::npos)
      throw InvalidArgument("storage URL '" + redact_url(url) + "': the file name holds a NUL character");
    return out;
  }
  if (scheme == "postgresql" || scheme == "postgres") {
    if (url.find('\0') != std::string::npos)
      throw InvalidArgument("storage URL '" + redact_url(url) + "' holds a NUL character");
    // libpq ends the user info at the first '@' or '/': a second '@', or an '@' after a '/', is
    // part of a user name or password (or a database name) that must be percent-encoded, else
    // libpq reads part of the password as the host, port or database.
    const auto [first, last] = user_info_ends(url, colon + 3);
    if (first != last)
      throw InvalidArgument("storage URL '" + redact_url(url) + "': an '@' in the user name, password or database name must "
                            "be written %40 (postgresql://user:pass%40word@host/database)");
    if (first != std::string::npos && url.find('/', colon + 3) < first)
      throw InvalidArgument("storage URL '" + redact_url(url) + "': a '/' in the user name or password must be written %2F "
                            "(postgresql://user:pass%2Fword@host/database), an '@' in a database name %40");
    // libpq's own parser: a malformed URL is refused here, before any connection attempt.
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
    if (!options) {
      std::string why = error ? error : "out of memory";
      if (error) PQfreemem(error);
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
      throw InvalidArgument("storage URL '" + redact_url(url) + "': " + why +
                            "; expected postgresql://user[:password]@host[:port]/database[?param=value&...]");
    }
    PQconninfoFree(options);
    out.backend = "postgresql";
    return out;
  }
  throw InvalidArgument("storage URL '" + redact_url(url) + "': " +
                        (scheme.empty() ? std::string("no scheme") : "unknown scheme '" + scheme + "'") +
                        "; expected sqlite:///path/to/study.db or postgresql://user@host[:port]/database");
}

std::unique_ptr<Database> connect(const std::string& url, double retry_s, bool read_only, bool wait_for_server) {
  const StorageUrl parsed = parse_storage_url(url);
  if (parsed.backend == "sqlite") return connect_sqlite(url, parsed.path, retry_s, read_only);
  return connect_postgres(url, retry_s, wait_for_server);
}

}  // namespace optimist::study_detail

namespace optimist {
void give_up_storage_retries() noexcept { study_detail::give_up_flag().store(true, std::memory_order_relaxed); }
}  // namespace optimist
