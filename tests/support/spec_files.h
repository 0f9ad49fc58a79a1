// Where the shared contract lives: <repo>/../shared/spec, found from this file's path.
#pragma once

#include <filesystem>
#include <string>

namespace bb {

std::filesystem::path RepoRoot();
std::filesystem::path SpecDir();
std::string ReadFile(const std::filesystem::path& path);  // throws when unreadable

}  // namespace bb
