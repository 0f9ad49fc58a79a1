// Where the SDK keeps its files on each operating system, per user. Platform code only
// (no third-party library), built and tested for Windows with mingw-w64 under Wine.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace licensed::client {

// The per-user cache directory of `folder` (the vendor's name, or "licensed-client"):
// Linux $XDG_CACHE_HOME/<folder> when that is absolute, else $HOME/.cache/<folder>;
// macOS $HOME/Library/Caches/<folder> (inside a sandboxed host HOME is its container,
// so this is the container's Caches: writable without an entitlement); Windows
// %LOCALAPPDATA%\<folder>, read as wide characters. "" when the environment names none.
std::filesystem::path default_cache_dir(std::string_view folder);

// The machine-wide directories of `folder` (the vendor's name) for activation and lease
// files (docs/protocol.md §21.8): one per vendor, shared by every user, host and plugin format,
// in the order the SDK looks in them and tries to install into them:
// Windows %PROGRAMDATA%\<folder> (read as wide characters);
// macOS /Library/Application Support/<folder>, then $HOME/Library/Application
//   Support/<folder> for a user who may not write the first (or a sandboxed host);
// Linux and other POSIX systems /var/lib/<folder>, then $XDG_DATA_HOME/<folder> when that
//   is absolute, else $HOME/.local/share/<folder>: /var/lib/<folder> is machine-wide only
//   when an installer made it writable (as root), so without one the file is per user.
// Entries the environment cannot name are left out.
std::vector<std::filesystem::path> machine_file_dirs(std::string_view folder);

// A path given as UTF-8 text (the C ABI's encoding), on Windows too, where a narrow
// string would otherwise be read in the ANSI code page.
std::filesystem::path path_from_utf8(std::string_view utf8);

}  // namespace licensed::client
