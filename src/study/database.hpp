// The small SQL layer both storage backends implement: parameterized statements, typed cells,
// write transactions that lock a study, and the retry policy for transient failures.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace optimist::study_detail {

/// A statement parameter: NULL, an integer, a double or text.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;

constexpr std::int64_t kNoLock = -1;
constexpr std::int64_t kGlobalLock = -2;

/// One result cell: NULL, or a value read natively (SQLite) or as text (PostgreSQL).
class Cell {
 public:
  Cell() = default;
  explicit Cell(SqlValue v) : v_(std::move(v)) {}
  bool null() const { return std::holds_alternative<std::monostate>(v_); }
  std::int64_t integer() const;
  double real() const;
  std::string text() const;
  std::optional<double> optional_real() const { return null() ? std::nullopt : std::optional<double>(real()); }
  std::optional<std::string> optional_text() const { return null() ? std::nullopt : std::optional<std::string>(text()); }

 private:
  SqlValue v_;
};
using Row = std::vector<Cell>;
using Rows = std::vector<Row>;

/// A connection to one database. Statements use `?` placeholders (the PostgreSQL backend numbers
/// them). Not thread-safe: one connection per thread.
class Database {
 public:
  virtual ~Database() = default;
  /// "sqlite" or "postgresql".
  virtual std::string backend() const = 0;
  /// The URL without a password, for messages.
  virtual std::string display_url() const = 0;
  virtual Rows query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  /// Runs `fn` in a transaction and commits. `lock` >= 0 (a study id): the transaction holds the
  /// study's write lock from its start (SQLite: BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE
  /// on the study row), so state changes of one study are serialized; kGlobalLock: one lock for
  /// the whole database (schema, new studies); kNoLock: none beyond the rows written. Transient failures (a busy lock, a
  /// lost server, a serialization failure) roll back and run `fn` again after a backoff, reporting
  /// a long wait or an outage on stderr; `fn` must therefore be safe to re-run.
  virtual void transaction(std::int64_t lock, const std::function<void()>& fn) = 0;
  /// Column types of the schema in this dialect: "id" (auto primary key), "real", "bigint".
  virtual std::string type(const std::string& generic) const = 0;
  /// SQL expression of the current time in seconds since the Unix epoch (the server's clock for
  /// PostgreSQL, so that workers on several machines share one clock).
  virtual std::string now_sql() const = 0;
  /// When the server last became reachable again after an outage (PostgreSQL), if ever.
  virtual std::optional<std::chrono::steady_clock::time_point> last_outage_end() const { return std::nullopt; }
  /// A value that changes whenever another connection has committed to the database since the
  /// last call (SQLite's data_version; PostgreSQL's snapshot), or none where the backend cannot
  /// tell cheaply.
  virtual std::optional<std::string> change_token() { return std::nullopt; }
};

/// A storage URL checked (not connected): the backend and, for SQLite, the file.
struct StorageUrl {
  std::string backend;  ///< "sqlite" or "postgresql"
  std::string path;     ///< the SQLite file (relative to the current folder unless absolute)
};
/// Throws InvalidArgument naming the URL (its password hidden) and the allowed schemes, or libpq's
/// reason for a malformed postgresql:// URL.
StorageUrl parse_storage_url(const std::string& url);

/// Parses a storage URL and connects: sqlite:///relative.db, sqlite:////absolute.db, postgresql://user[:password]@host[:port]/db[?options] (also postgres://).
/// Throws InvalidArgument naming the URL and the allowed schemes, or the server's message when it
/// cannot be reached.
/// `read_only`: a SQLite file is opened read-only (the PostgreSQL connection is unchanged; the
/// caller issues no writes). `wait_for_server`: a PostgreSQL server that is not there yet is waited
/// for up to retry_s (StorageOptions::wait_for_server).
std::unique_ptr<Database> connect(const std::string& url, double retry_s, bool read_only = false, bool wait_for_server = false);

std::unique_ptr<Database> connect_sqlite(const std::string& url, const std::string& path, double retry_s, bool read_only);
std::unique_ptr<Database> connect_postgres(const std::string& url, double retry_s, bool wait_for_server);

/// Retry policy shared by the backends: calls `attempt` until it returns true; `sleep_and_report`
/// is told how long the failure has lasted. Backoff doubles from 20 ms to 2 s, with jitter.
/// Set by give_up_storage_retries(): every Backoff gives up.
std::atomic<bool>& give_up_flag();

class Backoff {
 public:
  explicit Backoff(double limit_s) : limit_s_(limit_s) {}
  /// Sleeps before the next attempt; returns false once limit_s has passed since the first failure.
  bool wait();
  double elapsed_s() const;
  int failures() const { return failures_; }

 private:
  double limit_s_;
  int failures_ = 0;
  double start_ = 0.0;
  double delay_ = 0.02;
};

}  // namespace optimist::study_detail
