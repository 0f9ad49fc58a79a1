#include "answer_cache.h"

#include <boost/json.hpp>
#include <charconv>

#include "auth/request_signature.h"
#include "core/mutex.h"
#include "json_members.h"
#include "platform/private_file.h"

namespace licensed::client {

namespace json = boost::json;

namespace {

constexpr int kFormatVersion = 2;  // 1 held v1-response answers, no longer accepted

}  // namespace

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
  return write(file_for(license_key, machine_id), json::serialize(o));
}

bool AnswerCache::write(const std::filesystem::path& target, const std::string& text) const {
  return make_private_dir(dir_) && replace_private_file(target, text);
}

std::optional<SignedAnswer> AnswerCache::load(std::string_view license_key,
                                              std::string_view machine_id) const {
  if (dir_.empty()) return std::nullopt;
  const auto text = read_whole_file(file_for(license_key, machine_id));
  if (!text) return std::nullopt;
  json::error_code ec;
  const json::value v = json::parse(*text, ec);
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
  const auto text = read_whole_file(dir_ / "latest-time");
  if (!text) return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0) return std::nullopt;
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
  (void)write(dir_ / "latest-time", std::to_string(unix_seconds));
}

void AnswerCache::remove(std::string_view license_key, std::string_view machine_id) const {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(file_for(license_key, machine_id), ec);
}

}  // namespace licensed::client
