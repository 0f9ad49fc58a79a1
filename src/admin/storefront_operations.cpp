#include "admin/storefront_operations.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <map>

#include "admin/plan_operations.h"
#include "auth/crypto_primitives.h"
#include "auth/request_signature.h"
#include "core/hex.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

constexpr size_t kTokenBytes = 16;  // 128 bits (docs/protocol.md §22.1)
constexpr size_t kMaxNameChars = 200;
constexpr size_t kMaxSecretBytes = 1024;
constexpr size_t kMaxItemIdBytes = 256;
constexpr size_t kMaxMappings = 1000;

constexpr std::string_view kProviders[] = {
    "stripe", "paddle", "fastspring", "fastspring-generator", "lemonsqueezy", "gumroad"};

Error wrong(std::string_view member, std::string message) {
  return Error::invalid_argument(member, std::move(message));
}

Result<std::vector<std::string>> secrets_from(const boost::json::value* v, bool required) {
  std::vector<std::string> out;
  if (v == nullptr || v->is_null()) {
    if (required) return wrong("secret", "secret is required for this provider");
    return out;
  }
  auto take = [&](const boost::json::value& s) -> Status {
    if (!s.is_string() || s.get_string().empty() || s.get_string().size() > kMaxSecretBytes) {
      return wrong("secret", "a secret is a non-empty string of at most 1024 bytes");
    }
    out.emplace_back(s.get_string());
    return Ok{};
  };
  if (v->is_array()) {
    const auto& a = v->get_array();
    if (a.empty() || a.size() > kMaxStorefrontSecrets) {
      return wrong("secret", "secret is a string or a list of 1 to 3 strings");
    }
    for (const auto& s : a) RETURN_IF_ERROR(take(s));
  } else {
    RETURN_IF_ERROR(take(*v));
  }
  return out;
}

Result<std::vector<SkuMapping>> mapping_from(StoreTx& tx, const boost::json::value* v) {
  if (v == nullptr || !v->is_object()) {
    return wrong("mapping", "mapping is an object from item id to {product, plan, perUnit}");
  }
  const auto& o = v->get_object();
  if (o.size() > kMaxMappings) return wrong("mapping", "at most 1000 items");
  std::vector<SkuMapping> out;
  for (const auto& [item, target] : o) {
    if (item.empty() || item.size() > kMaxItemIdBytes) {
      return wrong("mapping", "an item id is 1 to 256 bytes");
    }
    if (!target.is_object()) return wrong("mapping", "each item maps to an object");
    const auto& t = target.get_object();
    const auto* product = t.if_contains("product");
    const auto* plan = t.if_contains("plan");
    const auto* per_unit = t.if_contains("perUnit");
    if (product == nullptr || !product->is_string()) {
      return wrong("mapping", "item " + std::string(item) + ": product is a product slug");
    }
    if (plan == nullptr || !plan->is_string()) {
      return wrong("mapping", "item " + std::string(item) + ": plan is a plan code");
    }
    if (per_unit != nullptr && !per_unit->is_bool()) {
      return wrong("mapping", "item " + std::string(item) + ": perUnit is a boolean");
    }
    ASSIGN_OR_RETURN(const auto found, tx.find_product(std::string(product->get_string())));
    if (!found) {
      return wrong("mapping", "item " + std::string(item) + ": unknown product " +
                                  std::string(product->get_string()));
    }
    ASSIGN_OR_RETURN(const auto p, tx.find_plan(found->id, std::string(plan->get_string())));
    if (!p) {
      return wrong("mapping", "item " + std::string(item) + ": unknown plan " +
                                  std::string(plan->get_string()));
    }
    out.push_back(SkuMapping{std::string(item), found->id, std::string(plan->get_string()),
                             per_unit != nullptr && per_unit->get_bool()});
  }
  return out;
}

// options.apiKey is a credential at the provider (Stripe's restricted key, FastSpring's
// user:password, Gumroad's access token): answers show that one is set, never its value.
constexpr std::string_view kHiddenOption = "***";

// The options a PATCH gives, with an apiKey of "***" (as a GET showed it) keeping the
// stored key, so options read, edited and sent back do not lose it.
boost::json::object options_keeping_hidden_key(boost::json::object given,
                                               std::string_view stored_json) {
  const auto* key = given.if_contains("apiKey");
  if (key == nullptr || !key->is_string() || key->get_string() != kHiddenOption) return given;
  boost::system::error_code ec;
  const boost::json::value stored = boost::json::parse(stored_json, ec);
  const auto* old = !ec && stored.is_object() ? stored.get_object().if_contains("apiKey") : nullptr;
  if (old != nullptr) {
    given["apiKey"] = *old;
  } else {
    given.erase("apiKey");
  }
  return given;
}

}  // namespace

bool is_store_provider(std::string_view provider) {
  for (auto p : kProviders) {
    if (p == provider) return true;
  }
  return false;
}

Result<CreatedStorefront> create_storefront(StoreTx& tx, const boost::json::object& body,
                                            std::string_view base_url, const AdminContext& ctx) {
  Storefront f;
  const auto* provider = body.if_contains("provider");
  if (provider == nullptr || !provider->is_string() || !is_store_provider(provider->get_string())) {
    return wrong("provider",
                 "provider is one of stripe, paddle, fastspring, fastspring-generator, "
                 "lemonsqueezy, gumroad");
  }
  f.provider = std::string(provider->get_string());
  const auto* name = body.if_contains("name");
  if (name == nullptr || !name->is_string() || name->get_string().empty() ||
      name->get_string().size() > kMaxNameChars) {
    return wrong("name", "name is a non-empty string of at most 200 bytes");
  }
  f.name = std::string(name->get_string());
  ASSIGN_OR_RETURN(f.secrets, secrets_from(body.if_contains("secret"), f.provider != "gumroad"));
  ASSIGN_OR_RETURN(const auto mappings, mapping_from(tx, body.if_contains("mapping")));
  if (const auto* options = body.if_contains("options"); options != nullptr) {
    if (!options->is_object()) return wrong("options", "options is an object");
    f.options_json = boost::json::serialize(*options);
  }
  if (const auto* grace = body.if_contains("paymentGrace"); grace != nullptr) {
    ASSIGN_OR_RETURN(const auto seconds, duration_member(*grace, "paymentGrace"));
    if (!seconds) return wrong("paymentGrace", "paymentGrace is a duration");
    f.payment_grace_seconds = *seconds;
  }
  uint8_t random[kTokenBytes];
  if (!crypto::random_bytes(random, sizeof random)) {
    return Error::internal("no random bytes for a store token");
  }
  CreatedStorefront out;
  out.token = to_hex(random, sizeof random);
  f.token_sha256_hex = sha256_hex(out.token);
  f.created_at = ctx.now;
  ASSIGN_OR_RETURN(out.storefront, tx.insert_storefront(f));
  for (const auto& m : mappings) RETURN_IF_ERROR(tx.put_sku_mapping(out.storefront.id, m));
  std::string base(base_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  out.inbound_url = base + "/api/v1/stores/" + f.provider + "/" +
                    std::to_string(out.storefront.id) + "/" + out.token;
  return out;
}

Result<Storefront> patch_storefront(StoreTx& tx, int64_t id, const boost::json::object& body) {
  ASSIGN_OR_RETURN(auto found, tx.find_storefront(id));
  if (!found) return Error::not_found("store", "no store " + std::to_string(id));
  Storefront f = std::move(*found);
  std::optional<std::vector<std::string>> secrets;
  std::optional<std::vector<SkuMapping>> mappings;
  for (const auto& [key, value] : body) {
    if (key == "name") {
      if (!value.is_string() || value.get_string().empty() ||
          value.get_string().size() > kMaxNameChars) {
        return wrong("name", "name is a non-empty string of at most 200 bytes");
      }
      f.name = std::string(value.get_string());
    } else if (key == "secret") {
      ASSIGN_OR_RETURN(secrets, secrets_from(&value, f.provider != "gumroad"));
    } else if (key == "mapping") {
      ASSIGN_OR_RETURN(mappings, mapping_from(tx, &value));
    } else if (key == "options") {
      if (!value.is_object()) return wrong("options", "options is an object");
      f.options_json =
          boost::json::serialize(options_keeping_hidden_key(value.get_object(), f.options_json));
    } else if (key == "paymentGrace") {
      ASSIGN_OR_RETURN(const auto seconds, duration_member(value, "paymentGrace"));
      if (!seconds) return wrong("paymentGrace", "paymentGrace is a duration");
      f.payment_grace_seconds = *seconds;
    } else {
      return wrong(key, "a store's " + std::string(key) + " cannot be changed");
    }
  }
  RETURN_IF_ERROR(tx.update_storefront(f));
  if (secrets) {
    RETURN_IF_ERROR(tx.replace_storefront_secrets(id, *secrets));
    f.secrets = *secrets;
  }
  if (mappings) RETURN_IF_ERROR(tx.replace_sku_mappings(id, *mappings));
  return f;
}

Result<boost::json::object> storefront_json(StoreTx& tx, const Storefront& f) {
  ASSIGN_OR_RETURN(const auto products, tx.list_products());
  std::map<int64_t, std::string> slugs;
  for (const auto& p : products) slugs[p.id] = p.slug;
  ASSIGN_OR_RETURN(const auto mappings, tx.list_sku_mappings(f.id));
  boost::json::object mapping;
  for (const auto& m : mappings) {
    mapping[m.item_id] = {
        {"product", slugs[m.product_id]}, {"plan", m.plan}, {"perUnit", m.per_unit}};
  }
  boost::system::error_code ec;
  boost::json::value options = boost::json::parse(f.options_json, ec);
  if (ec || !options.is_object()) options = boost::json::object();
  if (auto* key = options.get_object().if_contains("apiKey"); key != nullptr) *key = kHiddenOption;
  return boost::json::object{{"id", f.id},
                             {"provider", f.provider},
                             {"name", f.name},
                             {"mapping", std::move(mapping)},
                             {"options", std::move(options)},
                             {"paymentGrace", f.payment_grace_seconds},
                             {"secrets", f.secrets.size()},
                             {"createdAt", format_timestamp(f.created_at)}};
}

Result<std::optional<Storefront>> authenticate_storefront(StoreTx& tx, int64_t id,
                                                          std::string_view token) {
  ASSIGN_OR_RETURN(auto found, tx.find_storefront(id));
  // Hash whatever came, so a wrong id costs what a wrong token does.
  const std::string hash = sha256_hex(token);
  const std::string& stored = found ? found->token_sha256_hex : hash;
  const bool same =
      found && stored.size() == hash.size() &&
      crypto::equal_in_constant_time(reinterpret_cast<const uint8_t*>(stored.data()),
                                     reinterpret_cast<const uint8_t*>(hash.data()), hash.size());
  if (!same) return std::optional<Storefront>();
  return found;
}

Result<boost::json::array> list_storefronts_json(StoreTx& tx) {
  ASSIGN_OR_RETURN(const auto stores, tx.list_storefronts());
  boost::json::array out;
  for (const auto& f : stores) {
    ASSIGN_OR_RETURN(boost::json::object one, storefront_json(tx, f));
    out.push_back(std::move(one));
  }
  return out;
}

Result<boost::json::object> find_storefront_json(StoreTx& tx, int64_t id) {
  ASSIGN_OR_RETURN(const auto found, tx.find_storefront(id));
  if (!found) return Error::not_found("store", "no store " + std::to_string(id));
  return storefront_json(tx, *found);
}

Status remove_storefront(StoreTx& tx, int64_t id) {
  ASSIGN_OR_RETURN(const bool removed, tx.delete_storefront(id));
  if (!removed) return Error::not_found("store", "no store " + std::to_string(id));
  return Ok{};
}

std::optional<int64_t> parse_storefront_id(std::string_view text) {
  int64_t id = 0;
  if (text.empty() || text.size() > 18 || text.front() < '1' || text.front() > '9') {
    return std::nullopt;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

namespace {

// The source of a store's rejection records, written and searched for byte for byte.
std::string rejection_source(std::string_view provider, int64_t store_id) {
  return boost::json::serialize(boost::json::object{{"provider", provider}, {"storeId", store_id}});
}

}  // namespace

Status record_store_rejection(StoreTx& tx, const StoreRejection& r) {
  AuditEntry e;
  e.at = r.now;
  e.action = std::string(kStoreRejectedAction);
  e.actor = Actor::kStore;
  if (!r.ip.empty()) e.ip = r.ip;
  if (!r.request_id.empty()) e.request_id = r.request_id;
  e.reason = r.reason;
  std::optional<Storefront> store;
  if (const auto id = parse_storefront_id(r.id)) {
    ASSIGN_OR_RETURN(store, tx.find_storefront(*id));
  }
  // A URL naming no store of its provider is counted (the metric), not recorded: no
  // store's rejections would list the record, and each one is a write a prober could
  // repeat at will.
  if (!store || store->provider != r.provider) return Ok{};
  e.actor_name = store->name;
  e.source = rejection_source(store->provider, store->id);
  return tx.append_audit(e);
}

Result<std::vector<AuditEntry>> list_store_rejections(StoreTx& tx, int64_t id, int64_t past_id,
                                                      int64_t limit) {
  ASSIGN_OR_RETURN(const auto found, tx.find_storefront(id));
  if (!found) return Error::not_found("store", "no store " + std::to_string(id));
  return tx.list_keyless_audit(kStoreRejectedAction, rejection_source(found->provider, id), past_id,
                               limit);
}

}  // namespace licensed
