// The OpenAPI 3.1 document of the whole API (docs/openapi.yaml), as JSON. The build
// converts the YAML once (scripts/openapi_to_cpp.py) and embeds the result, so the
// server needs no YAML parser and always serves the document it was built with.
#pragma once

#include <string_view>

namespace licensed {

inline constexpr std::string_view kOpenApiPath = "/api/v1/openapi.json";

std::string_view openapi_json();

}  // namespace licensed
