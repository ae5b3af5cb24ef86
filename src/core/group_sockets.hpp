// Whether an objective program's process group still holds a socket: its stdin, of which the
// parent keeps its own end (so the kernel cannot tell it that nobody will read the request).
#pragma once

#include <sys/types.h>

namespace optimist {

/// Whether a process of the process group `program` leads (the program and what it started: it
/// runs in a group of its own) has the socket `inode` open. /proc/<pid>/fd links read
/// "socket:[inode]". Whatever cannot be looked at counts as holding it (no /proc; a member run as
/// another user, as by sudo; no member found): only a sure "nobody" is false.
bool group_holds_socket(pid_t program, ino_t inode);

}  // namespace optimist
