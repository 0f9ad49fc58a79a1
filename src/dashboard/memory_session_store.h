// Dashboard sessions in this process's memory: behind a load balancer without Redis,
// route a client to one instance (sticky sessions); a restart signs everyone out.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include "core/mutex.h"
#include "dashboard/session_store.h"

namespace licensed {

class MemorySessionStore final : public SessionStore {
 public:
  MemorySessionStore(const Clock& clock, int64_t lifetime_ms, size_t max_sessions)
      : clock_(clock), lifetime_ms_(lifetime_ms), max_sessions_(max_sessions) {}

  // At capacity, expired sessions are dropped first, then the one closest to its end.
  Result<NewDashboardSession> open(std::string_view license_key) override;
  Result<std::optional<DashboardSession>> find(std::string_view id) const override;
  Status close(std::string_view id) override;
  // At capacity (max_sessions links too), expired links are dropped, then the oldest.
  Result<std::string> open_link(const SignInLink& link) override;
  Result<std::optional<SignInLink>> take_link(std::string_view token) override;
  size_t size() const;

 private:
  void make_room() REQUIRES(mutex_);
  void make_room_for_a_link() REQUIRES(mutex_);

  struct LiveLink {
    SignInLink link;
    UnixMillis expires_at = 0;
  };

  const Clock& clock_;
  const int64_t lifetime_ms_;
  const size_t max_sessions_;
  mutable Mutex mutex_;
  std::unordered_map<std::string, DashboardSession> sessions_ GUARDED_BY(mutex_);
  // By the SHA-256 of the token, as in Redis.
  std::unordered_map<std::string, LiveLink> links_ GUARDED_BY(mutex_);
};

}  // namespace licensed
