#include "store/remembered_nonce_purge.h"

#include <spdlog/spdlog.h>

namespace licensed {

RememberedNoncePurge::RememberedNoncePurge(Store& store, const Clock& clock,
                                           std::chrono::milliseconds interval)
    : store_(store), clock_(clock), interval_(interval), thread_([this] { run(); }) {}

RememberedNoncePurge::~RememberedNoncePurge() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RememberedNoncePurge::run() {
  MutexLock lock(mu_);
  for (;;) {
    const auto next_purge = std::chrono::steady_clock::now() + interval_;
    // Until the next purge is due, or the destructor asks to stop.
    while (!stopping_) {
      if (lock.wait_until(wake_, next_purge) == std::cv_status::timeout) break;
    }
    if (stopping_) return;
    lock.unlock();
    const UnixMillis now = clock_.now_ms();
    // One short write transaction: the rows it deletes are past their expiry, which no
    // request touches any more, so it waits for nothing and nothing waits for it.
    auto purged = run_blocking(store_, TxKind::kWrite,
                               [&](StoreTx& tx) -> Status { return tx.purge_nonces(now); });
    if (!purged.ok()) {
      // Expired rows are ignored when nonces are loaded; the next round tries again.
      spdlog::warn("expired remembered nonces not purged: {}", purged.error().message);
    }
    lock.lock();
  }
}

}  // namespace licensed
