// The four License API operations (docs/protocol.md §7 to §10) as plain functions of
// (request, store transaction, context). They know nothing of HTTP; the cap is
// enforced in activate(), under the license's row lock (LicenseTx::lock_license).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/license_tx.h"
#include "core/request_body.h"
#include "core/request_error.h"

namespace licensed {

// The identities a trial is kept by (docs/protocol.md §20): HMACs under the server's own
// trial key, so the store holds no raw machine id or email for them. Implemented in auth.
class TrialIdentity {
 public:
  virtual ~TrialIdentity() = default;
  virtual std::string machine(std::string_view machine_id) const = 0;
  // `email` lowercased already.
  virtual std::string email(std::string_view email) const = 0;
};

struct OperationContext {
  UnixMillis now = 0;
  std::string_view ip;
  std::string_view key_id;
  std::string_view request_id;
  // The signing key's product binding; empty: the key serves every product.
  const std::vector<std::string>* bound_products = nullptr;
  const std::optional<std::string>* dashboard_url = nullptr;
  // Needed by trial() and by activate() of a trial license; null: no trials.
  const TrialIdentity* trial_identity = nullptr;
  // Makes a new license key (a UUID v4 from the CSPRNG); empty on failure.
  std::string (*new_license_key)() = nullptr;
  // Who asks: the client (the License API), the customer (the dashboard), the admin (with
  // the token's name). Audit records carry it; the deactivation quota counts the first two.
  Actor actor = Actor::kClient;
  std::string_view actor_name{};
  // An offline file's own signing key's product binding (docs/protocol.md §21.2); null or
  // empty: none beyond bound_products.
  const std::vector<std::string>* inner_bound_products = nullptr;
  // Makes an activation file id: 128 random bits in hex from the CSPRNG; empty on failure.
  std::string (*new_activation_id)() = nullptr;
};

// Each returns the 200 body, or why not: a refusal the contract names (1703 unknown key,
// 1704 inactive, 1705 limit reached, 1707 machine not activated) as the ApiError the client
// gets, or the store's failure as an internal Error, which the License API translates
// (to_api_error) and whose transaction is rolled back (see must_roll_back). The refusals
// are chosen here, not translated from an internal status, because they carry the
// domain's own payload (the effective status, the counts, the dashboard URL): an internal
// status holding all that would be the wire error again under another name.
// activate() needs a write transaction: it locks the license row.
RequestResult<boost::json::object> activate(LicenseTx& tx, const LicenseRequest& req,
                                            const OperationContext& ctx);
RequestResult<boost::json::object> heartbeat(LicenseTx& tx, const LicenseRequest& req,
                                             const OperationContext& ctx);
RequestResult<boost::json::object> status(LicenseTx& tx, const LicenseRequest& req,
                                          const OperationContext& ctx);
RequestResult<boost::json::object> deactivate(LicenseTx& tx, const LicenseRequest& req,
                                              const OperationContext& ctx);

// Offline activation (docs/protocol.md §21.2), for every way a file comes in (the License
// API, the dashboard, the admin API): `req` is the file's inner body with its `offline`
// origin, checked already (signature, age). offline_activate answers as activate (1703,
// 1704, 1705) or with the activate answer plus `activationFile` holding the file's payload
// JSON text, which the surface signs and armours (auth/offline_files.h) before it answers:
// the core holds no key. The same request nonce answers the same payload again; a new one
// renews (new id and end). offline_deactivate frees (or, with offlineRelease "expiry",
// marks) the machine whose latest file `req.offline->activation_id` names; 1703, 1707, 1711.
inline constexpr std::string_view kActivationFileMember = "activationFile";
RequestResult<boost::json::object> offline_activate(LicenseTx& tx, const LicenseRequest& req,
                                                    const OperationContext& ctx);
RequestResult<boost::json::object> offline_deactivate(LicenseTx& tx, const LicenseRequest& req,
                                                      const OperationContext& ctx);

// Whether a checkout would renew a live lease of its machine and session (docs/protocol.md
// §27: renewals do not count in the key bucket). Read without the license's lock, before the
// bucket is asked; the checkout itself decides under the lock.
Result<bool> renews_a_live_lease(LicenseTx& tx, const LicenseRequest& req, UnixMillis now);

// Concurrent seats (docs/protocol.md §27). checkout takes or renews the (machine, session)
// lease under the license's lock (1703, 1704, 1707, 1702 borrowFor, 1710); with borrowFor its
// answer holds `leaseFile`, the lease file's payload JSON text, which the surface signs and
// armours (auth/lease_file.h). checkin gives the lease back (1703 only).
inline constexpr std::string_view kLeaseFileMember = "leaseFile";
RequestResult<boost::json::object> checkout(LicenseTx& tx, const LicenseRequest& req,
                                            const OperationContext& ctx);
RequestResult<boost::json::object> checkin(LicenseTx& tx, const LicenseRequest& req,
                                           const OperationContext& ctx);

// docs/protocol.md §20. kFindOnly answers an existing trial (re-activating its machine) and
// gives nullopt when there is none, writing nothing then; kCreate also creates one. The
// handler asks for a trial-bucket token between the two, so only creations count.
enum class TrialMode { kFindOnly, kCreate };
RequestResult<std::optional<boost::json::object>> trial(LicenseTx& tx, const LicenseRequest& req,
                                                        const OperationContext& ctx,
                                                        TrialMode mode);

RequestResult<boost::json::object> run_operation(Endpoint endpoint, LicenseTx& tx,
                                                 const LicenseRequest& req,
                                                 const OperationContext& ctx);

// True for the outcomes whose writes must not be kept: store failures and bugs.
bool must_roll_back(const RequestResult<boost::json::object>& outcome);

}  // namespace licensed
