#include "dashboard/memory_session_store.h"

#include <algorithm>

#include "auth/request_signature.h"

namespace licensed {

Result<NewDashboardSession> MemorySessionStore::open(std::string_view license_key) {
  auto fresh = new_session_tokens();
  if (!fresh) return Error::internal("no random bytes for a dashboard session");
  MutexLock lock(mutex_);
  make_room();
  sessions_[fresh->id] =
      DashboardSession{std::string(license_key), fresh->csrf_token, clock_.now_ms() + lifetime_ms_};
  return std::move(*fresh);
}

Result<std::optional<DashboardSession>> MemorySessionStore::find(std::string_view id) const {
  MutexLock lock(mutex_);
  const auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second.expires_at <= clock_.now_ms()) {
    return std::optional<DashboardSession>();
  }
  return std::optional<DashboardSession>(it->second);
}

Status MemorySessionStore::close(std::string_view id) {
  MutexLock lock(mutex_);
  sessions_.erase(std::string(id));
  return Ok{};
}

Result<std::string> MemorySessionStore::open_link(const SignInLink& link) {
  auto token = new_link_token();
  if (!token) return Error::internal("no random bytes for a dashboard sign-in link");
  MutexLock lock(mutex_);
  make_room_for_a_link();
  links_[sha256_hex(*token)] = LiveLink{link, clock_.now_ms() + kSignInLinkMs};
  return std::move(*token);
}

Result<std::optional<SignInLink>> MemorySessionStore::take_link(std::string_view token) {
  MutexLock lock(mutex_);
  const auto it = links_.find(sha256_hex(token));
  if (it == links_.end()) return std::optional<SignInLink>();
  LiveLink taken = std::move(it->second);
  links_.erase(it);
  if (taken.expires_at <= clock_.now_ms()) return std::optional<SignInLink>();
  return std::optional<SignInLink>(std::move(taken.link));
}

void MemorySessionStore::make_room_for_a_link() {
  if (links_.size() < max_sessions_) return;
  const UnixMillis now = clock_.now_ms();
  std::erase_if(links_, [now](const auto& l) { return l.second.expires_at <= now; });
  if (links_.size() < max_sessions_) return;
  auto oldest = links_.begin();
  for (auto it = links_.begin(); it != links_.end(); ++it) {
    if (it->second.expires_at < oldest->second.expires_at) oldest = it;
  }
  links_.erase(oldest);
}

size_t MemorySessionStore::size() const {
  MutexLock lock(mutex_);
  return sessions_.size();
}

void MemorySessionStore::make_room() {
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

}  // namespace licensed
