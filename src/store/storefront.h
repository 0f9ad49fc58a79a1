// The stores a vendor sells through (docs/protocol.md §22.1), as the database keeps them. Called
// Storefront in the code so that "store" keeps meaning the database (Store, StoreTx).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"

namespace licensed {

// A store's id for one item on sale (Stripe's price id, Paddle's price id, FastSpring's
// product path, Lemon Squeezy's variant id, Gumroad's product id) and what a sale of it
// makes: licenses of `plan` of the product, one per unit or one for the whole quantity.
struct SkuMapping {
  std::string item_id;
  int64_t product_id = 0;
  std::string plan;
  bool per_unit = false;
};

inline constexpr int64_t kDefaultPaymentGraceSeconds = 7 * 86400;
// At most this many secrets at once, during a rotation (docs/protocol.md §22.1).
inline constexpr size_t kMaxStorefrontSecrets = 3;

struct Storefront {
  int64_t id = 0;        // assigned by the database
  std::string provider;  // "stripe", "paddle", "fastspring", ...
  std::string name;
  // The SHA-256 of the inbound URL's token: the token itself is shown once, at creation.
  std::string token_sha256_hex;
  // As given, in order: they key the providers' HMACs, so they cannot be hashed.
  std::vector<std::string> secrets;
  std::string options_json = "{}";  // a JSON object: apiKey, apiBase, testMode, ...
  int64_t payment_grace_seconds = kDefaultPaymentGraceSeconds;
  UnixMillis created_at = 0;
};

// A subscription period a renewal or cancellation cited, as recorded per order: the
// lifecycle never sets expiresAt from a period older than this one (docs/protocol.md §22.7).
// Periods are ordered by their start when both have one, else by their end.
struct OrderPeriod {
  std::optional<UnixMillis> start;
  UnixMillis end = 0;
};

// A failed payment of an order waiting out its store's paymentGrace: unless a payment
// arrives first, the sweep then suspends the order's licenses.
struct PendingPaymentFailure {
  int64_t store_id = 0;
  std::string order_id;
  UnixMillis failed_at = 0;
};

}  // namespace licensed
