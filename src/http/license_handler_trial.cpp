// The trial endpoint's store part (docs/protocol.md §20). Only requests that create a trial
// count in the trial buckets, so it runs in up to two transactions: the first answers an
// existing trial (writing nothing when there is none); then a token is taken from the
// per-IP and per-product buckets; then the second creates the trial, or, the buckets
// being empty, answers one that a concurrent request created meanwhile (looking twice, as
// the creating transaction may commit just after the first look), else 429.
#include <boost/json/object.hpp>

#include "http/client_address.h"
#include "http/license_handler.h"
#include "observability/log_fields.h"

namespace licensed {
namespace {

using MaybeAnswer = RequestResult<std::optional<boost::json::object>>;
using MaybeDone = std::function<void(MaybeAnswer)>;

bool keeps(const MaybeAnswer& r) {
  return r.ok() || r.error().failure() == nullptr;
}

// Takes a token from each bucket in turn; `done` gets the first refusal, or none.
void take_trial_tokens(RateLimiter* by_ip, RateLimiter* by_product, const std::string& ip_key,
                       const std::string& product_key, UnixMillis now,
                       const std::function<void(std::optional<RateDecision>)>& done) {
  auto second = [by_product, product_key, now, done](RateDecision first) {
    if (!first.allowed) return done(first);
    if (by_product == nullptr) return done(std::nullopt);
    by_product->admit_async(product_key, now, [done](RateDecision d) {
      done(d.allowed ? std::nullopt : std::optional<RateDecision>(d));
    });
  };
  if (by_ip == nullptr) return second(RateDecision{true, 0});
  by_ip->admit_async(ip_key, now, second);
}

}  // namespace

void LicenseHandler::answer_trial(const std::shared_ptr<AuthorizedRequest>& request,
                                  std::string client_ip, std::string request_id,
                                  const HttpReply& reply) const {
  const LicenseHandler* self = this;
  auto ip = std::make_shared<const std::string>(std::move(client_ip));
  auto phase = [self, request, ip, request_id](TrialMode mode, bool keep_nonce, MaybeDone done) {
    submit_call<std::optional<boost::json::object>, RequestError>(
        *self->config_.store, TxKind::kWrite,
        [self, request, ip, request_id, mode, keep_nonce](StoreTx& tx) -> MaybeAnswer {
          const ScopedLogFields log_fields{{"requestId", request_id}};
          if (keep_nonce) {
            RETURN_IF_ERROR(
                tx.remember_nonce(request->key->id, request->nonce, request->nonce_expires_at));
          }
          return trial(tx, request->body, self->operation_context(*request, *ip, request_id), mode);
        },
        std::move(done), keeps);
  };
  auto finish = [self, request, request_id, reply, ip](const MaybeAnswer& r,
                                                       std::optional<RateDecision> refused) {
    using Answer = RequestResult<boost::json::object>;
    if (!r.ok()) return self->reply_with(Answer(r.error()), *request, request_id, *ip, reply);
    if (r.value()) return self->reply_with(Answer(*r.value()), *request, request_id, *ip, reply);
    const int64_t wait = refused ? refused->retry_after_seconds : 1;
    self->reply_with(Answer(RequestError(errors::rate_limited("trial", wait))), *request,
                     request_id, *ip, reply);
  };
  phase(TrialMode::kFindOnly, request->keep_nonce_durably,
        [self, request, ip, phase, finish](const MaybeAnswer& found) {
          if (!found.ok() || found.value()) return finish(found, std::nullopt);
          take_trial_tokens(
              self->config_.trial_ip_limiter, self->config_.trial_product_limiter,
              ip_bucket_key(*ip), request->body.product, self->config_.pipeline.clock->now_ms(),
              [phase, finish](std::optional<RateDecision> refused) {
                if (!refused) {
                  return phase(TrialMode::kCreate, false,
                               [finish](const MaybeAnswer& r) { finish(r, std::nullopt); });
                }
                // Refused: the tokens went to concurrent first calls, one of which is making
                // the trial. Its transaction may commit just after this look finds nothing
                // (PostgreSQL runs them side by side), so a refusal looks twice before 429.
                phase(TrialMode::kFindOnly, false, [phase, finish, refused](const MaybeAnswer& r) {
                  if (!r.ok() || r.value()) return finish(r, refused);
                  phase(TrialMode::kFindOnly, false,
                        [finish, refused](const MaybeAnswer& again) { finish(again, refused); });
                });
              });
        });
}

}  // namespace licensed
