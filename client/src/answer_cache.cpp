#include "answer_cache.h"

#include <openssl/rand.h>

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <boost/json.hpp>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "auth/request_signature.h"
#include "core/mutex.h"
#include "json_members.h"

namespace licensed::client {

namespace json = boost::json;

namespace {

constexpr int kFormatVersion = 2;  // 1 held v1-response answers, no longer accepted

std::string random_suffix() {
  uint8_t bytes[8] = {0};
  RAND_bytes(bytes, sizeof(bytes));
  return to_hex(bytes, sizeof(bytes));
}

#if defined(_WIN32)
// %LOCALAPPDATA% is per-user already; no POSIX modes to set.
bool make_private_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return std::filesystem::is_directory(dir, ec);
}

bool write_new_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

void sync_dir(const std::filesystem::path&) {}
#else
// The answer says which license this machine holds: the user's alone (0700), made so at
// creation rather than chmod-ed after. Parents get the usual modes.
bool make_private_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  return std::filesystem::is_directory(dir, ec);
}

// A new file (O_EXCL: never one someone planted), 0600, on disk before it is renamed
// over the old answer, so a crash leaves the old answer or the new one, not an empty file.
bool write_new_file(const std::filesystem::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

// Best effort: makes the rename itself durable.
void sync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}
#endif

}  // namespace

std::filesystem::path default_cache_dir() {
#if defined(_WIN32)
  if (const char* local = std::getenv("LOCALAPPDATA"); local && *local) {
    return std::filesystem::path(local) / "licensed-client";
  }
#else
  // The XDG spec: a relative path in XDG_CACHE_HOME is invalid and is to be ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME");
      xdg && *xdg && std::filesystem::path(xdg).is_absolute()) {
    return std::filesystem::path(xdg) / "licensed-client";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "licensed-client";
  }
#endif
  return {};
}

std::filesystem::path AnswerCache::file_for(std::string_view license_key,
                                            std::string_view machine_id) const {
  const std::string who = std::string(license_key) + "\n" + std::string(machine_id);
  return dir_ / ("status-" + sha256_hex(who).substr(0, 32) + ".json");
}

bool AnswerCache::store(std::string_view license_key, std::string_view machine_id,
                        const SignedAnswer& a) const {
  if (dir_.empty()) return false;
  json::object o;
  o["version"] = kFormatVersion;
  o["requestSignature"] = a.request_signature;
  o["request"] = json::object{{"path", a.request.path},
                              {"timestamp", a.request.timestamp},
                              {"nonce", a.request.nonce},
                              {"body", a.request.body}};
  o["status"] = a.status;
  o["body"] = a.body;
  if (a.signature) {
    o["signature"] = *a.signature;
  } else {
    o["signature"] = nullptr;
  }
  return replace_private_file(file_for(license_key, machine_id), json::serialize(o));
}

bool AnswerCache::replace_private_file(const std::filesystem::path& target,
                                       const std::string& text) const {
  if (!make_private_dir(dir_)) return false;
  std::error_code ec;
  auto temp = target;
  temp += ".tmp-" + random_suffix();
  if (!write_new_file(temp, text)) {
    std::filesystem::remove(temp, ec);
    return false;
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return false;
  }
  sync_dir(dir_);
  return true;
}

std::optional<SignedAnswer> AnswerCache::load(std::string_view license_key,
                                              std::string_view machine_id) const {
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(file_for(license_key, machine_id), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  json::error_code ec;
  const json::value v = json::parse(text.str(), ec);
  if (ec || !v.is_object()) return std::nullopt;
  const json::object& o = v.as_object();
  const json::value* version = o.if_contains("version");
  const json::value* status = o.if_contains("status");
  if (version == nullptr || !version->is_int64() || version->as_int64() != kFormatVersion ||
      status == nullptr || !status->is_int64()) {
    return std::nullopt;
  }
  SignedAnswer a;
  auto request_signature = string_member(o, "requestSignature");
  auto body = string_member(o, "body");
  const json::value* request = o.if_contains("request");
  if (!request_signature || !body || request == nullptr || !request->is_object()) {
    return std::nullopt;
  }
  auto path = string_member(request->as_object(), "path");
  auto timestamp = string_member(request->as_object(), "timestamp");
  auto nonce = string_member(request->as_object(), "nonce");
  auto request_body = string_member(request->as_object(), "body");
  if (!path || !timestamp || !nonce || !request_body) return std::nullopt;
  a.request_signature = std::move(*request_signature);
  a.request = {std::move(*path), std::move(*timestamp), std::move(*nonce),
               std::move(*request_body)};
  a.body = std::move(*body);
  a.status = static_cast<int>(status->as_int64());
  a.signature = string_member(o, "signature");
  return a;
}

std::optional<int64_t> AnswerCache::latest_time() const {
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(dir_ / "latest-time", std::ios::binary);
  int64_t value = 0;
  if (!(in >> value) || value < 0) return std::nullopt;
  return value;
}

void AnswerCache::remember_time(int64_t unix_seconds) const {
  if (dir_.empty()) return;
  // Read, compare and write as one step for the process's threads (a background refresh
  // and a call may remember at once), so the file never moves back.
  static auto* mu = new Mutex;
  MutexLock lock(*mu);
  const auto latest = latest_time();
  if (latest && *latest >= unix_seconds) return;
  (void)replace_private_file(dir_ / "latest-time", std::to_string(unix_seconds));
}

void AnswerCache::remove(std::string_view license_key, std::string_view machine_id) const {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(file_for(license_key, machine_id), ec);
}

}  // namespace licensed::client
