// Steps 3 to 9 together (run_pipeline), for a status request with a fresh nonce each
// time: everything the network thread does between reading a request and handing it to
// the store. Requests are signed before timing starts (each needs its own nonce).
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/key_ring.h"
#include "auth/memory_nonce_store.h"
#include "auth/request_signature.h"
#include "http/request_pipeline.h"
#include "ratelimit/memory_rate_limiter.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;
constexpr int64_t kRequests = 200'000;
const std::string kSecret = "a-secret-of-thirty-two-characters";
const std::string kBody =
    R"({"licenseKey":"6f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f","machineId":"bench-machine-0001"})";

struct Signed {
  std::string nonce;
  std::string signature;
};

const std::vector<Signed>& signed_requests() {
  static const std::vector<Signed> requests = [] {
    std::vector<Signed> out;
    const std::string body_hash = sha256_hex(kBody);
    const HmacSha256 mac(kSecret);
    for (int64_t i = 0; i < kRequests; ++i) {
      const uint64_t words[2] = {static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull,
                                 static_cast<uint64_t>(i)};
      std::string nonce = to_hex(reinterpret_cast<const uint8_t*>(words), sizeof words);
      Sha256Digest digest{};
      mac.compute(canonical_string(
                      {"POST", "/api/v1/license/status", "bench", "1795000000", nonce, body_hash}),
                  digest);
      out.push_back({std::move(nonce), "v1=" + to_hex(digest)});
    }
    return out;
  }();
  return requests;
}

// range(0): 1 with both rate limiters on (the defaults' shape, limits never reached),
// 0 with them off (as the load runs are).
void BM_RunPipeline(benchmark::State& state) {
  const auto& requests = signed_requests();
  const KeyRing keys({SigningKeyConfig{"bench", kSecret, {}}});
  MemoryNonceStore nonces;
  MemoryRateLimiter ip_limiter(RateSpec{1'000'000'000, 60'000});
  MemoryRateLimiter key_limiter(RateSpec{1'000'000'000, 60'000});
  const ManualClock clock(kStart);
  PipelineContext ctx;
  ctx.keys = &keys;
  ctx.nonces = &nonces;
  ctx.clock = &clock;
  ctx.started_at_seconds = kStart / 1000 - 1;
  if (state.range(0) == 1) {
    ctx.ip_limiter = &ip_limiter;
    ctx.key_limiter = &key_limiter;
  }
  size_t i = 0;
  for (auto _ : state) {
    const Signed& s = requests[i++];
    IncomingRequest in;
    in.method = "POST";
    in.path = "/api/v1/license/status";
    in.content_type = "application/json";
    in.body = kBody;
    in.client_ip = "127.0.0.1";
    in.signing = {"bench", "1795000000", s.nonce, s.signature};
    // In memory every check answers inline: the outcome is there when run_pipeline returns.
    std::optional<PipelineOutcome> outcome;
    run_pipeline(ctx, Endpoint::kStatus, in, {},
                 [&outcome](PipelineOutcome o) { outcome.emplace(std::move(o)); });
    if (!outcome || !outcome->request.ok()) state.SkipWithError("not accepted inline");
    benchmark::DoNotOptimize(outcome);
  }
}
// A fixed count: each iteration uses up one of the pre-signed requests.
BENCHMARK(BM_RunPipeline)->Arg(0)->Arg(1)->Iterations(kRequests);

}  // namespace
}  // namespace licensed
