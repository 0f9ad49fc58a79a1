// The server's StoreApiCaller (admin/store_provider.h): a provider API look-up (Stripe's
// line items, a Paddle customer, a FastSpring order, a Gumroad sale) made through the
// outgoing client under docs/protocol.md §24's rules for outgoing connections, with the operator's
// --webhook-allow-http, --webhook-allow-private and --outgoing-ca-file (docs/protocol.md §24: they
// govern store API calls, options.apiBase included).
//
// It lives in http/ because it joins two lower layers that do not know each other: admin
// (the StoreApiCaller seam) and outgoing (libcurl under the SSRF rules).
#pragma once

#include "admin/store_provider.h"
#include "config/serve_config.h"
#include "outgoing/outgoing_client.h"

namespace licensed {

// The outgoing policy the serve settings give.
OutgoingPolicy outgoing_policy(const ServeConfig& config);

class OutgoingStoreApiCaller final : public StoreApiCaller {
 public:
  // `limits`: the default leaves the inbound delivery time to answer within 2 s (docs/protocol.md
  // §22.9).
  explicit OutgoingStoreApiCaller(OutgoingPolicy policy, OutgoingLimits limits = {});

  // GET lookup.base + lookup.path_and_query with lookup.headers: the body of a 2xx answer.
  // Anything else is kUnavailable (the delivery answers 503 and the provider retries),
  // its message naming the scheme, host and port and why (a status, a refused address,
  // a timeout), never a header (Authorization) nor the path and query (access_token).
  //
  // BLOCKS for up to the total timeout: run it on a blocking pool, never on a network
  // (io_context) thread and never inside a store transaction. Thread-safe.
  Result<std::string> call(const ApiLookup& lookup) override;

 private:
  OutgoingClient client_;
  OutgoingLimits limits_;
};

}  // namespace licensed
