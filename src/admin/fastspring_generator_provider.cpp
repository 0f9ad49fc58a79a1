// The `fastspring-generator` store provider (FastSpring's remote license generator,
// docs/protocol.md §22.3, §22.6): a form whose security_request_hash is checked
// (admin/fastspring_generator.h), confirmed through FastSpring's API, answered with the keys as
// text.
#include "admin/fastspring_generator.h"
#include "admin/store_provider.h"

namespace licensed {
namespace {

bool generator_authentic(const InboundDelivery& delivery, const Storefront& store) {
  return fastspring_generator_authentic(delivery.body, store);
}

Result<StoreEvent> generator_read(const InboundDelivery& delivery, const Storefront& store) {
  return read_fastspring_generator_event(delivery.body, store);
}

Result<StoreEvent> generator_complete(StoreEvent event, std::string_view api_answer,
                                      const Storefront& /*store*/) {
  return complete_fastspring_generator_event(std::move(event), api_answer);
}

}  // namespace

const StoreProvider kFastSpringGeneratorStoreProvider = {
    .name = "fastspring-generator",
    .authentic = generator_authentic,
    .read = generator_read,
    .complete = generator_complete,
    .answers_keys_as_text = true,
};

}  // namespace licensed
