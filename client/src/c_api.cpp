// The C ABI over licensed::client::Client. Every entry point catches everything: a C++
// exception (std::bad_alloc, in practice) must not unwind into a host written in C.
#include <cstddef>
#include <cstring>

#include "license_client.h"
#include "license_client/license_client.h"

struct lc_client {
  std::unique_ptr<licensed::client::Client> client;
};

struct lc_result {
  licensed::client::Answer answer;
};

namespace {

using licensed::client::Answer;
using licensed::client::Client;

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

lc_status run(lc_client* c, Answer (Client::*call)(), lc_result** result) {
  if (result != nullptr) *result = nullptr;
  if (c == nullptr || !c->client) return LC_USAGE;
  try {
    Answer a = ((*c->client).*call)();
    const auto status = static_cast<lc_status>(a.outcome);
    if (result != nullptr) *result = new lc_result{std::move(a)};
    return status;
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
    if (o->cache_dir != nullptr) config.cache_dir = o->cache_dir;
    config.host_install_path = text_or_empty(o->host_install_path);
    if (o->timeout_ms > 0) config.timeout = std::chrono::milliseconds(o->timeout_ms);
    if (o->startup_budget_ms > 0) {
      config.startup_budget = std::chrono::milliseconds(o->startup_budget_ms);
    }
    if (o->grace_seconds > 0) config.grace = std::chrono::seconds(o->grace_seconds);
    if (covers(*o, offsetof(lc_options, product), sizeof(o->product))) {
      config.product = text_or_empty(o->product);
    }
    std::string why;
    auto client = Client::create(std::move(config), why);
    if (!client) {
      copy_error(why, error, error_size);
      return nullptr;
    }
    return new lc_client{std::move(client)};
  } catch (const std::exception& e) {
    copy_error(e.what(), error, error_size);
    return nullptr;
  } catch (...) {
    copy_error("unknown error", error, error_size);
    return nullptr;
  }
}

void lc_client_free(lc_client* client) {
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
lc_status lc_deactivate(lc_client* c, lc_result** r) {
  return run(c, &Client::deactivate, r);
}
lc_status lc_check_at_startup(lc_client* c, lc_result** r) {
  return run(c, &Client::check_at_startup, r);
}

void lc_result_free(lc_result* r) {
  delete r;
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

}  // extern "C"
