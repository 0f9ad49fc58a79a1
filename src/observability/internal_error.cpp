#include "observability/internal_error.h"

#include <spdlog/spdlog.h>

#include "observability/log_fields.h"
#include "observability/redaction.h"

namespace licensed {

void report_internal_error(ErrorReporter* reporter, Endpoint endpoint, std::string_view request_id,
                           std::string_view license_key, UnixMillis now) {
  const std::string_view name = endpoint_name(endpoint);
  report_internal_error(reporter, name, "/api/v1/license/" + std::string(name), request_id,
                        license_key, now);
}

void report_internal_error(ErrorReporter* reporter, std::string_view name, std::string route,
                           std::string_view request_id, std::string_view license_key,
                           UnixMillis now) {
  const std::string masked = license_key.empty() ? std::string() : mask_license_key(license_key);
  {
    const std::string_view license = masked.empty() ? std::string_view("-") : masked;
    const ScopedLogFields fields{
        {"requestId", request_id}, {"endpoint", name}, {"license", license}};
    spdlog::error("request {} failed with an internal error (endpoint {}, license {})", request_id,
                  name, license);
  }
  if (reporter == nullptr) return;
  ErrorReport report;
  report.at = now;
  report.endpoint = std::string(name);
  report.route = std::move(route);
  report.message = "internal error (1709) answering " + report.route;
  report.request_id = std::string(request_id);
  report.error_code = static_cast<int>(ErrorCode::kInternal);
  report.masked_license_key = masked;
  reporter->report(std::move(report));
}

}  // namespace licensed
