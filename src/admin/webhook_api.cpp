#include "admin/webhook_api.h"

#include "admin/list_page.h"
#include "admin/webhook_operations.h"
#include "core/request_body.h"

namespace licensed {
namespace {

namespace json = boost::json;

Result<int64_t> endpoint_id_of(const AdminCall& call) {
  const auto id = parse_webhook_id(call.webhook_id);
  if (!id) return Error::not_found("id", "no webhook endpoint " + call.webhook_id);
  return *id;
}

RequestResult<AdminAnswer> list_endpoints(StoreTx& tx, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const auto endpoints, tx.list_webhook_endpoints(ctx.now));
  json::array items;
  for (const auto& w : endpoints) items.push_back(webhook_json({w, std::nullopt}));
  return AdminAnswer{200, json::object{{"items", std::move(items)}, {"nextCursor", nullptr}}};
}

// Newest event first, in pages keyed by event id.
RequestResult<AdminAnswer> list_deliveries(StoreTx& tx, const AdminCall& call, int64_t id,
                                           const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const WebhookEndpoint w, find_webhook(tx, id, ctx.now));
  ASSIGN_OR_RETURN(const PageRequest page, admin_page_of(call));
  ASSIGN_OR_RETURN(const int64_t before, after_id(page));
  ASSIGN_OR_RETURN(auto rows, tx.list_webhook_deliveries(w.id, before, page.limit + 1));
  return AdminAnswer{
      200, page_json(std::move(rows), page.limit, webhook_delivery_json,
                     [](const WebhookDelivery& d) { return std::to_string(d.event_id); })};
}

RequestResult<AdminAnswer> retry(StoreTx& tx, const AdminCall& call, int64_t id,
                                 const AdminContext& ctx) {
  const auto event_id = parse_webhook_id(call.event_id);
  if (!event_id) return Error::not_found("eventId", "no event " + call.event_id);
  RETURN_IF_ERROR(retry_webhook_delivery(tx, id, *event_id, ctx));
  return AdminAnswer{200, json::object{{"ok", true}}};
}

RequestResult<AdminAnswer> endpoint_call(StoreTx& tx, const AdminCall& call, int64_t id,
                                         const AdminContext& ctx) {
  switch (call.route) {
    case AdminRoute::kPatchWebhook: {
      ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
      ASSIGN_OR_RETURN(const WebhookEndpoint w,
                       patch_webhook(tx, id, body, call.check_webhook_url, ctx));
      return AdminAnswer{200, webhook_json({w, std::nullopt})};
    }
    case AdminRoute::kDeleteWebhook:
      RETURN_IF_ERROR(delete_webhook(tx, id));
      return AdminAnswer{200, json::object{{"ok", true}}};
    case AdminRoute::kRotateWebhookSecret: {
      ASSIGN_OR_RETURN(const json::object body,
                       parse_json_object_body(call.body.empty() ? "{}" : call.body));
      ASSIGN_OR_RETURN(const WebhookEndpointShown shown, rotate_webhook_secret(tx, id, body, ctx));
      return AdminAnswer{200, webhook_json(shown)};
    }
    case AdminRoute::kListWebhookDeliveries:
      return list_deliveries(tx, call, id, ctx);
    case AdminRoute::kRetryWebhookDelivery:
      return retry(tx, call, id, ctx);
    default: {
      ASSIGN_OR_RETURN(const WebhookEndpoint w, find_webhook(tx, id, ctx.now));
      return AdminAnswer{200, webhook_json({w, std::nullopt})};
    }
  }
}

}  // namespace

RequestResult<AdminAnswer> webhook_call(StoreTx& tx, const AdminCall& call,
                                        const AdminContext& ctx) {
  if (call.route == AdminRoute::kListWebhooks) return list_endpoints(tx, ctx);
  if (call.route == AdminRoute::kCreateWebhook) {
    ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
    ASSIGN_OR_RETURN(const WebhookEndpointShown made,
                     create_webhook(tx, body, call.check_webhook_url, ctx));
    // The secret's only appearance, with rotate-secret's answer.
    return AdminAnswer{201, webhook_json(made)};
  }
  ASSIGN_OR_RETURN(const int64_t id, endpoint_id_of(call));
  return endpoint_call(tx, call, id, ctx);
}

}  // namespace licensed
