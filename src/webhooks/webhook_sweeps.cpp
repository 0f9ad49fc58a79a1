#include "webhooks/webhook_sweeps.h"

#include "core/timestamp.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

constexpr int64_t kPage = 100;

// The event once per `mark`, in the caller's transaction: true when it was written.
Result<bool> once(StoreTx& tx, const std::string& mark, std::string_view type, const License& l,
                  UnixMillis now, const boost::json::object& extra = {}) {
  ASSIGN_OR_RETURN(const bool fresh, tx.take_webhook_mark(mark, now, std::nullopt));
  if (!fresh) return false;
  RETURN_IF_ERROR(record_license_event(tx, type, l, now, Actor::kSystem, extra));
  return true;
}

std::string expiry_mark(std::string_view type, const License& l) {
  return std::string(type) + ":" + l.key + ":" + std::to_string(l.expires_at.value_or(0));
}

// Pages of licenses whose expiresAt is in (from, to], each page in one write transaction.
Result<int64_t> sweep_expiries(Store& store, UnixMillis from, UnixMillis to, std::string_view type,
                               UnixMillis now) {
  int64_t written = 0;
  int64_t after_id = 0;
  for (;;) {
    auto page = run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) -> Result<int64_t> {
      ASSIGN_OR_RETURN(const auto found, tx.licenses_expiring_between(from, to, after_id, kPage));
      for (const License& l : found) {
        ASSIGN_OR_RETURN(const bool wrote, once(tx, expiry_mark(type, l), type, l, now));
        written += wrote ? 1 : 0;
        after_id = l.id;
      }
      return static_cast<int64_t>(found.size());
    });
    if (!page.ok()) return page.error();
    if (page.value() < kPage) return written;
  }
}

Result<int64_t> entitlements_of(StoreTx& tx, const License& l, UnixMillis now) {
  int64_t written = 0;
  for (const auto& e : l.entitlements) {
    if (!e.expires_at || *e.expires_at > now || *e.expires_at <= now - kExpiredLookbackMs) continue;
    const std::string mark = std::string(webhook_event::kEntitlementExpired) + ":" + l.key + ":" +
                             e.code + ":" + std::to_string(*e.expires_at);
    boost::json::object entitlement{{"code", e.code},
                                    {"expiresAt", format_timestamp(*e.expires_at)}};
    ASSIGN_OR_RETURN(const bool wrote, once(tx, mark, webhook_event::kEntitlementExpired, l, now,
                                            {{"entitlement", std::move(entitlement)}}));
    written += wrote ? 1 : 0;
  }
  return written;
}

Result<int64_t> sweep_entitlements(Store& store, UnixMillis now) {
  int64_t written = 0;
  int64_t after_id = 0;
  for (;;) {
    auto page = run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) -> Result<int64_t> {
      ASSIGN_OR_RETURN(const auto found, tx.licenses_with_entitlements(after_id, kPage));
      for (const License& l : found) {
        ASSIGN_OR_RETURN(const int64_t n, entitlements_of(tx, l, now));
        written += n;
        after_id = l.id;
      }
      return static_cast<int64_t>(found.size());
    });
    if (!page.ok()) return page.error();
    if (page.value() < kPage) return written;
  }
}

// activation.offline_expiring for each of the license's offline files ending within
// kOfflineExpiringMs, once per file: a renewal's new file (a new id) is reported again.
Result<int64_t> offline_files_of(StoreTx& tx, const License& l, UnixMillis now) {
  int64_t written = 0;
  ASSIGN_OR_RETURN(const auto activations, tx.list_activations(l.id));
  for (const Activation& a : activations) {
    if (!a.offline() || a.deactivated() || *a.offline_until <= now ||
        *a.offline_until > now + kOfflineExpiringMs) {
      continue;
    }
    const std::string mark = std::string(webhook_event::kOfflineExpiring) + ":" + l.key + ":" +
                             a.machine_id + ":" + a.offline_file_id.value_or("");
    boost::json::object machine{{"id", a.machine_id},
                                {"offline", true},
                                {"offlineUntil", format_timestamp(*a.offline_until)}};
    ASSIGN_OR_RETURN(const bool wrote, once(tx, mark, webhook_event::kOfflineExpiring, l, now,
                                            {{"machine", std::move(machine)}}));
    written += wrote ? 1 : 0;
  }
  return written;
}

}  // namespace

Result<int64_t> run_webhook_sweeps(Store& store, UnixMillis now) {
  ASSIGN_OR_RETURN(const int64_t soon, sweep_expiries(store, now, now + kExpiringSoonMs,
                                                      webhook_event::kExpiringSoon, now));
  ASSIGN_OR_RETURN(const int64_t expired, sweep_expiries(store, now - kExpiredLookbackMs, now,
                                                         webhook_event::kExpired, now));
  ASSIGN_OR_RETURN(const int64_t entitlements, sweep_entitlements(store, now));
  ASSIGN_OR_RETURN(const int64_t offline, sweep_offline_expiring(store, now));
  return soon + expired + entitlements + offline;
}

Result<int64_t> sweep_offline_expiring(Store& store, UnixMillis now) {
  int64_t written = 0;
  int64_t after_id = 0;
  for (;;) {
    auto page = run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) -> Result<int64_t> {
      ASSIGN_OR_RETURN(const auto found, tx.licenses_with_offline_ending_between(
                                             now, now + kOfflineExpiringMs, after_id, kPage));
      for (const License& l : found) {
        ASSIGN_OR_RETURN(const int64_t n, offline_files_of(tx, l, now));
        written += n;
        after_id = l.id;
      }
      return static_cast<int64_t>(found.size());
    });
    if (!page.ok()) return page.error();
    if (page.value() < kPage) return written;
  }
}

Result<int64_t> prune_webhook_outbox(Store& store, UnixMillis now) {
  return run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) {
    return tx.prune_webhook_outbox(now - kWebhookRetentionMs, now - kWebhookAllKeptMs);
  });
}

}  // namespace licensed
