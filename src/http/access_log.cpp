#include "http/access_log.h"

#include <spdlog/spdlog.h>

#include <boost/json.hpp>

#include "auth/request_signature.h"
#include "observability/log_fields.h"
#include "observability/redaction.h"

namespace licensed {
namespace {

// The key id only when it is one a request could name: the header is the client's, and
// the log must not carry whatever a client put there.
std::string key_id_of(const HttpRequest& request) {
  const auto it = request.find("X-License-Key-Id");
  if (it == request.end() || !valid_key_id(it->value())) return "-";
  return std::string(it->value());
}

// The body's licenseKey (the License API's and the offline requests' bodies), masked.
std::string license_of(const HttpRequest& request) {
  if (request.body().empty() || request.body().front() != '{') return "-";
  boost::system::error_code ec;
  const auto body = boost::json::parse(request.body(), ec);
  if (ec || !body.is_object()) return "-";
  const auto* key = body.as_object().if_contains("licenseKey");
  if (key == nullptr || !key->is_string()) return "-";
  return mask_license_key(key->as_string());
}

}  // namespace

AccessLogFields access_log_fields(const HttpRequest* request) {
  if (request == nullptr) return {"-", "-"};
  return {key_id_of(*request), license_of(*request)};
}

void record_api_error(ServerMetrics& metrics, std::string_view answer_body) {
  if (answer_body.empty() || answer_body.front() != '{') return;
  boost::system::error_code ec;
  const auto body = boost::json::parse(answer_body, ec);
  if (ec || !body.is_object()) return;
  const auto* code = body.as_object().if_contains("code");
  if (code == nullptr || !code->is_int64()) return;
  const auto* reason = body.as_object().if_contains("reason");
  metrics.record_api_error(static_cast<int>(code->as_int64()),
                           reason != nullptr && reason->is_string()
                               ? std::string_view(reason->as_string())
                               : std::string_view());
}

void log_access(const AccessLogEntry& e) {
  const AccessLogFields f = access_log_fields(e.request);
  const std::string route = e.route.empty() ? "-" : std::string(e.route);
  const std::string status = std::to_string(e.status);
  const std::string latency_ms = fmt::format("{:.3f}", e.seconds * 1000);
  const ScopedLogFields fields{{"requestId", e.request_id}, {"route", route},
                               {"status", status},          {"latencyMs", latency_ms},
                               {"keyId", f.key_id},         {"license", f.license}};
  spdlog::info("access {} {} {} {}ms key {} license {}", e.request_id, route, status, latency_ms,
               f.key_id, f.license);
}

}  // namespace licensed
