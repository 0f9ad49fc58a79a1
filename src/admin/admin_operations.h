// Vendor operations on licenses, shared by the admin command line, the admin HTTP API
// and the customer dashboard. Every change writes an audit record with the context's
// actor: `admin` (and, over HTTP, the token's name), or `customer` from the dashboard.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/result.h"
#include "core/timestamp.h"
#include "store/store_tx.h"

namespace licensed {

struct AdminContext {
  // A constructor, so the callers that name only `now` and the token stay short.
  AdminContext(UnixMillis now_ms = 0, std::optional<std::string> name = std::nullopt,
               Actor who = Actor::kAdmin, std::optional<std::string> client_ip = std::nullopt)
      : now(now_ms), actor_name(std::move(name)), actor(who), ip(std::move(client_ip)) {}

  UnixMillis now = 0;
  std::optional<std::string> actor_name;  // the admin token's name, when there is one
  Actor actor = Actor::kAdmin;
  std::optional<std::string> ip;  // the client's address, recorded where known
  // The admin API request's X-Request-Id, kept in its audit records so support can find
  // the request in the logs (docs/protocol.md §26).
  std::optional<std::string> request_id;
  // Why, in the admin's words: kept in every audit record of the call (docs/protocol.md §17).
  std::optional<std::string> reason;
  // On changes a store event made (actor `store`, or `system` for the payment-grace
  // sweep): the JSON object {"provider", "storeId", "orderId"} of the order (docs/protocol.md
  // §22.5).
  std::optional<std::string> source;
};

// A reason is at most this many characters (Unicode code points).
inline constexpr size_t kMaxReasonCharacters = 500;
// kInvalidArgument naming `reason` when it is longer than kMaxReasonCharacters.
Status check_reason(const std::optional<std::string>& reason);

std::string generate_license_key();  // UUID v4 from the CSPRNG
// Lowercases a UUID v4; nullopt when it is not one.
std::optional<std::string> normalise_license_key(std::string_view text);
// parse_duration_seconds ("90s", "10m", "12h", "7d") lives in core/timestamp.h.

struct LicenseSpec {
  std::string product_slug;
  // Required unless a plan (given, or the product's defaultPlan) supplies it.
  std::optional<int64_t> max;
  std::optional<UnixMillis> expires_at;
  std::optional<int64_t> machine_ttl_seconds;
  LicenseStatus status = LicenseStatus::kActive;
  // Empty: a fresh random key. Set by fixtures whose seed requests name their licenses.
  std::string key;
  // The plan to copy (docs/protocol.md §20); nullopt: the product's defaultPlan, if any.
  // The members above and below, when given, override the plan's.
  std::optional<std::string> plan;
  // Given: replace the plan's entitlements of the same codes, and add the others.
  std::optional<std::vector<Entitlement>> entitlements;
  std::optional<int64_t> offline_grace_seconds;
  // docs/protocol.md §21.3, §21.5, §21.6: given, they override the plan's. Initialised here
  // so brace initialisations of the members above still compile without them (-Wextra).
  std::optional<int64_t> offline_lease_seconds{};
  std::optional<OfflineRelease> offline_release{};
  std::optional<int64_t> max_deactivations{};
  // docs/protocol.md §27: given, they override the plan's.
  std::optional<int64_t> max_concurrent{};
  std::optional<int64_t> lease_ttl_seconds{};
  std::optional<int64_t> max_borrow_seconds{};
};

Result<Product> create_product(StoreTx& tx, std::string_view slug, std::string_view name,
                               const AdminContext& ctx);
Result<License> create_license(StoreTx& tx, const LicenseSpec& spec, const AdminContext& ctx);
// docs/protocol.md §7's machine object plus `stale` (§10), as admins see activations.
boost::json::object activation_json(const Activation& activation,
                                    std::optional<UnixMillis> stale_before);
// The license of that key, deleted ones too; kNotFound (subjects::kLicenseKey) when
// there is none.
Result<License> find_any_license(StoreTx& tx, std::string_view key);
// The license (deleted ones too) with its activations, as `license show --json` prints.
Result<boost::json::object> show_license(StoreTx& tx, std::string_view key, UnixMillis now);
// Also forgets which store event set the status before (StoreTx::find_status_cause):
// whoever sets a status owns it, so a won dispute never undoes an admin's suspension.
Result<License> set_license_status(StoreTx& tx, std::string_view key, LicenseStatus status,
                                   const AdminContext& ctx);
Result<License> set_license_max(StoreTx& tx, std::string_view key, int64_t max,
                                const AdminContext& ctx);
Result<License> set_license_machine_ttl(StoreTx& tx, std::string_view key,
                                        std::optional<int64_t> ttl_seconds,
                                        const AdminContext& ctx);
Result<License> set_license_expiry(StoreTx& tx, std::string_view key,
                                   std::optional<UnixMillis> expires_at, const AdminContext& ctx);
// docs/protocol.md §21.3: offlineLease in seconds (> 0); nullopt: the default (90d).
Result<License> set_license_offline_lease(StoreTx& tx, std::string_view key,
                                          std::optional<int64_t> seconds, const AdminContext& ctx);
// docs/protocol.md §21.5: what an offline deactivation does to the slot.
Result<License> set_license_offline_release(StoreTx& tx, std::string_view key,
                                            OfflineRelease release, const AdminContext& ctx);
// docs/protocol.md §21.6: deactivations per rolling 30 days (>= 0); nullopt: the default (no
// limit, or 3 under offlineRelease "deactivation").
Result<License> set_license_max_deactivations(StoreTx& tx, std::string_view key,
                                              std::optional<int64_t> max, const AdminContext& ctx);
// The plan the license says it is on (docs/protocol.md §20): a plan code of its product,
// or nullopt for none; refused (1702, field plan) for a code the product does not have.
// Only the code changes: the license's max, expiry and entitlements stay as they are.
Result<License> set_license_plan(StoreTx& tx, std::string_view key,
                                 const std::optional<std::string>& plan, const AdminContext& ctx);

// The admin API's PATCH: each member given is one of the changes above (an inner
// nullopt clears expiresAt / machineTtl), applied in the caller's transaction.
struct LicensePatch {
  std::optional<std::vector<Entitlement>> entitlements;         // replaces the list
  std::optional<std::optional<int64_t>> offline_grace_seconds;  // inner nullopt: the default
  std::optional<LicenseStatus> status;
  std::optional<int64_t> max;
  std::optional<std::optional<UnixMillis>> expires_at;
  std::optional<std::optional<int64_t>> machine_ttl_seconds;
  std::optional<std::optional<int64_t>> offline_lease_seconds{};  // inner nullopt: the default
  std::optional<OfflineRelease> offline_release{};
  std::optional<std::optional<int64_t>> max_deactivations{};  // inner nullopt: the default
  std::optional<std::optional<std::string>> plan{};           // inner nullopt: no plan
  // docs/protocol.md §27 (admin/admin_leases.h); inner nullopt: null (no cap, the default
  // leaseTtl, no borrowing).
  std::optional<std::optional<int64_t>> max_concurrent{};
  std::optional<std::optional<int64_t>> lease_ttl_seconds{};
  std::optional<std::optional<int64_t>> max_borrow_seconds{};
};
Result<License> patch_license(StoreTx& tx, std::string_view key, const LicensePatch& patch,
                              const AdminContext& ctx);
// Undoes a soft delete (audit `license.update`); refused when the license is not deleted.
Result<License> restore_license(StoreTx& tx, std::string_view key, const AdminContext& ctx);
// Frees a slot: deletes the machine's activation (audit `license.deactivate` with the
// context's actor); kNotFound (subjects::kMachineId) when it is not activated.
Status remove_activation(StoreTx& tx, std::string_view key, std::string_view machine_id,
                         const AdminContext& ctx);
Result<License> delete_license(StoreTx& tx, std::string_view key, const AdminContext& ctx);
Result<boost::json::array> license_audit(StoreTx& tx, std::string_view key);

}  // namespace licensed
