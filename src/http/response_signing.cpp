#include "http/response_signing.h"

#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/field.hpp>
#include <memory>
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

// The answers that reached a network thread since its last flush, for one batcher (a
// server has one; unit tests make several). The flush handler owns them, so answers of a
// context stopped before its flush ran end with the context's other queued handlers; the
// thread keeps only a weak reference to add to them.
struct WaitingAnswers {
  BatchSigner* batcher = nullptr;
  std::vector<BatchSigner::Answer> answers;
};
thread_local std::vector<std::weak_ptr<WaitingAnswers>> t_waiting;

// Signs what waited on this thread for its batcher, as one batch.
void flush_waiting(const std::shared_ptr<WaitingAnswers>& waiting) {
  std::erase_if(t_waiting, [&waiting](const std::weak_ptr<WaitingAnswers>& w) {
    const auto open = w.lock();
    return open == nullptr || open == waiting;
  });
  waiting->batcher->sign_all(std::move(waiting->answers));
}

// The answers waiting on this thread for `batcher`; a new set, with its flush posted to
// `home` (this thread's context), when none waits.
std::shared_ptr<WaitingAnswers> waiting_for(BatchSigner& batcher, const ConnectionExecutor& home) {
  for (const auto& w : t_waiting) {
    if (auto open = w.lock(); open != nullptr && open->batcher == &batcher) return open;
  }
  auto waiting = std::make_shared<WaitingAnswers>();
  waiting->batcher = &batcher;
  t_waiting.push_back(waiting);
  // Behind the work already ready on this thread, not after any time: an idle thread
  // flushes at once.
  boost::asio::post(home, [waiting] { flush_waiting(waiting); });
  return waiting;
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
    waiting_for(batcher, home)
        ->answers.push_back(answer_of(std::move(res), algorithm, clock, binding, std::move(reply)));
  });
}

bool is_signed(const HttpResponse& res) {
  return res.find(kResponseSignatureHeader) != res.end();
}

}  // namespace licensed
