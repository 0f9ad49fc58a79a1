#include "admin/webhook_cli.h"

#include <boost/json/serialize.hpp>
#include <iostream>

#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "admin/webhook_operations.h"
#include "outgoing/outgoing_client.h"
#include "store/store.h"

namespace licensed {
namespace {

namespace json = boost::json;

struct WebhookArgs {
  std::string url, description, id;
  std::vector<std::string> events;
  bool json_out = false;
  OutgoingPolicy policy;  // what the URL is checked against here; serve checks again
};

using admin_cli::report;
using admin_cli::with_store;

json::object create_body(const WebhookArgs& a) {
  json::array events;
  for (const auto& e : a.events) events.emplace_back(e);
  if (events.empty()) events.emplace_back("*");
  json::object body{{"url", a.url}, {"events", std::move(events)}};
  if (!a.description.empty()) body["description"] = a.description;
  return body;
}

int run_create(const WebhookArgs& a, const AdminStore& store) {
  return with_store(store, [&](Store& s) {
    const AdminContext ctx{SystemClock().now_ms(), std::nullopt};
    // Resolved here, before the transaction: never while it holds the store's writer.
    const WebhookUrlCheck check =
        checked_beforehand(a.url, check_outgoing_destination(a.url, a.policy));
    auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) {
      return create_webhook(tx, create_body(a), check, ctx);
    });
    if (!r.ok()) return report(r.error());
    if (a.json_out) {
      std::cout << json::serialize(webhook_json(r.value())) << "\n";
      return kExitOk;
    }
    std::cout << "webhook endpoint " << r->endpoint.id << " created\n"
              << "secret (shown once): " << *r->secret << "\n";
    return kExitOk;
  });
}

int run_list(const WebhookArgs& a, const AdminStore& store) {
  return with_store(store, [&](Store& s) {
    const UnixMillis now = SystemClock().now_ms();
    auto r = run_blocking(s, TxKind::kRead,
                          [now](StoreTx& tx) { return tx.list_webhook_endpoints(now); });
    if (!r.ok()) return report(r.error());
    json::array items;
    for (const auto& w : r.value()) items.push_back(webhook_json({w, std::nullopt}));
    if (a.json_out) {
      std::cout << json::serialize(items) << "\n";
      return kExitOk;
    }
    for (const auto& w : r.value()) {
      std::cout << w.id << "  " << (w.enabled ? "enabled " : "disabled") << "  " << w.url << "\n";
    }
    return kExitOk;
  });
}

int run_delete(const WebhookArgs& a, const AdminStore& store) {
  const auto id = parse_webhook_id(a.id);
  if (!id) return report(Error::not_found("id", "no webhook endpoint " + a.id));
  return with_store(store, [&](Store& s) {
    auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) -> Result<Ok> {
      RETURN_IF_ERROR(delete_webhook(tx, *id));
      return Ok{};
    });
    if (!r.ok()) return report(r.error());
    std::cout << "deleted webhook endpoint " << *id << "\n";
    return kExitOk;
  });
}

}  // namespace

void add_webhook_commands(CLI::App& admin, const AdminStore* store,
                          const std::shared_ptr<std::function<int()>>& chosen) {
  auto a = std::make_shared<WebhookArgs>();
  auto* group = admin.add_subcommand("webhook", "endpoints that hear of every change (webhooks)")
                    ->require_subcommand(1);
  auto* create = group->add_subcommand("create", "add an endpoint; prints its secret, once");
  create->add_option("--url", a->url, "where events are POSTed (https)")->required();
  create->add_option("--event", a->events, "an event type it takes (repeat; default: all)");
  create->add_option("--description", a->description, "what it is for");
  create->add_flag("--webhook-allow-http", a->policy.allow_http, "accept an http:// URL");
  create->add_flag("--webhook-allow-private", a->policy.allow_private,
                   "accept a host on a loopback, private or link-local address");
  create->add_flag("--json", a->json_out, "print the endpoint as JSON, secret included");
  create->callback([a, store, chosen] { *chosen = [a, store] { return run_create(*a, *store); }; });

  auto* list = group->add_subcommand("list", "list the endpoints (never their secrets)");
  list->add_flag("--json", a->json_out, "print a JSON array");
  list->callback([a, store, chosen] { *chosen = [a, store] { return run_list(*a, *store); }; });

  auto* del = group->add_subcommand("delete", "delete an endpoint with its pending deliveries");
  del->add_option("ID", a->id, "the endpoint's id")->required();
  del->callback([a, store, chosen] { *chosen = [a, store] { return run_delete(*a, *store); }; });
}

}  // namespace licensed
