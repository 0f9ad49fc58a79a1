// Request, deactivation and activation files (docs/protocol.md §21) on the server: read
// (the shared reader of auth/offline_file.h, then the inner body's schema), checked as a
// signed request with the offline limits, and signed with the response key in the docs/protocol.md
// §21.3 shape the SDK reads (open_activation_file, the SDK's own reader).
#include "auth/offline_files.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/request_signature.h"

namespace licensed {
namespace {

constexpr int64_t kNow = 1'795'000'000;
constexpr std::string_view kKey = "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b";
const std::vector<SigningKeyConfig> kKeys = {{"plugin-1", "s3cret", {}}};

struct FileSpec {
  std::string key_id = "plugin-1";
  std::string secret = "s3cret";
  int64_t timestamp = kNow;
  std::string nonce = "nonce-0123456789abcdef";
  std::string body =
      std::string(R"({"licenseKey":")") + std::string(kKey) + R"(","machineId":"studio-mac-01"})";
  std::string path = "/api/v1/license/activate";
  std::string_view label = kActivationRequestLabel;
};

std::string make_file(const FileSpec& f) {
  const std::string ts = std::to_string(f.timestamp);
  const std::string signature =
      sign_request(f.secret, {"POST", f.path, f.key_id, ts, f.nonce, sha256_hex(f.body)});
  boost::json::object o{{"v", 1},           {"keyId", f.key_id},      {"timestamp", f.timestamp},
                        {"nonce", f.nonce}, {"signature", signature}, {"body", f.body}};
  return armour(f.label, boost::json::serialize(o));
}

std::string reason_of(const ApiError& e) {
  const auto* r = e.extra.if_contains("reason");
  return r != nullptr && r->is_string() ? std::string(r->as_string()) : std::string();
}

// The reason a file is refused for, read and checked at kNow; "" when it passes.
std::string refusal(const std::string& text, OfflineFileKind kind = OfflineFileKind::kRequest) {
  const KeyRing keys(kKeys);
  auto file = parse_offline_file(text, kind);
  if (!file.ok()) {
    EXPECT_EQ(file.error().extra.at("field").as_string(), "request");
    return reason_of(file.error());
  }
  auto checked = check_offline_file(keys, file.value(), kNow, OfflineFileLimits{});
  if (!checked.ok()) {
    EXPECT_EQ(checked.error().http_status, 400);
    EXPECT_EQ(checked.error().code, ErrorCode::kMalformed);
    return reason_of(checked.error());
  }
  return "";
}

TEST(OfflineFiles, AValidRequestFileIsReadWithItsInnerBodyAndOrigin) {
  auto file = parse_offline_file(make_file({}), OfflineFileKind::kRequest);
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->request.license_key, kKey);
  EXPECT_EQ(file->request.machine_id, "studio-mac-01");
  ASSERT_TRUE(file->request.offline.has_value());
  EXPECT_EQ(file->request.offline->timestamp, kNow);
  EXPECT_EQ(file->request.offline->nonce, "nonce-0123456789abcdef");
  EXPECT_FALSE(file->request.offline->activation_id.has_value());
  EXPECT_EQ(refusal(make_file({})), "");
}

TEST(OfflineFiles, ARequestStaysUnderOneKibibyte) {
  EXPECT_LT(make_file({}).size(), 1024u);
}

TEST(OfflineFiles, AgeAndSkewHaveTheirLimitsIncludedAndRefuseBeyond) {
  FileSpec old;
  old.timestamp = kNow - 30 * 86400;
  EXPECT_EQ(refusal(make_file(old)), "");
  old.timestamp -= 1;
  EXPECT_EQ(refusal(make_file(old)), "too_old");
  FileSpec ahead;
  ahead.timestamp = kNow + 86400;
  EXPECT_EQ(refusal(make_file(ahead)), "");
  ahead.timestamp += 1;
  EXPECT_EQ(refusal(make_file(ahead)), "too_far_ahead");
}

TEST(OfflineFiles, AnUnknownKeyIdIsRefusedAsUnknownKey) {
  FileSpec f;
  f.key_id = "someone-else";
  EXPECT_EQ(refusal(make_file(f)), "unknown_key");
}

TEST(OfflineFiles, AWrongSecretOrAnotherPathIsASignatureMismatch) {
  FileSpec f;
  f.secret = "not-the-secret";
  EXPECT_EQ(refusal(make_file(f)), "signature_mismatch");
  FileSpec deactivate_path;
  deactivate_path.path = "/api/v1/license/deactivate";
  EXPECT_EQ(refusal(make_file(deactivate_path)), "signature_mismatch");
}

TEST(OfflineFiles, GarbledArmourAWrongLabelOrAWrongShapeIsMalformed) {
  std::string text = make_file({});
  text.insert(text.find('\n') + 5, "!");
  EXPECT_EQ(refusal(text), "malformed");
  FileSpec labelled;
  labelled.label = kDeactivationFileLabel;
  EXPECT_EQ(refusal(make_file(labelled)), "malformed") << "a deactivation file sent to activate";
  EXPECT_EQ(refusal("not armour at all"), "malformed");
  EXPECT_EQ(refusal(armour(kActivationRequestLabel, R"({"v":1})")), "malformed");
  EXPECT_EQ(refusal(armour(kActivationRequestLabel, "[1,2]")), "malformed");
}

TEST(OfflineFiles, MembersOfTheWrongTypeAreMalformed) {
  const std::string good = make_file({});
  const auto bytes = dearmour_as(good, kActivationRequestLabel);
  ASSERT_TRUE(bytes);
  const boost::json::object o =
      boost::json::parse(std::string(bytes->begin(), bytes->end())).as_object();
  const std::vector<std::pair<const char*, boost::json::value>> edits = {
      {"timestamp", boost::json::value(std::to_string(kNow))},
      {"v", boost::json::value(2)},
      {"nonce", boost::json::value("short")},
      {"signature", boost::json::value("v1=" + std::string(64, 'A'))},
      {"body", boost::json::value(boost::json::object{})},
      {"keyId", boost::json::value("bad key")}};
  for (const auto& [name, value] : edits) {
    SCOPED_TRACE(name);
    boost::json::object edited = o;
    edited[name] = value;
    EXPECT_EQ(refusal(armour(kActivationRequestLabel, boost::json::serialize(edited))),
              "malformed");
  }
}

TEST(OfflineFiles, AnInnerBodyThatBreaksTheActivateSchemaIsMalformed) {
  FileSpec f;
  f.body = R"({"licenseKey":"not-a-uuid","machineId":"studio-mac-01"})";
  EXPECT_EQ(refusal(make_file(f)), "malformed");
}

TEST(OfflineFiles, ADeactivationFileNamesTheActivationIdItEnds) {
  FileSpec f;
  f.label = kDeactivationFileLabel;
  f.path = "/api/v1/license/deactivate";
  const std::string id(32, 'a');
  f.body = std::string(R"({"licenseKey":")") + std::string(kKey) +
           R"(","machineId":"studio-mac-01","activationId":")" + id + R"("})";
  auto file = parse_offline_file(make_file(f), OfflineFileKind::kDeactivation);
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->request.offline->activation_id, id);
  EXPECT_EQ(refusal(make_file(f), OfflineFileKind::kDeactivation), "");
  f.body =
      std::string(R"({"licenseKey":")") + std::string(kKey) + R"(","machineId":"studio-mac-01"})";
  EXPECT_EQ(refusal(make_file(f), OfflineFileKind::kDeactivation), "malformed")
      << "no activationId";
}

TEST(OfflineFiles, AnActivationIdIs128RandomBitsInHex) {
  const std::string a = random_128_bit_hex();
  const std::string b = random_128_bit_hex();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
}

// The payload of `file` when its signature verifies with one of `pinned`.
std::optional<std::string> signed_payload(const std::string& file,
                                          const std::vector<PinnedResponseKey>& pinned) {
  auto opened = open_activation_file(file, pinned);
  if (!opened.signed_payload) return std::nullopt;
  return opened.signed_payload->payload;
}

class ActivationFileSigning : public ::testing::TestWithParam<ResponseAlgorithm> {};

TEST_P(ActivationFileSigning, VerifiesWithTheResponseKeyAndNotWhenOneByteChanges) {
  auto ed = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  auto es = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(ed.ok() && es.ok());
  const ResponseSigner signer({ed.value(), es.value()});
  const std::string payload = R"({"id":"00112233445566778899aabbccddeeff","max":3})";
  const auto file = sign_activation_file(signer, GetParam(), payload);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->rfind("-----BEGIN LICENSE ACTIVATION-----\n", 0), 0u);
  const std::vector<PinnedResponseKey> pinned = {ed->pinned(), es->pinned()};
  EXPECT_EQ(signed_payload(*file, pinned), payload);

  // docs/protocol.md §21.3's envelope exactly: {"v", "kid", "signature", "payload"}, no algorithm
  // member (the pinned key the kid names has one).
  const auto bytes = dearmour_as(*file, kActivationFileLabel);
  boost::json::object o = boost::json::parse(std::string(bytes->begin(), bytes->end())).as_object();
  EXPECT_EQ(o.size(), 4u) << boost::json::serialize(o);
  EXPECT_EQ(o.at("v").as_int64(), 1);
  EXPECT_FALSE(o.contains("alg"));
  EXPECT_EQ(o.at("kid").as_string(), signer.signing_key(GetParam())->kid());
  std::string edited = payload;
  edited[edited.size() - 2] = '4';  // max 3 -> 4
  o["payload"] = base64_encode(reinterpret_cast<const uint8_t*>(edited.data()), edited.size());
  const std::string forged = armour(kActivationFileLabel, boost::json::serialize(o));
  EXPECT_EQ(signed_payload(forged, pinned), std::nullopt);
  auto other = ResponseKey::generate(GetParam());
  EXPECT_EQ(signed_payload(*file, {other->pinned()}), std::nullopt) << "another key";
}

INSTANTIATE_TEST_SUITE_P(BothAlgorithms, ActivationFileSigning,
                         ::testing::Values(ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256),
                         [](const auto& info) { return std::string(algorithm_token(info.param)); });

TEST(OfflineFiles, TheAnswersPayloadIsReplacedByTheSignedFile) {
  auto ed = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  const ResponseSigner signer({ed.value()});
  boost::json::object body{{"ok", true}, {"activationFile", R"({"id":"x"})"}};
  auto signed_body = sign_activation_file_member(&signer, ResponseAlgorithm::kEd25519, body);
  ASSERT_TRUE(signed_body.ok());
  const std::string file(signed_body->at("activationFile").as_string());
  EXPECT_EQ(signed_payload(file, {ed->pinned()}), R"({"id":"x"})");
  EXPECT_FALSE(sign_activation_file_member(nullptr, ResponseAlgorithm::kEd25519, body).ok());
}

}  // namespace
}  // namespace licensed
