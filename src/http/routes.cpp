#include "http/routes.h"

namespace licensed {

std::string_view path_of(std::string_view target) {
  const auto q = target.find_first_of("?#");
  return q == std::string_view::npos ? target : target.substr(0, q);
}

std::string_view api_path_of(std::string_view path) {
  const auto at = path.find("/api/");
  return at == std::string_view::npos ? path : path.substr(at);
}

bool is_api_path(std::string_view path) {
  return path.find("/api/") != std::string_view::npos;
}

std::optional<Endpoint> license_endpoint_of(std::string_view path) {
  const std::string_view api = api_path_of(path);
  if (api == "/api/v1/license/activate") return Endpoint::kActivate;
  if (api == "/api/v1/license/heartbeat") return Endpoint::kHeartbeat;
  if (api == "/api/v1/license/status") return Endpoint::kStatus;
  if (api == "/api/v1/license/deactivate") return Endpoint::kDeactivate;
  if (api == "/api/v1/license/trial") return Endpoint::kTrial;
  if (api == "/api/v1/license/offline-activate") return Endpoint::kOfflineActivate;
  if (api == "/api/v1/license/offline-deactivate") return Endpoint::kOfflineDeactivate;
  if (api == "/api/v1/license/checkout") return Endpoint::kCheckout;
  if (api == "/api/v1/license/checkin") return Endpoint::kCheckin;
  return std::nullopt;
}

ApiResult<Endpoint> route_license_request(std::string_view method, std::string_view path) {
  const std::optional<Endpoint> endpoint = license_endpoint_of(path);
  if (!endpoint) return errors::route_not_found();
  if (method != "POST") return errors::method_not_allowed();
  return *endpoint;
}

}  // namespace licensed
