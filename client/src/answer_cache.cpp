#include "answer_cache.h"

#include <openssl/rand.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "auth/request_signature.h"
#include "json_members.h"

namespace licensed::client {

namespace json = boost::json;

namespace {

constexpr int kFormatVersion = 1;

std::string random_suffix() {
  uint8_t bytes[8] = {0};
  RAND_bytes(bytes, sizeof(bytes));
  return to_hex(bytes, sizeof(bytes));
}

}  // namespace

std::filesystem::path default_cache_dir() {
#if defined(_WIN32)
  if (const char* local = std::getenv("LOCALAPPDATA"); local && *local) {
    return std::filesystem::path(local) / "licensed-client";
  }
#else
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
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
  o["nonce"] = a.nonce;
  o["status"] = a.status;
  o["date"] = a.date;
  o["body"] = a.body;
  if (a.signature) {
    o["signature"] = *a.signature;
  } else {
    o["signature"] = nullptr;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const auto target = file_for(license_key, machine_id);
  auto temp = target;
  temp += ".tmp-" + random_suffix();
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << json::serialize(o);
    out.flush();
    if (!out) {
      std::filesystem::remove(temp, ec);
      return false;
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return false;
  }
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
  auto nonce = string_member(o, "nonce");
  auto date = string_member(o, "date");
  auto body = string_member(o, "body");
  if (!nonce || !date || !body) return std::nullopt;
  a.nonce = std::move(*nonce);
  a.date = std::move(*date);
  a.body = std::move(*body);
  a.status = static_cast<int>(status->as_int64());
  a.signature = string_member(o, "signature");
  return a;
}

void AnswerCache::remove(std::string_view license_key, std::string_view machine_id) const {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(file_for(license_key, machine_id), ec);
}

}  // namespace licensed::client
