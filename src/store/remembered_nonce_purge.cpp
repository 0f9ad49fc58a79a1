#include "store/remembered_nonce_purge.h"

#include <spdlog/spdlog.h>

namespace licensed {
namespace {

void purge_expired_nonces(Store& store, const Clock& clock) {
  const UnixMillis now = clock.now_ms();
  // One short write transaction: the rows it deletes are past their expiry, which no
  // request touches any more, so it waits for nothing and nothing waits for it.
  auto purged = run_blocking(store, TxKind::kWrite,
                             [&](StoreTx& tx) -> Status { return tx.purge_nonces(now); });
  if (!purged.ok()) {
    // Expired rows are ignored when nonces are loaded; the next round tries again.
    spdlog::warn("expired remembered nonces not purged: {}", purged.error().message);
  }
}

}  // namespace

RememberedNoncePurge::RememberedNoncePurge(Store& store, const Clock& clock,
                                           std::chrono::milliseconds interval)
    : job_(interval, [&store, &clock] { purge_expired_nonces(store, clock); }) {}

}  // namespace licensed
