// Building HTTP answers: every one carries X-Request-Id and Date; error bodies have the
// docs/protocol.md §5 shape.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "core/api_error.h"

namespace licensed {

using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

// RFC 9110 IMF-fixdate of the current second, cached per thread.
const std::string& http_date_now();
std::string new_request_id();

HttpResponse json_response(unsigned status, const boost::json::object& body,
                           std::string_view request_id);
HttpResponse error_response(const ApiError& error, std::string_view request_id);

}  // namespace licensed
