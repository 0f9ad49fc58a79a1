#include "auth/offline_file.h"

#include <algorithm>
#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/request_signature.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace licensed {

namespace json = boost::json;

namespace {

constexpr size_t kMaxNonceSize = 128;

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

std::string signed_file(std::string_view label, std::string_view path,
                        const OfflineRequestInput& input) {
  const std::string body = offline_request_body(input);
  const std::string timestamp = std::to_string(input.timestamp);
  const std::string signature = sign_request(
      input.secret, {"POST", path, input.key_id, timestamp, input.nonce, sha256_hex(body)});
  json::object o;
  o["v"] = 1;
  o["keyId"] = input.key_id;
  o["timestamp"] = input.timestamp;
  o["nonce"] = input.nonce;
  o["signature"] = signature;
  o["body"] = body;
  return armour(label, json::serialize(o));
}

std::optional<std::vector<FileEntitlement>> entitlements_of(const json::object& payload) {
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

// The payload's members (§16.3) into `file`; false when one is missing or of a wrong type.
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
  if (!issued || !*issued || !expires || !*expires) return false;
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
  file.entitlements = std::move(*entitlements);
  if (const auto license_expires = nullable_time_of(p, "licenseExpiresAt")) {
    file.license_expires_at = *license_expires;
  }
  if (const json::value* max = p.if_contains("max"); max != nullptr && max->is_int64()) {
    file.max = max->as_int64();
  }
  if (const json::value* t = p.if_contains("requestTimestamp"); t != nullptr) {
    // An integer (Unix seconds, as the request carried it) or an RFC 3339 text.
    if (t->is_int64()) {
      file.request_timestamp = t->as_int64();
    } else if (t->is_string()) {
      file.request_timestamp = seconds_of(t->as_string());
    }
  }
  file.request_nonce = string_of(p, "requestNonce").value_or("");
  return true;
}

const PinnedResponseKey* key_for(const std::vector<PinnedResponseKey>& pinned, std::string_view kid,
                                 std::optional<std::string_view> alg) {
  for (const auto& key : pinned) {
    if (key.kid != kid) continue;
    if (alg && *alg != algorithm_name(key.algorithm)) continue;
    return &key;
  }
  return nullptr;
}

}  // namespace

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
  return signed_file(kActivationRequestLabel, kActivatePath, activate);
}

std::string write_deactivation_file(const OfflineRequestInput& input) {
  if (!input.activation_id || input.activation_id->empty()) return {};
  return signed_file(kDeactivationFileLabel, kDeactivatePath, input);
}

std::optional<OfflineRequestFile> read_offline_request(std::string_view armoured) {
  auto d = dearmour(armoured);
  if (!d || (d->label != kActivationRequestLabel && d->label != kDeactivationFileLabel)) {
    return std::nullopt;
  }
  const auto o =
      object_of(std::string_view(reinterpret_cast<const char*>(d->bytes.data()), d->bytes.size()));
  if (!o) return std::nullopt;
  const json::value* v = o->if_contains("v");
  const json::value* timestamp = o->if_contains("timestamp");
  if (v == nullptr || !v->is_int64() || v->as_int64() != 1 || timestamp == nullptr ||
      !timestamp->is_int64()) {
    return std::nullopt;
  }
  OfflineRequestFile out;
  out.label = std::move(d->label);
  out.timestamp = timestamp->as_int64();
  auto key_id = string_of(*o, "keyId");
  auto nonce = string_of(*o, "nonce");
  auto signature = string_of(*o, "signature");
  auto body = string_of(*o, "body");
  if (!key_id || !nonce || nonce->size() > kMaxNonceSize || !signature || !body) {
    return std::nullopt;
  }
  const auto inner = object_of(*body);
  if (!inner) return std::nullopt;
  auto license_key = string_of(*inner, "licenseKey");
  auto machine_id = string_of(*inner, "machineId");
  if (!license_key || !machine_id) return std::nullopt;
  out.activation_id = string_of(*inner, "activationId");
  const bool deactivation = out.label == kDeactivationFileLabel;
  if (deactivation != out.activation_id.has_value()) return std::nullopt;
  out.key_id = std::move(*key_id);
  out.nonce = std::move(*nonce);
  out.signature = std::move(*signature);
  out.body = std::move(*body);
  out.license_key = std::move(*license_key);
  out.machine_id = std::move(*machine_id);
  return out;
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

ActivationFileRead read_activation_file(std::string_view armoured,
                                        const std::vector<PinnedResponseKey>& pinned) {
  ActivationFileRead out;
  out.problem = ActivationFileProblem::kMalformed;
  const auto bytes = dearmour_as(armoured, kActivationFileLabel);
  if (!bytes) return out;
  const auto envelope =
      object_of(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!envelope) return out;
  const json::value* v = envelope->if_contains("v");
  const auto kid = string_of(*envelope, "kid");
  const auto signature_text = string_of(*envelope, "signature");
  const auto payload_text = string_of(*envelope, "payload");
  const auto alg = string_of(*envelope, "alg");
  if (v == nullptr || !v->is_int64() || v->as_int64() != 1 || !kid || !signature_text ||
      !payload_text || (envelope->contains("alg") && !alg)) {
    return out;
  }
  const auto signature = base64_decode(*signature_text);
  const auto payload = base64_decode(*payload_text);
  RawResponseSignature raw{};
  if (!signature || signature->size() != raw.size() || !payload) return out;
  std::copy(signature->begin(), signature->end(), raw.begin());
  const PinnedResponseKey* key =
      key_for(pinned, *kid, alg ? std::optional<std::string_view>(*alg) : std::nullopt);
  if (key == nullptr) {
    out.problem = ActivationFileProblem::kUnknownKey;
    return out;
  }
  std::string message(kActivationFileSigningPrefix);
  message.append(reinterpret_cast<const char*>(payload->data()), payload->size());
  if (!verify_message_signature(*key, raw, message)) {
    out.problem = ActivationFileProblem::kBadSignature;
    return out;
  }
  ActivationFile file;
  file.kid = *kid;
  file.algorithm = key->algorithm;
  file.payload = message.substr(kActivationFileSigningPrefix.size());
  const auto p = object_of(file.payload);
  if (!p || !read_payload(*p, file)) return out;  // signed, yet not the §16.3 shape
  out.problem = ActivationFileProblem::kNone;
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
