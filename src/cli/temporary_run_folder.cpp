#include "cli/temporary_run_folder.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace optimist::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "optimist-run-";
constexpr const char* kLockName = "owner.lock";

bool holds_only_run_files(const fs::path& folder) {
  static constexpr std::array<const char*, 5> kRunFiles = {"run.db", "run.db-wal", "run.db-shm", "run.db-journal", kLockName};
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    bool known = false;
    for (const char* f : kRunFiles) known = known || name == f;
    if (!known || !e.is_regular_file(ec)) return false;
  }
  return !ec;
}

}  // namespace

std::size_t TemporaryRunFolder::remove_abandoned(const fs::path& dir) {
  std::size_t removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const fs::path folder = e.path();
    if (folder.filename().string().rfind(kPrefix, 0) != 0) continue;
    struct stat st {};
    // Not through a symbolic link, and only this user's: /tmp is shared.
    if (lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    const int fd = open((folder / kLockName).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    // The lock is free only once its owner ended: the folder was abandoned.
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && holds_only_run_files(folder)) {
      std::error_code rm;
      fs::remove_all(folder, rm);
      if (!rm) ++removed;
    }
    close(fd);
  }
  return removed;
}

TemporaryRunFolder::TemporaryRunFolder() {
  const fs::path dir = fs::temp_directory_path();
  remove_abandoned(dir);
  std::string pattern = (dir / (std::string(kPrefix) + "XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder in " + pattern + ": " + std::strerror(errno));
  path_ = pattern;
  // Locked before it takes its name, so no other run ever sees this owner.lock unlocked.
  const fs::path unnamed = path_ / "owner.lock.new";
  lock_fd_ = open(unnamed.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX) != 0 || rename(unnamed.c_str(), (path_ / kLockName).c_str()) != 0) {
    const std::string why = std::strerror(errno);
    if (lock_fd_ >= 0) close(lock_fd_);
    std::error_code ec;
    fs::remove_all(path_, ec);
    throw std::runtime_error("cannot lock the temporary folder " + path_.string() + ": " + why);
  }
}

TemporaryRunFolder::~TemporaryRunFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (lock_fd_ >= 0) close(lock_fd_);
}

}  // namespace optimist::cli
