// Offline files as a client writes and reads them (spec §16 with §21's rules): request and
// deactivation files signed as their requests, activation files verified with a pinned
// Ed25519 or ES256 key, refused when edited, for another machine, license or product, or
// outside the clock window. The files are signed here by ResponseSigner, the server's own
// signing code, over `v1-activation-file\n` + payload (the vector the server's files must
// verify against; test OfflineFileIndependent in client/tests checks the same bytes with
// Python's `cryptography`).
#include "auth/offline_file.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/request_signature.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr int64_t kIssued = 1'790'000'000;  // 2026-09-21
constexpr int64_t kDay = 24 * 60 * 60;
const std::string kMachine = std::string(64, 'a');
const std::string kLicense = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";

json::object payload_of(const std::string& machine = kMachine) {
  return json::object{
      {"id", "0123456789abcdef0123456789abcdef"},
      {"licenseKey", kLicense},
      {"product", json::object{{"slug", "reverb"}, {"name", "Reverb Pro"}}},
      {"machine", json::object{{"id", machine}, {"name", nullptr}}},
      {"status", "ACTIVE"},
      {"entitlements",
       json::array{json::object{{"code", "pro"}, {"expiresAt", nullptr}, {"active", true}},
                   json::object{{"code", "voices"},
                                {"expiresAt", "2027-01-01T00:00:00.000Z"},
                                {"active", true},
                                {"value", 64}}}},
      {"max", 3},
      {"licenseExpiresAt", nullptr},
      {"issuedAt", "2026-09-21T14:13:20.000Z"},
      {"expiresAt", "2026-12-20T14:13:20.000Z"},  // issuedAt + 90 d
      {"requestTimestamp", kIssued - 60},
      {"requestNonce", "nonce-0123456789abcdef"}};
}

// An activation file as §16.3 describes it, signed by `signer` in `algorithm`.
std::string sign_file(const ResponseSigner& signer, ResponseAlgorithm algorithm,
                      const std::string& payload) {
  const auto signature =
      signer.sign_message(algorithm, std::string(kActivationFileSigningPrefix) + payload);
  EXPECT_TRUE(signature.has_value());
  const json::object envelope{
      {"v", 1},
      {"kid", signer.signing_key(algorithm)->kid()},
      {"alg", std::string(algorithm_name(algorithm))},
      {"signature", base64_encode(signature->data(), signature->size())},
      {"payload", base64_encode(reinterpret_cast<const uint8_t*>(payload.data()), payload.size())}};
  return armour(kActivationFileLabel, json::serialize(envelope));
}

class OfflineFile : public ::testing::TestWithParam<ResponseAlgorithm> {
 protected:
  OfflineFile() : signer_({ResponseKey::generate(GetParam()).value()}) {}

  std::vector<PinnedResponseKey> pinned() const {
    return {signer_.signing_key(GetParam())->pinned()};
  }
  std::string file(const std::string& machine = kMachine) const {
    return sign_file(signer_, GetParam(), json::serialize(payload_of(machine)));
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
  std::string payload = json::serialize(payload_of());
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
  EXPECT_EQ(read->label, kActivationRequestLabel);
  EXPECT_EQ(read->body, R"({"licenseKey":")" + kLicense + R"(","machineId":")" + kMachine + "\"}");
  EXPECT_EQ(read->timestamp, kIssued);
  // The §2 signature a server recomputes for POST /api/v1/license/activate.
  EXPECT_EQ(read->signature,
            sign_request("s3cret", {"POST", "/api/v1/license/activate", "plugin-2026",
                                    std::to_string(kIssued), in.nonce, sha256_hex(read->body)}));
  EXPECT_FALSE(read->activation_id.has_value());
  // timestamp is a JSON integer (§21).
  const auto raw = dearmour_as(text, kActivationRequestLabel);
  EXPECT_TRUE(json::parse(std::string(raw->begin(), raw->end())).at("timestamp").is_int64());
}

TEST(OfflineRequestFile, ADeactivationFileIsSignedAsADeactivateRequestNamingTheActivation) {
  OfflineRequestInput in{"plugin-2026",
                         "s3cret",
                         kLicense,
                         kMachine,
                         kIssued,
                         "AbCdEfGhIjKlMnOpQrStUvWxYz012345",
                         std::string("0123abcd")};
  const std::string text = write_deactivation_file(in);
  const auto read = read_offline_request(text);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->label, kDeactivationFileLabel);
  EXPECT_EQ(read->activation_id, "0123abcd");
  EXPECT_EQ(read->signature,
            sign_request("s3cret", {"POST", "/api/v1/license/deactivate", "plugin-2026",
                                    std::to_string(kIssued), in.nonce, sha256_hex(read->body)}));
  in.activation_id.reset();
  EXPECT_EQ(write_deactivation_file(in), "") << "a deactivation names its activation";
}

}  // namespace
}  // namespace licensed
