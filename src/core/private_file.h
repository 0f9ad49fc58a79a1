// Files that hold secrets (a response key, an export with one, the SQLite store with its
// response key): created new, mode 0600, written whole and synced, never replacing an
// existing file; and the checks that keep the ones others create private.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed {

// Writes `data` to a new file at `path`; nullopt on success, else why not, naming the
// path (an existing file is refused, and a half-written one removed).
std::optional<std::string> write_new_private_file(const std::string& path, std::string_view data);

// Every file the process creates from now on is private to its user (umask 077): the
// SQLite store and its -wal and -shm files are created by SQLite, which asks for 0644.
void make_created_files_private();

struct ExposedFile {
  std::string path;
  unsigned mode = 0;  // its permission bits, e.g. 0644
};
// Those of `paths` that exist and that the group or others may read or write.
std::vector<ExposedFile> files_open_to_others(const std::vector<std::string>& paths);

}  // namespace licensed
