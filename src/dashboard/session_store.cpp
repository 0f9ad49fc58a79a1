#include "dashboard/session_store.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth/base64.h"
#include "auth/request_signature.h"

namespace licensed {
namespace {

std::optional<std::string> random_token() {
  uint8_t bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return std::nullopt;
  return base64url_encode(bytes, sizeof bytes);
}

}  // namespace

std::optional<NewDashboardSession> new_session_tokens() {
  auto id = random_token();
  auto csrf = random_token();
  if (!id || !csrf) return std::nullopt;
  return NewDashboardSession{std::move(*id), std::move(*csrf)};
}

std::optional<std::string> new_link_token() {
  return random_token();
}

std::string with_sign_in_link(std::string_view dashboard_url, std::string_view token) {
  return std::string(dashboard_url) + "#signin=" + std::string(token);
}

bool is_dashboard_page_url(std::string_view dashboard_url) {
  const size_t scheme_end = dashboard_url.find("://");
  if (scheme_end == std::string_view::npos) return false;
  std::string_view rest = dashboard_url.substr(scheme_end + 3);
  const size_t path_start = rest.find_first_of("/?#");  // the authority ends there
  if (path_start == std::string_view::npos || rest[path_start] != '/') return false;
  std::string_view path = rest.substr(path_start);
  path = path.substr(0, path.find_first_of("?#"));
  if (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
  return path.ends_with("/dashboard");
}

std::string sign_in_link_id(std::string_view token) {
  return sha256_hex(token).substr(0, 16);
}

bool is_session_id(std::string_view id) {
  constexpr size_t kBase64urlOf32Bytes = 43;
  if (id.size() != kBase64urlOf32Bytes) return false;
  for (const char c : id) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool csrf_token_matches(const DashboardSession& session, std::string_view presented) {
  return presented.size() == session.csrf_token.size() &&
         CRYPTO_memcmp(presented.data(), session.csrf_token.data(), presented.size()) == 0;
}

}  // namespace licensed
