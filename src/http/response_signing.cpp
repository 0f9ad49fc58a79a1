#include "http/response_signing.h"

#include <spdlog/spdlog.h>

#include <boost/beast/http/field.hpp>

namespace licensed {

namespace http = boost::beast::http;

void sign_response(HttpResponse& res, const ResponseSigner& signer, ResponseAlgorithm algorithm,
                   const Clock& clock, const AnswerBinding& binding) {
  if (res.find(http::field::date) == res.end()) res.set(http::field::date, http_date_now());
  const int64_t t = clock.now_seconds();
  std::optional<std::string> bound;
  if (binding) bound = to_hex(*binding);
  const auto signature = signer.sign(algorithm, bound, res.result_int(), t, res.body());
  if (!signature) {
    res.erase(kResponseSignatureHeader);
    const ResponseKey* key = signer.signing_key(algorithm);
    spdlog::error(
        "cannot sign an answer with response key {}; it goes out unsigned",
        key != nullptr ? key->kid() : "(none for " + std::string(algorithm_name(algorithm)) + ")");
    return;
  }
  res.set(kResponseSignatureHeader, *signature);
}

bool is_signed(const HttpResponse& res) {
  return res.find(kResponseSignatureHeader) != res.end();
}

}  // namespace licensed
