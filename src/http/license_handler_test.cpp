// Signed responses at the HTTP layer (docs/protocol.md §13), through exchange_bytes: the same
// intake and finalisation the socket session uses, so refusals made before the handler
// runs (405, 413, 431) are covered as well as the handler's own answers.
#include "http/license_handler.h"

#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/json.hpp>
#include <sstream>

#include "auth/memory_nonce_store.h"
#include "http/request_intake.h"

namespace licensed {
namespace {

namespace http = boost::beast::http;

// The request signing key of the handler below, and a second second's worth of nonces.
constexpr std::string_view kKeyId = "k1";
constexpr std::string_view kSecret = "secret-1";
constexpr std::string_view kTimestamp = "1795000000";

// The four signing headers of a request to `api_path` with `body`, and the 64 hex digits
// an answer to it binds to.
struct SignedHeaders {
  std::string text;
  std::string bound;
};
SignedHeaders sign_headers(std::string_view api_path, std::string_view body, std::string_view nonce,
                           std::string_view secret = kSecret) {
  const std::string signature =
      sign_request(secret, {"POST", api_path, kKeyId, kTimestamp, nonce, sha256_hex(body)});
  return {"X-License-Key-Id: " + std::string(kKeyId) + "\r\nX-License-Timestamp: " +
              std::string(kTimestamp) + "\r\nX-License-Nonce: " + std::string(nonce) +
              "\r\nX-License-Signature: " + signature + "\r\n",
          signature.substr(3)};
}

std::vector<HttpResponse> parse_all(std::string_view bytes) {
  std::vector<HttpResponse> out;
  while (!bytes.empty()) {
    http::response_parser<http::string_body> parser;
    parser.eager(true);
    boost::beast::error_code ec;
    const size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec || !parser.is_done()) break;
    bytes.remove_prefix(used);
    out.push_back(parser.release());
  }
  return out;
}

std::string header_of(const HttpResponse& res, std::string_view name) {
  const auto it = res.find(name);
  return it == res.end() ? std::string() : std::string(it->value());
}

class SignedAnswers : public ::testing::Test {
 protected:
  SignedAnswers() : keys_(std::vector<SigningKeyConfig>{{"k1", "secret-1", {}}}) {
    auto key = ResponseKey::generate(ResponseAlgorithm::kEd25519);
    auto next = ResponseKey::generate(ResponseAlgorithm::kEd25519);
    auto es256 = ResponseKey::generate(ResponseAlgorithm::kEs256);
    EXPECT_TRUE(key.ok() && next.ok() && es256.ok());
    signer_ = std::make_unique<ResponseSigner>(
        std::vector<ResponseKey>{key.value(), next.value(), es256.value()});
    auto store = open_store("sqlite::memory:");
    EXPECT_TRUE(store.ok());
    store_ = std::move(store.value());
    LicenseHandlerConfig config;
    config.pipeline.keys = &keys_;
    config.pipeline.nonces = &nonces_;
    config.pipeline.clock = &clock_;
    config.store = store_.get();
    config.response_signer = signer_.get();
    handler_ = std::make_unique<LicenseHandler>(std::move(config));
  }

  std::vector<HttpResponse> exchange(std::string_view bytes) {
    return parse_all(exchange_bytes(*handler_, limits_, bytes, "127.0.0.1"));
  }
  HttpResponse one(std::string_view bytes) {
    auto all = exchange(bytes);
    EXPECT_EQ(all.size(), 1u) << bytes;
    return all.empty() ? HttpResponse{} : all.front();
  }

  // Signed by the key that signs in `algorithm`, bound to `bound`.
  bool verifies(const HttpResponse& res, std::optional<std::string_view> bound,
                ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519) const {
    return verify_response_signature({signer_->signing_key(algorithm)->pinned()},
                                     header_of(res, kResponseSignatureHeader), bound,
                                     res.result_int(), res.body())
        .has_value();
  }

  ManualClock clock_{1'795'000'000'000};
  KeyRing keys_;
  MemoryNonceStore nonces_{1000};
  std::unique_ptr<ResponseSigner> signer_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<LicenseHandler> handler_;
  HttpLimits limits_;
};

std::string post(std::string_view target, std::string_view extra_headers, std::string_view body) {
  return "POST " + std::string(target) +
         " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + std::string(extra_headers) +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

TEST_F(SignedAnswers, AnAnswerIsBoundToTheRequestsValidSignature) {
  const auto h = sign_headers("/api/v1/license/activate", "{}", "nonce-0123456789abcdef");
  const HttpResponse res = one(post("/api/v1/license/activate", h.text, "{}"));
  EXPECT_EQ(res.result_int(), 400u) << res.body();
  EXPECT_EQ(
      header_of(res, kResponseSignatureHeader)
          .rfind("kid=" + signer_->signing_key(ResponseAlgorithm::kEd25519)->kid() + ", t=", 0),
      0u);
  EXPECT_TRUE(verifies(res, h.bound));
  EXPECT_FALSE(verifies(res, std::nullopt));
  EXPECT_FALSE(verifies(res, std::string(64, '0')));
}

TEST_F(SignedAnswers, AnAnswerToAnUnsignedOrWronglySignedRequestIsBoundToADash) {
  const HttpResponse unsigned_res = one(post("/api/v1/license/status", "", "{}"));
  EXPECT_EQ(unsigned_res.result_int(), 401u);
  EXPECT_TRUE(verifies(unsigned_res, std::nullopt));
  const auto h = sign_headers("/api/v1/license/status", "{}", "nonce-0123456789abcdef", "wrong");
  const HttpResponse wrong = one(post("/api/v1/license/status", h.text, "{}"));
  EXPECT_EQ(wrong.result_int(), 401u);
  EXPECT_TRUE(verifies(wrong, std::nullopt));
  EXPECT_FALSE(verifies(wrong, h.bound));
}

TEST_F(SignedAnswers, RefusalsBeforeTheHandlerAreBoundToADashThoughSigned) {
  // Steps 1 and 2 answer without checking the signature (docs/protocol.md §13.5).
  const auto h = sign_headers("/api/v1/license/heartbeat", "", "nonce-0123456789abcdef");
  // 405: routed but another method; the body was not read.
  HttpResponse res = one("GET /api/v1/license/heartbeat HTTP/1.1\r\nHost: x\r\n" + h.text + "\r\n");
  EXPECT_EQ(res.result_int(), 405u);
  EXPECT_EQ(header_of(res, "Allow"), "POST");
  EXPECT_TRUE(verifies(res, std::nullopt));
  EXPECT_FALSE(verifies(res, h.bound));
  // 413 on the declared length, before the body is read.
  res = one("POST /api/v1/license/deactivate HTTP/1.1\r\nHost: x\r\n" + h.text +
            "Content-Length: 20000\r\n\r\n");
  EXPECT_EQ(res.result_int(), 413u);
  EXPECT_TRUE(verifies(res, std::nullopt));
  // 413 while reading a chunked body.
  const std::string chunk(limits_.max_body_bytes + 10, 'x');
  std::ostringstream chunked;
  chunked << "POST /api/v1/license/activate HTTP/1.1\r\nHost: x\r\n"
          << h.text << "Transfer-Encoding: chunked\r\n\r\n"
          << std::hex << chunk.size() << "\r\n"
          << chunk << "\r\n0\r\n\r\n";
  res = one(chunked.str());
  EXPECT_EQ(res.result_int(), 413u);
  EXPECT_TRUE(verifies(res, std::nullopt));
  // 431: the header never parsed.
  res = one("POST /api/v1/license/activate HTTP/1.1\r\nX-Big: " +
            std::string(limits_.max_header_bytes, 'a') + "\r\n\r\n");
  EXPECT_EQ(res.result_int(), 431u);
  EXPECT_TRUE(verifies(res, std::nullopt));
}

TEST_F(SignedAnswers, AProxyPrefixIsStillAnEndpoint) {
  const auto h = sign_headers("/api/v1/license/status", "{}", "nonce-0123456789abcdef");
  const HttpResponse res = one(post("/licensing/api/v1/license/status?x=1", h.text, "{}"));
  EXPECT_EQ(res.result_int(), 400u) << res.body();
  EXPECT_TRUE(verifies(res, h.bound));
}

TEST_F(SignedAnswers, AnUnknownPathAmongTheEndpointsIsSignedBoundToADashAndOthersAreNot) {
  const auto h = sign_headers("/api/v1/license/nope", "{}", "nonce-0123456789abcdef");
  const HttpResponse res = one(post("/api/v1/license/nope", h.text, "{}"));
  EXPECT_EQ(res.result_int(), 404u);
  EXPECT_TRUE(verifies(res, std::nullopt));
  EXPECT_FALSE(verifies(res, h.bound));
  const HttpResponse elsewhere = one(post("/api/v2/nope", "", "{}"));
  EXPECT_EQ(elsewhere.result_int(), 404u);
  EXPECT_EQ(elsewhere.find(kResponseSignatureHeader), elsewhere.end());
}

TEST_F(SignedAnswers, ASigningHeaderSentTwiceIsMalformedAndTheAnswerBoundToADash) {
  const auto h = sign_headers("/api/v1/license/status", "{}", "nonce-0123456789abcdef");
  for (const char* twice : {"X-License-Signature: v1="
                            "0000000000000000000000000000000000000000000000000000000000000000\r\n",
                            "X-License-Nonce: another-nonce-0123456\r\n"}) {
    const HttpResponse res = one(post("/api/v1/license/status", h.text + twice, "{}"));
    EXPECT_EQ(res.result_int(), 401u) << twice;
    EXPECT_NE(res.body().find("malformed_header"), std::string::npos) << res.body();
    EXPECT_TRUE(verifies(res, std::nullopt));
  }
}

TEST_F(SignedAnswers, TheAnswerToHeadHasNoBody) {
  // Two requests on one connection: the second answer must not be read from the first
  // one's body.
  const std::string bytes = exchange_bytes(
      *handler_, limits_,
      "HEAD /api/v1/license/status HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /api/v1/license/public-keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      "127.0.0.1");
  ASSERT_EQ(bytes.rfind("HTTP/1.1 405", 0), 0u) << bytes;
  const size_t end_of_head = bytes.find("\r\n\r\n");
  ASSERT_NE(end_of_head, std::string::npos) << bytes;
  EXPECT_NE(bytes.find("Content-Length: "), std::string::npos) << "the length a GET would get";
  EXPECT_EQ(bytes.substr(end_of_head + 4, 12), "HTTP/1.1 200") << bytes;
}

TEST_F(SignedAnswers, PipelinedAnswersAreEachBoundToTheirOwnRequest) {
  const auto first = sign_headers("/api/v1/license/status", "{}", "first-nonce-000000");
  const auto second = sign_headers("/api/v1/license/status", "{}", "second-nonce-00000");
  const auto all = exchange(post("/api/v1/license/status", first.text, "{}") +
                            post("/api/v1/license/status", second.text, "{}"));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(verifies(all[0], first.bound));
  EXPECT_TRUE(verifies(all[1], second.bound));
  EXPECT_FALSE(verifies(all[1], first.bound));
}

TEST_F(SignedAnswers, AnAnswerToARequestAskingForEs256IsSignedWithTheEs256Key) {
  const auto h = sign_headers("/api/v1/license/activate", "{}", "nonce-0123456789abcdef");
  const HttpResponse res =
      one(post("/api/v1/license/activate", h.text + "X-License-Accept-Signature: es256\r\n", "{}"));
  EXPECT_EQ(res.result_int(), 400u) << res.body();
  const std::string header = header_of(res, kResponseSignatureHeader);
  EXPECT_EQ(
      header.rfind("kid=" + signer_->signing_key(ResponseAlgorithm::kEs256)->kid() + ", t=", 0), 0u)
      << header;
  EXPECT_NE(header.find(", es256="), std::string::npos) << header;
  EXPECT_TRUE(verifies(res, h.bound, ResponseAlgorithm::kEs256));
  EXPECT_FALSE(verifies(res, std::nullopt, ResponseAlgorithm::kEs256));
  EXPECT_FALSE(verifies(res, h.bound, ResponseAlgorithm::kEd25519));
}

TEST_F(SignedAnswers, TheFirstAcceptedAlgorithmSignsAndAnythingElseGetsEd25519) {
  const std::vector<std::pair<std::string, ResponseAlgorithm>> cases = {
      {"", ResponseAlgorithm::kEd25519},
      {"X-License-Accept-Signature: ed25519\r\n", ResponseAlgorithm::kEd25519},
      {"X-License-Accept-Signature: ed25519, es256\r\n", ResponseAlgorithm::kEd25519},
      {"X-License-Accept-Signature: rsa, ES256 , ed25519\r\n", ResponseAlgorithm::kEs256},
      {"X-License-Accept-Signature: rsa, ps256\r\n", ResponseAlgorithm::kEd25519},
      // Two fields are one list, in order.
      {"X-License-Accept-Signature: rsa\r\nX-License-Accept-Signature: es256\r\n",
       ResponseAlgorithm::kEs256},
  };
  int n = 0;
  for (const auto& [accept, algorithm] : cases) {
    SCOPED_TRACE(accept);
    const std::string nonce = "nonce-accept-00000" + std::to_string(n++);
    const auto h = sign_headers("/api/v1/license/status", "{}", nonce);
    const HttpResponse res = one(post("/api/v1/license/status", h.text + accept, "{}"));
    EXPECT_TRUE(verifies(res, h.bound, algorithm)) << header_of(res, kResponseSignatureHeader);
  }
}

TEST_F(SignedAnswers, RefusalsBeforeTheHandlerAreSignedInTheAskedAlgorithmToo) {
  const std::string es256 = "X-License-Accept-Signature: es256\r\n";
  // 405: routed but another method.
  HttpResponse res = one("GET /api/v1/license/heartbeat HTTP/1.1\r\nHost: x\r\n" + es256 + "\r\n");
  EXPECT_EQ(res.result_int(), 405u);
  EXPECT_TRUE(verifies(res, std::nullopt, ResponseAlgorithm::kEs256));
  // 413 on the declared length.
  res = one("POST /api/v1/license/deactivate HTTP/1.1\r\nHost: x\r\n" + es256 +
            "Content-Length: 20000\r\n\r\n");
  EXPECT_EQ(res.result_int(), 413u);
  EXPECT_TRUE(verifies(res, std::nullopt, ResponseAlgorithm::kEs256));
  // 431: the header never parsed, so nothing was asked: Ed25519.
  res = one("POST /api/v1/license/activate HTTP/1.1\r\n" + es256 +
            "X-Big: " + std::string(limits_.max_header_bytes, 'a') + "\r\n\r\n");
  EXPECT_EQ(res.result_int(), 431u);
  EXPECT_TRUE(verifies(res, std::nullopt, ResponseAlgorithm::kEd25519));
}

TEST_F(SignedAnswers, PublicKeysListsEveryKeyInOrderAndIsCacheable) {
  const HttpResponse res =
      one("GET /api/v1/license/public-keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(res.result_int(), 200u);
  EXPECT_EQ(header_of(res, "Cache-Control"), "public, max-age=300");
  EXPECT_EQ(header_of(res, "Content-Type"), "application/json");
  EXPECT_EQ(res.find(kResponseSignatureHeader), res.end());
  const auto body = boost::json::parse(res.body()).as_object();
  EXPECT_EQ(body.size(), 1u);
  const auto& keys = body.at("keys").as_array();
  ASSERT_EQ(keys.size(), 3u);
  for (size_t i = 0; i < keys.size(); ++i) {
    const ResponseKey& key = signer_->keys()[i];
    EXPECT_EQ(keys[i].as_object(), (boost::json::object{{"kid", key.kid()},
                                                        {"alg", algorithm_name(key.algorithm())},
                                                        {"publicKey", key.public_key_base64()}}));
  }
  EXPECT_EQ(keys[2].at("alg"), "ES256");
  const HttpResponse post_res = one(post("/api/v1/license/public-keys", "", "{}"));
  EXPECT_EQ(post_res.result_int(), 405u);
  EXPECT_EQ(header_of(post_res, "Allow"), "GET");
}

}  // namespace
}  // namespace licensed
