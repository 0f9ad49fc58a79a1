#include "http/response_signing.h"

#include <spdlog/spdlog.h>

#include <boost/beast/http/field.hpp>

namespace licensed {

namespace http = boost::beast::http;

void sign_response(HttpResponse& res, const ResponseSigner& signer,
                   std::optional<std::string_view> nonce) {
  if (res.find(http::field::date) == res.end()) res.set(http::field::date, http_date_now());
  const auto date = res[http::field::date];
  const auto signature =
      signer.sign(nonce, res.result_int(), std::string_view(date.data(), date.size()), res.body());
  if (!signature) {
    res.erase(kResponseSignatureHeader);
    spdlog::error("cannot sign an answer with response key {}; it goes out unsigned",
                  signer.signing_key().kid());
    return;
  }
  res.set(kResponseSignatureHeader, *signature);
}

}  // namespace licensed
