// Check 1 of docs/protocol.md §3.5: which endpoint a method and target name.
#pragma once

#include <optional>
#include <string_view>

#include "core/api_error.h"
#include "core/request_body.h"

namespace licensed {

// The path without its query string.
std::string_view path_of(std::string_view target);
// The API path "from /api/ on" (docs/protocol.md §2): a prefix added by a proxy is ignored.
std::string_view api_path_of(std::string_view path);
bool is_api_path(std::string_view path);

// Where the server publishes its response keys (docs/protocol.md §14); GET only.
inline constexpr std::string_view kPublicKeysPath = "/api/v1/license/public-keys";
// The License API endpoint `path` names (a proxy prefix allowed), whatever the method.
std::optional<Endpoint> license_endpoint_of(std::string_view path);

// 404 for an unknown path under /api/, 405 for another method on an endpoint.
ApiResult<Endpoint> route_license_request(std::string_view method, std::string_view path);

}  // namespace licensed
