// Dashboard sessions in Redis, so that every instance of a deployment sharing a Redis
// knows every session: a browser signed in on one instance stays signed in whichever
// instance the load balancer picks next. One key a session, `<prefix>dashboard-session:`
// followed by the SHA-256 of its id (whoever reads Redis learns no cookie), holding the
// session's end, CSRF token and license key, with Redis expiring it at that end. When
// Redis does not answer, the dashboard answers 503 1708 (no session is assumed). At most
// `max_per_license` sign-ins of one license per lifetime (429 1706 beyond), so that the
// sessions cannot fill the Redis that also holds the nonces. Sign-in links likewise, one
// key a link, `<prefix>dashboard-link:` and the SHA-256 of its token, taken by a script
// that reads and deletes it in one step (Redis 5 has no GETDEL).
#pragma once

#include <string>

#include "dashboard/session_store.h"
#include "redis/redis_client.h"
#include "redis/redis_outage_log.h"

namespace licensed {

class RedisSessionStore final : public SessionStore {
 public:
  RedisSessionStore(RedisClient& redis, std::string key_prefix, const Clock& clock,
                    int64_t lifetime_ms, int64_t max_per_license);

  Result<NewDashboardSession> open(std::string_view license_key) override;
  Result<std::optional<DashboardSession>> find(std::string_view id) const override;
  Status close(std::string_view id) override;
  Result<std::string> open_link(const SignInLink& link) override;
  Result<std::optional<SignInLink>> take_link(std::string_view token) override;
  // On one of the client's workers, which calls `done`.
  void open_async(std::string_view license_key,
                  Completion<Result<NewDashboardSession>> done) override;
  void find_async(std::string_view id,
                  Completion<Result<std::optional<DashboardSession>>> done) const override;
  void close_async(std::string_view id, Completion<Status> done) override;
  void open_link_async(const SignInLink& link, Completion<Result<std::string>> done) override;
  void take_link_async(std::string_view token,
                       Completion<Result<std::optional<SignInLink>>> done) override;

 private:
  std::string key_of(std::string_view id) const;
  // The reply, or unavailable when Redis did not answer or answered with an error.
  Result<RedisReply> run(std::initializer_list<std::string_view> args) const;

  RedisClient& redis_;
  const std::string prefix_;
  const Clock& clock_;
  const int64_t lifetime_ms_;
  const int64_t max_per_license_;
  mutable RedisOutageLog outage_;
};

}  // namespace licensed
