// The `fastspring` store provider (FastSpring webhooks, docs/protocol.md §22.3): X-FS-Signature
// over the body (auth/store_signatures.h), deliveries of several events read by
// admin/fastspring_event.h. Nothing is looked up: the events carry what fulfilment needs.
#include "admin/fastspring_event.h"
#include "admin/store_provider.h"
#include "auth/store_signatures.h"

namespace licensed {
namespace {

bool fastspring_authentic(const InboundDelivery& delivery, const Storefront& store) {
  // FastSpring sends the header name in varying case; the delivery's names are lower case.
  const auto header = delivery.header("x-fs-signature");
  return header && verify_fastspring_signature(*header, delivery.body, store.secrets);
}

Result<std::vector<StoreEvent>> fastspring_read_all(const InboundDelivery& delivery,
                                                    const Storefront& /*store*/) {
  return read_fastspring_events(delivery.body);
}

// One event per delivery is the shape `read` promises; a delivery of several is refused
// here so that a caller reading with `read` alone can never drop events silently.
Result<StoreEvent> fastspring_read(const InboundDelivery& delivery, const Storefront& store) {
  ASSIGN_OR_RETURN(std::vector<StoreEvent> events, fastspring_read_all(delivery, store));
  if (events.size() != 1) {
    return Error::invalid_argument("events", "several events: read them with read_store_events");
  }
  return std::move(events.front());
}

}  // namespace

const StoreProvider kFastSpringStoreProvider = {
    .name = "fastspring",
    .authentic = fastspring_authentic,
    .read = fastspring_read,
    .complete = nullptr,
    .answers_keys_as_text = false,
    .read_all = fastspring_read_all,
};

}  // namespace licensed
