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

}  // namespace

std::optional<ApiError> check_ip_bucket(const PipelineContext& ctx, std::string_view client_ip) {
  if (ctx.ip_limiter == nullptr) return std::nullopt;
  const RateDecision d = ctx.ip_limiter->admit(ip_bucket_key(client_ip), ctx.clock->now_ms());
  if (d.allowed) return std::nullopt;
  return errors::rate_limited("ip", d.retry_after_seconds);
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

std::optional<ApiError> check_nonce(const PipelineContext& ctx, const SigningHeaders& h) {
  const UnixMillis now = ctx.clock->now_ms();
  switch (
      ctx.nonces->check_and_insert(h.key_id, h.nonce, now, nonce_expiry(ctx, now), h.timestamp)) {
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

ApiResult<LicenseRequest> check_body(Endpoint endpoint, std::string_view content_type,
                                     std::string_view body) {
  if (!is_json_content_type(content_type)) {
    return errors::malformed("", "Content-Type must be application/json");
  }
  return parse_license_request(endpoint, body);
}

std::optional<ApiError> check_key_bucket(const PipelineContext& ctx, std::string_view license_key) {
  if (ctx.key_limiter == nullptr) return std::nullopt;
  const RateDecision d = ctx.key_limiter->admit(license_key, ctx.clock->now_ms());
  if (d.allowed) return std::nullopt;
  return errors::rate_limited("key", d.retry_after_seconds);
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

PipelineOutcome run_pipeline(const PipelineContext& ctx, Endpoint endpoint,
                             const IncomingRequest& in) {
  if (auto e = check_ip_bucket(ctx, in.client_ip)) {
    return {std::move(*e), std::nullopt, valid_request_signature(ctx, in)};
  }
  const SigningKey* key = nullptr;
  auto headers = check_signing_headers(ctx, in.signing, key);
  if (!headers.ok()) return {std::move(headers.error()), std::nullopt, std::nullopt};
  const SigningHeaders& h = headers.value();
  if (key == nullptr) {
    // The same HMAC work as for a known id, so timing does not tell which ids exist.
    (void)check_signature(ctx.keys->decoy(), h, in.method, api_path_of(in.path), in.body);
    return {errors::bad_signature(errors::kUnknownKey, "unknown signing key id"), std::nullopt,
            std::nullopt};
  }
  // Checked before the timestamp is judged, so a 1701 is bound to a valid signature too;
  // answered in the contract's order.
  auto signature_error = check_signature(*key, h, in.method, api_path_of(in.path), in.body);
  const std::optional<Sha256Digest> binding =
      signature_error ? std::nullopt : std::optional<Sha256Digest>(h.signature);
  if (auto e = check_timestamp(ctx, h)) return {std::move(*e), std::nullopt, binding};
  if (signature_error) return {std::move(*signature_error), std::nullopt, std::nullopt};
  if (auto e = check_nonce(ctx, h)) {
    // nonce_reused is the one 1700 check_nonce answers; its answer binds to "-" (docs/protocol.md §13.5).
    const bool reused = e->code == ErrorCode::kBadSignature;
    return {std::move(*e), std::nullopt, reused ? std::nullopt : binding};
  }

  AuthorizedRequest req;
  req.endpoint = endpoint;
  req.key = key;
  req.nonce = std::string(h.nonce);
  const UnixMillis now = ctx.clock->now_ms();
  const int64_t now_seconds = unix_seconds(now);
  req.keep_nonce_durably = h.timestamp > now_seconds;
  req.nonce_expires_at = nonce_expiry(ctx, now);
  if (h.timestamp == now_seconds && ctx.same_second_nonces != nullptr) {
    ctx.same_second_nonces->record(now_seconds, h.key_id, h.nonce, req.nonce_expires_at);
  }
  // From here on the nonce is consumed whatever happens.
  auto consumed = [&]() -> std::optional<AuthorizedRequest> {
    if (!req.keep_nonce_durably) return std::nullopt;
    return req;
  };

  auto body = check_body(endpoint, in.content_type, in.body);
  if (!body.ok()) return {std::move(body.error()), consumed(), binding};
  if (auto e = check_key_bucket(ctx, body->license_key)) {
    return {std::move(*e), consumed(), binding};
  }
  req.body = std::move(body.value());
  return {std::move(req), std::nullopt, binding};
}

}  // namespace licensed
