#include "auth/lease_file.h"

#include <boost/json/parse.hpp>

#include "core/timestamp.h"

namespace licensed {
namespace {

namespace json = boost::json;

std::optional<std::string> text_of(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

std::optional<int64_t> seconds_at(const json::object& o, std::string_view key) {
  const auto text = text_of(o, key);
  if (!text) return std::nullopt;
  const auto ms = parse_timestamp(*text);
  if (!ms) return std::nullopt;
  return *ms >= 0 ? *ms / 1000 : -((-*ms + 999) / 1000);
}

bool read_lease_payload(const json::object& p, LeaseFile& file) {
  const json::value* product = p.if_contains("product");
  const json::value* machine = p.if_contains("machine");
  if (product == nullptr || !product->is_object() || machine == nullptr || !machine->is_object()) {
    return false;
  }
  auto id = text_of(p, "id");
  auto key = text_of(p, "licenseKey");
  auto session = text_of(p, "sessionId");
  auto slug = text_of(product->as_object(), "slug");
  auto machine_id = text_of(machine->as_object(), "id");
  const auto issued = seconds_at(p, "issuedAt");
  const auto expires = seconds_at(p, "expiresAt");
  auto entitlements = read_file_entitlements(p);
  if (!id || !key || !session || !slug || !machine_id || !issued || !expires || !entitlements) {
    return false;
  }
  file.id = std::move(*id);
  file.license_key = std::move(*key);
  file.session_id = std::move(*session);
  file.product_slug = std::move(*slug);
  file.product_name = text_of(product->as_object(), "name").value_or("");
  file.machine_id = std::move(*machine_id);
  file.machine_name = text_of(machine->as_object(), "name");
  file.issued_at = *issued;
  file.expires_at = *expires;
  file.entitlements = std::move(*entitlements);
  return true;
}

}  // namespace

std::string lease_file_message(std::string_view payload) {
  std::string message(kLeaseFileSigningPrefix);
  message.append(payload);
  return message;
}

std::string write_lease_file(std::string_view kid, const RawResponseSignature& signature,
                             std::string_view payload) {
  return write_signed_envelope(kLeaseFileLabel, kid, signature, payload);
}

LeaseFileRead read_lease_file(std::string_view armoured,
                              const std::vector<PinnedResponseKey>& pinned) {
  LeaseFileRead out;
  SignedPayloadRead opened =
      open_signed_envelope(armoured, pinned, kLeaseFileLabel, kLeaseFileSigningPrefix);
  out.problem = opened.problem;
  if (!opened.signed_payload) return out;
  LeaseFile file;
  file.kid = std::move(opened.signed_payload->kid);
  file.algorithm = opened.signed_payload->algorithm;
  file.payload = std::move(opened.signed_payload->payload);
  boost::system::error_code ec;
  const json::value v = json::parse(file.payload, ec);
  if (ec || !v.is_object() || !read_lease_payload(v.as_object(), file)) {
    out.problem = ActivationFileProblem::kMalformed;  // signed, yet not the §27 shape
    return out;
  }
  out.file = std::move(file);
  return out;
}

ActivationFileProblem check_lease_file(const LeaseFile& file,
                                       const ActivationFileExpectation& expected) {
  ActivationFile as_activation;
  as_activation.machine_id = file.machine_id;
  as_activation.product_slug = file.product_slug;
  as_activation.license_key = file.license_key;
  as_activation.issued_at = file.issued_at;
  as_activation.expires_at = file.expires_at;
  return check_activation_file(as_activation, expected);
}

LeaseFileRead verify_lease_file(std::string_view armoured,
                                const std::vector<PinnedResponseKey>& pinned,
                                const ActivationFileExpectation& expected) {
  LeaseFileRead out = read_lease_file(armoured, pinned);
  if (out.file) out.problem = check_lease_file(*out.file, expected);
  return out;
}

}  // namespace licensed
