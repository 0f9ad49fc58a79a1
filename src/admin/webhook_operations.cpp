#include "admin/webhook_operations.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <charconv>

#include "auth/webhook_signature.h"
#include "core/license_json.h"
#include "core/timestamp.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr size_t kMaxDescriptionChars = 500;
constexpr size_t kMaxUrlChars = 2048;

Error refused(std::string_view field, std::string message) {
  return Error::invalid_argument(field, std::move(message));
}

Error unknown_endpoint(int64_t id) {
  return Error::not_found("id", "no webhook endpoint " + std::to_string(id));
}

Result<std::string> url_member(const json::value& v, const WebhookUrlCheck& check) {
  if (!v.is_string() || v.get_string().empty() || v.get_string().size() > kMaxUrlChars) {
    return refused("url", "url must be an http(s) URL of at most 2048 characters");
  }
  std::string url(v.get_string());
  if (check) RETURN_IF_ERROR(check(url));
  return url;
}

Result<std::vector<std::string>> events_member(const json::value& v) {
  if (!v.is_array() || v.get_array().empty()) {
    return refused("events", "events must be [\"*\"] or a list of event types");
  }
  std::vector<std::string> out;
  for (const auto& e : v.get_array()) {
    if (!e.is_string()) return refused("events", "each event type is a string");
    const std::string type(e.get_string());
    if (type != "*" && !is_webhook_event_type(type)) {
      return refused("events", "unknown event type " + type);
    }
    out.push_back(type);
  }
  return out;
}

Result<std::string> description_member(const json::value& v) {
  if (!v.is_string() || v.get_string().size() > kMaxDescriptionChars) {
    return refused("description", "description must be a string of at most 500 characters");
  }
  return std::string(v.get_string());
}

Status refuse_unknown_members(const json::object& body,
                              std::initializer_list<std::string_view> known) {
  for (const auto& [k, v] : body) {
    if (std::find(known.begin(), known.end(), std::string_view(k)) == known.end()) {
      return refused(k, "unknown member " + std::string(k));
    }
  }
  return Ok{};
}

Result<WebhookEndpoint> load(StoreTx& tx, int64_t id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto found, tx.find_webhook_endpoint(id, now));
  if (!found) return unknown_endpoint(id);
  return std::move(*found);
}

}  // namespace

std::optional<std::string> webhook_body_url(std::string_view body) {
  boost::system::error_code ec;
  const json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* url = v.get_object().if_contains("url");
  if (url == nullptr || !url->is_string()) return std::nullopt;
  return std::string(url->get_string());
}

WebhookUrlCheck checked_beforehand(std::string url, Status verdict) {
  return [url = std::move(url), verdict = std::move(verdict)](std::string_view given) -> Status {
    if (given != url) return refused("url", "the url was not checked");
    return verdict;
  };
}

std::optional<int64_t> parse_webhook_id(std::string_view text) {
  if (text.starts_with("evt_")) text.remove_prefix(4);  // an event id as deliveries show it
  int64_t id = 0;
  const auto [ptr, err] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (err != std::errc() || ptr != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

Result<WebhookEndpointShown> create_webhook(StoreTx& tx, const json::object& body,
                                            const WebhookUrlCheck& check, const AdminContext& ctx) {
  RETURN_IF_ERROR(refuse_unknown_members(body, {"url", "events", "description"}));
  const auto* url = body.if_contains("url");
  if (url == nullptr) return refused("url", "url is required");
  WebhookEndpoint w;
  ASSIGN_OR_RETURN(w.url, url_member(*url, check));
  if (const auto* events = body.if_contains("events")) {
    ASSIGN_OR_RETURN(w.events, events_member(*events));
  }
  if (const auto* d = body.if_contains("description")) {
    ASSIGN_OR_RETURN(w.description, description_member(*d));
  }
  w.created_at = ctx.now;
  ASSIGN_OR_RETURN(std::string secret, new_webhook_secret());
  w.secrets = {WebhookSecret{secret, ctx.now, std::nullopt}};
  ASSIGN_OR_RETURN(WebhookEndpoint made, tx.insert_webhook_endpoint(w));
  return WebhookEndpointShown{std::move(made), std::move(secret)};
}

Result<WebhookEndpoint> find_webhook(StoreTx& tx, int64_t id, UnixMillis now) {
  return load(tx, id, now);
}

Result<WebhookEndpoint> patch_webhook(StoreTx& tx, int64_t id, const json::object& body,
                                      const WebhookUrlCheck& check, const AdminContext& ctx) {
  RETURN_IF_ERROR(refuse_unknown_members(body, {"url", "events", "enabled", "description"}));
  ASSIGN_OR_RETURN(WebhookEndpoint w, load(tx, id, ctx.now));
  if (const auto* url = body.if_contains("url")) {
    ASSIGN_OR_RETURN(w.url, url_member(*url, check));
  }
  if (const auto* events = body.if_contains("events")) {
    ASSIGN_OR_RETURN(w.events, events_member(*events));
  }
  if (const auto* d = body.if_contains("description")) {
    ASSIGN_OR_RETURN(w.description, description_member(*d));
  }
  if (const auto* enabled = body.if_contains("enabled")) {
    if (!enabled->is_bool()) return refused("enabled", "enabled must be true or false");
    if (enabled->get_bool() && !w.enabled) {
      w.failing_since.reset();
      w.disabled_reason.reset();
    }
    w.enabled = enabled->get_bool();
  }
  RETURN_IF_ERROR(tx.update_webhook_endpoint(w));
  return w;
}

Status delete_webhook(StoreTx& tx, int64_t id) {
  ASSIGN_OR_RETURN(const bool deleted, tx.delete_webhook_endpoint(id));
  if (!deleted) return unknown_endpoint(id);
  return Ok{};
}

Result<WebhookEndpointShown> rotate_webhook_secret(StoreTx& tx, int64_t id,
                                                   const json::object& body,
                                                   const AdminContext& ctx) {
  RETURN_IF_ERROR(refuse_unknown_members(body, {"keepOldFor"}));
  int64_t keep_seconds = kDefaultKeepOldSecretSeconds;
  if (const auto* keep = body.if_contains("keepOldFor")) {
    const bool zero =
        keep->is_string() && (keep->get_string() == "0s" || keep->get_string() == "0");
    const auto parsed =
        keep->is_string() ? parse_duration_seconds(keep->get_string()) : std::nullopt;
    if (!zero && !parsed)
      return refused("keepOldFor", "keepOldFor must be a duration such as 24h or 0s");
    keep_seconds = zero ? 0 : *parsed;
  }
  ASSIGN_OR_RETURN(WebhookEndpoint w, load(tx, id, ctx.now));
  ASSIGN_OR_RETURN(std::string secret, new_webhook_secret());
  RETURN_IF_ERROR(tx.rotate_webhook_secret(id, secret, ctx.now, ctx.now + keep_seconds * 1000));
  ASSIGN_OR_RETURN(w, load(tx, id, ctx.now));
  return WebhookEndpointShown{std::move(w), std::move(secret)};
}

Status retry_webhook_delivery(StoreTx& tx, int64_t id, int64_t event_id, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const WebhookEndpoint w, load(tx, id, ctx.now));
  ASSIGN_OR_RETURN(const bool found, tx.retry_webhook_delivery(id, event_id, ctx.now));
  if (!found) {
    return Error::not_found("eventId", "no delivery of event " + std::to_string(event_id) +
                                           " to webhook endpoint " + std::to_string(id));
  }
  return Ok{};
}

json::object webhook_json(const WebhookEndpointShown& shown) {
  const WebhookEndpoint& w = shown.endpoint;
  json::array events;
  for (const auto& e : w.events) events.emplace_back(e);
  json::object o{{"id", w.id},
                 {"url", w.url},
                 {"events", std::move(events)},
                 {"enabled", w.enabled},
                 {"description", w.description},
                 {"createdAt", format_timestamp(w.created_at)},
                 {"failingSince", optional_timestamp_json(w.failing_since)},
                 {"disabledReason", w.disabled_reason ? json::value(*w.disabled_reason) : nullptr}};
  if (shown.secret) o["secret"] = *shown.secret;
  return o;
}

json::object webhook_delivery_json(const WebhookDelivery& d) {
  return {{"eventId", "evt_" + std::to_string(d.event_id)},
          {"type", d.type},
          {"timestamp", format_timestamp(d.event_at)},
          {"attempts", d.attempts},
          {"lastStatus", optional_int_json(d.last_status)},
          {"lastError", d.last_error ? json::value(*d.last_error) : nullptr},
          {"nextAttemptAt", optional_timestamp_json(d.next_attempt_at)},
          {"deliveredAt", optional_timestamp_json(d.delivered_at)},
          {"failed", d.failed}};
}

}  // namespace licensed
