// The customer dashboard's sign-in sessions, kept in this process's memory: a random
// 256-bit id (the cookie) names the license key it was opened for and a CSRF token
// every change must carry. Sessions end at a fixed time after sign-in, or at sign-out.
// One instance's sessions are its own: behind a load balancer, route a client to one
// instance (sticky sessions); a restart signs everyone out.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"

namespace licensed {

struct DashboardSession {
  std::string license_key;
  std::string csrf_token;
  UnixMillis expires_at = 0;
};

struct NewDashboardSession {
  std::string id;  // for the cookie; never logged
  std::string csrf_token;
};

class SessionStore {
 public:
  SessionStore(const Clock& clock, int64_t lifetime_ms, size_t max_sessions)
      : clock_(clock), lifetime_ms_(lifetime_ms), max_sessions_(max_sessions) {}

  // nullopt when the CSPRNG fails. At capacity, expired sessions are dropped first, then
  // the one closest to its end.
  std::optional<NewDashboardSession> open(std::string_view license_key);
  // The live session of that id.
  std::optional<DashboardSession> find(std::string_view id) const;
  void close(std::string_view id);
  size_t size() const;

 private:
  void make_room();  // holds mutex_

  const Clock& clock_;
  const int64_t lifetime_ms_;
  const size_t max_sessions_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, DashboardSession> sessions_;
};

// A request's CSRF token against its session's, in constant time.
bool csrf_token_matches(const DashboardSession& session, std::string_view presented);

}  // namespace licensed
