// What an SDK call tells its caller: one outcome out of the few a plugin reacts to
// differently (docs/protocol.md §16's exit statuses are the same partition), the server's
// answer where there was one, and where it came from (network or cache).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed::client {

// One of an answer's entitlements (docs/protocol.md §20), as the server signed it.
struct EntitlementInfo {
  std::string code;
  std::optional<int64_t> expires_at;  // Unix seconds; nullopt: never expires
  bool active = false;                // as the server judged it when it answered
  std::optional<std::string> value;   // the value as JSON text ("64", "\"eu\"", "true")
};

// The numbers are licensectl's exit statuses (docs/protocol.md §16) and the C ABI's codes.
enum class Outcome : int {
  kOk = 0,            // 200 (for status: the license is valid for this machine)
  kUsage = 2,         // the SDK was configured wrongly (no URL, no key, ...)
  kNotUsable = 3,     // 1703, 1704, 1707, or status answering valid:false
  kLimitReached = 4,  // 1705: activations, max and dashboardUrl say how to free a slot
  kUnavailable = 5,   // gave up on 1706, 1708, 1709 or the network within the timeout
  kRefused = 6,       // 1700, 1701 after its one resend, 1702, any other 4xx
};

// The numbers are the C ABI's lc_source. kOffline: an installed activation file (docs/protocol.md
// §21.8); kLease: an installed lease file of a borrowed seat (docs/protocol.md §27,
// borrowed_lease.cpp).
enum class Source { kNone = 0, kNetwork = 1, kCache = 2, kOffline = 3, kLease = 4 };

struct Answer {
  Outcome outcome = Outcome::kUnavailable;
  Source source = Source::kNone;
  int http_status = 0;         // of the last answer received; 0 when none was
  int code = 0;                // the API error code, 0 on success or without a body
  std::string error;           // the API error name, or what went wrong below HTTP
  std::string message;         // for the plugin's user (explain()); the SDK's words
  std::string server_message;  // the server's `message`, as it sent it
  std::string body;            // the server's JSON exactly as received ("" without one)
  // From the body where present: activate/heartbeat/status/deactivate and 1705.
  std::optional<int64_t> activations;
  std::optional<int64_t> max;
  std::optional<std::string> dashboard_url;   // 1705; nullopt for null
  std::optional<std::string> license_status;  // 200 answers and 1704
  bool valid = false;                         // status answers
  int attempts = 0;                           // requests sent for this call
  int64_t retry_after_seconds = 0;            // of the last 429/503
  // Signed by the pinned key but bound to "-" (docs/protocol.md §13.6): the server refused the
  // request as it arrived (wrongly signed or malformed: a configuration error, or a garbled copy
  // sent by someone on the path). Its code is reported, but it says nothing about the license: the
  // cache neither takes nor loses anything by it.
  bool bound_to_dash = false;
  // For an answer signed by the pinned key: its signed time, and the Unix second until
  // which it may serve the start-up check offline (offline_until); nullopt otherwise.
  std::optional<int64_t> signed_at;
  std::optional<int64_t> valid_until;
  // From a 200 answer: the license's entitlements, sorted by code; its key (the answers
  // name what they answer); and, for a trial (start_trial), `trial` and the whole days
  // left before its expiresAt (0 once it is over).
  std::vector<EntitlementInfo> entitlements;
  std::string license_key;
  bool trial = false;
  std::optional<int64_t> expires_at;  // Unix seconds
  std::optional<int64_t> days_left;
  // Offline activation (docs/protocol.md §21): the armoured text of a request or deactivation file
  // the call wrote (or of the lease file a borrowing checkout answered), and, for an answer from
  // an activation file, a warning from 14 days before the file's end (from a lease file, from 24 h
  // before its end; for a borrowing checkout, why its lease file was not installed; "" otherwise).
  std::string file_text;
  std::string warning;

  bool ok() const { return outcome == Outcome::kOk; }
  // True when the answer lists `code` as active.
  bool has_entitlement(std::string_view code) const;
  // "Updates until": true when the answer lists `code` and its expiresAt is null or not
  // before `build_date` (Unix seconds, the plugin's compiled-in release date), active
  // or not: a build released before the expiry keeps the feature.
  bool allowed_for_build(std::string_view code, int64_t build_date) const;
};

const char* outcome_name(Outcome o);
// "none", "network", "cache", "offline", "lease": the names of docs/protocol.md §15.
const char* source_name(Source s);

// The Answer an HTTP answer (status and body) stands for, on its own: no retry logic.
// `status_endpoint` makes a 200 with valid:false "not usable".
Answer classify_answer(int http_status, const std::string& body, bool status_endpoint);

// True for the answers that mean "try again later": no answer, 500, 502, 503, 504 (a
// proxy that could not reach the server is not a refusal).
bool is_transient_status(int http_status);

// The Unix second from which a signed answer no longer serves offline (docs/protocol.md
// §15, §20): its `validUntil` when the body has that
// member (null: not at all), else its signed time `signed_at` plus `grace`; never past
// the license's `expiresAt`. nullopt: not at all, or a timestamp that does not parse.
std::optional<int64_t> offline_until(const std::string& body, int64_t signed_at,
                                     std::chrono::seconds grace);

// Sets `a.message` to what a plugin can show its user for a non-success ("this computer
// is not activated: activate it"), and `a.error` where it was empty. A success is left
// as it is.
void explain(Answer& a);

}  // namespace licensed::client
