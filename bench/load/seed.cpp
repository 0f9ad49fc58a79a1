#include "load/seed.h"

#include <stdexcept>

#include "admin/admin_operations.h"
#include "store/store.h"

namespace licensed::bench {
namespace {

constexpr const char* kProduct = "bench";

std::runtime_error failure(const std::string& what, const ApiError& e) {
  return std::runtime_error(what + ": " + (e.detail.empty() ? e.message : e.detail));
}

}  // namespace

std::vector<std::string> seed_licenses(const std::string& store_url, size_t count, int64_t max) {
  auto store = open_store(store_url);
  if (!store.ok()) throw failure("cannot open the store to seed", store.error());
  const AdminContext admin{SystemClock().now_ms(), std::string("licensed-bench")};
  auto keys = run_blocking(
      *store.value(), TxKind::kWrite, [&](StoreTx& tx) -> Result<std::vector<std::string>> {
        ASSIGN_OR_RETURN(auto product, tx.find_product(kProduct));
        if (!product) RETURN_IF_ERROR(create_product(tx, kProduct, "licensed-bench", admin));
        std::vector<std::string> out;
        out.reserve(count);
        for (size_t i = 0; i < count; ++i) {
          LicenseSpec spec{kProduct, max, std::nullopt, std::nullopt, LicenseStatus::kActive, ""};
          ASSIGN_OR_RETURN(License license, create_license(tx, spec, admin));
          out.push_back(std::move(license.key));
        }
        return out;
      });
  if (!keys.ok()) throw failure("cannot seed licenses", keys.error());
  return std::move(keys.value());
}

}  // namespace licensed::bench
