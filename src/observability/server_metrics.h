// The server's Prometheus metrics, declared in one place. Recording is lock-free (fixed
// label sets, atomic counters) because it happens on every request, from every network
// thread at once; rendering happens only when /metrics is scraped.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed {

class ServerMetrics {
 public:
  // Route labels: the License API endpoints, then everything else.
  static constexpr std::array<std::string_view, 11> kRoutes = {
      "activate",         "heartbeat",          "status",   "deactivate", "trial", "store",
      "offline-activate", "offline-deactivate", "checkout", "checkin",    "other"};
  // Store deliveries refused (docs/protocol.md §22.8): by the URL's provider (one docs/protocol.md
  // §22.1 names, else "unknown") and why: no store of that provider, id and token; authenticity (a
  // signature, its time, a seller); a payload the provider never sends; a body over 1 MiB.
  static constexpr std::array<std::string_view, 7> kStoreProviders = {
      "stripe",       "paddle",  "fastspring", "fastspring-generator",
      "lemonsqueezy", "gumroad", "unknown"};
  static constexpr std::array<std::string_view, 4> kStoreRejections = {
      "unknown_store", "authenticity", "malformed", "too_large"};
  // 401 causes apart: the reasons of 1700 (docs/protocol.md §3) and 1701's stale timestamp.
  static constexpr std::array<std::string_view, 7> kUnauthorizedCauses = {
      "missing_header", "malformed_header", "unknown_key", "signature_mismatch",
      "nonce_reused",   "stale_timestamp",  "other"};
  // Upper bounds of the latency histogram, in seconds.
  static constexpr std::array<double, 13> kLatencyBounds = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

  // A request answered with HTTP `status` after `seconds` (header read to answer sent).
  void record_request(std::string_view route, unsigned status, double seconds);
  void record_rate_limited(std::string_view bucket);
  void record_connection_refused();
  // An answer carrying a numbered error (1700-1712, others counted as "other"): a 1708
  // or 1709 is the store (or Redis) failing, 1705 a full license. For 1700 `reason` says
  // why the signature was refused; 1701 counts as stale_timestamp.
  void record_api_error(int code, std::string_view reason);
  // A store delivery refused; a provider or reason not in the lists above counts as the
  // last entry of its list.
  void record_store_rejected(std::string_view provider, std::string_view reason);

  // Values read when scraped, so their owners need not push updates: gauges, or
  // counters their owners keep (type "counter").
  struct Gauge {
    std::string name;
    std::string help;
    std::function<double()> read;
    std::string_view type = "gauge";
  };
  void add_gauge(Gauge gauge);

  // `licensed_build_info{version="..."} 1`: the release that runs, for dashboards that
  // follow a rolling upgrade. Set once before serving.
  void set_build_version(std::string version) { build_version_ = std::move(version); }

  std::string render_prometheus() const;

 private:
  // HTTP statuses the server answers; anything else is counted as "other".
  static constexpr std::array<unsigned, 14> kStatuses = {200, 400, 401, 403, 404, 405, 409,
                                                         413, 429, 431, 500, 503, 0,   0};
  static size_t route_index(std::string_view route);
  static size_t status_index(unsigned status);

  struct RouteStats {
    std::array<std::atomic<uint64_t>, kStatuses.size()> by_status{};
    std::array<std::atomic<uint64_t>, kLatencyBounds.size() + 1> latency_buckets{};
    std::atomic<uint64_t> latency_sum_ns{0};
  };
  std::array<RouteStats, kRoutes.size()> routes_;
  std::atomic<uint64_t> rate_limited_ip_{0};
  std::atomic<uint64_t> rate_limited_key_{0};
  std::atomic<uint64_t> connections_refused_{0};
  static constexpr int kFirstErrorCode = 1700;
  static constexpr size_t kErrorCodes = 13;  // 1700-1712, then "other"
  std::array<std::atomic<uint64_t>, kErrorCodes + 1> api_errors_{};
  std::array<std::atomic<uint64_t>, kUnauthorizedCauses.size()> unauthorized_{};
  std::array<std::array<std::atomic<uint64_t>, kStoreRejections.size()>, kStoreProviders.size()>
      store_rejected_{};
  std::vector<Gauge> gauges_;  // set up before serving, read-only afterwards
  std::string build_version_;
};

}  // namespace licensed
