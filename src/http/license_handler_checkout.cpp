// A checkout's step 9 (docs/protocol.md §27): the renewal of a live lease does not count in
// the key bucket, and which one a checkout is needs the store. So the pipeline leaves the
// key bucket to this file: a read looks for a live lease of the request's machine and
// session; a renewal goes on to its operation at once, any other checkout first takes a
// token (429 1706 `bucket: "key"` when there is none, as the pipeline would answer).
// The look and the checkout are two transactions: a lease that ends between them costs a
// token once; the seat cap itself is decided under the license's lock, whatever the look saw.
#include "core/operations.h"
#include "http/bucket_check.h"
#include "http/license_handler.h"
#include "observability/log_fields.h"

namespace licensed {

void LicenseHandler::answer_checkout(const std::shared_ptr<AuthorizedRequest>& request,
                                     std::string client_ip, std::string request_id,
                                     ResponseAlgorithm algorithm, const HttpReply& reply) const {
  const LicenseHandler* self = this;
  const UnixMillis now = config_.pipeline.clock->now_ms();
  auto ip = std::make_shared<const std::string>(std::move(client_ip));
  auto id = std::make_shared<const std::string>(std::move(request_id));
  auto go_on = [self, request, ip, id, algorithm, reply] {
    self->run_accepted(request, *ip, *id, algorithm, reply);
  };
  submit_call<bool>(
      *config_.store, TxKind::kRead,
      [request, id, now](StoreTx& tx) -> Result<bool> {
        const ScopedLogFields log_fields{{"requestId", *id}};
        return renews_a_live_lease(tx, request->body, now);
      },
      [self, request, id, reply, now, go_on](const Result<bool>& renewal) {
        // A look that failed counts the request, the safe side; the checkout then meets
        // the store's failure itself.
        if (renewal.ok() && renewal.value()) return go_on();
        check_bucket(self->config_.pipeline.key_limiter, request->body.license_key, "key", now,
                     [self, request, id, reply, go_on](std::optional<ApiError> refused) {
                       if (!refused) return go_on();
                       std::optional<AuthorizedRequest> keep;
                       if (request->keep_nonce_durably) keep = *request;
                       self->refuse(Endpoint::kCheckout, std::move(*refused), std::move(keep), *id,
                                    reply);
                     });
      });
}

}  // namespace licensed
