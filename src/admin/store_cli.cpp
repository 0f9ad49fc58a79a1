#include "admin/store_cli.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>

#include "admin/cli_status.h"
#include "admin/cli_store.h"
#include "admin/store_sample_cli.h"
#include "admin/storefront_operations.h"
#include "store/store.h"

namespace licensed {
namespace {

namespace json = boost::json;

struct StoreArgs {
  std::string provider, name, id, payment_grace, public_url;
  std::vector<std::string> secrets, mappings, options;
  bool json_out = false;
};

using admin_cli::report;
using admin_cli::with_store;

// --map ITEM=PRODUCT:PLAN[:per-unit]; the item id is everything before the last '='
// that precedes the product (Stripe price ids hold no '=').
Result<std::pair<std::string, json::object>> mapping_flag(const std::string& flag) {
  const auto eq = flag.find('=');
  const auto bad = [&flag] {
    return Error::invalid_argument(
        "mapping", "--map " + flag + ": expected ITEM=PRODUCT:PLAN or ITEM=PRODUCT:PLAN:per-unit");
  };
  if (eq == std::string::npos || eq == 0) return bad();
  const std::string rest = flag.substr(eq + 1);
  const auto colon = rest.find(':');
  if (colon == std::string::npos) return bad();
  std::string plan = rest.substr(colon + 1);
  bool per_unit = false;
  if (const auto second = plan.find(':'); second != std::string::npos) {
    if (plan.substr(second + 1) != "per-unit") return bad();
    per_unit = true;
    plan = plan.substr(0, second);
  }
  return std::make_pair(
      flag.substr(0, eq),
      json::object{{"product", rest.substr(0, colon)}, {"plan", plan}, {"perUnit", per_unit}});
}

// The body create_storefront reads, from the flags.
Result<json::object> create_body(const StoreArgs& a) {
  json::object body{{"provider", a.provider}, {"name", a.name}};
  if (a.secrets.size() == 1) body["secret"] = a.secrets.front();
  if (a.secrets.size() > 1) {
    json::array list;
    for (const auto& secret : a.secrets) list.emplace_back(secret);
    body["secret"] = std::move(list);
  }
  json::object mapping;
  for (const auto& flag : a.mappings) {
    ASSIGN_OR_RETURN(auto entry, mapping_flag(flag));
    mapping[entry.first] = std::move(entry.second);
  }
  body["mapping"] = std::move(mapping);
  json::object options;
  for (const auto& flag : a.options) {
    const auto eq = flag.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error::invalid_argument("options", "--option " + flag + ": expected KEY=VALUE");
    }
    // true and false are booleans (testMode); a value starting with [ or { is JSON
    // (generatorParams is a list); anything else is text.
    const std::string value = flag.substr(eq + 1);
    if (value == "true" || value == "false") {
      options[flag.substr(0, eq)] = value == "true";
    } else if (value.starts_with('[') || value.starts_with('{')) {
      boost::system::error_code ec;
      json::value parsed = json::parse(value, ec);
      if (ec) {
        return Error::invalid_argument("options", "--option " + flag + ": the value is not JSON");
      }
      options[flag.substr(0, eq)] = std::move(parsed);
    } else {
      options[flag.substr(0, eq)] = value;
    }
  }
  body["options"] = std::move(options);
  if (!a.payment_grace.empty()) body["paymentGrace"] = a.payment_grace;
  return body;
}

void add_create(CLI::App& group, const std::shared_ptr<StoreArgs>& a, const AdminStore* store,
                const std::shared_ptr<std::function<int()>>& chosen) {
  auto* create = group.add_subcommand("create", "add a store; prints its inbound URL, once");
  create
      ->add_option("--provider", a->provider,
                   "stripe, paddle, fastspring, fastspring-generator, lemonsqueezy or gumroad")
      ->required();
  create->add_option("--name", a->name, "a name for the store")->required();
  create->add_option("--secret", a->secrets,
                     "the provider's signing secret (repeat during a rotation, at most 3)");
  create->add_option("--map", a->mappings,
                     "ITEM=PRODUCT:PLAN[:per-unit]: what a sale of the store's item makes");
  create->add_option(
      "--option", a->options,
      "KEY=VALUE: apiKey, apiBase, testMode=true, generatorParams=[\"reference\",...]");
  create->add_option("--payment-grace", a->payment_grace,
                     "access kept after a failed payment (default 7d)");
  create->add_option("--public-url", a->public_url,
                     "the server's public address the inbound URL starts with (else a path)");
  create->add_flag("--json", a->json_out, "print the store as JSON, inboundUrl included");
  create->callback([a, store, chosen] {
    *chosen = [a, store] {
      auto body = create_body(*a);
      if (!body.ok()) return report(body.error());
      return with_store(*store, [&](Store& s) {
        const AdminContext ctx{SystemClock().now_ms(), std::nullopt};
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) -> Result<json::object> {
          ASSIGN_OR_RETURN(const CreatedStorefront made,
                           create_storefront(tx, body.value(), a->public_url, ctx));
          ASSIGN_OR_RETURN(json::object out, storefront_json(tx, made.storefront));
          out["inboundUrl"] = made.inbound_url;
          return out;
        });
        if (!r.ok()) return report(r.error());
        if (a->json_out) {
          std::cout << json::serialize(r.value()) << "\n";
          return kExitOk;
        }
        std::cout << "store " << r->at("id").as_int64() << " created\n"
                  << "inbound URL (shown once): " << r->at("inboundUrl").as_string().c_str()
                  << "\n";
        return kExitOk;
      });
    };
  });
}

}  // namespace

void add_store_commands(CLI::App& admin, const AdminStore* store,
                        const std::shared_ptr<std::function<int()>>& chosen) {
  auto a = std::make_shared<StoreArgs>();
  auto* group = admin
                    .add_subcommand("store",
                                    "the stores a vendor sells through (sales make "
                                    "licenses)")
                    ->require_subcommand(1);
  add_create(*group, a, store, chosen);
  add_store_sample_command(*group, chosen);

  auto* list = group->add_subcommand("list", "list the stores (never their secrets)");
  list->add_flag("--json", a->json_out, "print a JSON array");
  list->callback([a, store, chosen] {
    *chosen = [a, store] {
      return with_store(*store, [&](Store& s) {
        auto r =
            run_blocking(s, TxKind::kRead, [](StoreTx& tx) { return list_storefronts_json(tx); });
        if (!r.ok()) return report(r.error());
        if (a->json_out) {
          std::cout << json::serialize(r.value()) << "\n";
          return kExitOk;
        }
        for (const auto& v : r.value()) {
          const auto& o = v.as_object();
          std::cout << o.at("id").as_int64() << "  " << o.at("provider").as_string().c_str() << "  "
                    << o.at("name").as_string().c_str() << "  "
                    << o.at("mapping").as_object().size() << " mapped item(s)\n";
        }
        return kExitOk;
      });
    };
  });

  auto* del = group->add_subcommand("delete", "delete a store (the licenses it made stay)");
  del->add_option("ID", a->id, "the store's id")->required();
  del->callback([a, store, chosen] {
    *chosen = [a, store] {
      const auto id = parse_storefront_id(a->id);
      if (!id) return report(Error::not_found("store", "no store " + a->id));
      return with_store(*store, [&](Store& s) {
        auto r = run_blocking(s, TxKind::kWrite, [&](StoreTx& tx) -> Result<Ok> {
          RETURN_IF_ERROR(remove_storefront(tx, *id));
          return Ok{};
        });
        if (!r.ok()) return report(r.error());
        std::cout << "deleted store " << *id << "\n";
        return kExitOk;
      });
    };
  });
}

}  // namespace licensed
