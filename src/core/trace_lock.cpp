// The lock of a trace file (TraceLock, include/optimist/core/trace.hpp): one writer per trace, and
// a test, without taking the lock, of whether any process still writes it (the dashboard's
// "stopped"). docs/trace-format.md says why it is an open file description lock.
#include "optimist/core/trace.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

namespace optimist {

namespace {

// A forked child (a Python process pool's worker) must not hold a trace's lock: the lock belongs
// to the open file description, which fork shares, so a worker that outlived its run kept the
// trace locked and a resume was refused. In the child each lock descriptor is pointed at /dev/null
// instead (dup2): the number stays valid for the TraceLock that closes it later. The registry is
// never destroyed, since fork handlers may run during exit.
struct LockRegistry {
  std::mutex mutex;
  std::set<int> fds;
};

LockRegistry& lock_registry() {
  static LockRegistry* const registry = [] {
    auto* r = new LockRegistry;
    ::pthread_atfork([] { lock_registry().mutex.lock(); }, [] { lock_registry().mutex.unlock(); },
                     [] {
                       LockRegistry& reg = lock_registry();
                       const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
                       if (null_fd >= 0) {
                         for (const int fd : reg.fds) ::dup3(null_fd, fd, O_CLOEXEC);
                         ::close(null_fd);
                       }
                       reg.mutex.unlock();
                     });
    return r;
  }();
  return *registry;
}

void register_lock(int fd) {
  LockRegistry& r = lock_registry();
  const std::lock_guard<std::mutex> guard(r.mutex);
  r.fds.insert(fd);
}

void close_lock(int fd) {
  if (fd < 0) return;
  LockRegistry& r = lock_registry();
  {
    const std::lock_guard<std::mutex> guard(r.mutex);
    r.fds.erase(fd);
  }
  ::close(fd);  // releases the lock
}

#ifdef F_OFD_SETLK
// The whole file, whatever it grows to.
struct flock whole_file(short type) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 0;
  l.l_pid = 0;  // the OFD commands require 0
  return l;
}
#endif

// Takes the lock without waiting; 0, EWOULDBLOCK when another open file holds it, or the errno.
// An open file description lock (Linux 3.15): like flock it belongs to the open file (fork shares
// it, closing the last descriptor releases it), and unlike flock another process can test it
// without taking it (TraceLock::held). A descriptor open for reading only (a read-only trace
// being resumed into another file) takes a read lock, which still refuses every writer. A kernel
// without them (EINVAL) gets flock: writers are still kept apart, only the test cannot tell.
int lock_whole_file(int fd, bool writable) {
#ifdef F_OFD_SETLK
  struct flock l = whole_file(writable ? F_WRLCK : F_RDLCK);
  if (::fcntl(fd, F_OFD_SETLK, &l) == 0) return 0;
  if (errno == EAGAIN || errno == EACCES) return EWOULDBLOCK;
  if (errno != EINVAL) return errno;
#else
  (void)writable;
#endif
  return ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
}

// File systems shared between machines, whose locks may be each machine's own (NFS without lockd,
// Lustre or BeeGFS mounted with local locks, FUSE and 9p shares): a writer elsewhere is invisible
// here, so its trace cannot be judged (statfs(2) f_type values).
bool shared_between_machines(int fd) {
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) return true;
  constexpr std::array<unsigned long, 14> kShared = {
      0x6969,      // NFS
      0x517B,      // SMB
      0xFF534D42,  // CIFS
      0xFE534D42,  // SMB2
      0x65735546,  // FUSE (sshfs, virtiofs, ...)
      0x01021997,  // 9p
      0x00C36400,  // Ceph
      0x0BD00BD0,  // Lustre
      0x47504653,  // GPFS
      0x19830326,  // BeeGFS
      0x5346414F,  // AFS
      0x6B414653,  // kAFS
      0x7461636F,  // OCFS2
      0x01161970,  // GFS2
  };
  const auto type = static_cast<unsigned long>(fs.f_type) & 0xFFFFFFFFul;
  for (const unsigned long shared : kShared)
    if (type == shared) return true;
  return false;
}

}  // namespace

TraceLock::TraceLock(const std::string& path, bool create) : path_(path) {
  // Two tries: the path may be replaced (renamed over) between open and lock by the process
  // that held the lock; the inode check sees it.
  for (int attempt = 0; attempt < 2; ++attempt) {
    // Open for writing even to read (a resume's lock): an exclusive lock needs it.
    bool writable = true;
    fd_ = ::open(path.c_str(), O_RDWR | (create ? O_CREAT : 0) | O_CLOEXEC, 0666);
    if (fd_ < 0 && !create && (errno == EACCES || errno == EROFS || errno == EPERM)) {
      writable = false;
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (fd_ < 0) {
      const int e = errno;
      if (e == EISDIR && !create)  // as read_trace says it
        throw InvalidArgument("cannot read trace file '" + path + "': it is a directory; name the .jsonl trace in it");
      throw InvalidArgument((create ? "cannot write trace file '" : "cannot read trace file '") + path + "': " +
                            std::strerror(e));
    }
    if (const int e = lock_whole_file(fd_, writable); e != 0) {
      ::close(fd_);
      fd_ = -1;
      if (e == EWOULDBLOCK)
        throw InvalidArgument("the trace '" + path + "' is being written by another process (a run, or a resume of "
                              "it); wait until it ends, or write this trace to another file");
      throw InvalidArgument("cannot lock trace file '" + path + "': " + std::strerror(e));
    }
    struct stat locked{}, now{};
    if (::fstat(fd_, &locked) == 0 && ::stat(path.c_str(), &now) == 0 && locked.st_ino == now.st_ino &&
        locked.st_dev == now.st_dev) {
      register_lock(fd_);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw InvalidArgument("the trace '" + path + "' keeps being replaced by another process; try again later");
}

TraceLock::~TraceLock() { close_lock(fd_); }

TraceLock::TraceLock(TraceLock&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

TraceLock& TraceLock::operator=(TraceLock&& other) noexcept {
  if (this != &other) {
    close_lock(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

std::optional<bool> TraceLock::held(const std::string& path) {
#ifdef F_OFD_GETLK
  // O_NONBLOCK: a FIFO given as a trace does not hang the caller.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  std::optional<bool> answer;
  // Which lock would stop an exclusive one: the kernel answers without taking any (F_UNLCK: none).
  struct flock l = whole_file(F_WRLCK);
  if (!shared_between_machines(fd) && ::fcntl(fd, F_OFD_GETLK, &l) == 0) answer = l.l_type != F_UNLCK;
  ::close(fd);
  return answer;
#else
  (void)path;
  return std::nullopt;
#endif
}

}  // namespace optimist
