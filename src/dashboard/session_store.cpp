#include "dashboard/session_store.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth/base64.h"

namespace licensed {
namespace {

std::optional<std::string> random_token() {
  uint8_t bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return std::nullopt;
  return base64url_encode(bytes, sizeof bytes);
}

}  // namespace

std::optional<NewDashboardSession> SessionStore::open(std::string_view license_key) {
  auto id = random_token();
  auto csrf = random_token();
  if (!id || !csrf) return std::nullopt;
  std::lock_guard lock(mutex_);
  make_room();
  sessions_[*id] =
      DashboardSession{std::string(license_key), *csrf, clock_.now_ms() + lifetime_ms_};
  return NewDashboardSession{std::move(*id), std::move(*csrf)};
}

std::optional<DashboardSession> SessionStore::find(std::string_view id) const {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second.expires_at <= clock_.now_ms()) return std::nullopt;
  return it->second;
}

void SessionStore::close(std::string_view id) {
  std::lock_guard lock(mutex_);
  sessions_.erase(std::string(id));
}

size_t SessionStore::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void SessionStore::make_room() {
  if (sessions_.size() < max_sessions_) return;
  const UnixMillis now = clock_.now_ms();
  std::erase_if(sessions_, [now](const auto& s) { return s.second.expires_at <= now; });
  if (sessions_.size() < max_sessions_) return;
  auto oldest = sessions_.begin();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (it->second.expires_at < oldest->second.expires_at) oldest = it;
  }
  sessions_.erase(oldest);
}

bool csrf_token_matches(const DashboardSession& session, std::string_view presented) {
  return presented.size() == session.csrf_token.size() &&
         CRYPTO_memcmp(presented.data(), session.csrf_token.data(), presented.size()) == 0;
}

}  // namespace licensed
