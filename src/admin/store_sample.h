// A correctly signed sample delivery for a store (issue 20 item 8, docs/stores.md
// "Testing a store end to end before going live"): the body and headers a provider would
// send for a sale of one item, or for the full refund of an order, signed with the
// store's secret exactly as the provider signs (auth/store_signatures.h). Pure: no
// network, no store; `licensed admin store send-sample` (admin/store_sample_cli.*) sends
// what this builds to the operator's own server.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

namespace licensed {

enum class SampleKind { kSale, kRefund };

struct SampleRequest {
  std::string provider;  // the {provider} of the inbound URL
  SampleKind kind = SampleKind::kSale;
  std::string item;  // the mapping key: a price id, product path, variant id, product id
  int64_t quantity = 1;
  std::string email = "buyer@example.com";
  std::string name = "Sample Buyer";
  // The order a sale makes (empty: a fresh one, so each sample is a new order) or the
  // order a refund cites (required).
  std::string order_id;
  // False: the event carries the provider's test-mode flag (the store acts on it only
  // with options.testMode true). Paddle has no such flag: its events are always live.
  bool live = false;
  // gumroad: the seller id pings carry (the store's options.sellerId).
  std::string seller_id;
  // fastspring-generator: the parameter names the generator sends (the store's
  // options.generatorParams, in any order).
  std::vector<std::string> generator_params;
};

struct SampleDelivery {
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  // the signature's, if any
  std::string body;
  std::string order_id;  // the order the delivery makes or cites
  // What the sample can and cannot show for this provider, for the operator.
  std::vector<std::string> notes;
};

// The parameters a FastSpring generator sends when the store lists none (docs/stores.md).
std::vector<std::string> default_generator_params();

// The provider named in an inbound URL or path (".../api/v1/stores/{provider}/{id}/{token}"),
// or kInvalidArgument (subject "url") when it is not one.
Result<std::string> sample_provider_of(std::string_view inbound_url);

// The delivery, signed with `secret` (unused by gumroad, which signs nothing) at `now`.
// kInvalidArgument for a request the provider cannot send (an unknown provider, a refund
// without an order, a refund from the FastSpring generator, a missing seller id).
Result<SampleDelivery> build_store_sample(const SampleRequest& request, std::string_view secret,
                                          UnixMillis now);

}  // namespace licensed
