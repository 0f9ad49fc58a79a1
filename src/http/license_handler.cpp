#include "http/license_handler.h"

#include <spdlog/spdlog.h>

#include "core/operations.h"
#include "http/routes.h"

namespace licensed {

namespace {

std::optional<std::string_view> header(const HttpRequest& req, std::string_view name) {
  const auto it = req.find(name);
  if (it == req.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

std::string_view label_of(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kActivate:
      return "activate";
    case Endpoint::kHeartbeat:
      return "heartbeat";
    case Endpoint::kStatus:
      return "status";
    case Endpoint::kDeactivate:
      return "deactivate";
  }
  return "other";
}

}  // namespace

Result<Route> LicenseHandler::route(std::string_view method, std::string_view path) const {
  ASSIGN_OR_RETURN(const Endpoint endpoint, route_license_request(method, path));
  return Route{static_cast<int>(endpoint), label_of(endpoint)};
}

void LicenseHandler::serve(const Route& route, const HttpRequest& req, const RequestContext& ctx,
                           HttpReply reply) const {
  IncomingRequest in;
  in.method = req.method_string();
  in.path = ctx.path;
  in.content_type = header(req, "Content-Type").value_or("");
  in.body = req.body();
  in.client_ip = ctx.client_ip;
  in.signing.key_id = header(req, "X-License-Key-Id");
  in.signing.timestamp = header(req, "X-License-Timestamp");
  in.signing.nonce = header(req, "X-License-Nonce");
  in.signing.signature = header(req, "X-License-Signature");
  handle(static_cast<Endpoint>(route.id), in, std::string(ctx.request_id), std::move(reply));
}

void LicenseHandler::handle(Endpoint endpoint, const IncomingRequest& in, std::string request_id,
                            HttpReply reply) const {
  PipelineOutcome outcome = run_pipeline(config_.pipeline, endpoint, in);
  if (!outcome.request.ok()) {
    ApiError error = std::move(outcome.request.error());
    if (error.code == ErrorCode::kRateLimited && config_.metrics) {
      const auto* bucket = error.extra.if_contains("bucket");
      config_.metrics->record_rate_limited(bucket && bucket->is_string()
                                               ? std::string_view(bucket->as_string())
                                               : std::string_view("key"));
    }
    if (!outcome.nonce_to_keep) return reply(error_response(error, request_id));
    // The request was refused after consuming a nonce dated ahead of our clock: keep
    // that nonce before answering, so a replay after a restart is refused too.
    auto keep = std::make_shared<AuthorizedRequest>(std::move(*outcome.nonce_to_keep));
    auto shared_error = std::make_shared<ApiError>(std::move(error));
    config_.store->submit(
        TxKind::kWrite,
        StoreJob{
            [keep](StoreTx& tx) {
              return tx.remember_nonce(keep->key->id, keep->nonce, keep->nonce_expires_at).ok();
            },
            [shared_error, request_id, reply](const std::optional<ApiError>& failure) {
              reply(error_response(failure ? *failure : *shared_error, request_id));
            }});
    return;
  }

  struct Call {
    AuthorizedRequest request;
    std::string request_id;
    std::string ip;
    std::optional<Result<boost::json::object>> outcome;
  };
  auto call = std::make_shared<Call>();
  call->request = std::move(outcome.request.value());
  call->request_id = std::move(request_id);
  call->ip = std::string(in.client_ip);
  const bool writes =
      call->request.endpoint != Endpoint::kStatus || call->request.keep_nonce_durably;
  const Clock* clock = config_.pipeline.clock;
  const std::optional<std::string>* dashboard_url = &config_.dashboard_url;

  config_.store->submit(
      writes ? TxKind::kWrite : TxKind::kRead,
      StoreJob{[call, clock, dashboard_url](StoreTx& tx) {
                 const AuthorizedRequest& r = call->request;
                 if (r.keep_nonce_durably) {
                   auto kept = tx.remember_nonce(r.key->id, r.nonce, r.nonce_expires_at);
                   if (!kept.ok()) {
                     call->outcome.emplace(std::move(kept.error()));
                     return false;
                   }
                 }
                 OperationContext ctx;
                 ctx.now = clock->now_ms();
                 ctx.ip = call->ip;
                 ctx.key_id = r.key->id;
                 ctx.request_id = call->request_id;
                 ctx.bound_products = &r.key->products;
                 ctx.dashboard_url = dashboard_url;
                 call->outcome.emplace(run_operation(r.endpoint, tx, r.body, ctx));
                 return !must_roll_back(*call->outcome);
               },
               [call, reply](const std::optional<ApiError>& failure) {
                 if (failure) return reply(error_response(*failure, call->request_id));
                 if (!call->outcome)
                   return reply(error_response(errors::internal(), call->request_id));
                 auto& outcome = *call->outcome;
                 if (!outcome.ok()) {
                   if (outcome.error().code == ErrorCode::kInternal) {
                     spdlog::error("request {} failed with an internal error", call->request_id);
                   }
                   return reply(error_response(outcome.error(), call->request_id));
                 }
                 reply(json_response(200, outcome.value(), call->request_id));
               }});
}

}  // namespace licensed
