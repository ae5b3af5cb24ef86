// Whether an objective program's process group still holds a socket (its stdin), from /proc.
#include "core/group_sockets.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace optimist {

bool group_holds_socket(pid_t program, ino_t inode) {
  const std::string target = "socket:[" + std::to_string(inode) + "]";
  DIR* proc = ::opendir("/proc");
  if (!proc) return true;
  bool held = false, any = false;
  for (const dirent* e = ::readdir(proc); e && !held; e = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    const std::string pid = e->d_name;
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string text;
    if (!std::getline(stat, text)) continue;  // gone meanwhile
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 1));
    std::string state;
    long ppid = 0, pgrp = 0;
    if (!(fields >> state >> ppid >> pgrp) || pgrp != static_cast<long>(program)) continue;
    any = true;
    DIR* fds = ::opendir(("/proc/" + pid + "/fd").c_str());
    if (!fds) {
      held = errno != ENOENT;  // not ours to look at: it may hold it; gone: it does not
      continue;
    }
    char link[64];
    while (const dirent* f = ::readdir(fds)) {
      if (f->d_name[0] == '.') continue;
      const ssize_t n = ::readlinkat(::dirfd(fds), f->d_name, link, sizeof link);
      if (n > 0 && std::string_view(link, static_cast<std::size_t>(n)) == target) {
        held = true;
        break;
      }
    }
    ::closedir(fds);
  }
  ::closedir(proc);
  return held || !any;  // no member found (cannot tell how it went): keep waiting
}

}  // namespace optimist
