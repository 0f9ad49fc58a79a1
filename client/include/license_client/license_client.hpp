// A header-only C++ face over the C ABI: RAII for the client and results, std::string
// in and out. Only the C ABI crosses the shared library's boundary, so a plugin built
// with another compiler or standard library links the same binary.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "license_client/license_client.h"

namespace license_client {

class Result {
 public:
  explicit Result(lc_result* r) : r_(r, &lc_result_free) {}
  lc_status status() const { return lc_result_status(r_.get()); }
  bool ok() const { return status() == LC_OK; }
  lc_source source() const { return lc_result_source(r_.get()); }
  // "network", "cache", ...
  std::string source_name() const { return lc_source_string(source()); }
  // Unix seconds; nullopt when the answer is not one the SDK may use offline.
  std::optional<int64_t> valid_until() const {
    const int64_t t = lc_result_valid_until(r_.get());
    return t > 0 ? std::optional<int64_t>(t) : std::nullopt;
  }
  int http_status() const { return lc_result_http_status(r_.get()); }
  int api_code() const { return lc_result_api_code(r_.get()); }
  std::string error() const { return text(lc_result_error(r_.get())); }
  std::string message() const { return text(lc_result_message(r_.get())); }
  std::string body() const { return text(lc_result_body(r_.get())); }
  bool valid() const { return lc_result_valid(r_.get()) != 0; }
  std::optional<int64_t> activations() const { return count(lc_result_activations(r_.get())); }
  std::optional<int64_t> max() const { return count(lc_result_max(r_.get())); }
  std::optional<std::string> license_status() const {
    return maybe(lc_result_license_status(r_.get()));
  }
  std::optional<std::string> dashboard_url() const {
    return maybe(lc_result_dashboard_url(r_.get()));
  }
  // Entitlements (editions, features, "updates until"): see lc_result_has_entitlement.
  struct Entitlement {
    std::string code;
    std::optional<int64_t> expires_at;  // Unix seconds; nullopt: never
    bool active = false;
    std::optional<std::string> value;  // JSON text
  };
  std::vector<Entitlement> entitlements() const {
    std::vector<Entitlement> out;
    const uint64_t n = lc_result_entitlement_count(r_.get());
    for (uint64_t i = 0; i < n; ++i) {
      const int64_t t = lc_result_entitlement_expires_at(r_.get(), i);
      out.push_back({text(lc_result_entitlement_code(r_.get(), i)),
                     t > 0 ? std::optional<int64_t>(t) : std::nullopt,
                     lc_result_entitlement_active(r_.get(), i) != 0,
                     maybe(lc_result_entitlement_value(r_.get(), i))});
    }
    return out;
  }
  bool has_entitlement(const std::string& code) const {
    return lc_result_has_entitlement(r_.get(), code.c_str()) != 0;
  }
  bool allowed_for_build(const std::string& code, int64_t build_date) const {
    return lc_result_allowed_for_build(r_.get(), code.c_str(), build_date) != 0;
  }
  bool trial() const { return lc_result_trial(r_.get()) != 0; }
  std::optional<int64_t> days_left() const { return count(lc_result_days_left(r_.get())); }
  std::optional<std::string> license_key() const {
    return maybe(lc_result_license_key(r_.get()));
  }
  // Offline activation: the file an lc_offline_* call wrote, and a warning to show.
  std::optional<std::string> file_text() const { return maybe(lc_result_file_text(r_.get())); }
  std::optional<std::string> warning() const { return maybe(lc_result_warning(r_.get())); }

 private:
  static std::string text(const char* s) { return s != nullptr ? s : ""; }
  static std::optional<std::string> maybe(const char* s) {
    return s != nullptr ? std::optional<std::string>(s) : std::nullopt;
  }
  static std::optional<int64_t> count(int64_t n) {
    return n >= 0 ? std::optional<int64_t>(n) : std::nullopt;
  }
  std::unique_ptr<lc_result, void (*)(lc_result*)> r_;
};

// An asynchronous start-up check. Destroying it cancels the check: after that its
// callback is not running and will not run.
class Call {
 public:
  using Callback = std::function<void(Result)>;
  Call(lc_client* client, Callback callback)
      : callback_(std::make_unique<Callback>(std::move(callback))),
        c_(lc_check_at_startup_async(client, callback_ && *callback_ ? &Call::trampoline : nullptr,
                                     callback_.get()),
           &lc_call_free) {}
  // nullopt while it runs.
  std::optional<Result> poll() {
    lc_result* r = nullptr;
    if (lc_call_poll(c_.get(), nullptr, &r) == 0) return std::nullopt;
    return Result(r);
  }
  void cancel() { lc_call_cancel(c_.get()); }
  bool started() const { return c_ != nullptr; }

 private:
  static void trampoline(void* user, lc_status, const lc_result* r) {
    (*static_cast<Callback*>(user))(Result(lc_result_copy(r)));
  }
  std::unique_ptr<Callback> callback_;  // outlives c_: declared first, destroyed last
  std::unique_ptr<lc_call, void (*)(lc_call*)> c_;
};

class Client {
 public:
  // Throws std::invalid_argument with the SDK's reason when the options cannot work.
  explicit Client(const lc_options& options) : c_(nullptr, &lc_client_free) {
    char error[256] = {0};
    c_.reset(lc_client_new(&options, error, sizeof(error)));
    if (!c_) throw std::invalid_argument(error);
  }
  std::string machine_id() const { return lc_client_machine_id(c_.get()); }
  Result activate() { return call(&lc_activate); }
  Result heartbeat() { return call(&lc_heartbeat); }
  Result status() { return call(&lc_status_check); }
  Result deactivate() { return call(&lc_deactivate); }
  Result start_trial() { return call(&lc_start_trial); }
  Result check_at_startup() { return call(&lc_check_at_startup); }
  // No network, no wait: for constructors and plugin scans.
  Result check_cached() { return call(&lc_check_cached); }
  // Offline activation (no network): see lc_offline_request and the others.
  Result offline_request() { return call(&lc_offline_request); }
  Result install_activation_file(const std::string& path) {
    lc_result* r = nullptr;
    lc_offline_install_file(c_.get(), path.c_str(), &r);
    return Result(r);
  }
  Result install_activation_text(const std::string& text) {
    lc_result* r = nullptr;
    lc_offline_install_text(c_.get(), text.c_str(), &r);
    return Result(r);
  }
  Result offline_deactivate() { return call(&lc_offline_deactivate); }
  // Borrowed seats: see lc_seat_borrow and the others.
  Result borrow_seat(const std::string& duration) {
    lc_result* r = nullptr;
    lc_seat_borrow(c_.get(), duration.c_str(), &r);
    return Result(r);
  }
  Result return_seat() { return call(&lc_seat_return); }
  Result install_lease_file(const std::string& path) {
    lc_result* r = nullptr;
    lc_lease_install_file(c_.get(), path.c_str(), &r);
    return Result(r);
  }
  Result install_lease_text(const std::string& text) {
    lc_result* r = nullptr;
    lc_lease_install_text(c_.get(), text.c_str(), &r);
    return Result(r);
  }
  // The start-up check on the SDK's thread; `done` is called there once (empty: poll).
  std::unique_ptr<Call> check_at_startup_async(Call::Callback done = {}) {
    return std::make_unique<Call>(c_.get(), std::move(done));
  }

 private:
  Result call(lc_status (*fn)(lc_client*, lc_result**)) {
    lc_result* r = nullptr;
    fn(c_.get(), &r);
    return Result(r);
  }
  std::unique_ptr<lc_client, void (*)(lc_client*)> c_;
};

}  // namespace license_client
