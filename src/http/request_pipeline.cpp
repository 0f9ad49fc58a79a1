#include "http/request_pipeline.h"

#include "http/client_address.h"
#include "http/routes.h"

namespace licensed {
namespace {

// A nonce is remembered for twice the window: long enough for any timestamp still
// accepted (docs/protocol.md §3.4).
UnixMillis nonce_expiry(const PipelineContext& ctx, UnixMillis now) {
  return now + 2 * ctx.timestamp_window_seconds * 1000;
}

// The nonce store's verdict as the check's answer.
std::optional<ApiError> refusal_of(const PipelineContext& ctx, NonceVerdict verdict) {
  switch (verdict) {
    case NonceVerdict::kFresh:
      return std::nullopt;
    case NonceVerdict::kReused:
      return errors::bad_signature(errors::kNonceReused, "nonce already used");
    case NonceVerdict::kFull:
      // Fail closed: forgetting a nonce early would let a replay through.
      return errors::unavailable(1, "nonce store is full");
    case NonceVerdict::kUnavailable:
      return errors::unavailable(1, "nonce store is unavailable");
    case NonceVerdict::kStale:
      return errors::stale_timestamp(ctx.clock->now_seconds());
  }
  return errors::internal();
}

// One request on its way through the checks, shared by the steps that follow a check
// that may park. What `in` points to is the connection's, kept until it is answered.
struct PipelineRun {
  const PipelineContext* ctx = nullptr;
  Endpoint endpoint{};
  IncomingRequest in;
  ConnectionExecutor home;
  Completion<PipelineOutcome> done;
  // Found by the steps on the way.
  SigningHeaders headers;
  const SigningKey* key = nullptr;
  std::optional<Sha256Digest> binding;
  AuthorizedRequest request;
  LicenseRequest body;
};
using Run = std::shared_ptr<PipelineRun>;

// A step that follows a check which may park.
using Step = void (*)(const Run& run, std::optional<ApiError> refusal);

// `next(run, refusal)`, resumed on the request's connection once the check answered.
CheckDone resume_run(const Run& run, Step next) {
  return resume_on<std::optional<ApiError>>(
      run->home, [run, next](std::optional<ApiError> refusal) { next(run, std::move(refusal)); });
}

// The request, when its nonce must still be stored durably (it was consumed by a
// request dated ahead of the clock); a refusal from here on carries it.
std::optional<AuthorizedRequest> nonce_to_keep(const AuthorizedRequest& request) {
  if (!request.keep_nonce_durably) return std::nullopt;
  return request;
}

void after_key_bucket(const Run& run, std::optional<ApiError> refusal) {
  if (refusal) return run->done({std::move(*refusal), nonce_to_keep(run->request), run->binding});
  run->request.body = std::move(run->body);
  run->done({std::move(run->request), std::nullopt, run->binding});
}

// Steps 8 and 9, once the nonce is consumed: the body, then the license key's bucket.
void check_request(const Run& run) {
  const PipelineContext& ctx = *run->ctx;
  const SigningHeaders& h = run->headers;
  AuthorizedRequest& req = run->request;
  req.endpoint = run->endpoint;
  req.key = run->key;
  req.nonce = std::string(h.nonce);
  const UnixMillis now = ctx.clock->now_ms();
  const int64_t now_seconds = unix_seconds(now);
  req.keep_nonce_durably = h.timestamp > now_seconds;
  req.nonce_expires_at = nonce_expiry(ctx, now);
  if (h.timestamp == now_seconds && ctx.same_second_nonces != nullptr) {
    ctx.same_second_nonces->record(now_seconds, h.key_id, h.nonce, req.nonce_expires_at);
  }
  // From here on the nonce is consumed whatever happens.
  auto body = check_body(run->endpoint, run->in.content_type, run->in.body);
  if (!body.ok()) return run->done({std::move(body.error()), nonce_to_keep(req), run->binding});
  run->body = std::move(body.value());
  if (is_offline_endpoint(run->endpoint)) {
    // Step 8 for the offline endpoints: `request` must be a file of the right shape; its
    // inner body's license key is the one step 9 counts (docs/protocol.md §21.2).
    const auto kind = run->endpoint == Endpoint::kOfflineActivate ? OfflineFileKind::kRequest
                                                                  : OfflineFileKind::kDeactivation;
    auto file = parse_offline_file(run->body.offline_text, kind);
    if (!file.ok()) return run->done({std::move(file.error()), nonce_to_keep(req), run->binding});
    run->body = file.value().request;
    req.offline_file = std::move(file.value());
  }
  // A trial has no license key yet: its step 9 is the trial bucket, which counts only
  // the requests that create a trial, so the handler takes it (license_handler_trial.cpp).
  if (run->endpoint == Endpoint::kTrial) return after_key_bucket(run, std::nullopt);
  // A checkout's renewal does not count in the key bucket (docs/protocol.md §27): which one
  // it is needs the store, so the handler asks the bucket (license_handler_checkout.cpp).
  if (run->endpoint == Endpoint::kCheckout) return after_key_bucket(run, std::nullopt);
  check_key_bucket(ctx, run->body.license_key, resume_run(run, after_key_bucket));
}

void after_nonce(const Run& run, std::optional<ApiError> refusal) {
  if (!refusal) return check_request(run);
  // nonce_reused is the one 1700 check_nonce answers; its answer binds to "-"
  // (docs/protocol.md §13.5).
  const bool reused = refusal->code == ErrorCode::kBadSignature;
  run->done({std::move(*refusal), std::nullopt, reused ? std::nullopt : run->binding});
}

// Steps 4 to 7: the signing headers, the key, the signature, the timestamp, the nonce.
void authenticate(const Run& run) {
  const PipelineContext& ctx = *run->ctx;
  const IncomingRequest& in = run->in;
  auto headers = check_signing_headers(ctx, in.signing, run->key);
  if (!headers.ok()) return run->done({std::move(headers.error()), std::nullopt, std::nullopt});
  run->headers = headers.value();
  const SigningHeaders& h = run->headers;
  if (run->key == nullptr) {
    // The same HMAC work as for a known id, so timing does not tell which ids exist.
    (void)check_signature(ctx.keys->decoy(), h, in.method, api_path_of(in.path), in.body);
    return run->done({errors::bad_signature(errors::kUnknownKey, "unknown signing key id"),
                      std::nullopt, std::nullopt});
  }
  // Checked before the timestamp is judged, so a 1701 is bound to a valid signature too;
  // answered in the order of docs/protocol.md §3.5.
  auto signature_error = check_signature(*run->key, h, in.method, api_path_of(in.path), in.body);
  run->binding = signature_error ? std::nullopt : std::optional<Sha256Digest>(h.signature);
  if (auto e = check_timestamp(ctx, h)) {
    return run->done({std::move(*e), std::nullopt, run->binding});
  }
  if (signature_error) return run->done({std::move(*signature_error), std::nullopt, std::nullopt});
  check_nonce(ctx, h, resume_run(run, after_nonce));
}

void after_ip_bucket(const Run& run, std::optional<ApiError> refusal) {
  if (!refusal) return authenticate(run);
  run->done({std::move(*refusal), std::nullopt, valid_request_signature(*run->ctx, run->in)});
}

}  // namespace

void check_ip_bucket(const PipelineContext& ctx, std::string_view client_ip, CheckDone done) {
  if (ctx.ip_limiter == nullptr) return done(std::nullopt);  // no address to parse then
  check_bucket(ctx.ip_limiter, ip_bucket_key(client_ip), "ip", ctx.clock->now_ms(),
               std::move(done));
}

ApiResult<SigningHeaders> check_signing_headers(const PipelineContext& ctx,
                                                const RawSigningHeaders& raw,
                                                const SigningKey*& key) {
  ASSIGN_OR_RETURN(SigningHeaders h, parse_signing_headers(raw));
  key = ctx.keys->find(h.key_id);
  return h;
}

std::optional<ApiError> check_timestamp(const PipelineContext& ctx, const SigningHeaders& h) {
  const int64_t now = ctx.clock->now_seconds();
  const int64_t skew = h.timestamp > now ? h.timestamp - now : now - h.timestamp;
  if (skew > ctx.timestamp_window_seconds || h.timestamp < ctx.started_at_seconds) {
    return errors::stale_timestamp(now);
  }
  return std::nullopt;
}

std::optional<ApiError> check_signature(const SigningKey& key, const SigningHeaders& h,
                                        std::string_view method, std::string_view api_path,
                                        std::string_view body) {
  const std::string body_hash = sha256_hex(body);
  const std::string canonical =
      canonical_string({method, api_path, h.key_id, h.timestamp_text, h.nonce, body_hash});
  Sha256Digest expected{};
  if (!key.mac->compute(canonical, expected)) return errors::internal();
  if (!digests_equal(expected, h.signature)) {
    return errors::bad_signature(errors::kSignatureMismatch, "signature does not match");
  }
  return std::nullopt;
}

void check_nonce(const PipelineContext& ctx, const SigningHeaders& h, CheckDone done) {
  const UnixMillis now = ctx.clock->now_ms();
  ctx.nonces->check_and_insert_async(
      h.key_id, h.nonce, now, nonce_expiry(ctx, now), h.timestamp,
      [&ctx, done = std::move(done)](NonceVerdict verdict) { done(refusal_of(ctx, verdict)); });
}

ApiResult<LicenseRequest> check_body(Endpoint endpoint, std::string_view content_type,
                                     std::string_view body) {
  if (!is_json_content_type(content_type)) {
    return errors::malformed("", "Content-Type must be application/json");
  }
  return parse_license_request(endpoint, body);
}

void check_key_bucket(const PipelineContext& ctx, std::string_view license_key, CheckDone done) {
  check_bucket(ctx.key_limiter, license_key, "key", ctx.clock->now_ms(), std::move(done));
}

std::optional<Sha256Digest> valid_request_signature(const PipelineContext& ctx,
                                                    const IncomingRequest& in) {
  const SigningKey* key = nullptr;
  auto headers = check_signing_headers(ctx, in.signing, key);
  if (!headers.ok()) return std::nullopt;
  // An unknown id costs the same HMAC work, so the answer's timing tells no ids apart.
  const SigningKey& checked = key != nullptr ? *key : ctx.keys->decoy();
  if (check_signature(checked, headers.value(), in.method, api_path_of(in.path), in.body) ||
      key == nullptr) {
    return std::nullopt;
  }
  return headers.value().signature;
}

bool is_offline_endpoint(Endpoint endpoint) {
  return endpoint == Endpoint::kOfflineActivate || endpoint == Endpoint::kOfflineDeactivate;
}

ApiResult<const SigningKey*> check_offline_request(const PipelineContext& ctx,
                                                   const AuthorizedRequest& request) {
  if (!request.offline_file) return errors::internal();
  return check_offline_file(*ctx.keys, *request.offline_file, ctx.clock->now_seconds(),
                            ctx.offline_limits);
}

void run_pipeline(const PipelineContext& ctx, Endpoint endpoint, const IncomingRequest& in,
                  const ConnectionExecutor& home, Completion<PipelineOutcome> done) {
  auto run = std::make_shared<PipelineRun>();
  run->ctx = &ctx;
  run->endpoint = endpoint;
  run->in = in;
  run->home = home;
  run->done = std::move(done);
  check_ip_bucket(ctx, in.client_ip, resume_run(run, after_ip_bucket));
}

}  // namespace licensed
