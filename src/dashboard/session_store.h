// The customer dashboard's sign-in sessions: a random 256-bit id (the cookie) names the
// license key it was opened for and a CSRF token every change must carry. Sessions end
// at a fixed time after sign-in, or at sign-out. Two kinds: in this process's memory
// (MemorySessionStore, one instance) and in Redis (RedisSessionStore, every instance of a
// deployment that shares a Redis sees every session).
//
// Called from many threads at once (network threads, and store threads answering a
// sign-in), so implementations are thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/completion.h"
#include "core/result.h"

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
  virtual ~SessionStore() = default;
  // These three may wait on Redis: network threads call the *_async ones below.
  // A new session for that license key. Errors: internal (the CSPRNG failed),
  // unavailable (Redis did not answer).
  virtual Result<NewDashboardSession> open(std::string_view license_key) = 0;
  // The live session of that id; nullopt when there is none or it has ended.
  virtual Result<std::optional<DashboardSession>> find(std::string_view id) const = 0;
  virtual Status close(std::string_view id) = 0;

  // The same three for a network thread, which must not wait on I/O: `done` gets the
  // result, before this returns when the sessions are in memory, else later from the
  // thread that asked Redis. The strings need not outlive the call.
  // Completions by value, as the Redis overrides keep them past the call.
  // NOLINTBEGIN(performance-unnecessary-value-param)
  virtual void open_async(std::string_view license_key,
                          Completion<Result<NewDashboardSession>> done) {
    done(open(license_key));
  }
  virtual void find_async(std::string_view id,
                          Completion<Result<std::optional<DashboardSession>>> done) const {
    done(find(id));
  }
  virtual void close_async(std::string_view id, Completion<Status> done) { done(close(id)); }
  // NOLINTEND(performance-unnecessary-value-param)
};

// A fresh session's id and CSRF token, 256 random bits each in base64url; nullopt when
// the CSPRNG fails.
std::optional<NewDashboardSession> new_session_tokens();
// Whether `id` has the shape new_session_tokens() gives ids (43 characters of base64url).
bool is_session_id(std::string_view id);

// A request's CSRF token against its session's, in constant time.
bool csrf_token_matches(const DashboardSession& session, std::string_view presented);

}  // namespace licensed
