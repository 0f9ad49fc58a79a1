// Lease files (docs/protocol.md §27): signed as the server signs a borrowing checkout's
// answer (sign_lease_file_member with its own ResponseSigner), read and checked as the SDK
// does with a pinned key: accepted on its machine until expiresAt, refused when edited,
// copied to another machine, expired, or signed as an activation file (another prefix).
// tests/blackbox/seats_test.cpp checks the real server's files with Python's cryptography.
#include "auth/lease_file.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/offline_files.h"
#include "auth/response_signer.h"
#include "core/operations.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr int64_t kIssued = 1'790'000'000;  // 2026-09-21T14:13:20Z
constexpr int64_t kDay = 24 * 60 * 60;
const std::string kMachine = "studio-laptop-0001";
const std::string kLicense = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";

std::string lease_payload(const std::string& machine = kMachine) {
  json::object p;
  p["id"] = "0123456789abcdef0123456789abcdef";
  p["licenseKey"] = kLicense;
  p["product"] = {{"slug", "reverb"}, {"name", "Reverb Pro"}};
  p["machine"] = {{"id", machine}, {"name", nullptr}};
  p["sessionId"] = machine;
  p["entitlements"] = json::array{{{"code", "pro"}, {"expiresAt", nullptr}, {"active", true}}};
  p["issuedAt"] = "2026-09-21T14:13:20.000Z";
  p["expiresAt"] = "2026-09-24T14:13:20.000Z";  // borrowed for 3 days
  return json::serialize(p);
}

class LeaseFileTest : public ::testing::TestWithParam<ResponseAlgorithm> {
 protected:
  LeaseFileTest() : signer_({ResponseKey::generate(GetParam()).value()}) {}

  std::string file(const std::string& machine = kMachine) const {
    json::object answer{{std::string(kLeaseFileMember), lease_payload(machine)}};
    auto signed_answer = sign_lease_file_member(&signer_, GetParam(), answer);
    EXPECT_TRUE(signed_answer.ok());
    return std::string(signed_answer.value().at(kLeaseFileMember).as_string());
  }
  std::vector<PinnedResponseKey> pinned() const {
    return {signer_.signing_key(GetParam())->pinned()};
  }
  ActivationFileExpectation expect(int64_t now = kIssued + kDay) const {
    return {kMachine, "reverb", kLicense, now, std::nullopt};
  }

  ResponseSigner signer_;
};

INSTANTIATE_TEST_SUITE_P(BothAlgorithms, LeaseFileTest,
                         ::testing::Values(ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256),
                         [](const auto& info) {
                           return info.param == ResponseAlgorithm::kEd25519 ? "Ed25519" : "ES256";
                         });

TEST_P(LeaseFileTest, AFileOnItsOwnMachineIsAcceptedUntilItEnds) {
  const std::string text = file();
  EXPECT_NE(text.find("-----BEGIN LICENSE LEASE-----"), std::string::npos);
  const LeaseFileRead read = verify_lease_file(text, pinned(), expect());
  ASSERT_TRUE(read.file.has_value());
  EXPECT_EQ(read.problem, ActivationFileProblem::kNone);
  EXPECT_EQ(read.file->session_id, kMachine);
  EXPECT_EQ(read.file->expires_at, kIssued + 3 * kDay);
  ASSERT_EQ(read.file->entitlements.size(), 1u);
  EXPECT_EQ(verify_lease_file(text, pinned(), expect(kIssued + 3 * kDay)).problem,
            ActivationFileProblem::kExpired);
}

TEST_P(LeaseFileTest, AFileCopiedToAnotherMachineIsRefused) {
  EXPECT_EQ(verify_lease_file(file("someone-elses-pc"), pinned(), expect()).problem,
            ActivationFileProblem::kOtherMachine);
}

TEST_P(LeaseFileTest, AnEditedFileIsRefused) {
  const std::string text = file();
  const auto outer = dearmour_as(text, kLeaseFileLabel);
  ASSERT_TRUE(outer.has_value());
  json::object envelope = json::parse(std::string(outer->begin(), outer->end())).as_object();
  // A later end, written into the signed payload: the signature no longer matches.
  std::string payload = lease_payload();
  payload.replace(payload.find("2026-09-24"), 10, "2036-09-24");
  envelope["payload"] =
      base64_encode(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  const std::string edited = armour(kLeaseFileLabel, json::serialize(envelope));
  EXPECT_EQ(verify_lease_file(edited, pinned(), expect()).problem,
            ActivationFileProblem::kBadSignature);
}

TEST_P(LeaseFileTest, AnActivationFileSignatureDoesNotMakeALeaseFile) {
  // The same payload signed under the activation file's prefix and relabelled: the
  // prefixes keep one kind of file from passing for the other.
  const auto activation = sign_activation_file(signer_, GetParam(), lease_payload());
  ASSERT_TRUE(activation.has_value());
  const auto inner = dearmour_as(*activation, kActivationFileLabel);
  ASSERT_TRUE(inner.has_value());
  const std::string relabelled = armour(kLeaseFileLabel, std::string(inner->begin(), inner->end()));
  EXPECT_EQ(verify_lease_file(relabelled, pinned(), expect()).problem,
            ActivationFileProblem::kBadSignature);
}

TEST(LeaseFileRead, GarbageIsMalformedNotACrash) {
  EXPECT_EQ(read_lease_file("", {}).problem, ActivationFileProblem::kMalformed);
  EXPECT_EQ(read_lease_file("-----BEGIN LICENSE LEASE-----\nAAAA\n-----END LICENSE LEASE-----", {})
                .problem,
            ActivationFileProblem::kMalformed);
}

}  // namespace
}  // namespace licensed
