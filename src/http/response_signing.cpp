#include "http/response_signing.h"

#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/field.hpp>
#include <utility>
#include <vector>

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

namespace {

// The answers that reached this network thread since its last flush, for one batcher (a
// server has one; unit tests may make several).
struct ThreadAnswers {
  BatchSigner* batcher = nullptr;
  std::vector<BatchSigner::Answer> answers;
};
thread_local std::vector<ThreadAnswers> t_waiting;

std::vector<BatchSigner::Answer>& waiting_for(BatchSigner& batcher) {
  for (ThreadAnswers& w : t_waiting) {
    if (w.batcher == &batcher) return w.answers;
  }
  t_waiting.push_back(ThreadAnswers{&batcher, {}});
  return t_waiting.back().answers;
}

// Signs what waited on this thread for `batcher`, as one batch.
void flush_waiting(BatchSigner& batcher) {
  std::vector<BatchSigner::Answer> answers = std::move(waiting_for(batcher));
  waiting_for(batcher).clear();
  batcher.sign_all(std::move(answers));
}

// `res` with its signature (or, when signing failed, without any), handed to `reply`.
BatchSigner::Answer answer_of(HttpResponse res, ResponseAlgorithm algorithm, const Clock& clock,
                              const AnswerBinding& binding,
                              std::function<void(HttpResponse)> reply) {
  if (res.find(http::field::date) == res.end()) res.set(http::field::date, http_date_now());
  const int64_t t = clock.now_seconds();
  std::optional<std::string> bound;
  if (binding) bound = to_hex(*binding);
  std::string signing = response_signing_string(bound, res.result_int(), t, res.body());
  return {algorithm, std::move(signing), t,
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
          }};
}

}  // namespace

void sign_response_batched(HttpResponse res, BatchSigner& batcher, ResponseAlgorithm algorithm,
                           const Clock& clock, const AnswerBinding& binding,
                           const ConnectionExecutor& home,
                           std::function<void(HttpResponse)> reply) {
  if (!home) {
    BatchSigner::Answer answer =
        answer_of(std::move(res), algorithm, clock, binding, std::move(reply));
    return batcher.sign(answer.algorithm, std::move(answer.signing_string), answer.t,
                        std::move(answer.done));
  }
  // One hand-off at most: none for an answer made on its connection's thread (a refusal
  // of the pipeline), one for an answer a store thread made.
  boost::asio::dispatch(home, [res = std::move(res), &batcher, algorithm, &clock, binding, home,
                               reply = std::move(reply)]() mutable {
    std::vector<BatchSigner::Answer>& waiting = waiting_for(batcher);
    const bool first = waiting.empty();
    waiting.push_back(answer_of(std::move(res), algorithm, clock, binding, std::move(reply)));
    if (!first) return;
    // Behind the work already ready on this thread, not after any time: an idle thread
    // flushes at once.
    boost::asio::post(home, [&batcher] { flush_waiting(batcher); });
  });
}

bool is_signed(const HttpResponse& res) {
  return res.find(kResponseSignatureHeader) != res.end();
}

}  // namespace licensed
