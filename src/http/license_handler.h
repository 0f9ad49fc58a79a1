// The License API endpoints: runs the pipeline, then the operation on a store thread,
// and hands the answer back. Thin: all decisions live in the pipeline and operations.
// Also publishes the response keys (GET /api/v1/license/public-keys) and signs every
// answer of the endpoints (docs/protocol.md §13) in the algorithm the request's
// X-License-Accept-Signature chose (§13.4): handle() binds its answers to the request's
// signature, and finish_response signs the server's own answers bound to "-".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "auth/response_signer.h"
#include "core/operations.h"
#include "dashboard/session_store.h"
#include "http/http_service.h"
#include "http/request_pipeline.h"
#include "http/response.h"
#include "http/response_signing.h"
#include "observability/error_reporter.h"
#include "observability/server_metrics.h"
#include "store/store.h"

namespace licensed {

struct LicenseHandlerConfig {
  PipelineContext pipeline;
  Store* store = nullptr;
  std::optional<std::string> dashboard_url;
  ServerMetrics* metrics = nullptr;  // may be null
  // Where 500s (1709) are reported besides the log; null: only logged.
  ErrorReporter* error_reporter = nullptr;
  // Signs the answers and names the published keys; null: answers go out unsigned
  // (unit tests of other concerns), and no key is published.
  const ResponseSigner* response_signer = nullptr;
  // Signs the endpoints' answers in batches (docs/protocol.md §13.3) with
  // response_signer's keys; null: each answer is signed alone, on the thread that made it.
  BatchSigner* batch_signer = nullptr;
  // Trials (docs/protocol.md §20): the identities they are kept by (null: the trial endpoint
  // answers 1703), and the buckets a new trial takes a token from, per client IP (IPv6 by
  // /64) and per product across IPs (null: off).
  const TrialIdentity* trial_identity = nullptr;
  RateLimiter* trial_ip_limiter = nullptr;
  RateLimiter* trial_product_limiter = nullptr;
  // Where a 1705's dashboardUrl gets its one-time sign-in link (docs/dashboard.md); null:
  // the URL as configured.
  SessionStore* sign_in_links = nullptr;
};

class LicenseHandler final : public HttpService {
 public:
  explicit LicenseHandler(LicenseHandlerConfig config);

  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;
  void finish_response(HttpResponse& res, const HttpRequestHeader* request, const Route& route,
                       std::string_view path) const override;

  // `reply` is called exactly once, possibly on a store thread. A request that parks on
  // Redis resumes on `executor` (its connection's thread; empty: where Redis answered).
  // The answer is signed in `algorithm` (when answers are signed).
  void handle(Endpoint endpoint, const IncomingRequest& in, std::string request_id,
              const ConnectionExecutor& executor, ResponseAlgorithm algorithm,
              HttpReply reply) const;

 private:
  // The algorithm an answer to `request` is signed in: the first of its
  // X-License-Accept-Signature the signer has a key for; Ed25519 without that header, or
  // without a request header (one that could not be parsed: nothing was asked).
  ResponseAlgorithm answer_algorithm(const HttpRequestHeader* request) const;
  // Answers the pipeline's refusal, or runs the accepted request's operation.
  void answer(Endpoint endpoint, PipelineOutcome outcome, ResponseAlgorithm algorithm,
              std::string client_ip, std::string request_id, const ConnectionExecutor& home,
              HttpReply reply) const;
  // A refusal of the pipeline (or of a handler's own step 9), keeping the nonce it
  // consumed when that nonce is dated ahead of our clock.
  void refuse(Endpoint endpoint, ApiError error, std::optional<AuthorizedRequest> nonce_to_keep,
              const std::string& request_id, const HttpReply& reply) const;
  // Step 10 of an accepted request: its operation in one transaction, then its answer.
  void run_accepted(const std::shared_ptr<AuthorizedRequest>& request, const std::string& client_ip,
                    const std::string& request_id, ResponseAlgorithm algorithm,
                    const HttpReply& reply) const;
  // A checkout's step 9 (license_handler_checkout.cpp): the renewal of a live lease does
  // not count in the key bucket, so the bucket is asked only for other checkouts.
  void answer_checkout(const std::shared_ptr<AuthorizedRequest>& request, std::string client_ip,
                       std::string request_id, ResponseAlgorithm algorithm,
                       const HttpReply& reply) const;
  // The trial endpoint's store part (license_handler_trial.cpp): an existing trial is
  // answered at once; a new one first takes a token from the trial buckets.
  void answer_trial(const std::shared_ptr<AuthorizedRequest>& request, std::string client_ip,
                    std::string request_id, const HttpReply& reply) const;
  // What the operations get to know of a request.
  OperationContext operation_context(const AuthorizedRequest& request, std::string_view ip,
                                     std::string_view request_id) const;
  // Answers an operation's result (200, or its refusal translated), reporting a 1709.
  // A refusal support wants to see (docs/protocol.md §26.1) is recorded after the reply.
  void reply_with(const RequestResult<boost::json::object>& answer,
                  const AuthorizedRequest& request, const std::string& request_id,
                  const std::string& client_ip, const HttpReply& reply) const;
  // A 1705 whose dashboardUrl may carry a sign-in link for the request's license and
  // machine: answered with one when the link could be made, else as it is.
  void reply_with_sign_in_link(ApiError error, const AuthorizedRequest& request,
                               const std::string& request_id, const HttpReply& reply) const;
  // An offline-activate answer with its activationFile signed in `algorithm` (the one its
  // request's X-License-Accept-Signature chose, docs/protocol.md §13.4).
  RequestResult<boost::json::object> with_activation_file(boost::json::object body,
                                                          ResponseAlgorithm algorithm) const;
  // A borrowing checkout's leaseFile payload, signed and armoured (docs/protocol.md §27).
  RequestResult<boost::json::object> with_lease_file(boost::json::object body,
                                                     ResponseAlgorithm algorithm) const;
  // `reply`, signing each answer in `algorithm` bound to `binding` first (when answers
  // are signed); batched answers are signed on `home`, their connection's thread.
  HttpReply bound_to(AnswerBinding binding, ResponseAlgorithm algorithm,
                     const ConnectionExecutor& home, HttpReply reply) const;

  LicenseHandlerConfig config_;
  boost::json::object public_keys_;  // the /public-keys answer, made once
};

}  // namespace licensed
