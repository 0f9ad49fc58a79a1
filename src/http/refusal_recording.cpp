#include "http/refusal_recording.h"

#include <spdlog/spdlog.h>

#include <memory>

namespace licensed {
namespace {

// The license a refusal is listed under; nullopt: none (nothing is recorded).
Result<std::optional<std::string>> refused_license(StoreTx& tx, const TrialIdentity* trials,
                                                   const RefusedRequest& r) {
  if (!r.body.license_key.empty()) return std::optional<std::string>(r.body.license_key);
  if (r.code != static_cast<int>(ErrorCode::kTrialUsed) || trials == nullptr || !r.body.email) {
    return std::optional<std::string>();
  }
  ASSIGN_OR_RETURN(const auto product, tx.find_product(r.body.product));
  if (!product) return std::optional<std::string>();
  return tx.find_trial_email(product->id, trials->email(*r.body.email));
}

Status insert(StoreTx& tx, const TrialIdentity* trials, const RefusedRequest& r) {
  ASSIGN_OR_RETURN(const auto key, refused_license(tx, trials, r));
  if (!key) return Ok{};
  Refusal row;
  row.at = r.at;
  row.code = r.code;
  row.license_key = *key;
  row.machine_id = r.body.machine_id;
  row.machine_name = r.body.machine_name;
  if (!r.ip.empty()) row.ip = r.ip;
  if (!r.key_id.empty()) row.key_id = r.key_id;
  if (!r.request_id.empty()) row.request_id = r.request_id;
  return tx.insert_refusal(row);
}

}  // namespace

bool is_recorded_refusal(const ApiError& error) {
  if (!error.code) return false;
  switch (*error.code) {
    case ErrorCode::kLimitReached:
    case ErrorCode::kConcurrencyLimit:
    case ErrorCode::kDeactivationLimit:
    case ErrorCode::kTrialUsed:
      return true;
    default:
      return false;
  }
}

void record_refusal(Store& store, const TrialIdentity* trials, RefusedRequest refused) {
  if (store.queue_depth() > kRefusalRecordingMaxQueue) return;
  auto r = std::make_shared<const RefusedRequest>(std::move(refused));
  submit_call<Ok>(
      store, TxKind::kWrite, [r, trials](StoreTx& tx) { return insert(tx, trials, *r); },
      [r](const Status& done) {
        if (!done.ok()) {
          spdlog::warn("a refusal ({}) was not recorded: {}", r->code, done.error().message);
        }
      });
}

}  // namespace licensed
