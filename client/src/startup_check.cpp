// The start-up check as every plugin instance of a process shares it (license_client.h):
// the process's registry of shared clients, and the one status request per process.
#include <map>

#include "auth/request_signature.h"
#include "detached_thread.h"
#include "license_client.h"

namespace licensed::client {

using std::chrono::milliseconds;

namespace {

// The process's shared clients by configuration. Never destroyed: a thread the SDK left
// running at exit (or after the host unloaded the plugin) must not find it gone.
struct Registry {
  Mutex mu;
  std::map<std::string, std::weak_ptr<Client>> clients GUARDED_BY(mu);
};

Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

// What the callers of a shared client hold: when the last one lets go, the check it
// may still have on the network is stopped (it holds the Client, not this).
struct SharedHolder {
  std::shared_ptr<Client> client;
  SharedHolder() = default;
  SharedHolder(const SharedHolder&) = delete;
  SharedHolder& operator=(const SharedHolder&) = delete;
  ~SharedHolder() {
    if (client) client->stop_background();
  }
};

bool is_definite(const Answer& a) {
  return a.source == Source::kNetwork && !a.bound_to_dash && a.outcome != Outcome::kUnavailable;
}

Answer no_answer_yet(std::string why) {
  Answer a;
  a.outcome = Outcome::kUnavailable;
  a.error = "NO_ANSWER_YET";
  a.message = std::move(why);
  return a;
}

}  // namespace

std::shared_ptr<Client> Client::shared(ClientConfig config, std::string& error) {
  auto candidate = create(std::move(config), error);
  if (!candidate) return nullptr;
  Registry& r = registry();
  MutexLock lock(r.mu);
  std::erase_if(r.clients, [](const auto& entry) { return entry.second.expired(); });
  auto& slot = r.clients[candidate->identity()];
  if (auto existing = slot.lock()) return existing;
  auto holder = std::make_shared<SharedHolder>();
  holder->client = std::move(candidate);
  std::shared_ptr<Client> handle(holder, holder->client.get());
  slot = handle;
  return handle;
}

std::string Client::identity() const {
  const auto ms = [](auto d) {
    return std::to_string(std::chrono::duration_cast<milliseconds>(d).count());
  };
  std::string id;
  for (const std::string& part :
       {config_.url, config_.key_id, config_.secret, config_.license_key, config_.machine_id,
        config_.machine_name.value_or("\x01"), config_.public_key, config_.product,
        cache_dir_.string(), ms(config_.timeout), ms(config_.startup_budget), ms(config_.grace),
        std::to_string(reinterpret_cast<uintptr_t>(config_.clock.get())),
        std::to_string(reinterpret_cast<uintptr_t>(config_.waiter.get()))}) {
    id += part;
    id += '\0';
  }
  return sha256_hex(id);
}

// The stop token by value like the other calls, so that c_api.cpp's run() takes every
// call through one member-pointer type.
// NOLINTNEXTLINE(performance-unnecessary-value-param)
Answer Client::check_at_startup(std::stop_token stop) {
  std::optional<Answer> known = known_answer(/*may_refresh=*/true);
  Answer a = known ? std::move(*known) : wait_for_network_check(stop);
  or_known_expiry(a);
  explain(a);
  return a;
}

Answer Client::check_cached() {
  Answer a = known_answer(/*may_refresh=*/false)
                 .value_or(no_answer_yet("no license answer is kept on this computer yet: the "
                                         "start-up check will ask the license server"));
  or_known_expiry(a);
  explain(a);
  return a;
}

void Client::or_known_expiry(Answer& a) const {
  // The server's word (when it answered) wins: a renewed license is picked up then. Only
  // "no answer" gives way to what the signed, cached answer already says: the license's
  // expiresAt has passed. A caller that cancelled hears that it did.
  if (a.outcome != Outcome::kUnavailable || a.error == "CANCELLED") return;
  if (auto expired = cached_expiry()) a = std::move(*expired);
}

std::optional<Answer> Client::known_answer(bool may_refresh) {
  {
    MutexLock lock(mu_);
    // The server's yes or no, as another instance's check (or a refresh) got it.
    if (startup_.network && is_definite(*startup_.network)) {
      if (may_refresh && network_check_due_locked()) start_network_check_locked();
      return startup_.network;
    }
  }
  // An installed activation file answers with no network and starts none: the machine is
  // offline on purpose (docs/protocol.md §21.8).
  if (auto offline = offline_answer()) return offline;
  // So does a borrowed seat's lease file, until its expiresAt (docs/protocol.md §27): the
  // seat stays counted on the server until then whatever happens there.
  if (auto lease = lease_answer()) return lease;
  if (auto cached = cached_answer()) {
    MutexLock lock(mu_);
    if (may_refresh && network_check_due_locked()) start_network_check_locked();
    return cached;
  }
  MutexLock lock(mu_);
  // This process found no answer a moment ago, or a caller already waited its budget
  // for the check still running: one bounded wait per process, not one per instance.
  if (startup_.network && !startup_.running && !network_check_due_locked()) {
    return startup_.network;
  }
  if (startup_.running && startup_.waited_out) {
    return no_answer_yet(
        "the license server did not answer within the start-up budget; the "
        "check goes on in the background");
  }
  return std::nullopt;
}

Answer Client::wait_for_network_check(const std::stop_token& stop) {
  MutexLock lock(mu_);
  if (!startup_.running) start_network_check_locked();
  if (!startup_.running) return no_answer_yet("no thread could be started for the check");
  const uint64_t seen = startup_.finished;
  const auto deadline = std::chrono::steady_clock::now() + config_.startup_budget;
  while (startup_.finished == seen && !stop.stop_requested() &&
         std::chrono::steady_clock::now() < deadline) {
    lock.wait_until(startup_cv_, stop, deadline);
  }
  if (startup_.finished != seen) {
    if (startup_.network) return *startup_.network;
    return no_answer_yet("the start-up check was stopped");
  }
  if (stop.stop_requested()) {
    Answer a = no_answer_yet("the call was cancelled");
    a.error = "CANCELLED";
    return a;
  }
  startup_.waited_out = true;
  return no_answer_yet("the license server did not answer within the start-up budget (" +
                       std::to_string(config_.startup_budget.count()) +
                       " ms); the check goes on in the background");
}

bool Client::network_check_due_locked() const {
  if (startup_.running) return false;
  if (!startup_.network) return true;
  const auto age = std::chrono::steady_clock::now() - startup_.network_at;
  return age >=
         (is_definite(*startup_.network) ? config_.refresh_after : config_.retry_after_failure);
}

void Client::start_network_check_locked() {
  startup_.running = true;
  startup_.waited_out = false;
  std::weak_ptr<Client> weak = weak_from_this();
  auto self = weak.lock();
  if (!self) {
    startup_.running = false;
    return;
  }
  const std::stop_token stop = background_stop_.get_token();
  const uint64_t epoch = startup_.epoch;
  if (!start_detached(
          [self = std::move(self), stop, epoch] { self->run_network_check(stop, epoch); })) {
    startup_.running = false;
  }
}

void Client::run_network_check(const std::stop_token& stop, uint64_t epoch) {
  // The whole timeout, not the start-up budget: nobody has to wait for it, and a slow
  // server's answer still serves the instances that start later.
  Answer a = status_within(config_.timeout, stop);
  explain(a);
  MutexLock lock(mu_);
  startup_.running = false;
  ++startup_.finished;
  if (!stop.stop_requested() && epoch == startup_.epoch) {
    startup_.network = std::move(a);
    startup_.network_at = std::chrono::steady_clock::now();
  }
  startup_cv_.notify_all();
}

void Client::forget_startup_answer() {
  MutexLock lock(mu_);
  ++startup_.epoch;
  startup_.network.reset();
  startup_.waited_out = false;
}

bool Client::wait_for_background(milliseconds timeout) {
  MutexLock lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (startup_.running && std::chrono::steady_clock::now() < deadline) {
    lock.wait_until(startup_cv_, std::stop_token{}, deadline);
  }
  return !startup_.running;
}

void Client::stop_background() {
  background_stop_.request_stop();
}

}  // namespace licensed::client
