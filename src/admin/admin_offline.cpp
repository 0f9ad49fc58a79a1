#include "admin/admin_offline.h"

#include "auth/offline_file.h"
#include "core/operations.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

// The file read and checked, and the signing key that signed it.
struct CheckedFile {
  OfflineFile file;
  const SigningKey* key = nullptr;
};

// Read, checked as the License API checks it (age, skew, signature; the nonce untouched),
// and then bound to the license of the path: a file for another license is 1703, as if
// the path's license did not hold it (docs/protocol.md §21.7).
RequestResult<CheckedFile> checked_file(std::string_view license_key, std::string_view text,
                                        OfflineFileKind kind, const OfflineSubmission& s,
                                        UnixMillis now) {
  if (s.keys == nullptr) return Error::internal("offline submission without signing keys");
  ASSIGN_OR_RETURN(OfflineFile file, parse_offline_file(text, kind));
  ASSIGN_OR_RETURN(const SigningKey* key,
                   check_offline_file(*s.keys, file, unix_seconds(now), s.limits));
  if (!iequals(file.request.license_key, license_key)) return errors::not_found();
  return CheckedFile{std::move(file), key};
}

OperationContext operation_context(const CheckedFile& checked, const AdminContext& ctx) {
  OperationContext op;
  op.now = ctx.now;
  if (ctx.ip) op.ip = *ctx.ip;
  if (ctx.request_id) op.request_id = *ctx.request_id;
  op.key_id = checked.key->id;
  op.bound_products = &checked.key->products;
  op.inner_bound_products = &checked.key->products;
  op.actor = Actor::kAdmin;
  if (ctx.actor_name) op.actor_name = *ctx.actor_name;
  op.new_activation_id = &random_128_bit_hex;
  return op;
}

}  // namespace

RequestResult<boost::json::object> admin_offline_activate(StoreTx& tx, std::string_view license_key,
                                                          std::string_view request_text,
                                                          const OfflineSubmission& submission,
                                                          const AdminContext& ctx) {
  ASSIGN_OR_RETURN(
      const CheckedFile checked,
      checked_file(license_key, request_text, OfflineFileKind::kRequest, submission, ctx.now));
  ASSIGN_OR_RETURN(boost::json::object answer,
                   offline_activate(tx, checked.file.request, operation_context(checked, ctx)));
  // Signed inside the transaction: no activation is kept that support did not get a file
  // for. The admin path has no algorithm header, so the file is Ed25519 (docs/protocol.md §21.7).
  ASSIGN_OR_RETURN(boost::json::object signed_answer,
                   sign_activation_file_member(submission.signer, ResponseAlgorithm::kEd25519,
                                               std::move(answer)));
  return signed_answer;
}

RequestResult<boost::json::object> admin_offline_deactivate(StoreTx& tx,
                                                            std::string_view license_key,
                                                            std::string_view request_text,
                                                            const OfflineSubmission& submission,
                                                            const AdminContext& ctx) {
  ASSIGN_OR_RETURN(
      const CheckedFile checked,
      checked_file(license_key, request_text, OfflineFileKind::kDeactivation, submission, ctx.now));
  return offline_deactivate(tx, checked.file.request, operation_context(checked, ctx));
}

}  // namespace licensed
