#include <algorithm>

#include "admin/store_provider.h"
#include "admin/stripe_provider.h"

namespace licensed {

const std::vector<const StoreProvider*>& store_providers() {
  // One line per provider, in the order of docs/protocol.md §22.1's list.
  static const std::vector<const StoreProvider*> all = {
      &stripe_provider(),          &kPaddleStoreProvider,
      &kFastSpringStoreProvider,   &kFastSpringGeneratorStoreProvider,
      &kLemonSqueezyStoreProvider, &kGumroadStoreProvider,
  };
  return all;
}

const StoreProvider* find_store_provider(std::string_view name) {
  const auto& all = store_providers();
  const auto it = std::find_if(all.begin(), all.end(),
                               [name](const StoreProvider* p) { return p->name == name; });
  return it == all.end() ? nullptr : *it;
}

Result<std::vector<StoreEvent>> read_store_events(const StoreProvider& provider,
                                                  const InboundDelivery& delivery,
                                                  const Storefront& store) {
  if (provider.read_all != nullptr) return provider.read_all(delivery, store);
  ASSIGN_OR_RETURN(StoreEvent event, provider.read(delivery, store));
  std::vector<StoreEvent> out;
  out.push_back(std::move(event));
  return out;
}

}  // namespace licensed
