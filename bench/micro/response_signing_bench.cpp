// Signed responses (docs/protocol.md §13): what signing one answer costs the server
// (ResponseSigner: libsodium over a key prepared once), and with an OpenSSL context made per
// answer. The Ed25519 arithmetic dominates.
// ES256 (docs/protocol.md §13.4) for comparison: its context is initialised per answer.
// Then the key prepared once against the key rebuilt for every signature, and batched
// signatures (§13.3): what each answer of a batch of N costs, tree and headers included.
// Issue 26 item 2 side by side: the server signs Ed25519 with libsodium's
// crypto_sign_detached (BM_SignEd25519Prepared) since it measured faster here than
// OpenSSL's EVP_DigestSign with a context prepared once (BM_SignEd25519OpenSslPrepared).
#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include "auth/response_key.h"
#include "auth/response_signature.h"
#include "auth/response_signer.h"
#include "auth/response_tree.h"

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

// The same signature by OpenSSL with a context initialised for each answer.
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

// Unprepared: the key rebuilt from its 32 raw bytes and a context made for every
// signature, what a signer keeping only the key's bytes would pay.
void BM_SignEd25519KeyPerSignature(benchmark::State& state) {
  const ResponseKey key = bench_key();
  std::array<unsigned char, 32> raw{};
  size_t raw_size = raw.size();
  if (EVP_PKEY_get_raw_private_key(key.pkey(), raw.data(), &raw_size) != 1) std::abort();
  const std::string message = response_signing_string(kBound, 200, kT, kStatusBody);
  Ed25519Signature signature{};
  for (auto _ : state) {
    EVP_PKEY* pkey =
        EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, raw.data(), raw.size());
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t size = signature.size();
    EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, pkey);
    EVP_DigestSign(ctx, signature.data(), &size,
                   reinterpret_cast<const unsigned char*>(message.data()), message.size());
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    benchmark::DoNotOptimize(signature);
  }
}
BENCHMARK(BM_SignEd25519KeyPerSignature);

// OpenSSL prepared: the key parsed once and one context initialised with it, reused for
// every signature (what the server did before it moved to libsodium).
void BM_SignEd25519OpenSslPrepared(benchmark::State& state) {
  const ResponseKey key = bench_key();
  const std::string message = response_signing_string(kBound, 200, kT, kStatusBody);
  Ed25519Signature signature{};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key.pkey());
  for (auto _ : state) {
    size_t size = signature.size();
    if (EVP_DigestSign(ctx, signature.data(), &size,
                       reinterpret_cast<const unsigned char*>(message.data()),
                       message.size()) != 1) {
      // Releases that finalise a one-shot context refuse a second call: initialise again.
      EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key.pkey());
    }
    benchmark::DoNotOptimize(signature);
  }
  EVP_MD_CTX_free(ctx);
}
BENCHMARK(BM_SignEd25519OpenSslPrepared);

// Prepared, as the server signs: libsodium over the key prepared once (sign_message, the
// call the batch signer makes), on the same message.
void BM_SignEd25519Prepared(benchmark::State& state) {
  const ResponseSigner signer({bench_key()});
  const std::string message = response_signing_string(kBound, 200, kT, kStatusBody);
  for (auto _ : state) {
    benchmark::DoNotOptimize(signer.sign_message(ResponseAlgorithm::kEd25519, message));
  }
}
BENCHMARK(BM_SignEd25519Prepared);

// A batch of N answers as BatchSigner::sign_group signs it: N leaves, the tree and its
// paths, one signature over the tree string and N headers. Per answer: items/s.
void BM_SignBatch(benchmark::State& state) {
  const ResponseSigner signer({bench_key()});
  const ResponseKey& key = *signer.signing_key(ResponseAlgorithm::kEd25519);
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<std::string> strings;
  for (size_t i = 0; i < n; ++i) {
    strings.push_back(
        response_signing_string(kBound, 200, kT + static_cast<int64_t>(i), kStatusBody));
  }
  for (auto _ : state) {
    std::vector<TreeHash> leaves;
    leaves.reserve(n);
    for (const auto& s : strings) leaves.push_back(tree_leaf_hash(s));
    auto tree = build_tree(leaves);
    const auto signature =
        signer.sign_message(ResponseAlgorithm::kEd25519, tree_signing_string(n, tree->root));
    for (size_t i = 0; i < n; ++i) {
      const TreePosition position{static_cast<uint32_t>(i), static_cast<uint32_t>(n),
                                  std::move(tree->paths[i])};
      benchmark::DoNotOptimize(format_response_signature(key.kid(), kT, *signature,
                                                         ResponseAlgorithm::kEd25519, position));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_SignBatch)->Arg(1)->Arg(2)->Arg(8)->Arg(32)->Arg(128)->Arg(512)->Arg(4096);

// What a client pays to check one batched answer (a path of 12 hashes, n = 4096).
void BM_VerifyBatchedAnswer(benchmark::State& state) {
  const ResponseSigner signer({bench_key()});
  const ResponseKey& key = *signer.signing_key(ResponseAlgorithm::kEd25519);
  std::vector<TreeHash> leaves;
  const std::string mine = response_signing_string(kBound, 200, kT, kStatusBody);
  leaves.push_back(tree_leaf_hash(mine));
  for (size_t i = 1; i < 4096; ++i) leaves.push_back(tree_leaf_hash(std::to_string(i)));
  auto tree = build_tree(leaves);
  const auto signature =
      signer.sign_message(ResponseAlgorithm::kEd25519, tree_signing_string(4096, tree->root));
  const std::string header = format_response_signature(
      key.kid(), kT, *signature, ResponseAlgorithm::kEd25519, {0, 4096, tree->paths[0]});
  const std::vector<PinnedResponseKey> pinned = {key.pinned()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify_response_signature(pinned, header, kBound, 200, kStatusBody));
  }
}
BENCHMARK(BM_VerifyBatchedAnswer);

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
