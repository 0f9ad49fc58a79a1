// The C ABI over licensed::client::Client. Every entry point catches everything: a C++
// exception (std::bad_alloc, in practice) must not unwind into a host written in C.
//
// Freeing with calls in flight (license_client.h, lc_client_free): an lc_client counts
// the calls running on the host's threads and keeps its asynchronous calls; freeing it
// stops them all (a stop request wakes every wait of the SDK at once) and waits only for
// the blocked calls to leave, never for the network.
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/mutex.h"
#include "detached_thread.h"
#include "license_client.h"
#include "license_client/license_client.h"
#include "platform/user_dirs.h"
#include "seat_session.h"

struct lc_result {
  licensed::client::Answer answer;
};

namespace {

using licensed::client::Answer;
using licensed::client::Client;

// One asynchronous start-up check, shared by its lc_call handle, its client and the
// thread running it.
class AsyncCall {
 public:
  AsyncCall(lc_callback callback, void* user) : callback_(callback), user_(user) {}

  std::stop_token stop_token() const { return stop_.get_token(); }

  // The thread's end: the callback runs unless the call was cancelled.
  void deliver(Answer a) {
    licensed::MutexLock lock(mu_);
    answer_ = std::move(a);
    if (cancelled_ || callback_ == nullptr) {
      state_ = State::kDone;
      return;
    }
    state_ = State::kDelivering;
    delivering_on_ = std::this_thread::get_id();
    const lc_result view{*answer_};
    lock.unlock();
    callback_(user_, static_cast<lc_status>(view.answer.outcome), &view);
    lock.lock();
    state_ = State::kDone;
    done_.notify_all();
  }

  // After this returns the callback is not running (unless on this very thread) and
  // will not start.
  void cancel() {
    licensed::MutexLock lock(mu_);
    cancelled_ = true;
    stop_.request_stop();
    if (state_ == State::kDelivering && delivering_on_ != std::this_thread::get_id()) {
      while (state_ != State::kDone) lock.wait(done_);
    }
  }

  // nullopt while running; the answer, or "cancelled", once over.
  std::optional<Answer> poll() {
    licensed::MutexLock lock(mu_);
    if (state_ == State::kDone && answer_) return answer_;
    if (cancelled_) {
      Answer a;
      a.error = "CANCELLED";
      a.message = "the call was cancelled";
      return a;
    }
    return std::nullopt;
  }

 private:
  enum class State { kRunning, kDelivering, kDone };
  licensed::Mutex mu_;
  std::condition_variable done_;
  std::stop_source stop_;
  State state_ GUARDED_BY(mu_) = State::kRunning;
  bool cancelled_ GUARDED_BY(mu_) = false;
  std::thread::id delivering_on_ GUARDED_BY(mu_);
  std::optional<Answer> answer_ GUARDED_BY(mu_);
  lc_callback callback_;
  void* user_;
};

}  // namespace

struct lc_client {
  std::shared_ptr<Client> client;  // shared by the process's instances with these options
  licensed::Mutex mu;
  std::condition_variable idle;
  std::stop_source stop;  // requested by lc_client_free: wakes this client's calls
  int blocking_calls GUARDED_BY(mu) = 0;
  std::vector<std::weak_ptr<AsyncCall>> calls GUARDED_BY(mu);
};

struct lc_call {
  std::shared_ptr<AsyncCall> call;
};

struct lc_seat {
  std::unique_ptr<licensed::client::SeatSession::Handle> handle;
};

namespace {

// sizeof(lc_options) as the first SDK shipped it: up to grace_seconds.
constexpr uint32_t kFirstVersionSize = offsetof(lc_options, product);

bool covers(const lc_options& o, size_t offset, size_t size) {
  return o.struct_size >= offset + size;
}

void copy_error(const std::string& text, char* out, uint64_t size) {
  if (out == nullptr || size == 0) return;
  const size_t n = std::min<uint64_t>(text.size(), size - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

std::string text_or_empty(const char* s) {
  return s != nullptr ? std::string(s) : std::string();
}

// Counts a call on the host's thread, so lc_client_free knows when it has left.
class BlockingCall {
 public:
  explicit BlockingCall(lc_client* c) : c_(c) {
    licensed::MutexLock lock(c_->mu);
    ++c_->blocking_calls;
  }
  ~BlockingCall() {
    licensed::MutexLock lock(c_->mu);
    if (--c_->blocking_calls == 0) c_->idle.notify_all();
  }
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;

 private:
  lc_client* c_;
};

lc_status give(Answer a, lc_result** result) {
  const auto status = static_cast<lc_status>(a.outcome);
  if (result != nullptr) *result = new lc_result{std::move(a)};
  return status;
}

lc_status run(lc_client* c, Answer (Client::*call)(std::stop_token), lc_result** result) {
  if (result != nullptr) *result = nullptr;
  if (c == nullptr || !c->client) return LC_USAGE;
  try {
    const BlockingCall counted(c);
    return give(((*c->client).*call)(c->stop.get_token()), result);
  } catch (...) {
    return LC_UNAVAILABLE;
  }
}

// A call on the network with arguments of its own: `fn(client, stop)`.
template <class Fn>
lc_status run_with(lc_client* c, lc_result** result, Fn fn) {
  if (result != nullptr) *result = nullptr;
  if (c == nullptr || !c->client) return LC_USAGE;
  try {
    const BlockingCall counted(c);
    return give(fn(*c->client, c->stop.get_token()), result);
  } catch (...) {
    return LC_UNAVAILABLE;
  }
}

// An lc_offline_* call: no network, no stop token.
template <class Fn>
lc_status run_offline(lc_client* c, lc_result** result, Fn fn) {
  if (result != nullptr) *result = nullptr;
  if (c == nullptr || !c->client) return LC_USAGE;
  try {
    const BlockingCall counted(c);
    return give(fn(*c->client), result);
  } catch (...) {
    return LC_UNAVAILABLE;
  }
}

}  // namespace

extern "C" {

lc_client* lc_client_new(const lc_options* o, char* error, uint64_t error_size) {
  if (o == nullptr) {
    copy_error("no options", error, error_size);
    return nullptr;
  }
  // Every field of the first version is required to be there; later fields are read
  // only when struct_size covers them.
  if (o->struct_size < kFirstVersionSize) {
    copy_error("lc_options.struct_size is not set: start from lc_options_init()", error,
               error_size);
    return nullptr;
  }
  try {
    licensed::client::ClientConfig config;
    config.url = text_or_empty(o->url);
    config.key_id = text_or_empty(o->key_id);
    config.secret = text_or_empty(o->secret);
    config.license_key = text_or_empty(o->license_key);
    config.machine_id = text_or_empty(o->machine_id);
    if (o->machine_name != nullptr) config.machine_name = o->machine_name;
    config.public_key = text_or_empty(o->public_key);
    if (o->cache_dir != nullptr) config.cache_dir = licensed::client::path_from_utf8(o->cache_dir);
    // host_install_path is read no more: the machine id no longer depends on the host.
    if (o->timeout_ms > 0) config.timeout = std::chrono::milliseconds(o->timeout_ms);
    if (o->startup_budget_ms > 0) {
      config.startup_budget = std::chrono::milliseconds(o->startup_budget_ms);
    }
    if (o->grace_seconds > 0) config.grace = std::chrono::seconds(o->grace_seconds);
    if (covers(*o, offsetof(lc_options, product), sizeof(o->product))) {
      config.product = text_or_empty(o->product);
    }
    if (covers(*o, offsetof(lc_options, vendor), sizeof(o->vendor))) {
      config.vendor = text_or_empty(o->vendor);
    }
    if (covers(*o, offsetof(lc_options, offline_dir), sizeof(o->offline_dir)) &&
        o->offline_dir != nullptr) {
      config.offline_dir = licensed::client::path_from_utf8(o->offline_dir);
    }
    std::string why;
    auto client = Client::shared(std::move(config), why);
    if (!client) {
      copy_error(why, error, error_size);
      return nullptr;
    }
    auto* c = new lc_client;
    c->client = std::move(client);
    return c;
  } catch (const std::exception& e) {
    copy_error(e.what(), error, error_size);
    return nullptr;
  } catch (...) {
    copy_error("unknown error", error, error_size);
    return nullptr;
  }
}

const char* lc_version(void) {
  return LICENSE_CLIENT_VERSION;
}

const char* lc_status_string(lc_status status) {
  // A C host may pass any int; in C++ a value outside the enumerators' bits is not an
  // lc_status (UBSan's enum check), so the switch reads the bytes as the int they are.
  std::underlying_type_t<lc_status> code = 0;
  std::memcpy(&code, &status, sizeof code);
  switch (code) {
    case LC_OK:
      return "ok";
    case LC_USAGE:
      return "the SDK is configured wrongly";
    case LC_NOT_USABLE:
      return "the license cannot be used on this computer";
    case LC_LIMIT_REACHED:
      return "the license is activated on as many computers as it allows";
    case LC_UNAVAILABLE:
      return "the license server could not be reached; try again later";
    case LC_REFUSED:
      return "the license server refused the request as wrongly signed or malformed";
  }
  return "unknown status";
}

const char* lc_source_string(lc_source source) {
  return licensed::client::source_name(static_cast<licensed::client::Source>(source));
}

void lc_client_free(lc_client* client) {
  if (client == nullptr) return;
  client->stop.request_stop();
  std::vector<std::weak_ptr<AsyncCall>> calls;
  {
    licensed::MutexLock lock(client->mu);
    calls.swap(client->calls);
  }
  for (const auto& weak : calls) {
    if (auto call = weak.lock()) call->cancel();
  }
  {
    // The blocked calls wake at once on the stop request; only their return is waited for.
    licensed::MutexLock lock(client->mu);
    while (client->blocking_calls != 0) lock.wait(client->idle);
  }
  delete client;
}

const char* lc_client_machine_id(const lc_client* c) {
  return c != nullptr && c->client ? c->client->machine_id().c_str() : nullptr;
}

lc_status lc_activate(lc_client* c, lc_result** r) {
  return run(c, &Client::activate, r);
}
lc_status lc_heartbeat(lc_client* c, lc_result** r) {
  return run(c, &Client::heartbeat, r);
}
lc_status lc_status_check(lc_client* c, lc_result** r) {
  return run(c, &Client::status, r);
}
lc_seat* lc_seat_join(lc_client* c, lc_seat_lost_callback on_lost, void* user_data) {
  if (c == nullptr || !c->client) return nullptr;
  try {
    licensed::client::SeatSession::LostSeat lost;
    if (on_lost != nullptr) {
      lost = [on_lost, user_data](const Answer& why) {
        const lc_result r{why};
        on_lost(user_data, &r);
      };
    }
    return new lc_seat{licensed::client::SeatSession::join(c->client, std::move(lost))};
  } catch (...) {
    return nullptr;
  }
}

int lc_seat_state(const lc_seat* seat) {
  return seat != nullptr ? static_cast<int>(seat->handle->session().state()) : 0;
}

void lc_seat_leave(lc_seat* seat) {
  delete seat;
}

lc_status lc_seat_borrow(lc_client* c, const char* duration, lc_result** r) {
  if (duration == nullptr || *duration == '\0') return run(nullptr, nullptr, r);
  const std::string borrow_for(duration);
  return run_with(c, r, [&borrow_for](Client& client, std::stop_token stop) {
    return client.checkout("", borrow_for, std::move(stop));
  });
}
lc_status lc_seat_return(lc_client* c, lc_result** r) {
  return run_with(c, r, [](Client& client, std::stop_token stop) {
    return client.checkin("", std::move(stop));
  });
}
lc_status lc_lease_install_file(lc_client* c, const char* path, lc_result** r) {
  if (path == nullptr) return run(nullptr, nullptr, r);
  return run_offline(c, r, [path](Client& client) {
    return client.install_lease_file_from(licensed::client::path_from_utf8(path));
  });
}
lc_status lc_lease_install_text(lc_client* c, const char* text, lc_result** r) {
  if (text == nullptr) return run(nullptr, nullptr, r);
  return run_offline(c, r, [text](Client& client) { return client.install_lease_file(text); });
}

lc_status lc_deactivate(lc_client* c, lc_result** r) {
  return run(c, &Client::deactivate, r);
}
lc_status lc_start_trial(lc_client* c, lc_result** r) {
  return run(c, &Client::start_trial, r);
}
lc_status lc_check_at_startup(lc_client* c, lc_result** r) {
  return run(c, &Client::check_at_startup, r);
}
lc_status lc_check_cached(lc_client* c, lc_result** r) {
  if (r != nullptr) *r = nullptr;
  if (c == nullptr || !c->client) return LC_USAGE;
  try {
    return give(c->client->check_cached(), r);
  } catch (...) {
    return LC_UNAVAILABLE;
  }
}

lc_status lc_offline_request(lc_client* c, lc_result** r) {
  return run_offline(c, r, [](Client& client) { return client.write_offline_request(); });
}
lc_status lc_offline_install_file(lc_client* c, const char* path, lc_result** r) {
  if (path == nullptr) return run(nullptr, nullptr, r);
  return run_offline(c, r, [path](Client& client) {
    return client.install_activation_file_from(licensed::client::path_from_utf8(path));
  });
}
lc_status lc_offline_install_text(lc_client* c, const char* text, lc_result** r) {
  if (text == nullptr) return run(nullptr, nullptr, r);
  return run_offline(c, r, [text](Client& client) { return client.install_activation_file(text); });
}
lc_status lc_offline_deactivate(lc_client* c, lc_result** r) {
  return run_offline(c, r, [](Client& client) { return client.write_offline_deactivation(); });
}

lc_call* lc_check_at_startup_async(lc_client* c, lc_callback callback, void* user_data) {
  if (c == nullptr || !c->client) return nullptr;
  try {
    auto call = std::make_shared<AsyncCall>(callback, user_data);
    {
      licensed::MutexLock lock(c->mu);
      std::erase_if(c->calls, [](const auto& weak) { return weak.expired(); });
      c->calls.push_back(call);
    }
    const bool started = licensed::client::start_detached([call, client = c->client] {
      Answer a;
      try {
        a = client->check_at_startup(call->stop_token());
      } catch (...) {
        a.error = "INTERNAL";
        a.message = "the check failed inside the SDK";
      }
      call->deliver(std::move(a));
    });
    return started ? new lc_call{std::move(call)} : nullptr;
  } catch (...) {
    return nullptr;
  }
}

int lc_call_poll(lc_call* call, lc_status* status, lc_result** result) {
  if (result != nullptr) *result = nullptr;
  if (call == nullptr) return 0;
  try {
    auto a = call->call->poll();
    if (!a) return 0;
    const lc_status s = give(std::move(*a), result);
    if (status != nullptr) *status = s;
    return 1;
  } catch (...) {
    return 0;
  }
}

void lc_call_cancel(lc_call* call) {
  if (call != nullptr) call->call->cancel();
}

void lc_call_free(lc_call* call) {
  if (call == nullptr) return;
  call->call->cancel();
  delete call;
}

void lc_result_free(lc_result* r) {
  delete r;
}
lc_result* lc_result_copy(const lc_result* r) {
  if (r == nullptr) return nullptr;
  try {
    return new lc_result{r->answer};
  } catch (...) {
    return nullptr;
  }
}
lc_status lc_result_status(const lc_result* r) {
  return r != nullptr ? static_cast<lc_status>(r->answer.outcome) : LC_USAGE;
}
lc_source lc_result_source(const lc_result* r) {
  return r != nullptr ? static_cast<lc_source>(r->answer.source) : LC_SOURCE_NONE;
}
int lc_result_http_status(const lc_result* r) {
  return r != nullptr ? r->answer.http_status : 0;
}
int lc_result_api_code(const lc_result* r) {
  return r != nullptr ? r->answer.code : 0;
}
const char* lc_result_error(const lc_result* r) {
  return r != nullptr ? r->answer.error.c_str() : nullptr;
}
const char* lc_result_message(const lc_result* r) {
  return r != nullptr ? r->answer.message.c_str() : nullptr;
}
const char* lc_result_body(const lc_result* r) {
  return r != nullptr ? r->answer.body.c_str() : nullptr;
}
int lc_result_valid(const lc_result* r) {
  return r != nullptr && r->answer.valid ? 1 : 0;
}
int64_t lc_result_activations(const lc_result* r) {
  return r != nullptr && r->answer.activations ? *r->answer.activations : -1;
}
int64_t lc_result_max(const lc_result* r) {
  return r != nullptr && r->answer.max ? *r->answer.max : -1;
}
const char* lc_result_license_status(const lc_result* r) {
  return r != nullptr && r->answer.license_status ? r->answer.license_status->c_str() : nullptr;
}
const char* lc_result_dashboard_url(const lc_result* r) {
  return r != nullptr && r->answer.dashboard_url ? r->answer.dashboard_url->c_str() : nullptr;
}
int lc_result_attempts(const lc_result* r) {
  return r != nullptr ? r->answer.attempts : 0;
}
int64_t lc_result_valid_until(const lc_result* r) {
  return r != nullptr ? r->answer.valid_until.value_or(0) : 0;
}
int64_t lc_result_signed_at(const lc_result* r) {
  return r != nullptr ? r->answer.signed_at.value_or(0) : 0;
}
int lc_result_has_entitlement(const lc_result* r, const char* code) {
  return r != nullptr && code != nullptr && r->answer.has_entitlement(code) ? 1 : 0;
}
int lc_result_allowed_for_build(const lc_result* r, const char* code, int64_t build_date) {
  return r != nullptr && code != nullptr && r->answer.allowed_for_build(code, build_date) ? 1 : 0;
}
uint64_t lc_result_entitlement_count(const lc_result* r) {
  return r != nullptr ? r->answer.entitlements.size() : 0;
}
const char* lc_result_entitlement_code(const lc_result* r, uint64_t i) {
  if (r == nullptr || i >= r->answer.entitlements.size()) return nullptr;
  return r->answer.entitlements[i].code.c_str();
}
int64_t lc_result_entitlement_expires_at(const lc_result* r, uint64_t i) {
  if (r == nullptr || i >= r->answer.entitlements.size()) return 0;
  return r->answer.entitlements[i].expires_at.value_or(0);
}
int lc_result_entitlement_active(const lc_result* r, uint64_t i) {
  if (r == nullptr || i >= r->answer.entitlements.size()) return 0;
  return r->answer.entitlements[i].active ? 1 : 0;
}
const char* lc_result_entitlement_value(const lc_result* r, uint64_t i) {
  if (r == nullptr || i >= r->answer.entitlements.size()) return nullptr;
  const auto& v = r->answer.entitlements[i].value;
  return v ? v->c_str() : nullptr;
}
int lc_result_trial(const lc_result* r) {
  return r != nullptr && r->answer.trial ? 1 : 0;
}
int64_t lc_result_days_left(const lc_result* r) {
  return r != nullptr && r->answer.days_left ? *r->answer.days_left : -1;
}
const char* lc_result_license_key(const lc_result* r) {
  if (r == nullptr || r->answer.license_key.empty()) return nullptr;
  return r->answer.license_key.c_str();
}

const char* lc_result_file_text(const lc_result* r) {
  if (r == nullptr || r->answer.file_text.empty()) return nullptr;
  return r->answer.file_text.c_str();
}

const char* lc_result_warning(const lc_result* r) {
  if (r == nullptr || r->answer.warning.empty()) return nullptr;
  return r->answer.warning.c_str();
}

}  // extern "C"
