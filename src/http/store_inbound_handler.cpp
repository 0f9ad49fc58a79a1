#include "http/store_inbound_handler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/beast/http/field.hpp>
#include <memory>

#include "admin/store_lifecycle.h"
#include "admin/storefront_operations.h"
#include "http/bucket_check.h"
#include "http/client_address.h"
#include "http/routes.h"
#include "observability/internal_error.h"

namespace licensed {
namespace {

namespace http = boost::beast::http;

// A provider answering with one page after another: bounded, so a delivery's work is.
constexpr int kMaxLookups = 10;
// Deliveries waiting on a provider's API at once (StoreInboundHandler::waiting_look_ups_).
constexpr int kMaxWaitingLookUps = 64;
constexpr int64_t kRetryAfterSeconds = 30;

// One delivery on its way through the steps; shared by the callbacks that carry it.
struct Delivery {
  const StoreInboundConfig* config = nullptr;
  std::string provider_name;
  std::string id_text;
  std::string token;
  InboundDelivery in;
  std::string client_ip;
  std::string request_id;
  std::string masked_path;
  HttpReply reply;
  const StoreProvider* provider = nullptr;
  // Every event of the delivery (FastSpring sends several), applied together.
  std::vector<StoreEvent> events;
  std::atomic<int>* waiting_look_ups = nullptr;  // the handler's count
};

// Holds one place among the deliveries waiting on a provider's API, released however the
// look-up ends (the delivery's last owner lets it go).
class WaitingLookUp {
 public:
  explicit WaitingLookUp(std::atomic<int>* count) : count_(count) {}
  ~WaitingLookUp() { count_->fetch_sub(1); }
  WaitingLookUp(const WaitingLookUp&) = delete;
  WaitingLookUp& operator=(const WaitingLookUp&) = delete;

 private:
  std::atomic<int>* count_;
};
using DeliveryPtr = std::shared_ptr<Delivery>;

// What the read transaction found: a rejection's reason, or the store and its events.
struct Checked {
  std::optional<std::string> rejected;
  Storefront store;
  std::vector<StoreEvent> events;
};

HttpResponse bare_response(unsigned status, std::string_view request_id) {
  HttpResponse res = json_response(status, {}, request_id);
  res.body().clear();
  res.erase(http::field::content_type);
  res.prepare_payload();
  return res;
}

void answer_failure(const DeliveryPtr& d, const Error& e) {
  if (e.code == StatusCode::kUnavailable) {
    spdlog::warn("store delivery {} (request {}) answered 503: {}", d->masked_path, d->request_id,
                 e.message);
    return d->reply(
        error_response(errors::unavailable(kRetryAfterSeconds, e.message), d->request_id));
  }
  spdlog::error("store delivery {} (request {}) failed: {}", d->masked_path, d->request_id,
                e.message);
  report_internal_error(d->config->error_reporter, "store", d->masked_path, d->request_id, "",
                        d->config->clock->now_ms());
  d->reply(error_response(errors::internal(), d->request_id));
}

void reject(const DeliveryPtr& d, std::string reason) {
  if (d->config->metrics != nullptr) {
    d->config->metrics->record_store_rejected(d->provider_name, reason);
  }
  StoreRejection r{d->provider_name, d->id_text,    std::move(reason),
                   d->client_ip,     d->request_id, d->config->clock->now_ms()};
  // Answered once the record is written, so whoever reads the rejections next sees it;
  // a record that could not be written still answers the same.
  submit_call<Ok>(
      *d->config->store, TxKind::kWrite,
      [r = std::move(r)](StoreTx& tx) -> Result<Ok> {
        RETURN_IF_ERROR(record_store_rejection(tx, r));
        return Ok{};
      },
      [d](const Result<Ok>& written) {
        if (!written.ok()) {
          spdlog::warn("store.rejected for {} not recorded: {}", d->masked_path,
                       written.error().message);
        }
        d->reply(bare_response(400, d->request_id));
      });
}

void answer(const DeliveryPtr& d, const StoreOutcome& outcome) {
  if (!d->provider->answers_keys_as_text) {
    return d->reply(json_response(200, boost::json::object{{"ok", true}}, d->request_id));
  }
  HttpResponse res = bare_response(200, d->request_id);
  std::string keys;
  for (const auto& key : outcome.license_keys) keys.append(key).append("\n");
  res.body() = std::move(keys);
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  res.prepare_payload();
  d->reply(std::move(res));
}

// The events acted on, in one write transaction with the store as it is now: all of a
// delivery or none (a failure rolls back the events applied before it, so the
// provider's retry finds none of them recorded). The keys answered are every event's.
void apply(const DeliveryPtr& d, int64_t store_id) {
  const Clock* clock = d->config->clock;
  submit_call<StoreOutcome>(
      *d->config->store, TxKind::kWrite,
      [d, store_id, clock](StoreTx& tx) -> Result<StoreOutcome> {
        ASSIGN_OR_RETURN(const auto store, tx.find_storefront(store_id));
        if (!store) return Error::not_found("store", "the store was deleted meanwhile");
        StoreOutcome all;
        for (const StoreEvent& event : d->events) {
          ASSIGN_OR_RETURN(StoreOutcome one, apply_store_event(tx, *store, event, clock->now_ms()));
          all.license_keys.insert(all.license_keys.end(), one.license_keys.begin(),
                                  one.license_keys.end());
        }
        return all;
      },
      [d](const Result<StoreOutcome>& outcome) {
        if (outcome.ok()) return answer(d, outcome.value());
        const Error& e = outcome.error();
        if (e.code == StatusCode::kInvalidArgument) return reject(d, "malformed");
        if (e.code == StatusCode::kNotFound && e.subject == "store") {
          return reject(d, "unknown_store");
        }
        // A mapping naming a plan since deleted, the store failing: the provider retries.
        answer_failure(d, e.code == StatusCode::kNotFound ? Error::unavailable(e.message) : e);
      });
}

bool needs_look_up(const std::vector<StoreEvent>& events) {
  return std::any_of(events.begin(), events.end(),
                     [](const StoreEvent& e) { return e.lookup.has_value(); });
}

// The provider's API completes each event that needs it, at most kMaxLookups calls in
// all; on a worker, outside any transaction.
void look_up(const DeliveryPtr& d, const Storefront& store) {
  int calls = 0;
  for (StoreEvent& event : d->events) {
    for (; calls < kMaxLookups && event.lookup; ++calls) {
      StoreApiCaller* caller = d->config->api_caller;
      Result<std::string> body =
          caller != nullptr ? caller->call(*event.lookup)
                            : Result<std::string>(Error::unavailable("no store API client"));
      if (!body.ok()) {
        return answer_failure(d,
                              Error::unavailable("the " + d->provider_name +
                                                 " API look-up failed: " + body.error().message));
      }
      auto completed = d->provider->complete(std::move(event), body.value(), store);
      if (!completed.ok()) {
        if (completed.error().code == StatusCode::kInvalidArgument) return reject(d, "malformed");
        return answer_failure(d, completed.error());
      }
      event = std::move(completed.value());
    }
  }
  if (needs_look_up(d->events)) return reject(d, "malformed");
  apply(d, store.id);
}

// A duplicate delivery changes nothing and answers 200 (docs/protocol.md §22.4): an event recorded
// before needs no look-up, so a retry is answered even while the provider's API is down.
Status skip_look_ups_of_recorded_events(StoreTx& tx, int64_t store_id,
                                        std::vector<StoreEvent>& events) {
  for (StoreEvent& event : events) {
    if (!event.lookup) continue;
    ASSIGN_OR_RETURN(const auto recorded, tx.find_storefront_event(store_id, event.event_key));
    if (recorded) event.lookup.reset();
  }
  return Ok{};
}

// Store, provider, authenticity and the event's reading, in a read transaction.
void check(const DeliveryPtr& d) {
  submit_call<Checked>(
      *d->config->store, TxKind::kRead,
      [d](StoreTx& tx) -> Result<Checked> {
        Checked out;
        // A name that is no id finds no store, at the cost of one that is.
        const int64_t id = parse_storefront_id(d->id_text).value_or(0);
        ASSIGN_OR_RETURN(const auto found, authenticate_storefront(tx, id, d->token));
        const StoreProvider* provider = find_store_provider(d->provider_name);
        if (!found || provider == nullptr || found->provider != d->provider_name) {
          out.rejected = "unknown_store";
          return out;
        }
        if (!provider->authentic(d->in, *found)) {
          out.rejected = "authenticity";
          return out;
        }
        auto events = read_store_events(*provider, d->in, *found);
        if (!events.ok() && events.error().code == StatusCode::kInvalidArgument) {
          out.rejected = "malformed";
          return out;
        }
        if (!events.ok()) return events.error();
        RETURN_IF_ERROR(skip_look_ups_of_recorded_events(tx, found->id, events.value()));
        out.store = *found;
        out.events = std::move(events.value());
        return out;
      },
      [d](Result<Checked> checked) {
        if (!checked.ok()) return answer_failure(d, checked.error());
        if (checked->rejected) return reject(d, *checked->rejected);
        d->provider = find_store_provider(d->provider_name);
        d->events = std::move(checked->events);
        d->in.body = std::string();  // read: only the events go on
        if (!needs_look_up(d->events)) return apply(d, checked->store.id);
        if (d->waiting_look_ups->fetch_add(1) >= kMaxWaitingLookUps) {
          d->waiting_look_ups->fetch_sub(1);
          return answer_failure(d, Error::unavailable("too many deliveries wait on a store API"));
        }
        auto place = std::make_shared<WaitingLookUp>(d->waiting_look_ups);
        RedisWorkers* workers = d->config->workers;
        if (workers == nullptr) return look_up(d, checked->store);
        workers->submit([d, place, store = std::move(checked->store)] { look_up(d, store); });
      });
}

std::string lower_case(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

bool is_store_inbound_path(std::string_view path) {
  return api_path_of(path).starts_with(kStoreInboundPrefix);
}

std::optional<StoreInboundTarget> parse_store_inbound_path(std::string_view path) {
  std::string_view rest = api_path_of(path);
  if (!rest.starts_with(kStoreInboundPrefix)) return std::nullopt;
  rest.remove_prefix(kStoreInboundPrefix.size());
  StoreInboundTarget t;
  std::string_view* parts[] = {&t.provider, &t.id, &t.token};
  for (size_t i = 0; i < 3; ++i) {
    const size_t slash = rest.find('/');
    if ((slash == std::string_view::npos) != (i == 2)) return std::nullopt;
    *parts[i] = rest.substr(0, slash);
    if (parts[i]->empty()) return std::nullopt;
    rest = i == 2 ? std::string_view() : rest.substr(slash + 1);
  }
  return t;
}

std::string masked_store_path(std::string_view path) {
  const auto t = parse_store_inbound_path(path);
  if (!t) {
    // Not an inbound URL; whatever follows the prefix may still hold a token.
    if (!is_store_inbound_path(path)) return std::string(path);
    const size_t at = path.find(kStoreInboundPrefix);
    return std::string(path.substr(0, at + kStoreInboundPrefix.size())) + "***";
  }
  return std::string(path.substr(0, static_cast<size_t>(t->token.data() - path.data()))) + "***";
}

ApiResult<Route> StoreInboundHandler::route(std::string_view method, std::string_view path) const {
  if (!parse_store_inbound_path(path)) return errors::route_not_found();
  if (method != "POST") return errors::method_not_allowed("POST");
  return Route{StoreRoute::kInbound, "store"};
}

void StoreInboundHandler::serve(const Route&, const HttpRequest& request, const RequestContext& ctx,
                                HttpReply reply) const {
  const auto target = parse_store_inbound_path(ctx.path);
  auto d = std::make_shared<Delivery>();
  d->config = &config_;
  d->waiting_look_ups = &waiting_look_ups_;
  d->provider_name = std::string(target->provider);
  d->id_text = std::string(target->id);
  d->token = std::string(target->token);
  for (const auto& field : request) {
    // A repeated header keeps its first value (store_provider.h).
    d->in.headers.emplace(lower_case(field.name_string()), std::string(field.value()));
  }
  d->in.body = request.body();
  d->in.now = config_.clock->now_ms();
  d->client_ip = std::string(ctx.client_ip);
  d->request_id = std::string(ctx.request_id);
  d->masked_path = masked_store_path(ctx.path);
  d->reply = std::move(reply);
  if (config_.ip_limiter == nullptr) return check(d);
  // Check 3; a delivery that waited on Redis goes on from its worker (the next step is a
  // store job, which never runs on the caller's thread anyway).
  check_bucket(config_.ip_limiter, ip_bucket_key(ctx.client_ip), "ip", d->in.now,
               [d](std::optional<ApiError> refused) {
                 if (!refused) return check(d);
                 if (d->config->metrics != nullptr) d->config->metrics->record_rate_limited("ip");
                 d->reply(error_response(*refused, d->request_id));
               });
}

void StoreInboundHandler::finish_response(HttpResponse& res, const HttpRequestHeader*, const Route&,
                                          std::string_view path) const {
  if (res.result_int() == 200) return;
  if (res.result_int() == 413) {
    // Refused before serving: no client address here, the request id is the answer's.
    const auto target = parse_store_inbound_path(path);
    const auto id_header = res.find("X-Request-Id");
    const std::string request_id =
        id_header == res.end() ? std::string() : std::string(id_header->value());
    if (target && config_.metrics != nullptr) {
      config_.metrics->record_store_rejected(target->provider, "too_large");
    }
    if (target && too_large_records_.admit(config_.clock->now_ms())) {
      StoreRejection r{
          std::string(target->provider), std::string(target->id), "too_large", "", request_id,
          config_.clock->now_ms()};
      submit_call<Ok>(
          *config_.store, TxKind::kWrite,
          [r = std::move(r)](StoreTx& tx) -> Result<Ok> {
            RETURN_IF_ERROR(record_store_rejection(tx, r));
            return Ok{};
          },
          [](const Result<Ok>&) {});
    }
  }
  res.body().clear();
  res.erase(http::field::content_type);
  res.prepare_payload();
}

}  // namespace licensed
