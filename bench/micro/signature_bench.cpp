// Request authentication (docs/protocol.md §3): what the server spends per request on the
// signature, with the key ring's pre-keyed HMAC, and what keying per call would cost.
#include <benchmark/benchmark.h>

#include "auth/key_ring.h"
#include "auth/request_signature.h"
#include "auth/signing_headers.h"
#include "http/request_pipeline.h"

namespace licensed {
namespace {

const std::string kBody =
    R"({"licenseKey":"6f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f","machineId":"bench-machine-0001"})";
constexpr std::string_view kPath = "/api/v1/license/status";
constexpr std::string_view kNonce = "0123456789abcdef0123456789abcdef";
constexpr std::string_view kTimestamp = "1795000000";

KeyRing bench_key_ring() {
  return KeyRing({SigningKeyConfig{"bench", "a-secret-of-thirty-two-characters", {}}});
}

std::string signature_for(std::string_view body) {
  return sign_request("a-secret-of-thirty-two-characters",
                      {"POST", kPath, "bench", kTimestamp, kNonce, sha256_hex(body)});
}

// Check 6 as the pipeline runs it: body hash, canonical string, pre-keyed HMAC,
// constant-time compare.
void BM_VerifySignature(benchmark::State& state) {
  const KeyRing keys = bench_key_ring();
  const std::string signature = signature_for(kBody);
  auto headers = parse_signing_headers({"bench", kTimestamp, kNonce, signature});
  for (auto _ : state) {
    auto error = check_signature(*keys.find("bench"), headers.value(), "POST", kPath, kBody);
    benchmark::DoNotOptimize(error);
  }
}
BENCHMARK(BM_VerifySignature);

// Check 4: the four headers' syntax and the key lookup.
void BM_ParseSigningHeaders(benchmark::State& state) {
  const KeyRing keys = bench_key_ring();
  const std::string signature = signature_for(kBody);
  for (auto _ : state) {
    auto headers = parse_signing_headers({"bench", kTimestamp, kNonce, signature});
    benchmark::DoNotOptimize(headers);
    benchmark::DoNotOptimize(keys.find(headers.value().key_id));
  }
}
BENCHMARK(BM_ParseSigningHeaders);

void BM_Sha256Body(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sha256_hex(kBody));
}
BENCHMARK(BM_Sha256Body);

void BM_CanonicalString(benchmark::State& state) {
  const std::string body_hash = sha256_hex(kBody);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        canonical_string({"POST", kPath, "bench", kTimestamp, kNonce, body_hash}));
  }
}
BENCHMARK(BM_CanonicalString);

// The HMAC alone, pre-keyed (what the server does) and keyed per call (sign_request,
// what a naive verifier would do): the reason the key ring keeps keyed contexts.
void BM_HmacPreKeyed(benchmark::State& state) {
  const HmacSha256 mac("a-secret-of-thirty-two-characters");
  const std::string canonical =
      canonical_string({"POST", kPath, "bench", kTimestamp, kNonce, sha256_hex(kBody)});
  Sha256Digest out{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(mac.compute(canonical, out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_HmacPreKeyed);

void BM_HmacKeyedPerCall(benchmark::State& state) {
  const std::string body_hash = sha256_hex(kBody);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sign_request("a-secret-of-thirty-two-characters",
                                          {"POST", kPath, "bench", kTimestamp, kNonce, body_hash}));
  }
}
BENCHMARK(BM_HmacKeyedPerCall);

}  // namespace
}  // namespace licensed
