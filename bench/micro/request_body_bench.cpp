// Check 8: the body schema (docs/protocol.md §4), for the smallest and the largest body.
#include <benchmark/benchmark.h>

#include "core/request_body.h"

namespace licensed {
namespace {

void BM_ParseStatusBody(benchmark::State& state) {
  const std::string body =
      R"({"licenseKey":"6f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f","machineId":"bench-machine-0001"})";
  for (auto _ : state) {
    auto request = parse_license_request(Endpoint::kStatus, body);
    benchmark::DoNotOptimize(request);
  }
}
BENCHMARK(BM_ParseStatusBody);

void BM_ParseActivateBody(benchmark::State& state) {
  const std::string body =
      R"json({"licenseKey":"6F1C1B1E-8A57-4D5C-9B1E-0A2B3C4D5E6F","machineId":"c3f1e9a2-)json"
      R"json(workstation-7b5d","machineName":"Studio PC \u00e9 (main room)"})json";
  for (auto _ : state) {
    auto request = parse_license_request(Endpoint::kActivate, body);
    benchmark::DoNotOptimize(request);
  }
}
BENCHMARK(BM_ParseActivateBody);

void BM_ParseMalformedBody(benchmark::State& state) {
  const std::string body = R"({"licenseKey":"not-a-uuid","machineId":"bench-machine-0001"})";
  for (auto _ : state) {
    auto request = parse_license_request(Endpoint::kStatus, body);
    benchmark::DoNotOptimize(request);
  }
}
BENCHMARK(BM_ParseMalformedBody);

}  // namespace
}  // namespace licensed
