#include "installed_files.h"

#include "auth/armour.h"
#include "license_client.h"
#include "platform/private_file.h"

namespace licensed::client {

Answer local_failure(Outcome outcome, std::string error, std::string message) {
  Answer a;
  a.outcome = outcome;
  a.error = std::move(error);
  a.message = std::move(message);
  return a;
}

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxArmouredBytes) return std::nullopt;
  return read_whole_file(path);
}

std::optional<std::pair<std::string, std::filesystem::path>> Client::installed_file(
    const std::string& name) const {
  if (config_.license_key.empty()) return std::nullopt;
  for (const auto& dir : offline_dirs()) {
    const std::filesystem::path path = dir / name;
    if (auto text = read_small_file(path)) return std::make_pair(std::move(*text), path);
  }
  return std::nullopt;
}

std::filesystem::path Client::installed_file_path(const std::string& name) const {
  if (const auto installed = installed_file(name)) return installed->second;
  const auto dirs = offline_dirs();
  return dirs.empty() ? std::filesystem::path(name) : dirs.front() / name;
}

bool Client::install_verified_file(const std::string& name, std::string_view text, int64_t now) {
  for (const auto& dir : offline_dirs()) {
    if (!make_shared_dir(dir)) continue;
    if (replace_shared_file(dir / name, std::string(text))) {
      cache_.remember_time(now);
      forget_startup_answer();  // the next check reads the file
      return true;
    }
  }
  return false;
}

Answer Client::cannot_install(std::string_view what) const {
  const auto dirs = offline_dirs();
  return local_failure(Outcome::kUnavailable, "CANNOT_WRITE",
                       std::string(what) + " could not be written to " +
                           (dirs.empty() ? std::string("any directory") : dirs.front().string()));
}

}  // namespace licensed::client
