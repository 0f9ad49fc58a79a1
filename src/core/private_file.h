// Files that hold secrets (a response key, an export with one): created new, mode 0600,
// written whole and synced, never replacing an existing file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace licensed {

// Writes `data` to a new file at `path`; nullopt on success, else why not, naming the
// path (an existing file is refused, and a half-written one removed).
std::optional<std::string> write_new_private_file(const std::string& path, std::string_view data);

}  // namespace licensed
