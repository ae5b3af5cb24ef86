// PostgreSQL backend through libpqxx 6.4: one connection, a pqxx::work per transaction, the
// study row locked with SELECT ... FOR UPDATE, parameters always passed apart from the SQL
// (exec_params), and reconnection with backoff when the server goes away.
#include <pqxx/pqxx>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include "optimist/core/types.hpp"
#include "optimist/study/storage.hpp"
#include "study/database.hpp"

namespace optimist::study_detail {

namespace {

// `?` placeholders -> $1, $2, ... (outside quoted literals).
std::string numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

// libpq's messages span lines ("...refused\n\tIs the server running..."): one line, each run of
// blanks one space (a tab was shown as a literal "\t").
std::string one_line(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const bool blank = c == '\n' || c == '\t' || c == '\r' || c == ' ';
    if (!blank) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A first connection that failed because the server is not there yet (down, starting, restarting,
// its host not yet reachable), not because of what the URL says (a password, a role, a database).
bool server_not_there_yet(const std::string& what) {
  for (const char* sign : {"Connection refused", "the database system is starting up", "the database system is shutting down",
                           "the database system is in recovery mode", "No route to host", "Network is unreachable",
                           "timeout expired", "Temporary failure in name resolution", "No such file or directory"})
    if (what.find(sign) != std::string::npos) return true;
  return false;
}

class PostgresDatabase final : public Database {
 public:
  // A worker started before its database (a machine booting, a server restarting) waits for it as
  // for an outage (wait_for_server); any other first connection fails at once, naming the cause.
  PostgresDatabase(std::string url, double retry_s, bool wait_for_server)
      : url_(std::move(url)), shown_(redact_url(url_)), retry_s_(retry_s) {
    Backoff backoff(wait_for_server ? retry_s_ : 0.0);
    for (;;) {
      try {
        conn_ = std::make_unique<pqxx::connection>(url_);
        if (backoff.failures() > 0)
          std::fprintf(stderr, "optimist: storage '%s': server reachable after %.1f s\n", shown_.c_str(), backoff.elapsed_s());
        return;
      } catch (const std::exception& e) {
        const std::string what = one_line(e.what());
        if (!wait_for_server || !server_not_there_yet(what))
          throw InvalidArgument("storage '" + shown_ + "': cannot connect to PostgreSQL: " + what);
        if (backoff.failures() == 0)
          std::fprintf(stderr, "optimist: storage '%s': cannot reach the PostgreSQL server (%s); retrying with backoff for up to %.0f s\n",
                       shown_.c_str(), what.c_str(), retry_s_);
        if (!backoff.wait())
          throw InvalidArgument("storage '" + shown_ + "': cannot connect to PostgreSQL (gave up after " +
                                std::to_string(static_cast<int>(backoff.elapsed_s())) + " s): " + what);
      }
    }
  }

  std::string backend() const override { return "postgresql"; }
  std::string display_url() const override { return shown_; }
  std::string type(const std::string& generic) const override {
    if (generic == "id") return "BIGSERIAL PRIMARY KEY";
    if (generic == "real") return "DOUBLE PRECISION";
    return "BIGINT";
  }
  std::string now_sql() const override { return "extract(epoch from clock_timestamp())::double precision"; }
  std::optional<std::chrono::steady_clock::time_point> last_outage_end() const override { return outage_end_; }

  // The server's snapshot, "xmin:xmax:in-progress ids": a transaction that writes takes an id
  // (xmax moves) and leaves the in-progress list when it ends, so the text changes with every
  // commit, of this database or another of the server (a false change only costs a recount).
  std::optional<std::string> change_token() override {
    const Rows rows = query("SELECT txid_current_snapshot()::text", {});
    if (rows.empty() || rows[0].empty() || rows[0][0].null()) return std::nullopt;
    return rows[0][0].text();
  }

  Rows query(const std::string& sql, const std::vector<SqlValue>& params) override {
    if (tx_) return run(*tx_, sql, params);
    // A statement on its own runs in autocommit mode: one round trip, atomic by itself.
    Rows out;
    attempt(kNoLock, false, [&] { out = run(*tx_, sql, params); });
    return out;
  }

  void transaction(std::int64_t lock, const std::function<void()>& fn) override { attempt(lock, true, fn); }

 private:
  static double seconds_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  void attempt(std::int64_t lock, bool transactional, const std::function<void()>& fn) {
    // One outage, one wait of retry_s: a statement run while an earlier one's wait is under way or
    // over (another job of the worker, serialized behind it) waits only what is left. Each waited
    // the whole retry_s again: K jobs gave up after K x 600 s.
    Backoff backoff(outage_start_ ? std::max(0.0, retry_s_ - (seconds_now() - *outage_start_)) : retry_s_);
    for (;;) {
      try {
        if (!conn_) {
          conn_ = std::make_unique<pqxx::connection>(url_);
          prepared_.clear();
        }
        std::unique_ptr<pqxx::transaction_base> tx;
        if (transactional) tx = std::make_unique<pqxx::work>(*conn_);
        else tx = std::make_unique<pqxx::nontransaction>(*conn_);
        tx_ = tx.get();
        if (lock >= 0) run(*tx, "SELECT id FROM studies WHERE id = ? FOR UPDATE", {lock});
        else if (lock == kGlobalLock) run(*tx, "SELECT pg_advisory_xact_lock(7476111)", {});  // 'opt' in ASCII
        fn();
        tx->commit();
        tx_ = nullptr;
        if (outage_start_) {
          std::fprintf(stderr, "optimist: storage '%s': server reachable again after %.1f s; resuming\n", shown_.c_str(),
                       seconds_now() - *outage_start_);
          outage_end_ = std::chrono::steady_clock::now();
          outage_start_.reset();
        }
        return;
      } catch (const pqxx::broken_connection& e) {
        retry_or_throw(backoff, e.what(), true);
      } catch (const pqxx::in_doubt_error& e) {
        retry_or_throw(backoff, e.what(), true);
      } catch (const pqxx::transaction_rollback& e) {  // serialization failure, deadlock: run again
        retry_or_throw(backoff, e.what(), false);
      } catch (const pqxx::sql_error& e) {
        tx_ = nullptr;
        // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 08xxx connection errors.
        const std::string state = e.sqlstate();
        if (state.rfind("57P", 0) == 0 || state.rfind("08", 0) == 0) retry_or_throw(backoff, e.what(), true);
        // 42501 insufficient privilege: the URL's role, not a fault of the database; exit 2 as bad input.
        // (libpqxx 6.4 leaves sqlstate() empty for an error of a prepared statement: its type says it.)
        if (state == "42501" || dynamic_cast<const pqxx::insufficient_privilege*>(&e) != nullptr)
          throw InvalidArgument("storage '" + shown_ + "': " + one_line(e.what()) + " (the role in the URL lacks a privilege: "
                                "reading studies needs SELECT on the study tables, writing also INSERT, UPDATE, DELETE and, "
                                "for the first study, CREATE; docs/studies.md)");
        // The statement's text: e.query() names only the prepared statement ("s2").
        throw std::runtime_error("storage '" + shown_ + "': " + one_line(e.what()) + " in: " + (last_sql_.empty() ? e.query() : last_sql_));
      } catch (...) {
        tx_ = nullptr;
        throw;
      }
    }
  }

  void retry_or_throw(Backoff& backoff, const std::string& what, bool lost_server) {
    tx_ = nullptr;
    if (lost_server) {
      conn_.reset();
      if (!outage_start_) {  // said once per outage (a heartbeat said it every 2 s)
        outage_start_ = seconds_now();
        std::fprintf(stderr, "optimist: storage '%s': lost the PostgreSQL server (%s); retrying with backoff for up to %.0f s\n",
                     shown_.c_str(), one_line(what).c_str(), retry_s_);
      }
    }
    if (!backoff.wait()) {
      const double waited = outage_start_ ? seconds_now() - *outage_start_ : backoff.elapsed_s();
      throw std::runtime_error("storage '" + shown_ + "': gave up after " + std::to_string(static_cast<int>(waited)) +
                               " s: " + one_line(what));
    }
  }

  // Each statement is prepared once per connection (parsed and planned once), then executed with
  // its parameters passed apart from the SQL text.
  Rows run(pqxx::transaction_base& work, const std::string& sql, const std::vector<SqlValue>& params) {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> ptrs(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (const auto* n = std::get_if<std::int64_t>(&params[i])) texts[i] = std::to_string(*n);
      else if (const auto* d = std::get_if<double>(&params[i])) texts[i] = format_double(*d);
      else if (const auto* s = std::get_if<std::string>(&params[i])) texts[i] = *s;
      if (!std::holds_alternative<std::monostate>(params[i])) ptrs[i] = texts[i].c_str();
    }
    last_sql_ = sql;
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
      // Not "s" + std::to_string(...): GCC 12 warns (-Wrestrict) on that expression, a false positive.
      std::string name = std::to_string(prepared_.size());
      name.insert(name.begin(), 's');
      conn_->prepare(name, numbered(sql));
      it = prepared_.emplace(sql, name).first;
    }
    const pqxx::result r = work.exec_prepared(it->second, pqxx::prepare::make_dynamic_params(ptrs));
    Rows rows;
    rows.reserve(r.size());
    for (const auto& pr : r) {
      Row row;
      row.reserve(pr.size());
      for (const auto& f : pr) {
        if (f.is_null()) row.emplace_back();
        else row.emplace_back(SqlValue(std::string(f.c_str(), f.size())));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  std::string url_, shown_;
  double retry_s_;
  std::unique_ptr<pqxx::connection> conn_;
  std::optional<std::chrono::steady_clock::time_point> outage_end_;  // when the server came back (last_outage_end)
  std::optional<double> outage_start_;  // the first failure of the outage under way (seconds_now), if any
  std::map<std::string, std::string> prepared_;  // SQL -> statement name on this connection
  pqxx::transaction_base* tx_ = nullptr;
  std::string last_sql_;  // the statement run last, for an error's message (a copy: the caller's may be gone by then)
};

}  // namespace

std::unique_ptr<Database> connect_postgres(const std::string& url, double retry_s, bool wait_for_server) {
  return std::make_unique<PostgresDatabase>(url, retry_s, wait_for_server);
}

}  // namespace optimist::study_detail
