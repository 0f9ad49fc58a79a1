#include "http/store_api_caller.h"

namespace licensed {
namespace {

// "https://api.stripe.com/" + "/v1/..." without a doubled slash.
std::string join_url(std::string_view base, std::string_view path_and_query) {
  if (!base.empty() && base.back() == '/' && !path_and_query.empty() &&
      path_and_query.front() == '/') {
    base.remove_suffix(1);
  }
  return std::string(base) + std::string(path_and_query);
}

}  // namespace

OutgoingPolicy outgoing_policy(const ServeConfig& config) {
  return OutgoingPolicy{.allow_http = config.webhook_allow_http,
                        .allow_private = config.webhook_allow_private,
                        .ca_file = config.outgoing_ca_file};
}

OutgoingStoreApiCaller::OutgoingStoreApiCaller(OutgoingPolicy policy, OutgoingLimits limits)
    : client_(std::move(policy)), limits_(limits) {}

Result<std::string> OutgoingStoreApiCaller::call(const ApiLookup& lookup) {
  OutgoingRequest request{.method = "GET",
                          .url = join_url(lookup.base, lookup.path_and_query),
                          .headers = lookup.headers,
                          .body = {},
                          .limits = limits_};
  auto answer = client_.send(request);
  if (!answer.ok()) return Error::unavailable("store API " + answer.error().message);
  if (answer->status < 200 || answer->status > 299) {
    const bool redirect = answer->status >= 300 && answer->status < 400;
    return Error::unavailable("store API " + url_origin(request.url) + ": answered HTTP " +
                              std::to_string(answer->status) +
                              (redirect ? " (redirects are not followed)" : ""));
  }
  return std::move(answer->body);
}

}  // namespace licensed
