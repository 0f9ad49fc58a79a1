// Files only this user may read, replaced whole or not at all: how the SDK writes its
// cache. Platform code only (no third-party library), built and tested for Windows with
// mingw-w64 under Wine.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace licensed::client {

// Creates `dir` (and its parents) if missing. POSIX: `dir` itself is made 0700 at
// creation, never chmod-ed after; Windows: under %LOCALAPPDATA% it is per user already.
// True when `dir` is a directory afterwards.
bool make_private_dir(const std::filesystem::path& dir);

// Writes `text` to a new file beside `target` (created exclusively, 0600 on POSIX, on
// disk before it is renamed) and renames it over `target`: a reader or a crash sees the
// old content or the new, never part of either. Paths may hold any Unicode (wide on
// Windows). False on any I/O error, with nothing left behind.
bool replace_private_file(const std::filesystem::path& target, const std::string& text);

// The same for files every user of the computer may read (0644 on POSIX, in a directory
// made 0755): the machine-wide activation files (docs/protocol.md §21.8). On Windows the directory
// under %PROGRAMDATA% inherits its access from there.
bool make_shared_dir(const std::filesystem::path& dir);
bool replace_shared_file(const std::filesystem::path& target, const std::string& text);

// The whole content of `path`, or nullopt when it cannot be read.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace licensed::client
