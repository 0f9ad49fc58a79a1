#include "load/seed.h"

#include <openssl/rand.h>

#include <algorithm>
#include <stdexcept>

#include "admin/admin_operations.h"
#include "auth/request_signature.h"
#include "core/operations.h"
#include "http/response.h"
#include "store/store.h"

namespace licensed::bench {
namespace {

constexpr const char* kProduct = "bench";
// What the seeded activations' audit records name as the caller, as a server's would.
constexpr const char* kSeedIp = "127.0.0.1";
constexpr const char* kSeedKeyId = "bench";

std::runtime_error failure(const std::string& what, const Error& e) {
  return std::runtime_error(what + ": " + e.message);
}

std::unique_ptr<Store> open_or_throw(const std::string& store_url) {
  auto store = open_store(store_url);
  if (!store.ok()) throw failure("cannot open the store to seed", store.error());
  return std::move(store.value());
}

Status ensure_product(StoreTx& tx, const AdminContext& admin) {
  ASSIGN_OR_RETURN(auto product, tx.find_product(kProduct));
  if (!product) RETURN_IF_ERROR(create_product(tx, kProduct, "licensed-bench", admin));
  return Ok{};
}

// 32 hex digits, as a hashed hardware id looks; the CSPRNG so that no two seeds collide.
// An error, not an exception: this runs on the store's thread.
Result<std::string> random_machine_id() {
  uint8_t bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return Error::internal("no random bytes");
  return to_hex(bytes, sizeof bytes);
}

// One license and its `machines` activations, as the server would run them.
Status seed_one_license(StoreTx& tx, size_t machines, const AdminContext& admin) {
  LicenseSpec spec{kProduct,
                   static_cast<int64_t>(machines),
                   std::nullopt,
                   std::nullopt,
                   LicenseStatus::kActive,
                   "",
                   {},
                   {},
                   {}};
  ASSIGN_OR_RETURN(License license, create_license(tx, spec, admin));
  for (size_t m = 0; m < machines; ++m) {
    const std::string request_id = new_request_id();
    OperationContext ctx;
    ctx.now = admin.now;
    ctx.ip = kSeedIp;
    ctx.key_id = kSeedKeyId;
    ctx.request_id = request_id;
    ASSIGN_OR_RETURN(std::string machine_id, random_machine_id());
    LicenseRequest req;
    req.license_key = license.key;
    req.machine_id = std::move(machine_id);
    auto answer = activate(tx, req, ctx);
    // A refusal too is a failed seed.
    if (!answer.ok()) return Error::internal("activate: " + answer.error().message());
  }
  return Ok{};
}

}  // namespace

std::vector<std::string> seed_licenses(const std::string& store_url, size_t count, int64_t max) {
  auto store = open_or_throw(store_url);
  const AdminContext admin{SystemClock().now_ms(), std::string("licensed-bench")};
  auto keys =
      run_blocking(*store, TxKind::kWrite, [&](StoreTx& tx) -> Result<std::vector<std::string>> {
        RETURN_IF_ERROR(ensure_product(tx, admin));
        std::vector<std::string> out;
        out.reserve(count);
        for (size_t i = 0; i < count; ++i) {
          LicenseSpec spec{
              kProduct, max, std::nullopt, std::nullopt, LicenseStatus::kActive, "", {}, {}, {}};
          ASSIGN_OR_RETURN(License license, create_license(tx, spec, admin));
          out.push_back(std::move(license.key));
        }
        return out;
      });
  if (!keys.ok()) throw failure("cannot seed licenses", keys.error());
  return std::move(keys.value());
}

SeededActivations seed_activations(const std::string& store_url, const ActivationSeed& seed,
                                   const std::function<void(const SeededActivations&)>& progress) {
  if (seed.per_license == 0) throw std::runtime_error("machines per license must be at least 1");
  auto store = open_or_throw(store_url);
  const size_t licenses_per_tx = std::max<size_t>(1, seed.per_transaction / seed.per_license);
  SeededActivations done;
  while (done.activations < seed.activations) {
    const AdminContext admin{SystemClock().now_ms(), std::string("licensed-bench")};
    auto added =
        run_blocking(*store, TxKind::kWrite, [&](StoreTx& tx) -> Result<SeededActivations> {
          RETURN_IF_ERROR(ensure_product(tx, admin));
          SeededActivations tx_done;
          for (size_t i = 0;
               i < licenses_per_tx && done.activations + tx_done.activations < seed.activations;
               ++i) {
            const size_t machines = std::min(
                seed.per_license, seed.activations - done.activations - tx_done.activations);
            RETURN_IF_ERROR(seed_one_license(tx, machines, admin));
            ++tx_done.licenses;
            tx_done.activations += machines;
          }
          return tx_done;
        });
    if (!added.ok()) throw failure("cannot seed activations", added.error());
    done.licenses += added.value().licenses;
    done.activations += added.value().activations;
    if (progress) progress(done);
  }
  return done;
}

}  // namespace licensed::bench
