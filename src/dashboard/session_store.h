// The customer dashboard's sign-in sessions: a random 256-bit id (the cookie) names the
// license key it was opened for and a CSRF token every change must carry. Sessions end
// at a fixed time after sign-in, or at sign-out. Two kinds: in this process's memory
// (MemorySessionStore, one instance) and in Redis (RedisSessionStore, every instance of a
// deployment that shares a Redis sees every session).
//
// Also the one-time sign-in links of a 1705's dashboardUrl (docs/dashboard.md, "From a
// refusal to the dashboard"): a random 256-bit token naming the license and the machine
// that was refused, alive kSignInLinkMs, taken (and gone) by its first use.
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

// What a sign-in link opens: a session for `license_key`, and the machine whose
// activation was refused (shown and pointed at on the page).
struct SignInLink {
  std::string license_key;
  std::string machine_id;
  std::string machine_name;  // empty: none was given
};

// How long a sign-in link can be used: long enough to open an email or switch from the
// plugin to the browser, short enough that a link found later in a log opens nothing.
inline constexpr int64_t kSignInLinkMs = 10 * 60'000;

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
  // A new sign-in link's token (never logged), alive kSignInLinkMs.
  virtual Result<std::string> open_link(const SignInLink& link) = 0;
  // The link of that token, which no later call finds again (of two at once, one gets
  // it); nullopt when there is none, it was used, or it has ended.
  virtual Result<std::optional<SignInLink>> take_link(std::string_view token) = 0;

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
  virtual void open_link_async(const SignInLink& link, Completion<Result<std::string>> done) {
    done(open_link(link));
  }
  virtual void take_link_async(std::string_view token,
                               Completion<Result<std::optional<SignInLink>>> done) {
    done(take_link(token));
  }
  // NOLINTEND(performance-unnecessary-value-param)
};

// A fresh session's id and CSRF token, 256 random bits each in base64url; nullopt when
// the CSPRNG fails.
std::optional<NewDashboardSession> new_session_tokens();
// A sign-in link's token: 256 random bits in base64url (the shape of a session id);
// nullopt when the CSPRNG fails.
std::optional<std::string> new_link_token();
// `dashboard_url` with the link's token as its fragment, "#signin=<token>": a fragment is
// never sent to a server (nor in a Referer), so the token stays out of request lines and
// access logs; the page takes it out of the address before anything else.
std::string with_sign_in_link(std::string_view dashboard_url, std::string_view token);
// Whether `dashboard_url` names this server's dashboard page (its path is `/dashboard`, or
// ends in `/dashboard` behind a proxy's prefix): only there can a sign-in link be used, so
// only there is one added. Any other page (a vendor's own account page) gets the URL as
// configured: a credential is never handed to a page that cannot take it.
bool is_dashboard_page_url(std::string_view dashboard_url);
// What logs call a link: the first 16 hex digits of its token's SHA-256 (the token itself
// is a credential until used).
std::string sign_in_link_id(std::string_view token);
// Whether `id` has the shape new_session_tokens() gives ids (43 characters of base64url).
bool is_session_id(std::string_view id);

// A request's CSRF token against its session's, in constant time.
bool csrf_token_matches(const DashboardSession& session, std::string_view presented);

}  // namespace licensed
