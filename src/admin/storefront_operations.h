// Stores a vendor sells through (docs/protocol.md §22.1) as the admin API and CLI manage them; both
// surfaces call these with a JSON body (the CLI builds it from its flags), so both are
// checked by the same rules: kInvalidArgument naming the member, nothing written.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "admin/admin_operations.h"
#include "store/storefront.h"

namespace licensed {

// The providers docs/protocol.md §22.1 names, in its order.
bool is_store_provider(std::string_view provider);

struct CreatedStorefront {
  Storefront storefront;
  // The inbound URL's token (128 random bits, lowercase hex): shown once, kept as SHA-256.
  std::string token;
  std::string inbound_url;  // {base_url}/api/v1/stores/{provider}/{id}/{token}
};

// POST /api/v1/admin/stores: {"provider", "name", "secret" (a string or up to 3; required
// but for gumroad), "mapping" ({item id: {"product", "plan", "perUnit"?}}), "options"?
// (an object), "paymentGrace"? (a duration, default 7d)}. Every mapping's product and plan
// must exist.
Result<CreatedStorefront> create_storefront(StoreTx& tx, const boost::json::object& body,
                                            std::string_view base_url, const AdminContext& ctx);

// PATCH /api/v1/admin/stores/{id}: any of name, secret (replaces them all), mapping
// (replaces it whole), options (replaces them), paymentGrace; any other member is refused
// (kInvalidArgument naming it). kNotFound (subject "store") when there is no such store.
Result<Storefront> patch_storefront(StoreTx& tx, int64_t id, const boost::json::object& body);

// The admin view of a store: id, provider, name, mapping (with product slugs), options,
// paymentGrace, createdAt, and how many secrets it has; never a secret nor the token.
Result<boost::json::object> storefront_json(StoreTx& tx, const Storefront& f);

// GET /api/v1/admin/stores: every store as storefront_json shows it, oldest first.
Result<boost::json::array> list_storefronts_json(StoreTx& tx);

// GET /api/v1/admin/stores/{id}; kNotFound (subject "store") when there is none.
Result<boost::json::object> find_storefront_json(StoreTx& tx, int64_t id);

// DELETE /api/v1/admin/stores/{id}: the store, its secrets, mapping, event and unit
// records go; the licenses it made stay. kNotFound (subject "store") when there is none.
Status remove_storefront(StoreTx& tx, int64_t id);

// A store's id as the URLs write it (decimal digits, no sign): nullopt for anything else.
std::optional<int64_t> parse_storefront_id(std::string_view text);

// ---- refused deliveries (docs/protocol.md §22.8: audited as store.rejected) -------------------

inline constexpr std::string_view kStoreRejectedAction = "store.rejected";

// A refused delivery as the inbound URL named it; `reason` is why (the metric's label).
struct StoreRejection {
  std::string provider;  // the URL's {provider}, as sent
  std::string id;        // the URL's {id}, as sent
  std::string reason;
  std::string ip;
  std::string request_id;
  UnixMillis now = 0;
};

// Writes the store.rejected audit record (no license, `source` naming the provider and
// store) when the URL's id is a store of the URL's provider (its token, signature or
// body was wrong); a URL naming no store is only counted by the caller: no store's
// rejections could list its record.
Status record_store_rejection(StoreTx& tx, const StoreRejection& rejection);

// The store.rejected records of store `id`, newest first, ids below `past_id` (0: from
// the newest), at most `limit`. kNotFound (subject "store") when there is no such store.
Result<std::vector<AuditEntry>> list_store_rejections(StoreTx& tx, int64_t id, int64_t past_id,
                                                      int64_t limit);

// The store whose id and inbound token these are, or nullopt: an unknown id and a wrong
// token are the same answer, and the token's hash is compared in constant time.
Result<std::optional<Storefront>> authenticate_storefront(StoreTx& tx, int64_t id,
                                                          std::string_view token);

}  // namespace licensed
