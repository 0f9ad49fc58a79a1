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

void sign_response_batched(HttpResponse res, BatchSigner& batcher, ResponseAlgorithm algorithm,
                           const Clock& clock, const AnswerBinding& binding,
                           std::function<void(HttpResponse)> reply) {
  if (res.find(http::field::date) == res.end()) res.set(http::field::date, http_date_now());
  const int64_t t = clock.now_seconds();
  std::optional<std::string> bound;
  if (binding) bound = to_hex(*binding);
  std::string signing = response_signing_string(bound, res.result_int(), t, res.body());
  batcher.sign(algorithm, std::move(signing), t,
               [res = std::move(res), reply = std::move(reply),
                algorithm](std::optional<std::string> signature) mutable {
                 if (signature) {
                   res.set(kResponseSignatureHeader, *signature);
                 } else {
                   res.erase(kResponseSignatureHeader);
                   spdlog::error("cannot sign an answer in {}; it goes out unsigned",
                                 algorithm_name(algorithm));
                 }
                 reply(std::move(res));
               });
}

bool is_signed(const HttpResponse& res) {
  return res.find(kResponseSignatureHeader) != res.end();
}

}  // namespace licensed
