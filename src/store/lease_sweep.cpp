#include "store/lease_sweep.h"

#include <spdlog/spdlog.h>

#include "core/lease_operations.h"

namespace licensed {
namespace {

constexpr int64_t kPage = 100;

struct Page {
  int64_t licenses = 0;  // read; fewer than kPage: the last page
  int64_t last_id = 0;   // the next page starts after it
  int64_t released = 0;
};

// The licenses of one page, each locked (in id order, as every sweeping instance takes them,
// so two sweeps never wait on each other crosswise) and rid of its ended leases.
Result<Page> release_page(StoreTx& tx, UnixMillis now, int64_t after_id) {
  ASSIGN_OR_RETURN(const auto refs, tx.licenses_with_ended_leases(now, after_id, kPage));
  Page page;
  page.licenses = static_cast<int64_t>(refs.size());
  page.last_id = after_id;
  for (const LicenseRef& ref : refs) {
    page.last_id = ref.id;
    ASSIGN_OR_RETURN(const auto locked, tx.lock_license(ref.key));
    if (!locked) continue;  // gone since the page was read
    ASSIGN_OR_RETURN(const int64_t n, release_ended_leases(tx, *locked, now));
    page.released += n;
  }
  return page;
}

void sweep(Store& store, const Clock& clock) {
  auto swept = sweep_ended_leases(store, clock.now_ms());
  if (!swept.ok()) {
    // Nothing is lost: the ended leases stay, uncounted, and the next round takes them.
    spdlog::warn("ended leases not swept: {}", swept.error().message);
  } else if (swept.value() > 0) {
    spdlog::info("lease sweep: {} ended leases released", swept.value());
  }
}

}  // namespace

Result<int64_t> sweep_ended_leases(Store& store, UnixMillis now) {
  int64_t released = 0;
  int64_t after_id = 0;
  for (;;) {
    auto page = run_blocking(store, TxKind::kWrite,
                             [&](StoreTx& tx) { return release_page(tx, now, after_id); });
    if (!page.ok()) return page.error();
    released += page->released;
    after_id = page->last_id;
    if (page->licenses < kPage) return released;
  }
}

LeaseSweep::LeaseSweep(Store& store, const Clock& clock, std::chrono::milliseconds interval)
    : job_(interval, [&store, &clock] { sweep(store, clock); }) {
  sweep(store, clock);
}

}  // namespace licensed
