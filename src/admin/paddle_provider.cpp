// The `paddle` store provider (Paddle Billing, docs/protocol.md §22.3, §22.6): Paddle-Signature
// over
// "<ts>:<body>" (auth/store_signatures.h), events read by admin/paddle_event.h, a sale
// completed with its customer's email from Paddle's API.
#include "admin/paddle_event.h"
#include "admin/store_provider.h"
#include "auth/store_signatures.h"

namespace licensed {
namespace {

bool paddle_authentic(const InboundDelivery& delivery, const Storefront& store) {
  const auto header = delivery.header("paddle-signature");
  return header && verify_paddle_signature(*header, delivery.body, store.secrets, delivery.now);
}

Result<StoreEvent> paddle_read(const InboundDelivery& delivery, const Storefront& store) {
  return read_paddle_event(delivery.body, store);
}

Result<StoreEvent> paddle_complete(StoreEvent event, std::string_view api_answer,
                                   const Storefront& /*store*/) {
  return complete_paddle_event(std::move(event), api_answer);
}

}  // namespace

const StoreProvider kPaddleStoreProvider = {
    .name = "paddle",
    .authentic = paddle_authentic,
    .read = paddle_read,
    .complete = paddle_complete,
};

}  // namespace licensed
