// Offline files, one model for both ends (docs/protocol.md §21): request and
// deactivation files signed as their requests and read back with their types (docs/protocol.md
// §21.1), activation files written as the server writes them (write_activation_payload, signed by
// sign_activation_file with the server's own ResponseSigner) and read and verified as the
// SDK does with a pinned Ed25519 or ES256 key, refused when edited, for another machine,
// license or product, or outside the clock window. Python's `cryptography` checks the same
// bytes (client/tests, SdkOffline.AnIndependentEd25519ImplementationAgreesOnActivationFiles,
// and tests/support/verify_activation_file.py for the real server's files).
#include "auth/offline_file.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/offline_files.h"
#include "auth/request_signature.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr int64_t kIssued = 1'790'000'000;  // 2026-09-21T14:13:20Z
constexpr int64_t kDay = 24 * 60 * 60;
const std::string kMachine = std::string(64, 'a');
const std::string kLicense = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const std::string kFileId = "0123456789abcdef0123456789abcdef";

ActivationPayloadFields payload_fields(const std::string& machine = kMachine) {
  ActivationPayloadFields f;
  f.id = kFileId;
  f.license_key = kLicense;
  f.product_slug = "reverb";
  f.product_name = "Reverb Pro";
  f.machine_id = machine;
  f.status = "ACTIVE";
  f.entitlements =
      json::array{json::object{{"code", "pro"}, {"expiresAt", nullptr}, {"active", true}},
                  json::object{{"code", "voices"},
                               {"expiresAt", "2027-01-01T00:00:00.000Z"},
                               {"active", true},
                               {"value", 64}}};
  f.max = 3;
  f.issued_at_ms = kIssued * 1000;
  f.expires_at_ms = (kIssued + 90 * kDay) * 1000;
  f.request_timestamp = kIssued - 60;
  f.request_nonce = "nonce-0123456789abcdef";
  return f;
}

std::string payload_of(const std::string& machine = kMachine) {
  return write_activation_payload(payload_fields(machine));
}

// An activation file signed by `signer` in `algorithm`, as the server signs one.
std::string sign_file(const ResponseSigner& signer, ResponseAlgorithm algorithm,
                      const std::string& payload) {
  const auto file = sign_activation_file(signer, algorithm, payload);
  EXPECT_TRUE(file.has_value());
  return file.value_or("");
}

TEST(OfflineActivationPayload, IsWrittenWithTheMembersAndTypesOfSection16_3) {
  ActivationPayloadFields f = payload_fields();
  f.machine_name = "Studio A";
  f.license_expires_at_ms = (kIssued + 365 * kDay) * 1000;
  EXPECT_EQ(json::parse(write_activation_payload(f)),
            json::parse(R"({"id":"0123456789abcdef0123456789abcdef",
              "licenseKey":"4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
              "product":{"slug":"reverb","name":"Reverb Pro"},
              "machine":{"id":")" +
                        kMachine + R"(","name":"Studio A"},
              "status":"ACTIVE",
              "entitlements":[{"code":"pro","expiresAt":null,"active":true},
                {"code":"voices","expiresAt":"2027-01-01T00:00:00.000Z","active":true,"value":64}],
              "max":3,
              "licenseExpiresAt":"2027-09-21T14:13:20.000Z",
              "issuedAt":"2026-09-21T14:13:20.000Z",
              "expiresAt":"2026-12-20T14:13:20.000Z",
              "requestTimestamp":"2026-09-21T14:12:20.000Z",
              "requestNonce":"nonce-0123456789abcdef"})"));
}

class OfflineFile : public ::testing::TestWithParam<ResponseAlgorithm> {
 protected:
  OfflineFile() : signer_({ResponseKey::generate(GetParam()).value()}) {}

  std::vector<PinnedResponseKey> pinned() const {
    return {signer_.signing_key(GetParam())->pinned()};
  }
  std::string file(const std::string& machine = kMachine) const {
    return sign_file(signer_, GetParam(), payload_of(machine));
  }
  ActivationFileExpectation expect(int64_t now = kIssued + kDay) const {
    return {kMachine, "reverb", kLicense, now, std::nullopt};
  }

  ResponseSigner signer_;
};

INSTANTIATE_TEST_SUITE_P(BothAlgorithms, OfflineFile,
                         ::testing::Values(ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256),
                         [](const auto& info) { return std::string(algorithm_token(info.param)); });

TEST_P(OfflineFile, AFileSignedByThePinnedKeyVerifiesAndReadsItsPayload) {
  const auto read = verify_activation_file(file(), pinned(), expect());
  ASSERT_EQ(read.problem, ActivationFileProblem::kNone);
  ASSERT_TRUE(read.file.has_value());
  EXPECT_EQ(read.file->license_key, kLicense);
  EXPECT_EQ(read.file->product_slug, "reverb");
  EXPECT_EQ(read.file->issued_at, kIssued);
  EXPECT_EQ(read.file->expires_at, kIssued + 90 * kDay);
  EXPECT_EQ(read.file->request_timestamp, kIssued - 60);
  ASSERT_EQ(read.file->entitlements.size(), 2u);
  EXPECT_EQ(read.file->entitlements[0].code, "pro");
  EXPECT_FALSE(read.file->entitlements[0].expires_at.has_value());
  EXPECT_EQ(read.file->entitlements[1].value, "64");
  EXPECT_EQ(read.file->max, 3);
}

TEST_P(OfflineFile, AOneByteEditAnywhereInThePayloadIsRefused) {
  std::string payload = payload_of();
  const std::string good = sign_file(signer_, GetParam(), payload);
  // Sign the original, then swap in an edited payload under the same signature.
  const auto envelope = json::parse(std::string([&] {
                          auto b = dearmour_as(good, kActivationFileLabel);
                          return std::string(b->begin(), b->end());
                        }()))
                            .as_object();
  for (const size_t at : {size_t{2}, payload.size() / 2, payload.size() - 2}) {
    std::string edited = payload;
    edited[at] = edited[at] == '1' ? '2' : '1';
    json::object forged = envelope;
    forged["payload"] =
        base64_encode(reinterpret_cast<const uint8_t*>(edited.data()), edited.size());
    const auto read = verify_activation_file(armour(kActivationFileLabel, json::serialize(forged)),
                                             pinned(), expect());
    EXPECT_EQ(read.problem, ActivationFileProblem::kBadSignature) << "byte " << at;
    EXPECT_FALSE(read.file.has_value());
  }
}

TEST_P(OfflineFile, ASignedPayloadWithARequestTimestampThatIsNotRfc3339IsMalformed) {
  json::object p = json::parse(payload_of()).as_object();
  p["requestTimestamp"] = kIssued - 60;  // Unix seconds: not what the server writes
  const auto read = verify_activation_file(sign_file(signer_, GetParam(), json::serialize(p)),
                                           pinned(), expect());
  EXPECT_EQ(read.problem, ActivationFileProblem::kMalformed);
  EXPECT_FALSE(read.file.has_value());
}

TEST_P(OfflineFile, AFileForAnotherMachineIsRefused) {
  const auto read = verify_activation_file(file(std::string(64, 'b')), pinned(), expect());
  EXPECT_EQ(read.problem, ActivationFileProblem::kOtherMachine);
}

TEST_P(OfflineFile, AFileForAnotherProductOrLicenseIsRefused) {
  ActivationFileExpectation other_product = expect();
  other_product.product = "delay";
  EXPECT_EQ(verify_activation_file(file(), pinned(), other_product).problem,
            ActivationFileProblem::kOtherProduct);
  ActivationFileExpectation any_product = expect();
  any_product.product = "";
  EXPECT_EQ(verify_activation_file(file(), pinned(), any_product).problem,
            ActivationFileProblem::kNone);
  ActivationFileExpectation other_license = expect();
  other_license.license_key = "5f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
  EXPECT_EQ(verify_activation_file(file(), pinned(), other_license).problem,
            ActivationFileProblem::kOtherLicense);
}

TEST_P(OfflineFile, TheClockMustBeBetweenIssuedAtLess24HoursAndExpiresAt) {
  const std::string f = file();
  const auto at = [&](int64_t now) {
    return verify_activation_file(f, pinned(), expect(now)).problem;
  };
  EXPECT_EQ(at(kIssued - kDay - 1), ActivationFileProblem::kNotYetValid);
  EXPECT_EQ(at(kIssued - kDay), ActivationFileProblem::kNone) << "a clock a day behind";
  EXPECT_EQ(at(kIssued + 90 * kDay - 1), ActivationFileProblem::kNone);
  EXPECT_EQ(at(kIssued + 90 * kDay), ActivationFileProblem::kExpired);
}

TEST_P(OfflineFile, AClockSetBackMoreThanADayBehindTheLatestTimeSeenIsRefused) {
  const std::string f = file();
  ActivationFileExpectation e = expect(kIssued + 10 * kDay);
  e.latest_seen = kIssued + 11 * kDay + 1;
  EXPECT_EQ(verify_activation_file(f, pinned(), e).problem, ActivationFileProblem::kClockSetBack);
  e.latest_seen = kIssued + 11 * kDay;
  EXPECT_EQ(verify_activation_file(f, pinned(), e).problem, ActivationFileProblem::kNone);
  // Within the day tolerated, the latest time still decides expiry.
  e.now = kIssued + 90 * kDay - 3600;
  e.latest_seen = kIssued + 90 * kDay;
  EXPECT_EQ(verify_activation_file(f, pinned(), e).problem, ActivationFileProblem::kExpired);
}

TEST_P(OfflineFile, AnotherKeyOrAnotherLabelIsRefused) {
  const ResponseSigner other({ResponseKey::generate(GetParam()).value()});
  EXPECT_EQ(
      verify_activation_file(file(), {other.signing_key(GetParam())->pinned()}, expect()).problem,
      ActivationFileProblem::kUnknownKey);
  // The right kid with another key's bytes (a pinned key under a forged id).
  PinnedResponseKey impostor = other.signing_key(GetParam())->pinned();
  impostor.kid = signer_.signing_key(GetParam())->kid();
  EXPECT_EQ(verify_activation_file(file(), {impostor}, expect()).problem,
            ActivationFileProblem::kBadSignature);
  std::string relabelled = file();
  const auto bytes = dearmour_as(relabelled, kActivationFileLabel);
  relabelled = armour(kDeactivationFileLabel, std::string(bytes->begin(), bytes->end()));
  EXPECT_EQ(verify_activation_file(relabelled, pinned(), expect()).problem,
            ActivationFileProblem::kMalformed);
  EXPECT_EQ(verify_activation_file("not a file", pinned(), expect()).problem,
            ActivationFileProblem::kMalformed);
}

TEST(OfflineRequestFile, IsSignedAsAnActivateRequestAndStaysUnder1KiB) {
  OfflineRequestInput in{"plugin-2026", "s3cret", kLicense,
                         kMachine,      kIssued,  "AbCdEfGhIjKlMnOpQrStUvWxYz012345",
                         std::nullopt};
  const std::string text = write_request_file(in);
  EXPECT_LT(text.size(), 1024u) << text;
  EXPECT_EQ(text.rfind("-----BEGIN LICENSE ACTIVATION REQUEST-----\n", 0), 0u);
  const auto read = read_offline_request(text);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->kind, OfflineFileKind::kRequest);
  EXPECT_EQ(read->body, R"({"licenseKey":")" + kLicense + R"(","machineId":")" + kMachine + "\"}");
  EXPECT_EQ(read->timestamp, kIssued);
  // The docs/protocol.md §3 signature a server recomputes for POST /api/v1/license/activate.
  EXPECT_EQ(read->signature,
            sign_request("s3cret", {"POST", "/api/v1/license/activate", "plugin-2026",
                                    std::to_string(kIssued), in.nonce, sha256_hex(read->body)}));
  EXPECT_FALSE(read->activation_id.has_value());
  // timestamp is a JSON integer (docs/protocol.md §21.1).
  const auto raw = dearmour_as(text, kActivationRequestLabel);
  EXPECT_TRUE(json::parse(std::string(raw->begin(), raw->end())).at("timestamp").is_int64());
}

TEST(OfflineRequestFile, ADeactivationFileIsSignedAsADeactivateRequestNamingTheActivation) {
  OfflineRequestInput in{"plugin-2026", "s3cret", kLicense,
                         kMachine,      kIssued,  "AbCdEfGhIjKlMnOpQrStUvWxYz012345",
                         kFileId};
  const std::string text = write_deactivation_file(in);
  const auto read = read_offline_request(text);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->kind, OfflineFileKind::kDeactivation);
  EXPECT_EQ(read->activation_id, kFileId);
  EXPECT_EQ(read->signature,
            sign_request("s3cret", {"POST", "/api/v1/license/deactivate", "plugin-2026",
                                    std::to_string(kIssued), in.nonce, sha256_hex(read->body)}));
  in.activation_id.reset();
  EXPECT_EQ(write_deactivation_file(in), "") << "a deactivation names its activation";
  // The server refuses any activationId but the 32 lowercase hex digits it issues.
  for (const std::string& id :
       std::vector<std::string>{"0123abcd", std::string(32, 'A'), std::string(33, 'a')}) {
    in.activation_id = id;
    EXPECT_EQ(write_deactivation_file(in), "") << id;
  }
}

TEST(OfflineRequestFile, TheServerReadsWhatTheClientWritesAsTheSameFile) {
  OfflineRequestInput in{"plugin-2026",        "s3cret", kLicense, kMachine, kIssued,
                         random_128_bit_hex(), kFileId};
  const auto server =
      parse_offline_file(write_deactivation_file(in), OfflineFileKind::kDeactivation);
  ASSERT_TRUE(server.ok()) << server.error().message;
  EXPECT_EQ(server->request.license_key, kLicense);
  EXPECT_EQ(server->request.offline->activation_id, kFileId);
  EXPECT_EQ(server->request.offline->timestamp, kIssued);
  const std::vector<SigningKeyConfig> configs = {{"plugin-2026", "s3cret", {}}};
  const KeyRing keys(configs);
  EXPECT_TRUE(check_offline_file(keys, server.value(), kIssued, OfflineFileLimits{}).ok());
  EXPECT_FALSE(parse_offline_file(write_deactivation_file(in), OfflineFileKind::kRequest).ok())
      << "a deactivation file is not a request";
  EXPECT_TRUE(parse_offline_file(write_request_file(in), OfflineFileKind::kRequest).ok());
}

}  // namespace
}  // namespace licensed
