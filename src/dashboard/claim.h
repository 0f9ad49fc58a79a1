// The claim page (docs/protocol.md §23):
// GET /claim/{storeId}/{id} shows the license keys of a Stripe Checkout session or a
// Lemon Squeezy order to whoever holds its unguessable id, for 30 days after the order.
// Here are its decisions and its HTML, without HTTP (http/claim_handler.* serves it):
// which ids are accepted, the look-up, the cut-off, and the pages, every text escaped.
//
// No oracle: an unknown store, a store of another provider, an id of the wrong shape, an
// order not (yet) fulfilled and one over 30 days old all find nothing, and nothing has
// one page, the same bytes for all of them. That page also serves a buyer who is faster
// than the store's webhook: it says the keys are being prepared and reloads itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "store/store_tx.h"

namespace licensed {

// The page answers this long after the order (its first license's creation).
inline constexpr int64_t kClaimLifetimeMs = 30LL * 86400 * 1000;
// The page that finds nothing reloads every kClaimRefreshSeconds, at most
// kClaimRefreshAttempts times (about five minutes): long enough for a late webhook, and a
// wrong link stops costing requests.
inline constexpr int kClaimRefreshSeconds = 5;
inline constexpr int kClaimRefreshAttempts = 60;

// The provider an id of this shape belongs to: "stripe" for a Checkout session id
// (cs_test_... or cs_live_..., then letters, digits and underscores), "lemonsqueezy" for
// an order identifier (a UUID, 8-4-4-4-12 hex digits); nullopt for anything else.
std::optional<std::string_view> claim_id_provider(std::string_view id);

// One key of the order as the page shows it.
struct ClaimedKey {
  std::string key;
  std::string product;  // the product's name
  std::string plan;     // the plan's name, else its code; empty when the license has none
  std::optional<UnixMillis> expires_at;
  // Set while expiry waits for the first activation (a plan with validFrom
  // "firstActivation"): the license runs this long from then.
  std::optional<int64_t> valid_for_pending_seconds;
  std::string status;  // the effective status: ACTIVE, EXPIRED, SUSPENDED, ...
};

struct ClaimedOrder {
  std::optional<std::string> customer_name;  // as the store gave it
  UnixMillis ordered_at = 0;                 // the first license's creation
  std::vector<ClaimedKey> keys;              // live licenses, in the order they were made
};

// The order `id` names in the store `store_id` (both as the URL wrote them), found by
// `id` as an order reference (fulfilment records the order id and, for Lemon Squeezy,
// the order's identifier as references) or as the order id itself; nullopt when there is
// nothing to show at `now` (see the file comment: every such case alike).
Result<std::optional<ClaimedOrder>> find_claimed_order(StoreTx& tx, std::string_view store_id,
                                                       std::string_view id, UnixMillis now);

// `text` safe inside HTML text and quoted attribute values: & < > " ' escaped.
std::string html_escape(std::string_view text);

// The page of an order's keys.
std::string claim_page_html(const ClaimedOrder& order);
// The page of every claim that finds nothing, the `attempt`th time it is shown (1: the
// first; the page asks for the next one when it reloads): keys being prepared, or a
// wrong or expired link. From kClaimRefreshAttempts on it no longer reloads.
std::string claim_waiting_html(int attempt);
// The page of a refused request (too many from this address).
std::string claim_busy_html(int64_t retry_after_seconds);
// The page of a request the server could not answer (the database failing).
std::string claim_failure_html();

// The `try` member of a query string ("try=3&x=y"), clamped to 1..kClaimRefreshAttempts;
// 1 when absent or not a number.
int claim_attempt_of(std::string_view query);

}  // namespace licensed
