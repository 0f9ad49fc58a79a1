#include "auth/offline_files.h"

#include "auth/lease_file.h"
#include "auth/request_signature.h"
#include "core/operations.h"

namespace licensed {
namespace {

ApiError malformed_file(std::string message) {
  return errors::offline_request_refused(offline_reason::kMalformed, std::move(message));
}

Endpoint endpoint_of(OfflineFileKind kind) {
  return kind == OfflineFileKind::kRequest ? Endpoint::kActivate : Endpoint::kDeactivate;
}

// The inner body through the activate (deactivate) schema, with the file as its origin.
ApiResult<LicenseRequest> read_inner_body(const OfflineRequestFile& f) {
  auto parsed = parse_license_request(endpoint_of(f.kind), f.body);
  if (!parsed.ok()) return malformed_file("the file's body: " + parsed.error().message);
  LicenseRequest req = std::move(parsed.value());
  req.offline = OfflineOrigin{f.key_id, f.timestamp, f.nonce, f.activation_id};
  return req;
}

bool signature_matches(const SigningKey& key, const OfflineRequestFile& f) {
  const auto named = parse_request_signature(f.signature);
  if (!named) return false;
  const std::string timestamp = std::to_string(f.timestamp);
  const std::string canonical = canonical_string(
      {"POST", offline_file_path(f.kind), f.key_id, timestamp, f.nonce, sha256_hex(f.body)});
  Sha256Digest expected{};
  if (!key.mac->compute(canonical, expected)) return false;
  return digests_equal(expected, *named);
}

}  // namespace

ApiResult<OfflineFile> parse_offline_file(std::string_view text, OfflineFileKind kind) {
  OfflineRequestRead read = read_offline_request_file(text, kind);
  if (!read.file) return malformed_file(std::move(read.problem));
  OfflineFile f;
  f.file = std::move(*read.file);
  ASSIGN_OR_RETURN(f.request, read_inner_body(f.file));
  return f;
}

ApiResult<const SigningKey*> check_offline_file(const KeyRing& keys, const OfflineFile& offline,
                                                int64_t now_seconds,
                                                const OfflineFileLimits& limits) {
  const OfflineRequestFile& file = offline.file;
  const SigningKey* key = keys.find(file.key_id);
  if (key == nullptr) {
    // The same HMAC work as for a known id, so timing does not tell which ids exist.
    (void)signature_matches(keys.decoy(), file);
    return errors::offline_request_refused(offline_reason::kUnknownKey,
                                           "the file's signing key id is unknown");
  }
  if (now_seconds - file.timestamp > limits.max_age_seconds) {
    return errors::offline_request_refused(offline_reason::kTooOld, "the file is too old");
  }
  if (file.timestamp - now_seconds > limits.max_skew_seconds) {
    return errors::offline_request_refused(offline_reason::kTooFarAhead,
                                           "the file is dated too far ahead");
  }
  if (!signature_matches(*key, file)) {
    return errors::offline_request_refused(offline_reason::kSignatureMismatch,
                                           "the file's signature does not match");
  }
  return key;
}

std::optional<std::string> sign_activation_file(const ResponseSigner& signer,
                                                ResponseAlgorithm algorithm,
                                                std::string_view payload_json) {
  const ResponseKey* key = signer.signing_key(algorithm);
  if (key == nullptr) return std::nullopt;
  const auto signature = signer.sign_message(algorithm, activation_file_message(payload_json));
  if (!signature) return std::nullopt;
  return write_activation_file(key->kid(), *signature, payload_json);
}

Result<boost::json::object> sign_activation_file_member(const ResponseSigner* signer,
                                                        ResponseAlgorithm algorithm,
                                                        boost::json::object body) {
  boost::json::value* payload = body.if_contains(kActivationFileMember);
  if (payload == nullptr || !payload->is_string()) {
    return Error::internal("offline activation: the answer has no activation payload");
  }
  if (signer == nullptr) return Error::internal("offline activation: no response key");
  auto file = sign_activation_file(*signer, algorithm, payload->as_string());
  if (!file) return Error::internal("offline activation: the activation file was not signed");
  payload->emplace_string() = *file;
  return body;
}

Result<boost::json::object> sign_lease_file_member(const ResponseSigner* signer,
                                                   ResponseAlgorithm algorithm,
                                                   boost::json::object body) {
  boost::json::value* payload = body.if_contains(kLeaseFileMember);
  if (payload == nullptr) return body;  // not a borrow
  if (!payload->is_string()) return Error::internal("checkout: the lease payload is not text");
  if (signer == nullptr) return Error::internal("checkout: no response key");
  const ResponseKey* key = signer->signing_key(algorithm);
  if (key == nullptr) return Error::internal("checkout: no response key of this algorithm");
  const auto signature = signer->sign_message(algorithm, lease_file_message(payload->as_string()));
  if (!signature) return Error::internal("checkout: the lease file was not signed");
  payload->emplace_string() = write_lease_file(key->kid(), *signature, payload->as_string());
  return body;
}

}  // namespace licensed
