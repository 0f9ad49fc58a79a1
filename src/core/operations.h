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

struct OperationContext {
  UnixMillis now = 0;
  std::string_view ip;
  std::string_view key_id;
  std::string_view request_id;
  // The signing key's product binding; empty: the key serves every product.
  const std::vector<std::string>* bound_products = nullptr;
  const std::optional<std::string>* dashboard_url = nullptr;
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

RequestResult<boost::json::object> run_operation(Endpoint endpoint, LicenseTx& tx,
                                                 const LicenseRequest& req,
                                                 const OperationContext& ctx);

// True for the outcomes whose writes must not be kept: store failures and bugs.
bool must_roll_back(const RequestResult<boost::json::object>& outcome);

}  // namespace licensed
