// The SDK's C++ core: signs and sends the four calls of the contract, retries what is
// transient within a deadline, verifies answers against a pinned Ed25519 key, and keeps
// the last good status answer for offline start-up. The C ABI (c_api.cpp) and
// licensectl are thin layers over this class.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "answer.h"
#include "answer_cache.h"
#include "auth/response_signature.h"
#include "backoff.h"
#include "core/clock.h"
#include "core/mutex.h"
#include "http_transport.h"
#include "machine_id.h"
#include "waiter.h"

namespace licensed::client {

struct ClientConfig {
  std::string url;  // base URL, e.g. "https://licenses.example.com" (a path prefix is kept)
  std::string key_id;
  std::string secret;
  std::string license_key;
  std::string machine_id;  // "" => derived (machine_id.h)
  std::optional<std::string> machine_name;
  // Pinned response key: base64 of the raw 32 bytes, or PEM text. "" => answers are not
  // verified, plain http:// is refused unless to a loopback host, and there is no cache
  // (offline grace needs a key: an unverifiable file would unlock the plugin).
  std::string public_key;
  // The product slug the plugin is; "" => not checked. When set, a status answer about
  // another product is not a "valid" for this plugin (network or cache).
  std::string product;
  std::chrono::milliseconds timeout{10000};  // each call, retries included
  std::chrono::milliseconds startup_budget{1500};
  std::chrono::seconds grace{std::chrono::hours(24 * 7)};
  std::optional<std::filesystem::path> cache_dir;  // nullopt => default_cache_dir()
  std::string host_install_path;                   // "" => current_executable_dir()
  MachineGuidSource guid_source;                   // empty => os_machine_guid_source()
  std::shared_ptr<const Clock> clock;              // null => SystemClock
  std::shared_ptr<Waiter> waiter;                  // null => RealWaiter
  BackoffPolicy backoff;
};

class Client {
 public:
  // The client, or the reason the configuration cannot work (nullptr and `error`).
  static std::unique_ptr<Client> create(ClientConfig config, std::string& error);

  Answer activate();
  // After this client's activate (or heartbeat) succeeded, a 1707 means the slot was
  // freed under the plugin (a stale-machine reclaim, docs/protocol.md §10, or a customer on
  // the dashboard): heartbeat activates again by itself and answers that. A machine this
  // client never activated still gets the 1707.
  Answer heartbeat();
  Answer status();
  Answer deactivate();
  // The plugin's start-up check: status from the network within `startup_budget`;
  // when the network gives no answer, the cached status answer if it verifies and is
  // younger than `grace`. `source` says which.
  Answer check_at_startup();

  const std::string& machine_id() const { return config_.machine_id; }
  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  // Seconds added to the local clock, learned from a 1701's serverTime.
  int64_t clock_offset_seconds() const EXCLUDES(mu_);

 private:
  explicit Client(ClientConfig config);

  std::string body(bool with_name) const;
  // Sends `body` to /api/v1/license/<endpoint> until an answer that is not transient or
  // the budget is spent. `signed_out` receives the last verified 200 answer.
  Answer call(std::string_view endpoint, const std::string& body, std::chrono::milliseconds budget,
              SignedAnswer* signed_out) EXCLUDES(mu_);
  // status(), with the cache kept up to date, within `budget`.
  Answer status_within(std::chrono::milliseconds budget);
  std::optional<Answer> cached_status() const;

  ClientConfig config_;
  std::vector<PinnedResponseKey> pinned_;  // empty: answers are not verified
  std::filesystem::path cache_dir_;
  AnswerCache cache_;
  mutable Mutex mu_;  // one call at a time
  int64_t offset_ GUARDED_BY(mu_) = 0;
  std::atomic<bool> activated_{false};  // this client's machine held a slot when last asked
};

// The headers of a signed request (docs/protocol.md §3.1), Content-Type included.
HeaderList signed_request_headers(std::string_view key_id, std::string_view secret,
                                  std::string_view path, std::string_view timestamp,
                                  std::string_view nonce, std::string_view body);

// The signed time `t` when `a` carries a signature by one of `pinned` over its request
// signature, status and body (plain or batched); nullopt otherwise.
std::optional<int64_t> answer_signed_by(const std::vector<PinnedResponseKey>& pinned,
                                        const SignedAnswer& a);

// True when `a` carries a signature by one of `pinned` bound to "-": a genuine refusal
// of a request as the server received it, not an answer to this client's request.
bool answer_bound_to_dash(const std::vector<PinnedResponseKey>& pinned, const SignedAnswer& a);

// True when `a.request` is a request to `endpoint_path` whose signature under this key
// id and secret is the one `a` is bound to: the cached answer answered this client.
bool request_is_ours(const SignedAnswer& a, std::string_view key_id, std::string_view secret,
                     std::string_view endpoint_path);

// True when a status answer's body is about this license and machine: `licenseKey`
// equals `license_key` (case aside), `machine` is an object with `id` equal to
// `machine_id` and `activated` true, and, when `product` is not "", `product.slug`
// equals it. A signed "valid" about another license or machine (or about none: a status
// asked without machineId) must not unlock this one.
bool status_is_about(const std::string& body, std::string_view license_key,
                     std::string_view machine_id, std::string_view product);

// The Answer an HTTP answer (status and body) stands for, on its own: no retry logic.
// `status_endpoint` makes a 200 with valid:false "not usable".
Answer classify_answer(int http_status, const std::string& body, bool status_endpoint);

}  // namespace licensed::client
