// The SDK's C++ core: signs and sends the four calls of the contract, retries what is
// transient within a deadline, verifies answers against a pinned key (Ed25519, or P-256
// for ES256 answers, which it then asks for), and keeps
// the last good answer for offline start-up. The C ABI (c_api.cpp) and licensectl are
// thin layers over this class.
//
// Threads: every call may run on any thread, at the same time as the others; no lock is
// held across a network exchange (each runs on a thread of its own, see
// bounded_exchange). Every call takes a std::stop_token: a stop request makes it return
// at once, "cancelled".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
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
#include "platform/user_dirs.h"
#include "waiter.h"

namespace licensed::client {

struct ClientConfig {
  std::string url;  // base URL, e.g. "https://licenses.example.com" (a path prefix is kept)
  std::string key_id;
  std::string secret;
  std::string license_key;
  std::string machine_id;  // "" => derived (machine_id.h)
  std::optional<std::string> machine_name;
  // Pinned response key: base64 of Ed25519's raw 32 bytes or of P-256's 65-byte
  // uncompressed point, or PEM "PUBLIC KEY" text of either. With a P-256 key every request
  // asks for ES256 answers (X-License-Accept-Signature: es256). "" => answers are not
  // verified, plain http:// is refused unless to a loopback host, and there is no cache
  // (offline grace needs a key: an unverifiable file would unlock the plugin).
  std::string public_key;
  // The product slug the plugin is; "" => not checked. When set, a status answer about
  // another product is not a "valid" for this plugin (network or cache).
  std::string product;
  std::chrono::milliseconds timeout{10000};  // each call, retries included
  std::chrono::milliseconds startup_budget{1500};
  std::chrono::seconds grace{std::chrono::hours(24 * 7)};
  // The vendor's name: the salt of the derived machine id and the cache folder's name
  // (is_valid_vendor). "" => the key id salts the id and the folder is "licensed-client".
  std::string vendor;
  std::optional<std::filesystem::path> cache_dir;  // nullopt => default_cache_dir(folder)
  // Where activation files are installed and read (docs/protocol.md §21.8): nullopt => the
  // machine-wide directories of the folder (platform/user_dirs.h, machine_file_dirs).
  std::optional<std::filesystem::path> offline_dir;
  MachineGuidSource guid_source;       // empty => os_machine_guid_source()
  std::shared_ptr<const Clock> clock;  // null => SystemClock
  std::shared_ptr<Waiter> waiter;      // null => RealWaiter
  BackoffPolicy backoff;
  // After a start-up check found no answer, how long this process answers the next
  // checks with that failure at once instead of waiting on the network again.
  std::chrono::milliseconds retry_after_failure{std::chrono::seconds(30)};
  // How long this process reuses the server's answer before a check asks again (in the
  // background: the check still answers at once).
  std::chrono::milliseconds refresh_after{std::chrono::hours(1)};
  // For tests: HttpRequestSpec::resolver_start, for every request.
  std::function<void()> resolver_start;
  // For tests: called with the endpoint when its answer arrived, before it is kept.
  std::function<void(std::string_view endpoint)> answer_arrived;
};

class Client : public std::enable_shared_from_this<Client> {
 public:
  // A client of its own (a new process, as far as the start-up check is concerned), or
  // the reason the configuration cannot work (nullptr and `error`).
  static std::shared_ptr<Client> create(ClientConfig config, std::string& error);
  // The client this process shares among every caller with the same configuration, so
  // that all the plugin instances of a process make one start-up check. When the last
  // holder lets it go, its background check is stopped.
  static std::shared_ptr<Client> shared(ClientConfig config, std::string& error);

  Answer activate(std::stop_token stop = {});
  // After this client's activate (or heartbeat) succeeded, a 1707 means the slot was
  // freed under the plugin (a stale-machine reclaim, docs/protocol.md §10, or a customer on
  // the dashboard): heartbeat activates again by itself and answers that. A machine this
  // client never activated still gets the 1707.
  Answer heartbeat(std::stop_token stop = {});
  Answer status(std::stop_token stop = {});
  Answer deactivate(std::stop_token stop = {});
  // Concurrent seats (docs/protocol.md §27): takes or renews the lease of this machine and
  // `session_id` ("" => the machine id: one seat per machine); with `borrow_for` (a
  // DURATION such as "3d") the answer's body carries the signed leaseFile. 1710 (every
  // seat taken) is kLimitReached with retry_after_seconds until the earliest lease ends.
  // With `borrow_for`, a 200's leaseFile is also verified and installed (install_lease_file)
  // and its text is in the answer's `file_text`; a file that cannot be installed leaves the
  // answer a success with the reason in `warning`.
  Answer checkout(const std::string& session_id, const std::string& borrow_for = "",
                  std::stop_token stop = {});
  // Gives the lease back (`released` in the body says whether one was held). When the
  // installed lease file was borrowed under this session, it is deleted FIRST, whatever the
  // server then answers: the seat is given back on this computer at once.
  Answer checkin(const std::string& session_id, std::stop_token stop = {});
  // Starts this machine's trial of the configured product (docs/protocol.md §20), or finds
  // the one it already had: the answer carries `trial`, `license_key` (keep it: it is the
  // key to configure from then on) and `days_left`. Needs `product`; the license key may
  // be empty for a client made only for this.
  Answer start_trial(std::stop_token stop = {});
  // The plugin's start-up check, cache first (docs/protocol.md §15):
  // 1. the server's answer this process already has (another instance's check);
  // 2. else a cached signed answer still good (validUntil, expiresAt, grace), at once,
  //    with a status request sent in the background to refresh it;
  // 3. else the status request, one per process, waited for at most `startup_budget`;
  //    after a wait that ran out, or a failure, later checks answer at once for
  //    `retry_after_failure`. `source` says where the answer came from.
  // 4. with no answer from 1-3, a cached signed answer whose license `expiresAt` has
  //    passed answers kNotUsable, license status EXPIRED, source cache (never usable).
  // Before 2, a valid installed activation file (source offline), then a valid installed
  // lease file of a borrowed seat (source lease), answer with no network and start none:
  // the machine is offline on purpose, and the file holds until its expiresAt whatever
  // the server would say (docs/protocol.md §21.8, §27).
  Answer check_at_startup(std::stop_token stop = {});
  // What the process and the cache know, without any network and without waiting: for
  // a plugin's constructor and a host's plugin scan. An answer nobody has yet is
  // NO_ANSWER_YET (unavailable); a cached answer past the license's expiry, EXPIRED.
  Answer check_cached();

  // Offline activation (docs/protocol.md §21; offline_activation.cpp). None touches the network.
  // The armoured request file for this license and machine (`file_text`), signed now.
  Answer write_offline_request();
  // Verifies an activation file (armoured text, as pasted) against the pinned key, this
  // machine, license and product and the clock, and installs it in the machine-wide
  // directory, replacing this license's previous one. kNotUsable with the reason when it
  // is not valid here; kUsage without a pinned key.
  Answer install_activation_file(std::string_view text);
  Answer install_activation_file_from(const std::filesystem::path& path);
  // Deletes the installed activation file FIRST, then writes the deactivation file that
  // names it (`file_text`): a copy kept by accident cannot be used with the slot freed.
  Answer write_offline_deactivation();
  // The installed activation file's answer when it is valid now (source offline), else
  // nullopt (no file, no pinned key, or a file that is not valid here).
  std::optional<Answer> offline_answer() const;
  // Sends a request or deactivation file (armoured text, told apart by its label) to
  // offline-activate or offline-deactivate from a machine that is online (licensectl
  // offline submit). A 200 of offline-activate carries `activationFile`: it is in the
  // answer's `file_text`. kUsage for text that is neither kind of file.
  Answer submit_offline_file(std::string_view armoured, std::stop_token stop = {});
  // Where this license's activation file is (when installed) or would be installed.
  std::filesystem::path activation_file_path() const;

  // Borrowed seats (docs/protocol.md §27; borrowed_lease.cpp). None touches the network.
  // Verifies a LICENSE LEASE file (armoured text, as a borrowing checkout answered it)
  // against the pinned key (its own prefix v1-lease-file), this machine, license and
  // product and the clock, and installs it beside the activation files (the machine-wide
  // directory, offline_dirs), replacing this license's previous one. kNotUsable with the
  // reason when it is not valid here; kUsage without a pinned key.
  Answer install_lease_file(std::string_view text);
  Answer install_lease_file_from(const std::filesystem::path& path);
  // The installed lease file's answer when it is valid now (source lease, valid_until its
  // expiresAt), else nullopt (no file, no pinned key, or a file not valid here: edited,
  // another machine's, expired, the clock set back).
  std::optional<Answer> lease_answer() const;
  // Where this license's lease file is (when installed) or would be installed.
  std::filesystem::path lease_file_path() const;

  // Waits until no start-up check of this client is on the network (for tests and an
  // orderly shutdown); true when none is.
  bool wait_for_background(std::chrono::milliseconds timeout);
  // Asks a start-up check on the network to stop (it then changes nothing).
  void stop_background();

  const std::string& machine_id() const { return config_.machine_id; }
  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  // Seconds added to the local clock, learned from a 1701's serverTime.
  int64_t clock_offset_seconds() const EXCLUDES(mu_);
  // What identifies the configuration in the process's registry of shared clients.
  std::string identity() const;

 private:
  explicit Client(ClientConfig config);

  std::string body(bool with_name) const;
  std::string seat_body(const std::string& session_id, const std::string& borrow_for) const;
  // Sends `body` to /api/v1/license/<endpoint> until an answer that is not transient or
  // the budget is spent. `signed_out` receives the last verified 200 answer.
  Answer call(std::string_view endpoint, const std::string& body, std::chrono::milliseconds budget,
              SignedAnswer* signed_out, std::stop_token stop) EXCLUDES(mu_);
  // One exchange of call(): the request signed now, sent within `remaining`.
  struct Exchange;
  Exchange exchange(const std::string& path, const std::string& body,
                    std::chrono::milliseconds remaining, std::stop_token stop) const EXCLUDES(mu_);
  // status(), with the cache kept up to date, within `budget`.
  Answer status_within(std::chrono::milliseconds budget, std::stop_token stop);
  // What a verified answer of `endpoint` (bound to our request) does to the cache: a yes
  // about this machine is stored, a no (valid:false, 1703, 1704) drops it. Also tells
  // the answer how long it stays good.
  // `asked_at` is machine_changes_ when the request was sent: a status answer older than
  // this process's last activation or deactivation is not kept (it would bring back an
  // answer the deactivation removed).
  void keep_or_drop(std::string_view endpoint, Answer& a, const SignedAnswer& signed_answer,
                    uint64_t asked_at) EXCLUDES(cache_mu_);
  uint64_t machine_changes() const EXCLUDES(cache_mu_);
  // True when a 200 of `endpoint` (status or activate) says this machine may use the
  // license: status_is_about or activation_is_about with this client's configuration.
  bool answer_allows_use(std::string_view endpoint, const std::string& body) const;
  // The kept answer, verified again (signature, our request, this license and machine,
  // the clock rules of docs/protocol.md §15), whatever its validUntil says.
  struct VerifiedCacheEntry {
    SignedAnswer entry;
    int64_t signed_at = 0;
    bool status = false;  // a status answer (else an activate answer)
  };
  std::optional<VerifiedCacheEntry> verified_cache_entry() const;
  // The kept answer, verified again, while it is still good (docs/protocol.md §15).
  std::optional<Answer> cached_answer() const;
  // The kept answer, verified again, when the license's `expiresAt` it names has passed
  // (by trusted_now()): a known "expired" (kNotUsable, license status EXPIRED, source
  // cache, no valid_until), for a check that has no other answer. nullopt otherwise.
  std::optional<Answer> cached_expiry() const;
  // Replaces "no answer" (kUnavailable, not a cancellation) by cached_expiry() when
  // there is one: the start-up check offline says "expired", not "not confirmed".
  void or_known_expiry(Answer& a) const;
  // The installed activation file's text and path, whichever directory holds it.
  std::optional<std::pair<std::string, std::filesystem::path>> installed_activation_file() const;
  std::vector<std::filesystem::path> offline_dirs() const;
  // An installed file of this license named `name` (an activation or lease file), whichever
  // offline directory holds it; nullopt without a license key or file (installed_files.cpp).
  std::optional<std::pair<std::string, std::filesystem::path>> installed_file(
      const std::string& name) const;
  // Where that file is, or would be installed.
  std::filesystem::path installed_file_path(const std::string& name) const;
  // Writes a verified file's `text` as `name` into the first offline directory that takes
  // it and makes the next start-up check read it; false when none did (cannot_install).
  bool install_verified_file(const std::string& name, std::string_view text, int64_t now);
  Answer cannot_install(std::string_view what) const;
  // The installed lease file's text and path, whichever directory holds it.
  std::optional<std::pair<std::string, std::filesystem::path>> installed_lease_file() const;
  // Deletes the installed lease file when it was borrowed under `session_id` ("" => the
  // machine id); true when one was deleted.
  // nullopt: whatever its session (the machine itself was deactivated).
  bool remove_lease_file_of(const std::optional<std::string>& session_id);
  // A borrowing checkout's 200: its leaseFile into `file_text`, installed (or `warning`).
  void install_borrowed_lease(Answer& a);
  // The latest of the local clock and every time this client has seen (§15).
  int64_t trusted_now() const;

  // The start-up check's shared state (guarded by mu_).
  std::optional<Answer> known_answer(bool may_refresh) EXCLUDES(mu_);
  Answer wait_for_network_check(const std::stop_token& stop) EXCLUDES(mu_);
  bool network_check_due_locked() const REQUIRES(mu_);
  void start_network_check_locked() REQUIRES(mu_);
  void run_network_check(const std::stop_token& stop, uint64_t epoch) EXCLUDES(mu_);
  // After this process activated or deactivated the machine: the process's last
  // answer no longer holds, so the next check reads the cache (or asks) again.
  void forget_startup_answer() EXCLUDES(mu_);

  ClientConfig config_;
  std::vector<PinnedResponseKey> pinned_;  // empty: answers are not verified
  std::filesystem::path cache_dir_;
  AnswerCache cache_;
  // Orders the cache's writes against activations and deactivations; held for file I/O
  // only, never across the network, and never taken by a reader.
  mutable Mutex cache_mu_;
  uint64_t machine_changes_ GUARDED_BY(cache_mu_) = 0;  // activations + deactivations done
  mutable Mutex mu_;  // guards offset_ and startup_; never held across the network
  int64_t offset_ GUARDED_BY(mu_) = 0;
  std::atomic<bool> activated_{false};  // this client's machine held a slot when last asked

  struct Startup {
    std::optional<Answer> network;  // the last start-up status request's answer
    SteadyTime network_at{};
    bool running = false;     // a status request is on the network
    uint64_t finished = 0;    // how many have finished: a waiter sees its own end
    bool waited_out = false;  // a caller waited its whole budget for the running one
    // Bumped when this process changes the machine's state (activate, deactivate): a
    // check that began before keeps its answer to itself.
    uint64_t epoch = 0;
  } startup_ GUARDED_BY(mu_);
  std::condition_variable_any startup_cv_;  // waited on with mu_ held (MutexLock)
  std::stop_source background_stop_;
};

// The headers of a signed request (docs/protocol.md §3.1), Content-Type included.
HeaderList signed_request_headers(std::string_view key_id, std::string_view secret,
                                  std::string_view path, std::string_view timestamp,
                                  std::string_view nonce, std::string_view body);

// The X-License-Accept-Signature value a client pinning `pinned` sends: "es256" when it
// pins a P-256 key; nullopt (no header: Ed25519 answers) otherwise (docs/protocol.md §13.4).
std::optional<std::string> accept_signature_for(const std::vector<PinnedResponseKey>& pinned);

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

// The same for an activate answer (kept so that activating at the studio is enough to
// start offline at the gig): this license, `machine.id` this machine, effective status
// ACTIVE, and the product when one is configured.
bool activation_is_about(const std::string& body, std::string_view license_key,
                         std::string_view machine_id, std::string_view product);

}  // namespace licensed::client
