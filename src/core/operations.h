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
#include "core/result.h"

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

// Each returns the 200 body, or the error the client sees. A 1708/1709 error means the
// transaction must be rolled back (see must_roll_back). activate() needs a write
// transaction: it locks the license row.
Result<boost::json::object> activate(LicenseTx& tx, const LicenseRequest& req,
                                     const OperationContext& ctx);
Result<boost::json::object> heartbeat(LicenseTx& tx, const LicenseRequest& req,
                                      const OperationContext& ctx);
Result<boost::json::object> status(LicenseTx& tx, const LicenseRequest& req,
                                   const OperationContext& ctx);
Result<boost::json::object> deactivate(LicenseTx& tx, const LicenseRequest& req,
                                       const OperationContext& ctx);

Result<boost::json::object> run_operation(Endpoint endpoint, LicenseTx& tx, const LicenseRequest& req,
                                          const OperationContext& ctx);

// True for the outcomes whose writes must not be kept: store failures and bugs.
bool must_roll_back(const Result<boost::json::object>& outcome);

}  // namespace licensed
