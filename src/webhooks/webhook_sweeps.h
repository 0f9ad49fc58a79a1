// The webhook events no request makes (spec §18), written by a sweep the server runs every
// minute: license.expiring_soon (7 days before expiresAt), license.expired and
// license.entitlement_expired, each once per license and expiry (per entitlement code) across
// restarts and instances, since a mark in the store, taken in the event's own transaction,
// decides; and the outbox's pruning. activation.offline_expiring waits for offline
// activation (another branch): sweep_offline_expiring is its hook.
#pragma once

#include <cstdint>

#include "core/clock.h"
#include "store/store.h"

namespace licensed {

inline constexpr int64_t kExpiringSoonMs = 7LL * 86'400'000;
// How far back a sweep looks for an expiry it has not reported (a server down that long
// still reports it); marks outlive it (kWebhookAllKeptMs).
inline constexpr int64_t kExpiredLookbackMs = 86'400'000;
// Delivered and failed deliveries are kept this long, pending ones at most kWebhookAllKeptMs.
inline constexpr int64_t kWebhookRetentionMs = 7LL * 86'400'000;
inline constexpr int64_t kWebhookAllKeptMs = 30LL * 86'400'000;

// One round at `now`: answers how many events it wrote.
Result<int64_t> run_webhook_sweeps(Store& store, UnixMillis now);

// activation.offline_expiring (14 days before an offline file's expiresAt): offline
// activation is not on this branch yet, so there is nothing to report; the sweep calls it
// so that the event lands here when it is.
Result<int64_t> sweep_offline_expiring(Store& store, UnixMillis now);

// Forgets what the retention allows; answers how many events it forgot.
Result<int64_t> prune_webhook_outbox(Store& store, UnixMillis now);

}  // namespace licensed
