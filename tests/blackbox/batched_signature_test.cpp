// Batched answer signatures (docs/protocol.md §13.3) through the real binary: under load,
// answers waiting for the signer are signed as one Merkle tree, each carrying its index
// and audit path, and every one verifies with the verifier the SDK and licensectl run
// (src/auth/response_signature.h); an idle server signs a lone answer at once in the
// plain form; ES256 answers (§13.4) are batched under their own key.
#include <gtest/gtest.h>

#include "auth/response_signature.h"
#include "support/fixture.h"

namespace bb {
namespace {

constexpr std::string_view kAccept = "X-License-Accept-Signature";
constexpr int kAtOnce = 48;
constexpr int kRounds = 8;

class BatchedSignatures : public BlackboxTest {
 protected:
  // Both published keys, as a client pins them.
  std::vector<licensed::PinnedResponseKey> Pinned() const {
    std::vector<licensed::PinnedResponseKey> out;
    for (const char* alg : {"Ed25519", "ES256"}) {
      auto pinned = licensed::parse_pinned_response_key(PublishedKey(alg).second);
      if (!pinned) throw std::runtime_error(std::string("cannot pin the ") + alg + " key");
      out.push_back(*pinned);
    }
    return out;
  }
  // The answer's signed time when it verifies bound to `request`'s signature.
  std::optional<int64_t> Verified(const HttpResponse& r, const HttpRequest& request) const {
    return licensed::verify_response_signature(Pinned(), r.header(kResponseSignature).value_or(""),
                                               BoundTo(request), static_cast<unsigned>(r.status),
                                               r.body);
  }
};

// The header's tree size, 1 for the plain form; 0 when it does not parse.
uint32_t TreeSizeOf(const HttpResponse& r) {
  const auto parsed = licensed::parse_response_signature(r.header(kResponseSignature).value_or(""));
  if (!parsed) return 0;
  return parsed->tree ? parsed->tree->size : 1;
}

TEST_F(BatchedSignatures, UnderLoadEveryAnswerVerifiesAndSomeAreSignedAsOneTree) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001"));
  uint32_t largest = 0;
  int batched = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<HttpRequest> requests;
    for (int i = 0; i < kAtOnce; ++i) {
      HttpRequest request =
          Signed(i % 3 == 0 ? "heartbeat" : "status", Body(license, "machine-0001"));
      if (i % 4 == 1) request.Set(kAccept, "es256");
      requests.push_back(std::move(request));
    }
    const auto answers = SendAllAtOnce(requests);
    for (size_t i = 0; i < answers.size(); ++i) {
      SCOPED_TRACE(answers[i].Describe());
      ASSERT_OK(answers[i]);
      EXPECT_TRUE(Verified(answers[i], requests[i]).has_value());
      const bool es256 =
          answers[i].header(kResponseSignature).value_or("").find(", es256=") != std::string::npos;
      EXPECT_EQ(es256, i % 4 == 1);
      const uint32_t n = TreeSizeOf(answers[i]);
      EXPECT_GE(n, 1u);
      largest = std::max(largest, n);
      if (n > 1) ++batched;
      // A batched header does not verify another answer's body.
      HttpResponse edited = answers[i];
      edited.body[edited.body.size() / 2] ^= 0x01;
      EXPECT_FALSE(Verified(edited, requests[i]).has_value());
    }
  }
  EXPECT_GT(largest, 1u) << "no answer was signed in a batch in " << kRounds * kAtOnce;
  EXPECT_GT(batched, 0);
  EXPECT_LE(largest, 4096u);
}

TEST_F(BatchedSignatures, AnIdleServerSignsALoneAnswerAtOnceInThePlainForm) {
  Start();
  const std::string license = NewLicense(2);
  for (const char* accept : {"ed25519", "es256"}) {
    SCOPED_TRACE(accept);
    HttpRequest request = Signed("status", Body(license));
    request.Set(kAccept, accept);
    const auto started = std::chrono::steady_clock::now();
    const HttpResponse r = Send(request);
    ASSERT_OK(r);
    // Nothing waits to fill a batch (the signer has no timer to wait on).
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
    const std::string header(r.header(kResponseSignature).value_or(""));
    EXPECT_EQ(header.find("tree="), std::string::npos) << header;
    EXPECT_EQ(header.find("path="), std::string::npos) << header;
    EXPECT_EQ(TreeSizeOf(r), 1u) << header;
    EXPECT_TRUE(Verified(r, request).has_value()) << header;
  }
}

}  // namespace
}  // namespace bb
