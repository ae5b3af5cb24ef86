// SQLite backend: the C API behind a small RAII wrapper. WAL journal (readers never block the
// writer), a busy timeout, BEGIN IMMEDIATE for every transaction (the write lock is taken at the
// start, so two writers never deadlock upgrading a read lock), retry with backoff on SQLITE_BUSY.
#include <pwd.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "optimist/core/types.hpp"
#include "study/database.hpp"

namespace optimist::study_detail {

namespace {

/// The database is locked by another connection: roll back and try again later.
struct Busy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr int kBusyTimeoutMs = 2000;
constexpr double kReportAfterS = 10.0;  // say so on stderr when a lock is held longer

bool busy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

struct StatementDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(std::string url, const std::string& path, double retry_s, bool read_only)
      : url_(std::move(url)), path_(path), retry_s_(retry_s), read_only_(read_only) {
    open_checked(path, read_only);
    query("PRAGMA synchronous = NORMAL", {});
    query("PRAGMA foreign_keys = ON", {});
  }
  void open_checked(const std::string& path, bool read_only) {
    if (!read_only) make_own_side_files_writable(path);
    const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    open(path, flags);
    sqlite3* raw = db_.get();
    // WAL persists in the file; NORMAL sync is durable against a killed process (the WAL is
    // written before the commit returns) and skips an fsync per commit.
    try {
      try {
        first_read(read_only);
      } catch (const InvalidArgument&) {
        // A reader of a WAL file in a folder it cannot write cannot create the shared-memory file.
        // No writer can work there either (it needs that folder too), so the file cannot change
        // while it is read: open it as immutable.
        if (!read_only) throw;
        open("file:" + uri_path(path) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
        raw = db_.get();
        first_read(read_only);
      }
    } catch (const std::runtime_error&) {
      // The first statement reads the file: another kind of file is the user's mistake.
      const int code = sqlite3_errcode(raw) & 0xff;
      if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
        throw InvalidArgument("storage '" + url_ + "': '" + path + "' is not a SQLite database (" + sqlite3_errmsg(raw) + ")");
      throw;
    }
  }
  // SQLite's side files (-wal, -shm) take the database file's mode when a reader creates them: a
  // `study list` run while the file was read-only left a read-only -shm that refused every writer
  // after the file was made writable again. Ours are given write permission back.
  static void make_own_side_files_writable(const std::string& path) {
    for (const char* suffix : {"-wal", "-shm"}) {
      const std::string side = path + suffix;
      struct stat st {};
      if (::stat(side.c_str(), &st) == 0 && st.st_uid == ::geteuid() && !(st.st_mode & S_IWUSR))
        (void)::chmod(side.c_str(), (st.st_mode & 07777) | S_IWUSR);
    }
  }
  // The user's file permissions, not a fault of the database. A side file another user's reader
  // created (a viewer's `study list` or dashboard in a shared folder) is named with its owner: the
  // database and its folder were writable, and the message said to make them so.
  [[noreturn]] void read_only_file(const std::string& message) const {
    for (const char* suffix : {"-shm", "-wal"}) {
      const std::string side = path_ + suffix;
      struct stat st {};
      if (::stat(side.c_str(), &st) != 0 || ::access(side.c_str(), W_OK) == 0) continue;
      const struct passwd* owner = ::getpwuid(st.st_uid);
      const std::string who = owner ? std::string(owner->pw_name) : "uid " + std::to_string(st.st_uid);
      throw InvalidArgument("storage '" + url_ + "': SQLite's side file '" + side + "' is not writable for this user (it " +
                            "belongs to " + who + ", whose reader created it; " + message + "); give it write permission " +
                            "(chmod g+w, for a shared database make the database, its folder and these files group-" +
                            "writable), or delete it while no process uses the database");
    }
    throw InvalidArgument("storage '" + url_ + "': '" + path_ + "' is read-only for this user (" + message +
                          "); give it (and its folder) write permission");
  }
  void open(const std::string& name, int flags) {
    cache_.clear();
    ++opened_;
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) {
      // SQLite says only "unable to open database file": name a missing folder (not created, as a
      // mistyped path would leave a stray database behind).
      std::error_code ec;
      const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
      const std::string missing = !folder.empty() && !std::filesystem::exists(folder, ec)
                                      ? " (the folder '" + folder.string() + "' does not exist; create it first)"
                                      : "";
      throw InvalidArgument("storage '" + url_ + "': cannot open SQLite file '" + path_ + "': " +
                            (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)) + missing);
    }
    sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  }
  void first_read(bool read_only) {
    with_retry([&] {
      query(read_only ? "PRAGMA journal_mode" : "PRAGMA journal_mode = WAL", {});  // a reader changes nothing
      return true;
    });
  }
  // A path as the path of a file: URI (RFC 3986: what is not unreserved or '/' percent-encoded).
  static std::string uri_path(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : path) {
      if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
        out += static_cast<char>(c);
      } else {
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out;
  }
  ~SqliteDatabase() override {
    cache_.clear();  // statements before the connection
  }

  std::string backend() const override { return "sqlite"; }
  std::string display_url() const override { return url_; }
  std::string type(const std::string& generic) const override {
    // AUTOINCREMENT: a deleted study's id is never given to a new one (a worker or a dashboard
    // still holding it would otherwise read or write the new study).
    if (generic == "id") return "INTEGER PRIMARY KEY AUTOINCREMENT";
    if (generic == "real") return "REAL";
    return "INTEGER";
  }
  std::string now_sql() const override { return "((julianday('now') - 2440587.5) * 86400.0)"; }

  Rows query(const std::string& sql, const std::vector<SqlValue>& params) override {
    if (in_transaction_) return run(sql, params);
    if (read_only_) follow_if_moved();
    Rows out;
    with_retry([&] {
      out = run(sql, params);
      return true;
    });
    return out;
  }

  std::optional<std::string> change_token() override {
    const Rows rows = query("PRAGMA data_version", {});
    if (rows.empty() || rows[0].empty() || rows[0][0].null()) return std::nullopt;
    // With the file opened again (follow_if_moved), the counter starts over.
    return std::to_string(opened_) + ":" + std::to_string(rows[0][0].integer());
  }

  void transaction(std::int64_t, const std::function<void()>& fn) override {
    refuse_if_moved();
    with_retry([&] {
      try {
        run("BEGIN IMMEDIATE", {});
        in_transaction_ = true;
        fn();
        run("COMMIT", {});
        in_transaction_ = false;
      } catch (...) {
        in_transaction_ = false;
        if (!sqlite3_get_autocommit(db_.get())) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
      return true;
    });
  }

 private:
  // A file deleted or renamed while open still takes writes, into an inode nobody will read
  // again: every write transaction checks first (SQLite's own test; one stat).
  void refuse_if_moved() {
    int moved = 0;
    if (sqlite3_file_control(db_.get(), "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved)
      throw std::runtime_error("storage '" + url_ + "': the database file '" + path_ +
                               "' was deleted, renamed or replaced while this process had it open; nothing more is "
                               "written to it");
  }

  // A reader (the dashboard) of a file replaced under it (rsync and scp write a new file and rename
  // it over the old) read the old inode for ever: it opens the file at its path again, and says
  // so while no file is there (one stat per query, as above).
  void follow_if_moved() {
    int moved = 0;
    if (sqlite3_file_control(db_.get(), "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK || !moved) return;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec))
      throw std::runtime_error("storage '" + url_ + "': the database file '" + path_ +
                               "' was deleted or renamed while it was read; it is read again once it is back");
    open_checked(path_, /*read_only=*/true);
    query("PRAGMA foreign_keys = ON", {});
  }

  struct DbDeleter {
    void operator()(sqlite3* d) const { sqlite3_close_v2(d); }
  };

  // Runs `attempt` until it succeeds, backing off while the database is busy.
  void with_retry(const std::function<bool()>& attempt) {
    Backoff backoff(retry_s_);
    double reported = 0.0;
    for (;;) {
      try {
        attempt();
        if (reported > 0.0) std::fprintf(stderr, "optimist: storage '%s': lock released after %.0f s\n", url_.c_str(), backoff.elapsed_s());
        return;
      } catch (const Busy& e) {
        const double waited = backoff.elapsed_s() + kBusyTimeoutMs / 1000.0;
        if (waited >= reported + kReportAfterS) {
          reported = waited;
          std::fprintf(stderr, "optimist: storage '%s': the database has been locked by another process for %.0f s (%s); still retrying\n",
                       url_.c_str(), waited, e.what());
        }
        if (!backoff.wait())
          throw std::runtime_error("storage '" + url_ + "': the database stayed locked by another process for " +
                                   std::to_string(static_cast<int>(backoff.elapsed_s())) +
                                   " s; is a process stuck in a transaction?");
      }
    }
  }

  sqlite3_stmt* prepare(const std::string& sql) {
    auto it = cache_.find(sql);
    if (it != cache_.end()) return it->second.get();
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
    if (rc != SQLITE_OK) {
      if (busy(rc)) throw Busy(sqlite3_errmsg(db_.get()));
      if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) read_only_file(sqlite3_errmsg(db_.get()));
      throw std::runtime_error("storage '" + url_ + "': " + sqlite3_errmsg(db_.get()) + " in: " + sql);
    }
    return cache_.emplace(sql, Statement(raw)).first->second.get();
  }

  Rows run(const std::string& sql, const std::vector<SqlValue>& params) {
    sqlite3_stmt* st = prepare(sql);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int k = static_cast<int>(i + 1);
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) sqlite3_bind_null(st, k);
            else if constexpr (std::is_same_v<T, std::int64_t>) sqlite3_bind_int64(st, k, v);
            else if constexpr (std::is_same_v<T, double>) sqlite3_bind_double(st, k, v);
            else sqlite3_bind_text(st, k, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
          },
          params[i]);
    }
    Rows rows;
    for (;;) {
      const int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        const std::string msg = sqlite3_errmsg(db_.get());
        sqlite3_reset(st);
        if (busy(rc)) throw Busy(msg);
        if ((rc & 0xff) == SQLITE_READONLY) read_only_file(msg);
        throw std::runtime_error("storage '" + url_ + "': " + msg + " in: " + sql);
      }
      Row row;
      const int n = sqlite3_column_count(st);
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_NULL: row.emplace_back(); break;
          case SQLITE_INTEGER: row.emplace_back(SqlValue(static_cast<std::int64_t>(sqlite3_column_int64(st, c)))); break;
          case SQLITE_FLOAT: row.emplace_back(SqlValue(sqlite3_column_double(st, c))); break;
          default:
            row.emplace_back(SqlValue(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)),
                                                  static_cast<std::size_t>(sqlite3_column_bytes(st, c)))));
        }
      }
      rows.push_back(std::move(row));
    }
    sqlite3_reset(st);
    return rows;
  }

  std::string url_;
  std::string path_;
  double retry_s_;
  bool read_only_ = false;
  std::uint64_t opened_ = 0;  ///< connections opened so far (change_token)
  std::unique_ptr<sqlite3, DbDeleter> db_;
  std::map<std::string, Statement> cache_;
  bool in_transaction_ = false;
};

}  // namespace

std::unique_ptr<Database> connect_sqlite(const std::string& url, const std::string& path, double retry_s, bool read_only) {
  return std::make_unique<SqliteDatabase>(url, path, retry_s, read_only);
}

}  // namespace optimist::study_detail
