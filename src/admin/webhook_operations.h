// Webhook endpoints managed by the admin API and CLI (docs/protocol.md §25): create (the
// secret shown once, in that answer alone), list, show, change, delete, rotate the secret
// (the old one signs beside the new one for `keepOldFor`, 24 h by default), deliveries
// listed per endpoint and one made due again. Secrets never appear in any other answer.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/admin_operations.h"
#include "store/store_tx.h"

namespace licensed {

inline constexpr int64_t kDefaultKeepOldSecretSeconds = 24 * 3600;

// Checks a URL an endpoint is given before it is kept: scheme, userinfo and, unless
// private targets are allowed, the addresses its host resolves to (the dispatcher checks
// again when it connects). kInvalidArgument with subject "url".
using WebhookUrlCheck = std::function<Status(std::string_view url)>;

// The URL a create or patch body names, when it names one as a string: what is resolved
// and checked before the store transaction, never inside it (on SQLite that transaction
// holds the one writer; docs/protocol.md §25.1). nullopt when the body names none or does
// not parse (the call itself then refuses it).
std::optional<std::string> webhook_body_url(std::string_view body);
// The check a transaction runs with: `verdict`, what checking `url` came to beforehand;
// another URL is refused, since no one checked it.
WebhookUrlCheck checked_beforehand(std::string url, Status verdict);

// An endpoint and, when just created or rotated, its new secret.
struct WebhookEndpointShown {
  WebhookEndpoint endpoint;
  std::optional<std::string> secret;
};

// Body {"url", "events": ["*"] or types, "description"}.
Result<WebhookEndpointShown> create_webhook(StoreTx& tx, const boost::json::object& body,
                                            const WebhookUrlCheck& check, const AdminContext& ctx);
Result<WebhookEndpoint> find_webhook(StoreTx& tx, int64_t id, UnixMillis now);
// Body with any of "url", "events", "enabled", "description". Enabling clears the
// dispatcher's reason and failing time.
Result<WebhookEndpoint> patch_webhook(StoreTx& tx, int64_t id, const boost::json::object& body,
                                      const WebhookUrlCheck& check, const AdminContext& ctx);
Status delete_webhook(StoreTx& tx, int64_t id);
// Body {"keepOldFor": DURATION} ("0s": the old secret retires at once).
Result<WebhookEndpointShown> rotate_webhook_secret(StoreTx& tx, int64_t id,
                                                   const boost::json::object& body,
                                                   const AdminContext& ctx);
Status retry_webhook_delivery(StoreTx& tx, int64_t id, int64_t event_id, const AdminContext& ctx);

// {"id", "url", "events", "enabled", "description", "createdAt", "failingSince",
// "disabledReason"}, plus "secret" when shown.
boost::json::object webhook_json(const WebhookEndpointShown& shown);
// {"eventId", "type", "attempts", "lastStatus", "lastError", "nextAttemptAt",
// "deliveredAt", "failed"}.
boost::json::object webhook_delivery_json(const WebhookDelivery& d);

// An endpoint's or event's id from a path or the command line ("12", or "evt_12" as
// deliveries show an event's); nullopt when it is not one.
std::optional<int64_t> parse_webhook_id(std::string_view text);

}  // namespace licensed
