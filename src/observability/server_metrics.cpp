#include "observability/server_metrics.h"

#include <fmt/format.h>

namespace licensed {

size_t ServerMetrics::route_index(std::string_view route) {
  for (size_t i = 0; i + 1 < kRoutes.size(); ++i) {
    if (kRoutes[i] == route) return i;
  }
  return kRoutes.size() - 1;
}

size_t ServerMetrics::status_index(unsigned status) {
  for (size_t i = 0; i < kStatuses.size(); ++i) {
    if (kStatuses[i] == status) return i;
  }
  return kStatuses.size() - 1;  // "other"
}

void ServerMetrics::record_request(std::string_view route, unsigned status, double seconds) {
  RouteStats& r = routes_[route_index(route)];
  r.by_status[status_index(status)].fetch_add(1, std::memory_order_relaxed);
  size_t bucket = 0;
  while (bucket < kLatencyBounds.size() && seconds > kLatencyBounds[bucket]) ++bucket;
  r.latency_buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  r.latency_sum_ns.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
}

void ServerMetrics::record_rate_limited(std::string_view bucket) {
  (bucket == "ip" ? rate_limited_ip_ : rate_limited_key_).fetch_add(1, std::memory_order_relaxed);
}

void ServerMetrics::record_connection_refused() {
  connections_refused_.fetch_add(1, std::memory_order_relaxed);
}

void ServerMetrics::record_api_error(int code, std::string_view reason) {
  const bool known =
      code >= kFirstErrorCode && code < kFirstErrorCode + static_cast<int>(kErrorCodes);
  api_errors_[known ? static_cast<size_t>(code - kFirstErrorCode) : kErrorCodes].fetch_add(
      1, std::memory_order_relaxed);
  if (code != 1700 && code != 1701) return;
  const std::string_view cause = code == 1701 ? "stale_timestamp" : reason;
  size_t i = 0;
  while (i + 1 < kUnauthorizedCauses.size() && kUnauthorizedCauses[i] != cause) ++i;
  unauthorized_[i].fetch_add(1, std::memory_order_relaxed);
}

namespace {

template <size_t N>
size_t index_in(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i + 1 < N; ++i) {
    if (names[i] == name) return i;
  }
  return N - 1;
}

}  // namespace

void ServerMetrics::record_store_rejected(std::string_view provider, std::string_view reason) {
  store_rejected_[index_in(kStoreProviders, provider)][index_in(kStoreRejections, reason)]
      .fetch_add(1, std::memory_order_relaxed);
}

void ServerMetrics::add_gauge(Gauge gauge) {
  gauges_.push_back(std::move(gauge));
}

std::string ServerMetrics::render_prometheus() const {
  std::string out;
  auto append = [&out](std::string_view s) { out.append(s); };
  append("# HELP licensed_http_requests_total Requests answered, by route and HTTP status.\n");
  append("# TYPE licensed_http_requests_total counter\n");
  for (size_t r = 0; r < kRoutes.size(); ++r) {
    for (size_t s = 0; s < kStatuses.size(); ++s) {
      const uint64_t n = routes_[r].by_status[s].load(std::memory_order_relaxed);
      // Unused status slots are not printed; seen ones always are, so rates work.
      if (n == 0) continue;
      const std::string code = kStatuses[s] == 0 ? "other" : std::to_string(kStatuses[s]);
      out += fmt::format("licensed_http_requests_total{{route=\"{}\",code=\"{}\"}} {}\n",
                         kRoutes[r], code, n);
    }
  }
  append(
      "# HELP licensed_http_request_duration_seconds Time from the request header read to the "
      "answer handed to the socket.\n");
  append("# TYPE licensed_http_request_duration_seconds histogram\n");
  for (size_t r = 0; r < kRoutes.size(); ++r) {
    const RouteStats& stats = routes_[r];
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= kLatencyBounds.size(); ++b) {
      cumulative += stats.latency_buckets[b].load(std::memory_order_relaxed);
      const std::string le =
          b < kLatencyBounds.size() ? fmt::format("{}", kLatencyBounds[b]) : std::string("+Inf");
      out += fmt::format(
          "licensed_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
          kRoutes[r], le, cumulative);
    }
    out += fmt::format("licensed_http_request_duration_seconds_sum{{route=\"{}\"}} {:.9f}\n",
                       kRoutes[r], stats.latency_sum_ns.load(std::memory_order_relaxed) / 1e9);
    out += fmt::format("licensed_http_request_duration_seconds_count{{route=\"{}\"}} {}\n",
                       kRoutes[r], cumulative);
  }
  append("# HELP licensed_rate_limited_total Requests refused with 429, by bucket.\n");
  append("# TYPE licensed_rate_limited_total counter\n");
  out += fmt::format("licensed_rate_limited_total{{bucket=\"ip\"}} {}\n",
                     rate_limited_ip_.load(std::memory_order_relaxed));
  out += fmt::format("licensed_rate_limited_total{{bucket=\"key\"}} {}\n",
                     rate_limited_key_.load(std::memory_order_relaxed));
  append(
      "# HELP licensed_api_errors_total Answers with a numbered error, by code (1705: license "
      "full; 1708, 1709: the store or Redis failing).\n");
  append("# TYPE licensed_api_errors_total counter\n");
  for (size_t i = 0; i < api_errors_.size(); ++i) {
    const std::string code =
        i == kErrorCodes ? "other" : std::to_string(kFirstErrorCode + static_cast<int>(i));
    out += fmt::format("licensed_api_errors_total{{code=\"{}\"}} {}\n", code,
                       api_errors_[i].load(std::memory_order_relaxed));
  }
  append("# HELP licensed_unauthorized_total Requests refused with 401, by cause.\n");
  append("# TYPE licensed_unauthorized_total counter\n");
  for (size_t i = 0; i < kUnauthorizedCauses.size(); ++i) {
    out += fmt::format("licensed_unauthorized_total{{cause=\"{}\"}} {}\n", kUnauthorizedCauses[i],
                       unauthorized_[i].load(std::memory_order_relaxed));
  }
  append(
      "# HELP licensed_connections_refused_total Connections closed at once because the "
      "connection cap, or their address's cap, was reached.\n");
  append("# TYPE licensed_connections_refused_total counter\n");
  out += fmt::format("licensed_connections_refused_total {}\n",
                     connections_refused_.load(std::memory_order_relaxed));
  append(
      "# HELP licensed_store_rejected_total Store deliveries refused, by the URL's provider and "
      "reason.\n");
  append("# TYPE licensed_store_rejected_total counter\n");
  for (size_t p = 0; p < kStoreProviders.size(); ++p) {
    for (size_t r = 0; r < kStoreRejections.size(); ++r) {
      const uint64_t n = store_rejected_[p][r].load(std::memory_order_relaxed);
      if (n == 0) continue;  // as requests: seen ones are always printed
      out += fmt::format("licensed_store_rejected_total{{provider=\"{}\",reason=\"{}\"}} {}\n",
                         kStoreProviders[p], kStoreRejections[r], n);
    }
  }
  if (!build_version_.empty()) {
    out += fmt::format(
        "# HELP licensed_build_info The running release (always 1).\n"
        "# TYPE licensed_build_info gauge\nlicensed_build_info{{version=\"{}\"}} 1\n",
        build_version_);
  }
  // A name with labels ("x_total{outcome=\"a\"}") shares its family's HELP and TYPE with
  // the gauges of the same family added right before it.
  std::string_view family_done;
  for (const Gauge& g : gauges_) {
    const std::string_view family = std::string_view(g.name).substr(0, g.name.find('{'));
    if (family != family_done) {
      out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family, g.help, family, g.type);
    }
    family_done = family;
    out += fmt::format("{} {}\n", g.name, g.read());
  }
  return out;
}

}  // namespace licensed
