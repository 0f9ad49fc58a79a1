#include "license_client.h"

#include <boost/json.hpp>
#include <limits>

#include "auth/crypto_primitives.h"
#include "auth/request_signature.h"
#include "core/text.h"
#include "detached_thread.h"
#include "http_transport.h"
#include "json_members.h"

namespace licensed::client {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

constexpr std::string_view kApiPrefix = "/api/v1/license/";

// 128 random bits, as the contract asks; nullopt when the system's generator failed (a
// predictable nonce is never sent).
std::optional<std::string> fresh_nonce() {
  uint8_t bytes[16] = {0};
  if (!crypto::random_bytes(bytes, sizeof(bytes))) return std::nullopt;
  return to_hex(bytes, sizeof(bytes));
}

// The backoff's jitter: any fraction will do when the generator fails.
double random_unit() {
  uint32_t r = 0;
  crypto::random_bytes(reinterpret_cast<uint8_t*>(&r), sizeof(r));
  return static_cast<double>(r) / (static_cast<double>(std::numeric_limits<uint32_t>::max()) + 1);
}

std::optional<int64_t> retry_after_of(const std::optional<std::string>& header) {
  if (!header || header->empty() || header->size() > 9) return std::nullopt;
  int64_t n = 0;
  for (const char c : *header) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

Answer transport_failure(const std::string& why) {
  Answer a;
  a.outcome = Outcome::kUnavailable;
  a.error = "NETWORK";
  a.message = "the license server could not be reached (" + why + ")";
  return a;
}

Answer cancelled() {
  Answer a;
  a.outcome = Outcome::kUnavailable;
  a.error = "CANCELLED";
  a.message = "the call was cancelled";
  return a;
}

// A cached answer signed further ahead of the local clock than this is refused (docs/protocol.md
// §15): a clock set back to replay an old answer must not go unnoticed.
constexpr int64_t kFutureSkewSeconds = 24 * 60 * 60;

// The 64 lowercase hex digits of the request's "v1=<hex>" signature header: what an
// answer to it is bound to.
std::string bound_signature_of(const HeaderList& headers) {
  for (const auto& [name, value] : headers) {
    if (name != "X-License-Signature") continue;
    std::string hex = value.substr(value.find('=') + 1);
    for (char& c : hex) c = to_lower_ascii(c);
    return hex;
  }
  return {};
}

}  // namespace

namespace {

// The members both kinds of kept answer must have: this license, this machine (its id in
// `machine`), and the configured product.
bool names_this(const json::object& o, std::string_view license_key, std::string_view machine_id,
                std::string_view product, const json::object*& machine) {
  const auto named_key = string_member(o, "licenseKey");
  if (!named_key || !iequals(*named_key, license_key)) return false;
  const json::value* m = o.if_contains("machine");
  if (m == nullptr || !m->is_object() || string_member(m->as_object(), "id") != machine_id) {
    return false;
  }
  machine = &m->as_object();
  if (product.empty()) return true;
  const json::value* p = o.if_contains("product");
  return p != nullptr && p->is_object() && string_member(p->as_object(), "slug") == product;
}

}  // namespace

bool status_is_about(const std::string& body, std::string_view license_key,
                     std::string_view machine_id, std::string_view product) {
  json::error_code ec;
  const json::value v = json::parse(body, ec);
  const json::object* machine = nullptr;
  if (ec || !v.is_object() ||
      !names_this(v.as_object(), license_key, machine_id, product, machine)) {
    return false;
  }
  const json::value* activated = machine->if_contains("activated");
  return activated != nullptr && activated->is_bool() && activated->as_bool();
}

bool activation_is_about(const std::string& body, std::string_view license_key,
                         std::string_view machine_id, std::string_view product) {
  json::error_code ec;
  const json::value v = json::parse(body, ec);
  const json::object* machine = nullptr;
  return !ec && v.is_object() &&
         names_this(v.as_object(), license_key, machine_id, product, machine) &&
         string_member(v.as_object(), "status") == "ACTIVE";
}

std::shared_ptr<Client> Client::create(ClientConfig config, std::string& error) {
  prepare_process();  // before any use of the crypto library or the HTTP stack
  init_http_once();
  if (config.url.empty())
    error = "no server URL";
  else if (config.key_id.empty())
    error = "no signing key id";
  else if (config.secret.empty())
    error = "no signing secret";
  else if (config.license_key.empty() && config.product.empty())
    error = "no license key (or, for a trial, no product)";
  else if (config.timeout.count() <= 0)
    error = "the timeout must be positive";
  else if (config.public_key.empty() && is_plain_http_to_remote_host(config.url))
    error = "http:// to a host other than this machine needs a pinned public key (use https://)";
  if (!error.empty()) return nullptr;
  if (!config.vendor.empty() && !is_valid_vendor(config.vendor)) {
    error = "the vendor name must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-'";
    return nullptr;
  }
  if (config.machine_id.empty()) {
    const auto derived =
        machine_id_from(config.guid_source ? config.guid_source : os_machine_guid_source(),
                        config.vendor.empty() ? config.key_id : config.vendor);
    if (!derived) {
      error = "no machine id given and the OS has no machine GUID to derive one from";
      return nullptr;
    }
    config.machine_id = *derived;
  }
  std::vector<PinnedResponseKey> pinned;
  if (!config.public_key.empty()) {
    auto key = parse_pinned_response_key(config.public_key);
    if (!key) {
      error =
          "the pinned public key (public_key) cannot be read: it is neither an Ed25519 key "
          "(base64 of 32 bytes) nor a P-256 key (base64 of the 65-byte uncompressed point), "
          "nor a PEM public key of either";
      return nullptr;
    }
    if (key->algorithm == ResponseAlgorithm::kEd25519 && !crypto::ed25519_available()) {
      // Windows's CNG has no Ed25519 (docs/sdk-windows.md): every answer would fail.
      error =
          "the pinned public key (public_key) is an Ed25519 key, which this system's crypto "
          "library cannot verify: pin the server's ES256 key instead (alg \"ES256\" in "
          "/api/v1/license/public-keys)";
      return nullptr;
    }
    pinned.push_back(std::move(*key));
  }
  // The defaults are one per process, so that clients of equal options are equal
  // (Client::identity), and never destroyed (a detached thread may outlive exit).
  static const auto* system_clock =
      new std::shared_ptr<const Clock>(std::make_shared<SystemClock>());
  static const auto* real_waiter = new std::shared_ptr<Waiter>(std::make_shared<RealWaiter>());
  if (!config.clock) config.clock = *system_clock;
  if (!config.waiter) config.waiter = *real_waiter;
  while (!config.url.empty() && config.url.back() == '/') config.url.pop_back();
  std::shared_ptr<Client> client(new Client(std::move(config)));
  client->pinned_ = std::move(pinned);
  return client;
}

Client::Client(ClientConfig config)
    : config_(std::move(config)),
      cache_dir_(config_.cache_dir ? *config_.cache_dir
                                   : default_cache_dir(config_.vendor.empty() ? "licensed-client"
                                                                              : config_.vendor)),
      cache_(cache_dir_) {}

int64_t Client::clock_offset_seconds() const {
  MutexLock lock(mu_);
  return offset_;
}

std::string Client::body(bool with_name) const {
  json::object o;
  o["licenseKey"] = config_.license_key;
  o["machineId"] = config_.machine_id;
  if (with_name && config_.machine_name) o["machineName"] = *config_.machine_name;
  return json::serialize(o);
}

HeaderList signed_request_headers(std::string_view key_id, std::string_view secret,
                                  std::string_view path, std::string_view timestamp,
                                  std::string_view nonce, std::string_view body) {
  const std::string body_hash = sha256_hex(body);
  std::string signature = sign_request(secret, {"POST", path, key_id, timestamp, nonce, body_hash});
  return {{"Content-Type", "application/json"},
          {"X-License-Key-Id", std::string(key_id)},
          {"X-License-Timestamp", std::string(timestamp)},
          {"X-License-Nonce", std::string(nonce)},
          {"X-License-Signature", std::move(signature)}};
}

std::optional<std::string> accept_signature_for(const std::vector<PinnedResponseKey>& pinned) {
  for (const PinnedResponseKey& key : pinned) {
    if (key.algorithm == ResponseAlgorithm::kEs256)
      return std::string(algorithm_token(key.algorithm));
  }
  return std::nullopt;
}

std::optional<int64_t> answer_signed_by(const std::vector<PinnedResponseKey>& pinned,
                                        const SignedAnswer& a) {
  if (!a.signature || a.request_signature.size() != 64) return std::nullopt;
  return verify_response_signature(pinned, *a.signature, a.request_signature,
                                   static_cast<unsigned>(a.status), a.body);
}

bool answer_bound_to_dash(const std::vector<PinnedResponseKey>& pinned, const SignedAnswer& a) {
  return a.signature && verify_response_signature(pinned, *a.signature, std::nullopt,
                                                  static_cast<unsigned>(a.status), a.body);
}

bool request_is_ours(const SignedAnswer& a, std::string_view key_id, std::string_view secret,
                     std::string_view endpoint_path) {
  if (a.request.path != endpoint_path) return false;
  const std::string signature =
      sign_request(secret, {"POST", a.request.path, key_id, a.request.timestamp, a.request.nonce,
                            sha256_hex(a.request.body)});
  return signature == "v1=" + a.request_signature;
}

struct Client::Exchange {
  SignedAnswer signed_answer;
  HttpReply reply;
};

Client::Exchange Client::exchange(const std::string& path, const std::string& body,
                                  milliseconds remaining, std::stop_token stop) const {
  int64_t offset = 0;
  {
    MutexLock lock(mu_);
    offset = offset_;
  }
  const std::string timestamp = std::to_string(config_.clock->now_seconds() + offset);
  const auto fresh = fresh_nonce();
  if (!fresh) {
    Exchange none;
    none.reply.error = "the system's random number generator failed (no nonce to sign with)";
    return none;
  }
  const std::string& nonce = *fresh;
  HeaderList headers =
      signed_request_headers(config_.key_id, config_.secret, path, timestamp, nonce, body);
  std::string request_signature = bound_signature_of(headers);
  if (auto accept = accept_signature_for(pinned_)) {
    headers.emplace_back(std::string(kAcceptSignatureHeader), std::move(*accept));
  }
  HttpReply reply = bounded_exchange(
      {config_.url + path, std::move(headers), body, std::move(stop), config_.resolver_start},
      remaining);
  SignedAnswer signed_answer{std::move(request_signature),
                             {path, timestamp, nonce, body},
                             reply.status,
                             reply.body,
                             reply.response_signature};
  return {std::move(signed_answer), std::move(reply)};
}

namespace {

// What the pinned key says of an answer (docs/protocol.md §13.6).
enum class Verdict {
  kOurs,         // signed over this request (or no key is pinned)
  kBoundToDash,  // a genuine refusal of the request as it arrived
  kOtherKey,     // a well-formed signature by a key that is not pinned: misconfiguration
  kUnsigned,     // unsigned, wrongly signed, or bound to another request
};

Verdict verdict_of(const std::vector<PinnedResponseKey>& pinned, const SignedAnswer& a) {
  if (pinned.empty() || answer_signed_by(pinned, a)) return Verdict::kOurs;
  if (answer_bound_to_dash(pinned, a)) return Verdict::kBoundToDash;
  const auto parsed = a.signature ? parse_response_signature(*a.signature) : std::nullopt;
  if (!parsed) return Verdict::kUnsigned;
  for (const auto& key : pinned) {
    if (key.kid == parsed->kid) return Verdict::kUnsigned;
  }
  return Verdict::kOtherKey;
}

Answer other_key(const std::string& header) {
  Answer a;
  a.outcome = Outcome::kUnavailable;
  a.error = "PINNED_KEY_MISMATCH";
  const auto parsed = parse_response_signature(header);
  a.message = "the license server signs its answers with key " + (parsed ? parsed->kid : "?") +
              ", which is not the plugin's pinned public key: the plugin was built or "
              "configured with the wrong public_key";
  return a;
}

// The serverTime of a 1701's body: the clock to resend with.
std::optional<int64_t> server_time_of(const std::string& body) {
  json::error_code ec;
  const json::value v = json::parse(body, ec);
  const json::value* t = !ec && v.is_object() ? v.as_object().if_contains("serverTime") : nullptr;
  return t != nullptr && t->is_int64() ? std::optional<int64_t>(t->as_int64()) : std::nullopt;
}

}  // namespace

Answer Client::call(std::string_view endpoint, const std::string& body, milliseconds budget,
                    SignedAnswer* signed_out, std::stop_token caller_stop) {
  // Stopped by the caller or by the process exiting: every wait below wakes on either.
  std::stop_source stopper;
  const std::stop_callback by_caller(std::move(caller_stop),
                                     [&stopper] { stopper.request_stop(); });
  const std::stop_callback by_exit(process_exit_token(), [&stopper] { stopper.request_stop(); });
  const std::stop_token stop = stopper.get_token();
  Waiter& waiter = *config_.waiter;
  const SteadyTime deadline = waiter.now() + budget;
  const std::string path = std::string(kApiPrefix) + std::string(endpoint);
  const bool status_endpoint = endpoint == "status";
  bool resent_stale = false;
  int retry = 0;
  int attempts = 0;
  Answer last;
  // The last answer the server gave that left the question open (a transient status, or one
  // the pinned key did not sign for this request): it says more than a later retry's timeout.
  std::optional<Answer> last_from_server;
  const auto finish = [&](Answer a) {
    a.attempts = attempts;
    return a;
  };
  for (;;) {
    if (stop.stop_requested()) return finish(cancelled());
    const auto remaining = std::chrono::duration_cast<milliseconds>(deadline - waiter.now());
    if (remaining.count() <= 0) break;
    ++attempts;
    const Exchange x = exchange(path, body, remaining, stop);
    if (stop.stop_requested()) return finish(cancelled());
    const Verdict verdict =
        x.reply.status == 0 ? Verdict::kOurs : verdict_of(pinned_, x.signed_answer);
    if (x.reply.status == 0) {
      last = transport_failure(x.reply.error);
    } else if (verdict == Verdict::kOtherKey) {
      // Asking again gets the same key: say what is wrong at once (still "unavailable":
      // docs/protocol.md §13.6 keeps an unverified answer a transient failure).
      last = other_key(*x.reply.response_signature);
      last.http_status = x.reply.status;
      return finish(last);
    } else if (verdict == Verdict::kBoundToDash && !is_transient_status(x.reply.status)) {
      // A genuine refusal of the request as it arrived (docs/protocol.md §13.6): reported with its
      // code (licensectl exits 6 for 1700 and 1702), never resent, never acted on (a 1701's
      // serverTime included), and nothing for the cache.
      last = classify_answer(x.reply.status, x.reply.body, status_endpoint);
      last.bound_to_dash = true;
      last.source = Source::kNetwork;
      return finish(last);
    } else if (verdict != Verdict::kOurs) {
      // docs/protocol.md §13.6: an answer the pinned key did not sign over this very request (one
      // bound to "-" or to another request included) is no answer.
      last = transport_failure("an answer not signed by the pinned key for this request");
      last.http_status = x.reply.status;
      last_from_server = last;
    } else {
      last = classify_answer(x.reply.status, x.reply.body, status_endpoint);
      if (x.reply.status == 200 && signed_out != nullptr) *signed_out = x.signed_answer;
      if (last.code == 1701 && !resent_stale) {
        // Our clock is off: take the server's word for "now" and resend once.
        if (const auto server_time = server_time_of(x.reply.body)) {
          MutexLock lock(mu_);
          offset_ = *server_time - config_.clock->now_seconds();
          resent_stale = true;
          continue;
        }
      }
      if (last.code == 1706) {
        const int64_t wait = retry_after_of(x.reply.retry_after).value_or(last.retry_after_seconds);
        last.retry_after_seconds = wait;
        const milliseconds pause(std::max<int64_t>(wait, 1) * 1000);
        if (waiter.now() + pause >= deadline) break;
        waiter.sleep_for(pause, stop);
        continue;
      }
      if (!is_transient_status(x.reply.status)) {
        last.source = Source::kNetwork;
        return finish(last);
      }
      last.retry_after_seconds = retry_after_of(x.reply.retry_after).value_or(0);
      last_from_server = last;
    }
    const milliseconds pause = backoff_delay(config_.backoff, retry++, random_unit());
    if (waiter.now() + pause >= deadline) break;
    waiter.sleep_for(pause, stop);
  }
  if (attempts == 0) last = transport_failure("the time was spent before a request was sent");
  // A 503 1708, or an answer bound to another request, says more than the timeout of the
  // retry that followed it (that retry's budget is whatever the backoff left).
  if (last.http_status == 0 && last_from_server) last = *last_from_server;
  last.outcome = Outcome::kUnavailable;
  return finish(last);
}

Answer Client::activate(std::stop_token stop) {
  SignedAnswer signed_answer;
  const uint64_t asked_at = machine_changes();
  Answer a = call("activate", body(true), config_.timeout, &signed_answer, std::move(stop));
  if (a.ok()) activated_ = true;
  keep_or_drop("activate", a, signed_answer, asked_at);
  if (a.ok()) forget_startup_answer();
  explain(a);
  return a;
}

Answer Client::heartbeat(std::stop_token stop) {
  SignedAnswer signed_answer;
  const uint64_t asked_at = machine_changes();
  Answer a = call("heartbeat", body(false), config_.timeout, &signed_answer, stop);
  if (a.code == 1707 && activated_ && !a.bound_to_dash) return activate(std::move(stop));
  if (a.ok()) activated_ = true;
  keep_or_drop("heartbeat", a, signed_answer, asked_at);
  explain(a);
  return a;
}

Answer Client::deactivate(std::stop_token stop) {
  SignedAnswer signed_answer;
  const uint64_t asked_at = machine_changes();
  Answer a = call("deactivate", body(false), config_.timeout, &signed_answer, std::move(stop));
  if (a.ok() || a.code == 1707) {
    activated_ = false;
    // The server released this machine's leases, a borrowed one included (docs/protocol.md
    // §27): its lease file no longer stands for a seat here.
    remove_lease_file_of(std::nullopt);
  }
  keep_or_drop("deactivate", a, signed_answer, asked_at);
  if (a.ok()) forget_startup_answer();
  explain(a);
  return a;
}

std::string Client::seat_body(const std::string& session_id, const std::string& borrow_for) const {
  json::object o;
  o["licenseKey"] = config_.license_key;
  o["machineId"] = config_.machine_id;
  if (!session_id.empty()) o["sessionId"] = session_id;
  if (!borrow_for.empty()) o["borrowFor"] = borrow_for;
  return json::serialize(o);
}

// Seats never touch the answer cache: a lease answer allows use only until the lease ends
// (docs/protocol.md §21), and a borrowed seat is used offline through its lease file.
Answer Client::checkout(const std::string& session_id, const std::string& borrow_for,
                        std::stop_token stop) {
  Answer a = call("checkout", seat_body(session_id, borrow_for), config_.timeout, nullptr,
                  std::move(stop));
  if (a.ok() && !borrow_for.empty()) install_borrowed_lease(a);
  explain(a);
  return a;
}

Answer Client::checkin(const std::string& session_id, std::stop_token stop) {
  // The local file goes first (as an offline deactivation deletes the activation file
  // first): a server that cannot be reached must not leave the borrowed seat usable here.
  remove_lease_file_of(session_id);
  Answer a = call("checkin", seat_body(session_id, ""), config_.timeout, nullptr, std::move(stop));
  explain(a);
  return a;
}

Answer Client::start_trial(std::stop_token stop) {
  if (config_.product.empty()) {
    Answer a;
    a.outcome = Outcome::kUsage;
    a.error = "CONFIGURATION";
    a.message = "a trial needs the product's slug";
    return a;
  }
  json::object o;
  o["product"] = config_.product;
  o["machineId"] = config_.machine_id;
  if (config_.machine_name) o["machineName"] = *config_.machine_name;
  Answer a = call("trial", json::serialize(o), config_.timeout, nullptr, std::move(stop));
  if (a.ok() && a.expires_at) {
    const int64_t left = *a.expires_at - config_.clock->now_seconds();
    a.days_left = left <= 0 ? 0 : (left + 86'399) / 86'400;
  }
  explain(a);
  return a;
}

Answer Client::status(std::stop_token stop) {
  Answer a = status_within(config_.timeout, std::move(stop));
  explain(a);
  return a;
}

Answer Client::status_within(milliseconds budget, std::stop_token stop) {
  SignedAnswer signed_answer;
  const uint64_t asked_at = machine_changes();
  Answer a = call("status", body(false), budget, &signed_answer, std::move(stop));
  if (a.ok() &&
      !status_is_about(a.body, config_.license_key, config_.machine_id, config_.product)) {
    // valid:true, but not about this machine (or product): not a yes for this plugin.
    a.outcome = Outcome::kUnavailable;
    a.error = "BAD_ANSWER";
    a.message = "the license server's answer is not about this computer and product";
    return a;
  }
  keep_or_drop("status", a, signed_answer, asked_at);
  return a;
}

int64_t Client::trusted_now() const {
  const int64_t now = config_.clock->now_seconds();
  return std::max(now, cache_.latest_time().value_or(now));
}

uint64_t Client::machine_changes() const {
  MutexLock lock(cache_mu_);
  return machine_changes_;
}

void Client::keep_or_drop(std::string_view endpoint, Answer& a, const SignedAnswer& signed_answer,
                          uint64_t asked_at) {
  if (config_.answer_arrived) config_.answer_arrived(endpoint);
  MutexLock lock(cache_mu_);
  const bool changes_machine = a.ok() && (endpoint == "activate" || endpoint == "deactivate");
  if (changes_machine) ++machine_changes_;
  // A status asked before this process activated or deactivated the machine answered
  // an older question: the cache already holds what the change made of it.
  if (endpoint == "status" && asked_at != machine_changes_) return;
  // Without a pinned key nothing could tell a file we wrote from a hand-written one; an
  // answer bound to "-" says nothing about the license (docs/protocol.md §13.6).
  if (pinned_.empty() || a.source != Source::kNetwork || a.bound_to_dash) return;
  if (a.ok() && (endpoint == "status" || endpoint == "activate")) {
    const auto t = answer_signed_by(pinned_, signed_answer);
    if (!t) return;
    a.signed_at = *t;
    a.valid_until = offline_until(a.body, *t, config_.grace);
    // Activating at the studio is enough to play the gig offline: its answer is kept too.
    if (endpoint == "status" || answer_allows_use(endpoint, a.body)) {
      cache_.store(config_.license_key, config_.machine_id, signed_answer);
    }
    cache_.remember_time(*t);
  } else if ((a.ok() && endpoint == "deactivate") ||
             (endpoint == "status" && a.http_status == 200) || a.code == 1703 || a.code == 1704) {
    // The server said no (valid:false, unknown key, not active), or this machine gave its
    // slot back: an old "yes" must not outlive that offline. A 1707 or a cap refusal
    // prompts its action but leaves the cache as it is (docs/protocol.md §15).
    cache_.remove(config_.license_key, config_.machine_id);
  }
}

bool Client::answer_allows_use(std::string_view endpoint, const std::string& body) const {
  if (endpoint == "status") {
    return status_is_about(body, config_.license_key, config_.machine_id, config_.product);
  }
  return activation_is_about(body, config_.license_key, config_.machine_id, config_.product);
}

std::optional<Client::VerifiedCacheEntry> Client::verified_cache_entry() const {
  if (pinned_.empty()) return std::nullopt;  // offline grace needs a pinned key
  const auto entry = cache_.load(config_.license_key, config_.machine_id);
  if (!entry || entry->status != 200) return std::nullopt;
  const auto signed_at = answer_signed_by(pinned_, *entry);
  if (!signed_at) return std::nullopt;
  // The request it answered, verified again: this client's own status or activate request.
  const std::string status_path = std::string(kApiPrefix) + "status";
  const std::string activate_path = std::string(kApiPrefix) + "activate";
  const bool status = request_is_ours(*entry, config_.key_id, config_.secret, status_path) &&
                      entry->request.body == body(false);
  const bool activation = request_is_ours(*entry, config_.key_id, config_.secret, activate_path) &&
                          entry->request.body == body(true);
  if (!(status || activation) || !answer_allows_use(status ? "status" : "activate", entry->body)) {
    return std::nullopt;
  }
  // A clock set back more than 24 h behind the latest time seen, or an answer signed
  // more than 24 h ahead of the clock (docs/protocol.md §15).
  const int64_t now = config_.clock->now_seconds();
  const auto latest = cache_.latest_time();
  if (latest && now < *latest - kFutureSkewSeconds) return std::nullopt;
  if (*signed_at - now > kFutureSkewSeconds) return std::nullopt;
  cache_.remember_time(now);
  return VerifiedCacheEntry{*entry, *signed_at, status};
}

std::optional<Answer> Client::cached_answer() const {
  const auto kept = verified_cache_entry();
  if (!kept) return std::nullopt;
  // Never past validUntil, expiresAt or the grace, by the latest time seen: a clock set
  // back (within the 24 h tolerated) does not make an expired answer good again.
  const auto until = offline_until(kept->entry.body, kept->signed_at, config_.grace);
  if (!until || trusted_now() >= *until) return std::nullopt;
  Answer a = classify_answer(kept->entry.status, kept->entry.body, kept->status);
  a.valid = true;
  a.source = Source::kCache;
  a.signed_at = kept->signed_at;
  a.valid_until = *until;
  return a;
}

std::optional<Answer> Client::cached_expiry() const {
  const auto kept = verified_cache_entry();
  if (!kept) return std::nullopt;
  Answer a = classify_answer(kept->entry.status, kept->entry.body, kept->status);
  // Only the license's own end is a "no" the signed answer already holds; a grace or a
  // validUntil that ran out says nothing about the license (no answer, as before).
  if (!a.expires_at || trusted_now() < *a.expires_at) return std::nullopt;
  a.outcome = Outcome::kNotUsable;
  a.source = Source::kCache;
  a.valid = false;
  a.license_status = "EXPIRED";
  a.error = "EXPIRED";
  a.signed_at = kept->signed_at;
  a.valid_until.reset();  // never grants use (docs/protocol.md §20: null in an answer that does not
                          // allow use)
  a.entitlements.clear();
  if (a.trial) a.days_left = 0;
  return a;
}

}  // namespace licensed::client
