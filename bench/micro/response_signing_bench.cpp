// Signed responses (docs/protocol.md §13): what signing one answer costs the server, with the
// per-thread signing context it keeps (ResponseSigner) and with a context made per
// answer, which is what the per-thread context saves. The Ed25519 arithmetic dominates.
// ES256 (docs/protocol.md §13.4) for comparison: its context is initialised per answer.
#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include "auth/response_key.h"
#include "auth/response_signature.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

// The request signature an answer binds to, and its signed time.
constexpr std::string_view kBound =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
constexpr int64_t kT = 1795339800;
const std::string kStatusBody =
    R"({"valid":true,"status":"active","product":"bench-plugin","expiresAt":null,)"
    R"("activations":3,"max":5,"machineTtl":null})";

ResponseKey bench_key(ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519) {
  auto key = ResponseKey::generate(algorithm);
  if (!key.ok()) std::abort();
  return key.value();
}

// What every answer pays: the signed string, SHA-256 of the body, the signature and the
// header value.
void BM_SignAnswer(benchmark::State& state) {
  const ResponseSigner signer({bench_key()});
  for (auto _ : state)
    benchmark::DoNotOptimize(
        signer.sign(ResponseAlgorithm::kEd25519, kBound, 200, kT, kStatusBody));
}
BENCHMARK(BM_SignAnswer);

// The same answer signed in ES256 (ECDSA P-256, SHA-256, DER converted to r || s).
void BM_SignAnswerEs256(benchmark::State& state) {
  const ResponseSigner signer({bench_key(ResponseAlgorithm::kEs256)});
  for (auto _ : state) {
    benchmark::DoNotOptimize(signer.sign(ResponseAlgorithm::kEs256, kBound, 200, kT, kStatusBody));
  }
}
BENCHMARK(BM_SignAnswerEs256);

// The same signature with a context initialised for each answer.
void BM_SignAnswerFreshContext(benchmark::State& state) {
  const ResponseKey key = bench_key();
  const std::string message = response_signing_string(kBound, 200, kT, kStatusBody);
  Ed25519Signature signature{};
  for (auto _ : state) {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t size = signature.size();
    EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key.pkey());
    EVP_DigestSign(ctx, signature.data(), &size,
                   reinterpret_cast<const unsigned char*>(message.data()), message.size());
    EVP_MD_CTX_free(ctx);
    benchmark::DoNotOptimize(signature);
  }
}
BENCHMARK(BM_SignAnswerFreshContext);

// What a client pays to check one answer (the SDK and licensectl with a pinned key).
void BM_VerifyAnswer(benchmark::State& state) {
  const ResponseSigner signer({bench_key()});
  const std::string header =
      signer.sign(ResponseAlgorithm::kEd25519, kBound, 200, kT, kStatusBody).value();
  const std::vector<PinnedResponseKey> pinned = {
      signer.signing_key(ResponseAlgorithm::kEd25519)->pinned()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify_response_signature(pinned, header, kBound, 200, kStatusBody));
  }
}
BENCHMARK(BM_VerifyAnswer);

}  // namespace
}  // namespace licensed
