#include "auth/offline_file.h"

#include <algorithm>
#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/crypto_primitives.h"
#include "auth/request_signature.h"
#include "core/hex.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace licensed {

namespace json = boost::json;

namespace {

std::optional<std::string> string_of(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

// A JSON object parsed from `text`, or nullopt (malformed, or not an object).
std::optional<json::object> object_of(std::string_view text) {
  json::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

std::optional<json::object> object_of(const std::vector<uint8_t>& bytes) {
  return object_of(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::optional<int64_t> seconds_of(std::string_view rfc3339) {
  const auto ms = parse_timestamp(rfc3339);
  if (!ms) return std::nullopt;
  // Rounded down, also for times before 1970.
  return *ms >= 0 ? *ms / 1000 : -((-*ms + 999) / 1000);
}

// A member that is an RFC 3339 timestamp (nullopt inside: null); nullopt outside: missing
// or not a timestamp.
std::optional<std::optional<int64_t>> nullable_time_of(const json::object& o,
                                                       std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_null()) return std::optional<int64_t>{};
  if (!v->is_string()) return std::nullopt;
  const auto t = seconds_of(v->as_string());
  if (!t) return std::nullopt;
  return std::optional<int64_t>{*t};
}

bool lowercase_hex(std::string_view s, size_t digits) {
  if (s.size() != digits) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool valid_activation_id(std::string_view s) {
  return lowercase_hex(s, kActivationIdHexDigits);
}

// docs/protocol.md §21.1: exactly an X-License-Signature value, "v1=" + 64 lowercase hex digits.
bool valid_file_signature(std::string_view s) {
  return s.size() == 3 + 64 && s.substr(0, 3) == "v1=" && lowercase_hex(s.substr(3), 64);
}

std::string signed_file(OfflineFileKind kind, const OfflineRequestInput& input) {
  const std::string body = offline_request_body(input);
  const std::string timestamp = std::to_string(input.timestamp);
  const std::string signature = sign_request(
      input.secret,
      {"POST", offline_file_path(kind), input.key_id, timestamp, input.nonce, sha256_hex(body)});
  json::object o;
  o["v"] = 1;
  o["keyId"] = input.key_id;
  o["timestamp"] = input.timestamp;
  o["nonce"] = input.nonce;
  o["signature"] = signature;
  o["body"] = body;
  return armour(offline_file_label(kind), json::serialize(o));
}

OfflineRequestRead not_a_file(std::string problem) {
  return {std::nullopt, std::move(problem)};
}

// The outer members (docs/protocol.md §21.1, §21.5) with their types into `f`; "" or what is wrong.
std::string read_outer(const json::object& o, OfflineRequestFile& f) {
  const json::value* v = o.if_contains("v");
  if (v == nullptr || !v->is_int64() || v->as_int64() != 1) return "the file's \"v\" must be 1";
  auto key_id = string_of(o, "keyId");
  if (!key_id || !valid_key_id(*key_id)) return "bad keyId";
  const json::value* ts = o.if_contains("timestamp");
  if (ts == nullptr || !(ts->is_int64() || ts->is_uint64())) {
    return "timestamp must be a JSON integer";
  }
  if (ts->is_uint64() || ts->as_int64() < 0) return "timestamp is out of range";
  auto nonce = string_of(o, "nonce");
  if (!nonce || !valid_request_nonce(*nonce)) return "bad nonce";
  auto signature = string_of(o, "signature");
  if (!signature || !valid_file_signature(*signature)) {
    return "signature must be v1= and 64 lowercase hex digits";
  }
  auto body = string_of(o, "body");
  if (!body) return "body must be a string";
  f.key_id = std::move(*key_id);
  f.timestamp = ts->as_int64();
  f.nonce = std::move(*nonce);
  f.signature = std::move(*signature);
  f.body = std::move(*body);
  return "";
}

// The inner body's members this file needs; the server checks the rest of the activate
// (deactivate) schema itself (core/request_body.h).
std::string read_inner(OfflineRequestFile& f) {
  const auto inner = object_of(f.body);
  if (!inner) return "the file's body is not a JSON object";
  auto license_key = string_of(*inner, "licenseKey");
  auto machine_id = string_of(*inner, "machineId");
  if (!license_key || !machine_id) return "the file's body needs licenseKey and machineId";
  const json::value* id = inner->if_contains("activationId");
  if (f.kind == OfflineFileKind::kRequest && id != nullptr) {
    return "a request file names no activationId";
  }
  if (f.kind == OfflineFileKind::kDeactivation) {
    if (id == nullptr || !id->is_string() || !valid_activation_id(id->as_string())) {
      return "activationId must be 32 lowercase hex digits";
    }
    f.activation_id = std::string(id->as_string());
  }
  f.license_key = std::move(*license_key);
  f.machine_id = std::move(*machine_id);
  return "";
}

std::optional<std::vector<FileEntitlement>> entitlements_of(const json::object& payload) {
  return read_file_entitlements(payload);
}

}  // namespace

std::optional<std::vector<FileEntitlement>> read_file_entitlements(const json::object& payload) {
  const json::value* v = payload.if_contains("entitlements");
  if (v == nullptr) return std::vector<FileEntitlement>{};
  if (!v->is_array()) return std::nullopt;
  std::vector<FileEntitlement> out;
  for (const json::value& item : v->as_array()) {
    if (!item.is_object()) return std::nullopt;
    const json::object& e = item.as_object();
    FileEntitlement entitlement;
    auto code = string_of(e, "code");
    const auto expires = nullable_time_of(e, "expiresAt");
    const json::value* active = e.if_contains("active");
    if (!code || !expires || active == nullptr || !active->is_bool()) return std::nullopt;
    entitlement.code = std::move(*code);
    entitlement.expires_at = *expires;
    entitlement.active = active->as_bool();
    if (const json::value* value = e.if_contains("value"); value != nullptr && !value->is_null()) {
      if (value->is_object() || value->is_array()) return std::nullopt;
      entitlement.value = json::serialize(*value);
    }
    out.push_back(std::move(entitlement));
  }
  return out;
}

namespace {

// The payload's members (docs/protocol.md §21.3) into `file`; false when one is missing or of a
// wrong type.
bool read_payload(const json::object& p, ActivationFile& file) {
  auto id = string_of(p, "id");
  auto license_key = string_of(p, "licenseKey");
  auto status = string_of(p, "status");
  const json::value* product = p.if_contains("product");
  const json::value* machine = p.if_contains("machine");
  if (!id || !license_key || !status || product == nullptr || !product->is_object() ||
      machine == nullptr || !machine->is_object()) {
    return false;
  }
  auto slug = string_of(product->as_object(), "slug");
  auto machine_id = string_of(machine->as_object(), "id");
  if (!slug || !machine_id) return false;
  const auto issued = nullable_time_of(p, "issuedAt");
  const auto expires = nullable_time_of(p, "expiresAt");
  const auto requested = nullable_time_of(p, "requestTimestamp");
  if (!issued || !*issued || !expires || !*expires || !requested || !*requested) return false;
  auto entitlements = entitlements_of(p);
  if (!entitlements) return false;
  file.id = std::move(*id);
  file.license_key = std::move(*license_key);
  file.status = std::move(*status);
  file.product_slug = std::move(*slug);
  file.product_name = string_of(product->as_object(), "name").value_or("");
  file.machine_id = std::move(*machine_id);
  file.machine_name = string_of(machine->as_object(), "name");
  file.issued_at = **issued;
  file.expires_at = **expires;
  file.request_timestamp = **requested;
  file.entitlements = std::move(*entitlements);
  if (const auto license_expires = nullable_time_of(p, "licenseExpiresAt")) {
    file.license_expires_at = *license_expires;
  }
  if (const json::value* max = p.if_contains("max"); max != nullptr && max->is_int64()) {
    file.max = max->as_int64();
  }
  file.request_nonce = string_of(p, "requestNonce").value_or("");
  return true;
}

// The pinned key the file's kid names; its algorithm is the signature's (an Ed25519 key's
// id and an ES256 key's differ: they begin with the algorithm's token, docs/protocol.md §13.1).
const PinnedResponseKey* key_for(const std::vector<PinnedResponseKey>& pinned,
                                 std::string_view kid) {
  for (const auto& key : pinned) {
    if (key.kid == kid) return &key;
  }
  return nullptr;
}

}  // namespace

std::string random_128_bit_hex() {
  uint8_t bytes[16] = {0};
  if (!crypto::random_bytes(bytes, sizeof(bytes))) return {};
  return to_hex(bytes, sizeof(bytes));
}

std::string_view offline_file_label(OfflineFileKind kind) {
  return kind == OfflineFileKind::kRequest ? kActivationRequestLabel : kDeactivationFileLabel;
}

std::string_view offline_file_path(OfflineFileKind kind) {
  return kind == OfflineFileKind::kRequest ? kActivatePath : kDeactivatePath;
}

std::string offline_request_body(const OfflineRequestInput& input) {
  json::object o;
  o["licenseKey"] = input.license_key;
  o["machineId"] = input.machine_id;
  if (input.activation_id) o["activationId"] = *input.activation_id;
  return json::serialize(o);
}

std::string write_request_file(const OfflineRequestInput& input) {
  OfflineRequestInput activate = input;
  activate.activation_id.reset();
  return signed_file(OfflineFileKind::kRequest, activate);
}

std::string write_deactivation_file(const OfflineRequestInput& input) {
  if (!input.activation_id || !valid_activation_id(*input.activation_id)) return {};
  return signed_file(OfflineFileKind::kDeactivation, input);
}

OfflineRequestRead read_offline_request_file(std::string_view armoured,
                                             std::optional<OfflineFileKind> kind) {
  auto d = dearmour(armoured);
  OfflineRequestFile f;
  if (d && d->label == kActivationRequestLabel) {
    f.kind = OfflineFileKind::kRequest;
  } else if (d && d->label == kDeactivationFileLabel) {
    f.kind = OfflineFileKind::kDeactivation;
  } else {
    d.reset();
  }
  if (!d || (kind && *kind != f.kind)) {
    return not_a_file(std::string("request is not an armoured ") +
                      std::string(kind ? offline_file_label(*kind)
                                       : "LICENSE ACTIVATION REQUEST or LICENSE DEACTIVATION"));
  }
  const auto o = object_of(d->bytes);
  if (!o) return not_a_file("the file is not one JSON object");
  if (std::string problem = read_outer(*o, f); !problem.empty()) return not_a_file(problem);
  if (std::string problem = read_inner(f); !problem.empty()) return not_a_file(problem);
  return {std::move(f), ""};
}

std::optional<OfflineRequestFile> read_offline_request(std::string_view armoured) {
  return read_offline_request_file(armoured).file;
}

std::string write_activation_payload(const ActivationPayloadFields& f) {
  json::object machine;
  machine["id"] = f.machine_id;
  machine["name"] = f.machine_name ? json::value(*f.machine_name) : json::value(nullptr);
  json::object p;
  p["id"] = f.id;
  p["licenseKey"] = f.license_key;
  p["product"] = json::object{{"slug", f.product_slug}, {"name", f.product_name}};
  p["machine"] = std::move(machine);
  p["status"] = f.status;
  p["entitlements"] = f.entitlements;
  p["max"] = f.max;
  p["licenseExpiresAt"] = f.license_expires_at_ms
                              ? json::value(format_timestamp(*f.license_expires_at_ms))
                              : json::value(nullptr);
  p["issuedAt"] = format_timestamp(f.issued_at_ms);
  p["expiresAt"] = format_timestamp(f.expires_at_ms);
  p["requestTimestamp"] = format_timestamp(f.request_timestamp * 1000);
  p["requestNonce"] = f.request_nonce;
  return json::serialize(p);
}

std::string activation_file_message(std::string_view payload) {
  std::string message(kActivationFileSigningPrefix);
  message.append(payload);
  return message;
}

std::string write_activation_file(std::string_view kid, const RawResponseSignature& signature,
                                  std::string_view payload) {
  return write_signed_envelope(kActivationFileLabel, kid, signature, payload);
}

std::string write_signed_envelope(std::string_view label, std::string_view kid,
                                  const RawResponseSignature& signature, std::string_view payload) {
  json::object file;
  file["v"] = 1;
  file["kid"] = kid;
  file["signature"] = base64_encode(signature.data(), signature.size());
  file["payload"] = base64_encode(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  return armour(label, json::serialize(file));
}

const char* activation_file_problem_name(ActivationFileProblem problem) {
  switch (problem) {
    case ActivationFileProblem::kNone:
      return "none";
    case ActivationFileProblem::kMalformed:
      return "malformed";
    case ActivationFileProblem::kUnknownKey:
      return "unknown_key";
    case ActivationFileProblem::kBadSignature:
      return "bad_signature";
    case ActivationFileProblem::kOtherMachine:
      return "other_machine";
    case ActivationFileProblem::kOtherProduct:
      return "other_product";
    case ActivationFileProblem::kOtherLicense:
      return "other_license";
    case ActivationFileProblem::kNotYetValid:
      return "not_yet_valid";
    case ActivationFileProblem::kExpired:
      return "expired";
    case ActivationFileProblem::kClockSetBack:
      return "clock_set_back";
  }
  return "malformed";
}

std::string activation_file_problem_message(ActivationFileProblem problem) {
  switch (problem) {
    case ActivationFileProblem::kNone:
      return "the activation file is valid";
    case ActivationFileProblem::kMalformed:
      return "this is not a readable activation file";
    case ActivationFileProblem::kUnknownKey:
      return "the activation file is signed by a key this software does not trust";
    case ActivationFileProblem::kBadSignature:
      return "the activation file's signature does not verify: it was changed or forged";
    case ActivationFileProblem::kOtherMachine:
      return "the activation file is for another computer";
    case ActivationFileProblem::kOtherProduct:
      return "the activation file is for another product";
    case ActivationFileProblem::kOtherLicense:
      return "the activation file is for another license key";
    case ActivationFileProblem::kNotYetValid:
      return "the activation file is not valid yet: check this computer's date and time";
    case ActivationFileProblem::kExpired:
      return "the activation file has expired: make a new activation request";
    case ActivationFileProblem::kClockSetBack:
      return "this computer's clock is more than 24 hours behind a time already seen: set "
             "the date and time right";
  }
  return "this is not a readable activation file";
}

SignedPayloadRead open_activation_file(std::string_view armoured,
                                       const std::vector<PinnedResponseKey>& pinned) {
  return open_signed_envelope(armoured, pinned, kActivationFileLabel, kActivationFileSigningPrefix);
}

SignedPayloadRead open_signed_envelope(std::string_view armoured,
                                       const std::vector<PinnedResponseKey>& pinned,
                                       std::string_view label, std::string_view prefix) {
  SignedPayloadRead out;
  const auto bytes = dearmour_as(armoured, label);
  if (!bytes) return out;
  const auto envelope = object_of(*bytes);
  if (!envelope) return out;
  const json::value* v = envelope->if_contains("v");
  const auto kid = string_of(*envelope, "kid");
  const auto signature_text = string_of(*envelope, "signature");
  const auto payload_text = string_of(*envelope, "payload");
  if (v == nullptr || !v->is_int64() || v->as_int64() != 1 || !kid || !signature_text ||
      !payload_text) {
    return out;
  }
  const auto signature = base64_decode(*signature_text);
  const auto payload = base64_decode(*payload_text);
  RawResponseSignature raw{};
  if (!signature || signature->size() != raw.size() || !payload) return out;
  std::copy(signature->begin(), signature->end(), raw.begin());
  const PinnedResponseKey* key = key_for(pinned, *kid);
  if (key == nullptr) {
    out.problem = ActivationFileProblem::kUnknownKey;
    return out;
  }
  std::string text(payload->begin(), payload->end());
  std::string message(prefix);
  message.append(text);
  if (!verify_message_signature(*key, raw, message)) {
    out.problem = ActivationFileProblem::kBadSignature;
    return out;
  }
  out.problem = ActivationFileProblem::kNone;
  out.signed_payload = SignedPayload{*kid, key->algorithm, std::move(text)};
  return out;
}

ActivationFileRead read_activation_file(std::string_view armoured,
                                        const std::vector<PinnedResponseKey>& pinned) {
  ActivationFileRead out;
  SignedPayloadRead opened = open_activation_file(armoured, pinned);
  out.problem = opened.problem;
  if (!opened.signed_payload) return out;
  ActivationFile file;
  file.kid = std::move(opened.signed_payload->kid);
  file.algorithm = opened.signed_payload->algorithm;
  file.payload = std::move(opened.signed_payload->payload);
  const auto p = object_of(file.payload);
  if (!p || !read_payload(*p, file)) {  // signed, yet not the docs/protocol.md §21.3 shape
    out.problem = ActivationFileProblem::kMalformed;
    return out;
  }
  out.file = std::move(file);
  return out;
}

ActivationFileProblem check_activation_file(const ActivationFile& file,
                                            const ActivationFileExpectation& expected) {
  if (file.machine_id != expected.machine_id) return ActivationFileProblem::kOtherMachine;
  if (!expected.product.empty() && file.product_slug != expected.product) {
    return ActivationFileProblem::kOtherProduct;
  }
  if (!expected.license_key.empty() && !iequals(file.license_key, expected.license_key)) {
    return ActivationFileProblem::kOtherLicense;
  }
  const int64_t now = expected.now;
  if (expected.latest_seen && now < *expected.latest_seen - kOfflineClockToleranceSeconds) {
    return ActivationFileProblem::kClockSetBack;
  }
  if (now < file.issued_at - kOfflineClockToleranceSeconds) {
    return ActivationFileProblem::kNotYetValid;
  }
  // Measured by the latest time seen too: a clock set back within the 24 h tolerated
  // does not make an expired file good again.
  const int64_t trusted = std::max(now, expected.latest_seen.value_or(now));
  if (trusted >= file.expires_at) return ActivationFileProblem::kExpired;
  return ActivationFileProblem::kNone;
}

ActivationFileRead verify_activation_file(std::string_view armoured,
                                          const std::vector<PinnedResponseKey>& pinned,
                                          const ActivationFileExpectation& expected) {
  ActivationFileRead read = read_activation_file(armoured, pinned);
  if (read.file) read.problem = check_activation_file(*read.file, expected);
  return read;
}

}  // namespace licensed
