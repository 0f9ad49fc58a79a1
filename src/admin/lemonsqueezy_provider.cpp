// The `lemonsqueezy` store provider (docs/protocol.md §22.3): X-Signature over the body
// (auth/store_signatures.h), events read by admin/lemonsqueezy_event.h, invoices completed
// with their subscription from Lemon Squeezy's API.
#include "admin/lemonsqueezy_event.h"
#include "admin/store_provider.h"
#include "auth/store_signatures.h"

namespace licensed {
namespace {

bool lemonsqueezy_authentic(const InboundDelivery& delivery, const Storefront& store) {
  const auto header = delivery.header("x-signature");
  return header && verify_lemonsqueezy_signature(*header, delivery.body, store.secrets);
}

Result<StoreEvent> lemonsqueezy_read(const InboundDelivery& delivery, const Storefront& store) {
  return read_lemonsqueezy_event(delivery.body, store);
}

Result<StoreEvent> lemonsqueezy_complete(StoreEvent event, std::string_view api_answer,
                                         const Storefront& /*store*/) {
  return complete_lemonsqueezy_event(std::move(event), api_answer);
}

}  // namespace

const StoreProvider kLemonSqueezyStoreProvider = {
    .name = "lemonsqueezy",
    .authentic = lemonsqueezy_authentic,
    .read = lemonsqueezy_read,
    .complete = lemonsqueezy_complete,
};

}  // namespace licensed
