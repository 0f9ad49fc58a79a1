// The webhook events no request makes (docs/protocol.md §25), written by a sweep the server runs
// every minute: license.expiring_soon (7 days before expiresAt), license.expired and
// license.entitlement_expired, each once per license and expiry (per entitlement code) across
// restarts and instances, since a mark in the store, taken in the event's own transaction,
// decides; activation.offline_expiring once per offline file; and the outbox's pruning.
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

// activation.offline_expiring: within 14 days of an offline file's expiresAt (the
// activation's offline_until), once per file; a deactivated one is not reported.
inline constexpr int64_t kOfflineExpiringMs = 14LL * 86'400'000;
Result<int64_t> sweep_offline_expiring(Store& store, UnixMillis now);

// Forgets what the retention allows; answers how many events it forgot.
Result<int64_t> prune_webhook_outbox(Store& store, UnixMillis now);

}  // namespace licensed
