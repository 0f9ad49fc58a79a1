// The `gumroad` store provider (docs/protocol.md §22.3, §22.6): unsigned pings, authentic by the
// URL's token (the handler's) and the seller id; every action decided from Gumroad's API
// (admin/gumroad_event.h).
#include "admin/gumroad_event.h"
#include "admin/store_provider.h"

namespace licensed {
namespace {

bool gumroad_delivery_authentic(const InboundDelivery& delivery, const Storefront& store) {
  return gumroad_authentic(delivery.body, store);
}

Result<StoreEvent> gumroad_read(const InboundDelivery& delivery, const Storefront& store) {
  return read_gumroad_event(delivery.body, store);
}

}  // namespace

const StoreProvider kGumroadStoreProvider = {
    .name = "gumroad",
    .authentic = gumroad_delivery_authentic,
    .read = gumroad_read,
    .complete = complete_gumroad_event,
};

}  // namespace licensed
