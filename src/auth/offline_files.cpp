#include "auth/offline_files.h"

#include <array>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/crypto_primitives.h"
#include "auth/request_signature.h"
#include "auth/signing_headers.h"
#include "core/hex.h"
#include "core/operations.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr size_t kNonceMin = 16;
constexpr size_t kNonceMax = 128;
constexpr size_t kActivationIdHexDigits = 32;

ApiError malformed_file(std::string message) {
  return errors::offline_request_refused(offline_reason::kMalformed, std::move(message));
}

bool nonce_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool valid_nonce(std::string_view s) {
  if (s.size() < kNonceMin || s.size() > kNonceMax) return false;
  for (const char c : s) {
    if (!nonce_char(c)) return false;
  }
  return true;
}

bool lowercase_hex(std::string_view s, size_t digits) {
  if (s.size() != digits) return false;
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// §21: exactly an X-License-Signature value, "v1=" + 64 lowercase hex digits.
bool valid_file_signature(std::string_view s) {
  return s.substr(0, 3) == "v1=" && lowercase_hex(s.substr(3), 64);
}

const json::string* string_member(const json::object& o, std::string_view name) {
  const json::value* v = o.if_contains(name);
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

// The outer members of §21.1 and §21.5, types per §21.
ApiResult<OfflineFile> read_fields(const json::object& o, OfflineFileKind kind) {
  const json::value* v = o.if_contains("v");
  if (v == nullptr || !v->is_int64() || v->as_int64() != 1) {
    return malformed_file("the file's \"v\" must be 1");
  }
  OfflineFile f;
  f.kind = kind;
  const json::string* key_id = string_member(o, "keyId");
  if (key_id == nullptr || !valid_key_id(*key_id)) return malformed_file("bad keyId");
  f.key_id = std::string(*key_id);
  const json::value* ts = o.if_contains("timestamp");
  if (ts == nullptr || !(ts->is_int64() || ts->is_uint64())) {
    return malformed_file("timestamp must be a JSON integer");
  }
  if (ts->is_uint64() || ts->as_int64() < 0) return malformed_file("timestamp is out of range");
  f.timestamp = ts->as_int64();
  const json::string* nonce = string_member(o, "nonce");
  if (nonce == nullptr || !valid_nonce(*nonce)) return malformed_file("bad nonce");
  f.nonce = std::string(*nonce);
  const json::string* signature = string_member(o, "signature");
  if (signature == nullptr || !valid_file_signature(*signature)) {
    return malformed_file("signature must be v1= and 64 lowercase hex digits");
  }
  f.signature = std::string(*signature);
  const json::string* body = string_member(o, "body");
  if (body == nullptr) return malformed_file("body must be a string");
  f.body = std::string(*body);
  return f;
}

// A deactivation body also names the file it ends: 128 bits in lowercase hex.
ApiResult<std::string> activation_id_of(std::string_view body) {
  ASSIGN_OR_RETURN(const json::object o, parse_json_object_body(body));
  const json::string* id = string_member(o, "activationId");
  if (id == nullptr || !lowercase_hex(*id, kActivationIdHexDigits)) {
    return malformed_file("activationId must be 32 lowercase hex digits");
  }
  return std::string(*id);
}

ApiResult<LicenseRequest> read_inner_body(const OfflineFile& f) {
  const Endpoint endpoint =
      f.kind == OfflineFileKind::kRequest ? Endpoint::kActivate : Endpoint::kDeactivate;
  auto parsed = parse_license_request(endpoint, f.body);
  if (!parsed.ok()) return malformed_file("the file's body: " + parsed.error().message);
  LicenseRequest req = std::move(parsed.value());
  OfflineOrigin origin{f.key_id, f.timestamp, f.nonce, std::nullopt};
  if (f.kind == OfflineFileKind::kDeactivation) {
    auto id = activation_id_of(f.body);
    if (!id.ok()) return std::move(id.error());
    origin.activation_id = std::move(id.value());
  }
  req.offline = std::move(origin);
  return req;
}

std::string_view label_of(OfflineFileKind kind) {
  return kind == OfflineFileKind::kRequest ? kActivationRequestLabel : kDeactivationFileLabel;
}

std::string_view inner_path(OfflineFileKind kind) {
  return kind == OfflineFileKind::kRequest ? "/api/v1/license/activate"
                                           : "/api/v1/license/deactivate";
}

// The file's signature as the digest it names (validated as 64 hex digits already).
Sha256Digest digest_of(std::string_view signature) {
  Sha256Digest d{};
  const std::string_view hex = signature.substr(3);
  for (size_t i = 0; i < d.size(); ++i) {
    d[i] = static_cast<uint8_t>(hex_digit_value(hex[2 * i]) * 16 + hex_digit_value(hex[2 * i + 1]));
  }
  return d;
}

bool signature_matches(const SigningKey& key, const OfflineFile& f) {
  const std::string timestamp = std::to_string(f.timestamp);
  const std::string body_hash = sha256_hex(f.body);
  const std::string canonical =
      canonical_string({"POST", inner_path(f.kind), f.key_id, timestamp, f.nonce, body_hash});
  Sha256Digest expected{};
  if (!key.mac->compute(canonical, expected)) return false;
  return digests_equal(expected, digest_of(f.signature));
}

}  // namespace

ApiResult<OfflineFile> parse_offline_file(std::string_view text, OfflineFileKind kind) {
  const auto bytes = dearmour_as(text, label_of(kind));
  if (!bytes) {
    return malformed_file(kind == OfflineFileKind::kRequest
                              ? "request is not an armoured LICENSE ACTIVATION REQUEST"
                              : "request is not an armoured LICENSE DEACTIVATION");
  }
  const std::string_view decoded(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  auto object = parse_json_object_body(decoded);
  if (!object.ok()) return malformed_file("the file is not one JSON object");
  ASSIGN_OR_RETURN(OfflineFile f, read_fields(object.value(), kind));
  ASSIGN_OR_RETURN(f.request, read_inner_body(f));
  return f;
}

ApiResult<const SigningKey*> check_offline_file(const KeyRing& keys, const OfflineFile& file,
                                                int64_t now_seconds,
                                                const OfflineFileLimits& limits) {
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
  std::string message(kActivationFilePrefix);
  message.append(payload_json);
  const auto signature = signer.sign_message(algorithm, message);
  if (!signature) return std::nullopt;
  const auto* payload = reinterpret_cast<const uint8_t*>(payload_json.data());
  json::object file;
  file["v"] = 1;
  file["alg"] = algorithm_name(algorithm);
  file["kid"] = key->kid();
  file["signature"] = base64_encode(signature->data(), signature->size());
  file["payload"] = base64_encode(payload, payload_json.size());
  return armour(kActivationFileLabel, json::serialize(file));
}

Result<boost::json::object> sign_activation_file_member(const ResponseSigner* signer,
                                                        ResponseAlgorithm algorithm,
                                                        boost::json::object body) {
  json::value* payload = body.if_contains(kActivationFileMember);
  if (payload == nullptr || !payload->is_string()) {
    return Error::internal("offline activation: the answer has no activation payload");
  }
  if (signer == nullptr) return Error::internal("offline activation: no response key");
  auto file = sign_activation_file(*signer, algorithm, payload->as_string());
  if (!file) return Error::internal("offline activation: the activation file was not signed");
  *payload = std::move(*file);
  return body;
}

std::string new_activation_id() {
  std::array<uint8_t, 16> bytes{};
  if (!crypto::random_bytes(bytes.data(), bytes.size())) return {};
  return to_hex(bytes.data(), bytes.size());
}

std::optional<std::string> verify_activation_file(std::string_view armoured,
                                                  const std::vector<PinnedResponseKey>& keys) {
  const auto bytes = dearmour_as(armoured, kActivationFileLabel);
  if (!bytes) return std::nullopt;
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  auto object = parse_json_object_body(text);
  if (!object.ok()) return std::nullopt;
  const json::object& o = object.value();
  const json::string* kid = string_member(o, "kid");
  const json::string* alg = string_member(o, "alg");
  const json::string* signature = string_member(o, "signature");
  const json::string* payload = string_member(o, "payload");
  if (kid == nullptr || alg == nullptr || signature == nullptr || payload == nullptr) {
    return std::nullopt;
  }
  const auto raw_signature = base64_decode(*signature);
  const auto raw_payload = base64_decode(*payload);
  if (!raw_signature || raw_signature->size() != 64 || !raw_payload) return std::nullopt;
  std::array<uint8_t, 64> sig{};
  std::copy(raw_signature->begin(), raw_signature->end(), sig.begin());
  const std::string payload_text(raw_payload->begin(), raw_payload->end());
  const std::string message = std::string(kActivationFilePrefix) + payload_text;
  for (const PinnedResponseKey& key : keys) {
    if (key.kid != *kid || algorithm_name(key.algorithm) != *alg) continue;
    if (verify_message_signature(key, sig, message)) return payload_text;
  }
  return std::nullopt;
}

}  // namespace licensed
