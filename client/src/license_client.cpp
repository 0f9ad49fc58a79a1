#include "license_client.h"

#include <openssl/rand.h>

#include <boost/json.hpp>
#include <limits>

#include "auth/request_signature.h"
#include "core/text.h"
#include "http_transport.h"
#include "json_members.h"

namespace licensed::client {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

constexpr std::string_view kApiPrefix = "/api/v1/license/";

std::string fresh_nonce() {
  uint8_t bytes[16] = {0};  // 128 bits, as the contract asks
  RAND_bytes(bytes, sizeof(bytes));
  return to_hex(bytes, sizeof(bytes));
}

double random_unit() {
  uint32_t r = 0;
  RAND_bytes(reinterpret_cast<unsigned char*>(&r), sizeof(r));
  return static_cast<double>(r) / (static_cast<double>(std::numeric_limits<uint32_t>::max()) + 1);
}

Outcome outcome_of_code(int code) {
  switch (code) {
    case 1703:
    case 1704:
    case 1707:
      return Outcome::kNotUsable;
    case 1705:
      return Outcome::kLimitReached;
    case 1706:
    case 1708:
    case 1709:
      return Outcome::kUnavailable;
    default:
      return Outcome::kRefused;
  }
}

bool is_transient_status(int status) {
  return status == 0 || status == 500 || status == 503;
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

Answer transport_failure(std::string why) {
  Answer a;
  a.outcome = Outcome::kUnavailable;
  a.error = "NETWORK";
  a.message = std::move(why);
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

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kUsage:
      return "usage";
    case Outcome::kNotUsable:
      return "not_usable";
    case Outcome::kLimitReached:
      return "limit_reached";
    case Outcome::kUnavailable:
      return "unavailable";
    case Outcome::kRefused:
      return "refused";
  }
  return "unknown";
}

const char* source_name(Source s) {
  switch (s) {
    case Source::kNone:
      return "none";
    case Source::kNetwork:
      return "network";
    case Source::kCache:
      return "cache";
  }
  return "none";
}

bool status_is_about(const std::string& body, std::string_view license_key,
                     std::string_view machine_id, std::string_view product) {
  json::error_code ec;
  const json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return false;
  const auto named_key = string_member(v.as_object(), "licenseKey");
  if (!named_key || !iequals(*named_key, license_key)) return false;
  const json::value* machine = v.as_object().if_contains("machine");
  if (machine == nullptr || !machine->is_object()) return false;
  const json::value* activated = machine->as_object().if_contains("activated");
  if (string_member(machine->as_object(), "id") != machine_id || activated == nullptr ||
      !activated->is_bool() || !activated->as_bool()) {
    return false;
  }
  if (product.empty()) return true;
  const json::value* p = v.as_object().if_contains("product");
  return p != nullptr && p->is_object() && string_member(p->as_object(), "slug") == product;
}

Answer classify_answer(int http_status, const std::string& body, bool status_endpoint) {
  Answer a;
  a.http_status = http_status;
  a.body = body;
  json::error_code ec;
  const json::value v = json::parse(body, ec);
  const json::object* o = !ec && v.is_object() ? &v.as_object() : nullptr;
  if (o != nullptr) {
    a.code = static_cast<int>(int_member(*o, "code").value_or(0));
    a.error = string_member(*o, "error").value_or("");
    a.message = string_member(*o, "message").value_or("");
    a.activations = int_member(*o, "activations");
    a.max = int_member(*o, "max");
    a.dashboard_url = string_member(*o, "dashboardUrl");
    a.license_status = string_member(*o, "status");
    a.retry_after_seconds = int_member(*o, "retryAfter").value_or(0);
    if (const json::value* valid = o->if_contains("valid"); valid && valid->is_bool()) {
      a.valid = valid->as_bool();
    }
  }
  if (http_status == 200 && o != nullptr) {
    a.outcome = status_endpoint && !a.valid ? Outcome::kNotUsable : Outcome::kOk;
  } else if (http_status == 200) {
    a.outcome = Outcome::kUnavailable;
    a.error = "BAD_ANSWER";
    a.message = "a 200 answer whose body is not a JSON object";
  } else if (a.code != 0) {
    a.outcome = outcome_of_code(a.code);
  } else {
    a.outcome = is_transient_status(http_status) ? Outcome::kUnavailable : Outcome::kRefused;
    if (a.error.empty()) a.error = "HTTP_" + std::to_string(http_status);
  }
  return a;
}

std::unique_ptr<Client> Client::create(ClientConfig config, std::string& error) {
  if (config.url.empty())
    error = "no server URL";
  else if (config.key_id.empty())
    error = "no signing key id";
  else if (config.secret.empty())
    error = "no signing secret";
  else if (config.license_key.empty())
    error = "no license key";
  else if (config.timeout.count() <= 0)
    error = "the timeout must be positive";
  else if (config.public_key.empty() && is_plain_http_to_remote_host(config.url))
    error = "http:// to a host other than this machine needs a pinned public key (use https://)";
  if (!error.empty()) return nullptr;
  if (config.machine_id.empty()) {
    if (config.host_install_path.empty()) config.host_install_path = current_executable_dir();
    const auto derived =
        machine_id_from(config.guid_source ? config.guid_source : os_machine_guid_source(),
                        config.host_install_path);
    if (!derived) {
      error = "no machine id given and the OS has no machine GUID to derive one from";
      return nullptr;
    }
    config.machine_id = *derived;
  }
  std::vector<PinnedResponseKey> pinned;
  if (!config.public_key.empty()) {
    const auto key = parse_response_public_key(config.public_key);
    if (!key) {
      error = "the public key is neither base64 of 32 bytes nor a PEM Ed25519 public key";
      return nullptr;
    }
    pinned.push_back(pin_ed25519(*key));
  }
  if (!config.clock) config.clock = std::make_shared<SystemClock>();
  if (!config.waiter) config.waiter = std::make_shared<RealWaiter>();
  while (!config.url.empty() && config.url.back() == '/') config.url.pop_back();
  std::unique_ptr<Client> client(new Client(std::move(config)));
  client->pinned_ = std::move(pinned);
  return client;
}

Client::Client(ClientConfig config)
    : config_(std::move(config)),
      cache_dir_(config_.cache_dir ? *config_.cache_dir : default_cache_dir()),
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

Answer Client::call(std::string_view endpoint, const std::string& body, milliseconds budget,
                    SignedAnswer* signed_out) {
  MutexLock lock(mu_);
  Waiter& waiter = *config_.waiter;
  const SteadyTime deadline = waiter.now() + budget;
  const std::string path = std::string(kApiPrefix) + std::string(endpoint);
  const bool status_endpoint = endpoint == "status";
  bool resent_stale = false;
  int retry = 0;
  int attempts = 0;
  Answer last;
  std::optional<Answer> last_from_server;  // the last transient answer the server gave
  for (;;) {
    const auto remaining = std::chrono::duration_cast<milliseconds>(deadline - waiter.now());
    if (remaining.count() <= 0) break;
    ++attempts;
    const std::string timestamp = std::to_string(config_.clock->now_seconds() + offset_);
    const std::string nonce = fresh_nonce();
    HeaderList headers =
        signed_request_headers(config_.key_id, config_.secret, path, timestamp, nonce, body);
    const std::string request_signature = bound_signature_of(headers);
    const HttpReply reply = http_exchange(config_.url + path, headers, body, remaining);
    const SignedAnswer signed_answer{request_signature,
                                     {path, timestamp, nonce, body},
                                     reply.status,
                                     reply.body,
                                     reply.response_signature};
    if (reply.status == 0) {
      last = transport_failure(reply.error);
    } else if (!pinned_.empty() && !answer_signed_by(pinned_, signed_answer) &&
               answer_bound_to_dash(pinned_, signed_answer) && !is_transient_status(reply.status)) {
      // A genuine refusal of the request as it arrived (docs/protocol.md §13.6): reported with its
      // code (licensectl exits 6 for 1700 and 1702), never resent, never acted on (a 1701's
      // serverTime included), and nothing for the cache.
      last = classify_answer(reply.status, reply.body, status_endpoint);
      last.bound_to_dash = true;
      last.attempts = attempts;
      last.source = Source::kNetwork;
      return last;
    } else if (!pinned_.empty() && !answer_signed_by(pinned_, signed_answer)) {
      // docs/protocol.md §13.6: an answer the pinned key did not sign over this very request (one
      // bound to "-" or to another request included) is no answer.
      last = transport_failure("answer not signed by the pinned key for this request");
      last.http_status = reply.status;
    } else {
      last = classify_answer(reply.status, reply.body, status_endpoint);
      if (reply.status == 200 && signed_out != nullptr) *signed_out = signed_answer;
      if (last.code == 1701 && !resent_stale) {
        // Our clock is off: take the server's word for "now" and resend once.
        json::error_code ec;
        const json::value v = json::parse(reply.body, ec);
        const json::value* server_time =
            !ec && v.is_object() ? v.as_object().if_contains("serverTime") : nullptr;
        if (server_time != nullptr && server_time->is_int64()) {
          offset_ = server_time->as_int64() - config_.clock->now_seconds();
          resent_stale = true;
          continue;
        }
      }
      if (last.code == 1706) {
        const int64_t wait = retry_after_of(reply.retry_after).value_or(last.retry_after_seconds);
        last.retry_after_seconds = wait;
        const milliseconds pause(std::max<int64_t>(wait, 1) * 1000);
        if (waiter.now() + pause >= deadline) break;
        waiter.sleep_for(pause);
        continue;
      }
      if (!is_transient_status(reply.status)) {
        last.attempts = attempts;
        last.source = Source::kNetwork;
        return last;
      }
      last.retry_after_seconds = retry_after_of(reply.retry_after).value_or(0);
      last_from_server = last;
    }
    const milliseconds pause = backoff_delay(config_.backoff, retry++, random_unit());
    if (waiter.now() + pause >= deadline) break;
    waiter.sleep_for(pause);
  }
  if (attempts == 0) last = transport_failure("the timeout was spent before a request was sent");
  // A 503 1708 says more than the timeout of the retry that followed it.
  if (last.http_status == 0 && last_from_server) last = *last_from_server;
  last.outcome = Outcome::kUnavailable;
  last.attempts = attempts;
  return last;
}

Answer Client::activate() {
  Answer a = call("activate", body(true), config_.timeout, nullptr);
  if (a.ok()) activated_ = true;
  return a;
}

Answer Client::heartbeat() {
  Answer a = call("heartbeat", body(false), config_.timeout, nullptr);
  if (a.code == 1707 && activated_) return activate();
  if (a.ok()) activated_ = true;
  return a;
}

Answer Client::deactivate() {
  Answer a = call("deactivate", body(false), config_.timeout, nullptr);
  if (a.ok() || a.code == 1707) activated_ = false;
  return a;
}

Answer Client::status() {
  return status_within(config_.timeout);
}

Answer Client::status_within(milliseconds budget) {
  SignedAnswer signed_answer;
  Answer a = call("status", body(false), budget, &signed_answer);
  if (a.source != Source::kNetwork || a.bound_to_dash) return a;
  if (a.ok() &&
      !status_is_about(a.body, config_.license_key, config_.machine_id, config_.product)) {
    // valid:true, but not about this machine (or product): not a yes for this plugin.
    a.outcome = Outcome::kUnavailable;
    a.error = "BAD_ANSWER";
    a.message = "the status answer is not about this machine and product";
    return a;
  }
  if (a.ok()) {
    // Without a pinned key nothing could tell a file we wrote from a hand-written one.
    if (!pinned_.empty()) {
      cache_.store(config_.license_key, config_.machine_id, signed_answer);
      if (const auto t = answer_signed_by(pinned_, signed_answer)) cache_.remember_time(*t);
    }
  } else if (a.http_status == 200 || a.code == 1703 || a.code == 1704) {
    // The server said no (valid:false, unknown key, not active): an old "yes" must not
    // outlive that answer offline. Only these answers replace the cached one (docs/protocol.md
    // §15); a 1707 or a cap refusal prompts its action but leaves the cache as it is.
    cache_.remove(config_.license_key, config_.machine_id);
  }
  return a;
}

std::optional<Answer> Client::cached_status() const {
  if (pinned_.empty()) return std::nullopt;  // offline grace needs a pinned key
  const auto entry = cache_.load(config_.license_key, config_.machine_id);
  if (!entry || entry->status != 200) return std::nullopt;
  const auto signed_at = answer_signed_by(pinned_, *entry);
  if (!signed_at) return std::nullopt;
  // The request it answered, verified again: this client's own status request.
  if (!request_is_ours(*entry, config_.key_id, config_.secret,
                       std::string(kApiPrefix) + "status") ||
      entry->request.body != body(false)) {
    return std::nullopt;
  }
  // A clock set back more than 24 h behind the latest time seen (docs/protocol.md §15).
  const int64_t now = config_.clock->now_seconds();
  const auto latest = cache_.latest_time();
  if (latest && now < *latest - kFutureSkewSeconds) return std::nullopt;
  cache_.remember_time(now);
  const int64_t age = config_.clock->now_seconds() - *signed_at;
  if (age > config_.grace.count() || age < -kFutureSkewSeconds) return std::nullopt;
  Answer a = classify_answer(entry->status, entry->body, /*status_endpoint=*/true);
  if (!a.ok() ||
      !status_is_about(entry->body, config_.license_key, config_.machine_id, config_.product)) {
    return std::nullopt;
  }
  a.source = Source::kCache;
  return a;
}

Answer Client::check_at_startup() {
  Answer network = status_within(config_.startup_budget);
  // An answer bound to "-" is no answer about the license: the cache may still speak.
  if (network.source == Source::kNetwork && !network.bound_to_dash) return network;
  if (auto cached = cached_status()) {
    cached->attempts = network.attempts;
    return *cached;
  }
  return network;
}

}  // namespace licensed::client
