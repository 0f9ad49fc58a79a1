#include "http/license_handler.h"

#include <spdlog/spdlog.h>

#include <boost/beast/http/field.hpp>

#include "admin/admin_operations.h"
#include "auth/accept_signature.h"
#include "core/operations.h"
#include "http/license_api_error.h"
#include "http/refusal_recording.h"
#include "http/response_signing.h"
#include "http/routes.h"
#include "observability/internal_error.h"
#include "observability/log_fields.h"
#include "observability/redaction.h"

namespace licensed {

namespace {

// Keys change only with a restart; five minutes bounds how long a cache may miss a new
// one, which rotation (publish first, sign later) allows for.
constexpr std::string_view kPublicKeysCacheControl = "public, max-age=300";

std::optional<std::string_view> header(const HttpRequestHeader& req, std::string_view name) {
  const auto it = req.find(name);
  if (it == req.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

// A signing header sent twice has no one value (a proxy in front may take the last one
// where we took the first, and see another request than the one our answer is bound
// to): it stands as present but empty, which the header check refuses as malformed.
std::optional<std::string_view> signing_header(const HttpRequestHeader& req,
                                               std::string_view name) {
  if (req.count(name) > 1) return std::string_view();
  return header(req, name);
}

// X-License-Accept-Signature as one list: a list header sent in several fields is the
// same as their values joined by commas (RFC 9110 5.3). Nullopt when absent.
std::optional<std::string> accept_signature_of(const HttpRequestHeader& req) {
  auto [it, end] = req.equal_range(kAcceptSignatureHeader);
  if (it == end) return std::nullopt;
  std::string joined(it->value().data(), it->value().size());
  for (++it; it != end; ++it) joined.append(",").append(it->value().data(), it->value().size());
  return joined;
}

// Paths an answer of the License API's own is signed on: the client endpoints, and any
// other path under theirs (a 404 of step 1 there is bound to "-" like a 405).
bool is_license_api_path(std::string_view path) {
  constexpr std::string_view kClientPrefix = "/api/v1/license/";
  const std::string_view api_path = api_path_of(path);
  return api_path.substr(0, kClientPrefix.size()) == kClientPrefix && api_path != kPublicKeysPath;
}

// Whether an answer is the License API's, so signed: a routed request's by its route
// (one of the four endpoints); one answered before or instead of routing by its path,
// which is all there is to go on (empty when the header could not be parsed: it may
// have been meant for an endpoint).
bool answers_for_license_api(const Route& route, std::string_view path) {
  if (route.routed()) return route.is<Endpoint>();
  return path.empty() || is_license_api_path(path);
}

}  // namespace

boost::json::object public_keys_json(const ResponseSigner* signer) {
  boost::json::array keys;
  if (signer != nullptr) {
    for (const ResponseKey& key : signer->keys()) {
      keys.push_back(boost::json::object{{"kid", key.kid()},
                                         {"alg", algorithm_name(key.algorithm())},
                                         {"publicKey", key.public_key_base64()}});
    }
  }
  return boost::json::object{{"keys", std::move(keys)}};
}

LicenseHandler::LicenseHandler(LicenseHandlerConfig config)
    : config_(std::move(config)), public_keys_(public_keys_json(config_.response_signer)) {}

ApiResult<Route> LicenseHandler::route(std::string_view method, std::string_view path) const {
  if (api_path_of(path) == kPublicKeysPath) {
    if (method != "GET") return errors::method_not_allowed("GET");
    return Route{PublicRoute::kPublicKeys, "other"};
  }
  ASSIGN_OR_RETURN(const Endpoint endpoint, route_license_request(method, path));
  return Route{endpoint, endpoint_name(endpoint)};
}

ResponseAlgorithm LicenseHandler::answer_algorithm(const HttpRequestHeader* request) const {
  if (config_.response_signer == nullptr) return ResponseAlgorithm::kEd25519;  // not signed
  const std::optional<std::string> accept =
      request != nullptr ? accept_signature_of(*request) : std::nullopt;
  return choose_response_algorithm(accept, config_.response_signer->algorithms());
}

void LicenseHandler::finish_response(HttpResponse& res, const HttpRequestHeader* request,
                                     const Route& route, std::string_view path) const {
  if (config_.response_signer == nullptr || is_signed(res)) return;
  // What handle() did not answer: the server's own answers of step 2 to a routed
  // request (413), and those given before or instead of routing (404, 405, and 431 or
  // 400 to a header it could not parse), which may have been meant for one of the
  // endpoints. docs/protocol.md §13.5 binds them to "-" without checking the signature.
  if (!answers_for_license_api(route, path)) return;
  sign_response(res, *config_.response_signer, answer_algorithm(request), *config_.pipeline.clock,
                std::nullopt);
}

HttpReply LicenseHandler::bound_to(AnswerBinding binding, ResponseAlgorithm algorithm,
                                   const ConnectionExecutor& home, HttpReply reply) const {
  const ResponseSigner* signer = config_.response_signer;
  if (signer == nullptr) return reply;
  const Clock* clock = config_.pipeline.clock;
  if (BatchSigner* batcher = config_.batch_signer) {
    return [batcher, algorithm, clock, binding, home, reply = std::move(reply)](HttpResponse res) {
      sign_response_batched(std::move(res), *batcher, algorithm, *clock, binding, home, reply);
    };
  }
  return [signer, algorithm, clock, binding, reply = std::move(reply)](HttpResponse res) {
    sign_response(res, *signer, algorithm, *clock, binding);
    reply(std::move(res));
  };
}

void LicenseHandler::serve(const Route& route, const HttpRequest& req, const RequestContext& ctx,
                           HttpReply reply) const {
  if (route.is<PublicRoute>()) {
    HttpResponse res = json_response(200, public_keys_, ctx.request_id);
    res.set(boost::beast::http::field::cache_control, kPublicKeysCacheControl);
    return reply(std::move(res));
  }
  IncomingRequest in;
  in.method = req.method_string();
  in.path = ctx.path;
  in.content_type = header(req, "Content-Type").value_or("");
  in.body = req.body();
  in.client_ip = ctx.client_ip;
  in.signing.key_id = signing_header(req, "X-License-Key-Id");
  in.signing.timestamp = signing_header(req, "X-License-Timestamp");
  in.signing.nonce = signing_header(req, "X-License-Nonce");
  in.signing.signature = signing_header(req, "X-License-Signature");
  handle(route.as<Endpoint>(), in, std::string(ctx.request_id), ctx.executor,
         answer_algorithm(&req), std::move(reply));
}

void LicenseHandler::handle(Endpoint endpoint, const IncomingRequest& in, std::string request_id,
                            const ConnectionExecutor& executor, ResponseAlgorithm algorithm,
                            HttpReply reply) const {
  run_pipeline(config_.pipeline, endpoint, in, executor,
               [this, endpoint, algorithm, ip = std::string(in.client_ip),
                request_id = std::move(request_id), home = executor,
                reply = std::move(reply)](PipelineOutcome outcome) mutable {
                 answer(endpoint, std::move(outcome), algorithm, std::move(ip),
                        std::move(request_id), home, std::move(reply));
               });
}

void LicenseHandler::answer(Endpoint endpoint, PipelineOutcome outcome, ResponseAlgorithm algorithm,
                            std::string client_ip, std::string request_id,
                            const ConnectionExecutor& home, HttpReply reply) const {
  reply = bound_to(outcome.binding, algorithm, home, std::move(reply));
  if (!outcome.request.ok()) {
    return refuse(endpoint, std::move(outcome.request.error()), std::move(outcome.nonce_to_keep),
                  request_id, reply);
  }
  auto request = std::make_shared<AuthorizedRequest>(std::move(outcome.request.value()));
  if (request->endpoint == Endpoint::kTrial) {
    return answer_trial(request, std::move(client_ip), std::move(request_id), reply);
  }
  if (request->endpoint == Endpoint::kCheckout) {
    return answer_checkout(request, std::move(client_ip), std::move(request_id), algorithm, reply);
  }
  run_accepted(request, client_ip, request_id, algorithm, reply);
}

void LicenseHandler::refuse(Endpoint endpoint, ApiError error,
                            std::optional<AuthorizedRequest> nonce_to_keep,
                            const std::string& request_id, const HttpReply& reply) const {
  ErrorReporter* const reporter = config_.error_reporter;
  const Clock* clock = config_.pipeline.clock;
  if (error.code == ErrorCode::kRateLimited && config_.metrics) {
    const auto* bucket = error.extra.if_contains("bucket");
    config_.metrics->record_rate_limited(bucket && bucket->is_string()
                                             ? std::string_view(bucket->as_string())
                                             : std::string_view("key"));
  }
  if (is_internal_error(error)) {
    report_internal_error(reporter, endpoint, request_id, {}, clock->now_ms());
  }
  if (!nonce_to_keep) return reply(error_response(error, request_id));
  // The request was refused after consuming a nonce dated ahead of our clock: keep
  // that nonce before answering, so a replay after a restart is refused too.
  auto keep = std::make_shared<AuthorizedRequest>(std::move(*nonce_to_keep));
  submit_call<Ok>(
      *config_.store, TxKind::kWrite,
      [keep](StoreTx& tx) {
        return tx.remember_nonce(keep->key->id, keep->nonce, keep->nonce_expires_at);
      },
      [error = std::move(error), request_id, reply, reporter, clock, endpoint](Status kept) {
        if (kept.ok()) return reply(error_response(error, request_id));
        const ApiError failed = to_api_error(kept.error());
        if (is_internal_error(failed)) {
          report_internal_error(reporter, endpoint, request_id, {}, clock->now_ms());
        }
        reply(error_response(failed, request_id));
      });
}

void LicenseHandler::run_accepted(const std::shared_ptr<AuthorizedRequest>& request,
                                  const std::string& client_ip, const std::string& request_id,
                                  ResponseAlgorithm algorithm, const HttpReply& reply) const {
  const bool writes = request->endpoint != Endpoint::kStatus || request->keep_nonce_durably;
  const LicenseHandler* self = this;
  submit_call<boost::json::object, RequestError>(
      *config_.store, writes ? TxKind::kWrite : TxKind::kRead,
      [request, request_id, ip = client_ip,
       self](StoreTx& tx) -> RequestResult<boost::json::object> {
        // So a store failure logged on the way names the request it hit.
        const ScopedLogFields log_fields{{"requestId", request_id}};
        if (request->keep_nonce_durably) {
          RETURN_IF_ERROR(
              tx.remember_nonce(request->key->id, request->nonce, request->nonce_expires_at));
        }
        OperationContext op = self->operation_context(*request, ip, request_id);
        if (is_offline_endpoint(request->endpoint)) {
          // Step 10 begins with the file's own checks (docs/protocol.md §21.2), here so a
          // refusal still keeps a nonce dated ahead, in this transaction.
          ASSIGN_OR_RETURN(const SigningKey* inner_key,
                           check_offline_request(self->config_.pipeline, *request));
          op.inner_bound_products = &inner_key->products;
        }
        return run_operation(request->endpoint, tx, request->body, op);
      },
      // A copy, not a move: the order in which the two lambdas are made is unspecified.
      [request, request_id, reply, self, algorithm,
       ip = client_ip](const RequestResult<boost::json::object>& answer) {
        if (request->endpoint == Endpoint::kOfflineActivate && answer.ok()) {
          return self->reply_with(self->with_activation_file(answer.value(), algorithm), *request,
                                  request_id, ip, reply);
        }
        if (request->endpoint == Endpoint::kCheckout && answer.ok()) {
          return self->reply_with(self->with_lease_file(answer.value(), algorithm), *request,
                                  request_id, ip, reply);
        }
        self->reply_with(answer, *request, request_id, ip, reply);
      },
      // Business refusals are committed with the nonce and any reclaim they include.
      [](const RequestResult<boost::json::object>& answer) { return !must_roll_back(answer); });
}

OperationContext LicenseHandler::operation_context(const AuthorizedRequest& request,
                                                   std::string_view ip,
                                                   std::string_view request_id) const {
  OperationContext ctx;
  ctx.now = config_.pipeline.clock->now_ms();
  ctx.ip = ip;
  ctx.key_id = request.key->id;
  ctx.request_id = request_id;
  ctx.bound_products = &request.key->products;
  ctx.dashboard_url = &config_.dashboard_url;
  ctx.trial_identity = config_.trial_identity;
  ctx.new_license_key = &generate_license_key;
  ctx.new_activation_id = &random_128_bit_hex;
  return ctx;
}

RequestResult<boost::json::object> LicenseHandler::with_activation_file(
    boost::json::object body, ResponseAlgorithm algorithm) const {
  auto signed_body =
      sign_activation_file_member(config_.response_signer, algorithm, std::move(body));
  if (!signed_body.ok()) return RequestError(std::move(signed_body.error()));
  return std::move(signed_body.value());
}

RequestResult<boost::json::object> LicenseHandler::with_lease_file(
    boost::json::object body, ResponseAlgorithm algorithm) const {
  auto signed_body = sign_lease_file_member(config_.response_signer, algorithm, std::move(body));
  if (!signed_body.ok()) return RequestError(std::move(signed_body.error()));
  return std::move(signed_body.value());
}

void LicenseHandler::reply_with(const RequestResult<boost::json::object>& answer,
                                const AuthorizedRequest& request, const std::string& request_id,
                                const std::string& client_ip, const HttpReply& reply) const {
  if (answer.ok()) return reply(json_response(200, answer.value(), request_id));
  ApiError error = answer.error().answer_or(to_api_error);
  if (is_internal_error(error)) {
    report_internal_error(config_.error_reporter, request.endpoint, request_id,
                          request.body.license_key, config_.pipeline.clock->now_ms());
  }
  // Queued before the answer goes (the answer does not wait for it): once the reply is
  // sent, whoever waits for it may tear this handler and its store down.
  if (is_recorded_refusal(error) && config_.store != nullptr) {
    record_refusal(*config_.store, config_.trial_identity,
                   RefusedRequest{config_.pipeline.clock->now_ms(), static_cast<int>(*error.code),
                                  request.body, client_ip, request.key->id, request_id});
  }
  if (error.code == ErrorCode::kLimitReached) {
    return reply_with_sign_in_link(std::move(error), request, request_id, reply);
  }
  reply(error_response(error, request_id));
}

void LicenseHandler::reply_with_sign_in_link(ApiError error, const AuthorizedRequest& request,
                                             const std::string& request_id,
                                             const HttpReply& reply) const {
  const boost::json::value* url = error.extra.if_contains("dashboardUrl");
  // A trial's 1705 names no key; a URL that is not this server's dashboard page (a
  // vendor's own page, the contract's example) or has a fragment of its own is left as the
  // operator wrote it.
  if (config_.sign_in_links == nullptr || url == nullptr || !url->is_string() ||
      request.body.license_key.empty() || !request.body.machine_id ||
      !is_dashboard_page_url(url->as_string()) ||
      url->as_string().find('#') != boost::json::string::npos) {
    return reply(error_response(error, request_id));
  }
  const SignInLink link{request.body.license_key, *request.body.machine_id,
                        request.body.machine_name.value_or("")};
  config_.sign_in_links->open_link_async(
      link, [error = std::move(error), request_id, reply,
             masked = mask_license_key(link.license_key)](Result<std::string> token) mutable {
        if (!token.ok()) {
          // The refusal still goes out, with the URL as configured: the customer signs in
          // with the key instead.
          spdlog::warn("no sign-in link for the 1705 of request {}: {}", request_id,
                       token.error().message);
          return reply(error_response(error, request_id));
        }
        // The audit line of the link (docs/dashboard.md): which request made it, for which
        // license; `linkId` names it again when it is used. The token itself is never logged.
        {
          const std::string link_id = sign_in_link_id(token.value());
          const ScopedLogFields fields{{"requestId", request_id}, {"linkId", link_id}};
          spdlog::info("dashboard sign-in link issued for license {} (1705)", masked);
        }
        auto& shown = error.extra["dashboardUrl"];
        shown = with_sign_in_link(shown.as_string(), token.value());
        reply(error_response(error, request_id));
      });
}

}  // namespace licensed
