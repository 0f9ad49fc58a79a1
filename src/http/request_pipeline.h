// The contract's order of checks (docs/protocol.md §3.5), steps 3 to 9, one small function
// each. Authentication happens here: check_signing_headers, check_timestamp,
// check_signature and check_nonce. Steps 1-2 (route, size) happen while the request is
// read (decide_after_header in request_intake.cpp); step 10 is the operation
// (core/operations.h).
//
// The three checks that may ask Redis (the two buckets and the nonce) answer through a
// completion: with Redis the request parks there and the next step resumes on its
// connection's thread (http/resume.h), so no network thread waits for Redis. In memory
// they answer at once and the whole pipeline runs before run_pipeline returns.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/key_ring.h"
#include "auth/nonce_store.h"
#include "auth/offline_files.h"
#include "auth/same_second_nonces.h"
#include "auth/signing_headers.h"
#include "core/clock.h"
#include "core/completion.h"
#include "core/request_body.h"
#include "core/result.h"
#include "http/bucket_check.h"
#include "http/resume.h"
#include "ratelimit/rate_limiter.h"

namespace licensed {

// Immutable configuration and shared services of the pipeline.
struct PipelineContext {
  const KeyRing* keys = nullptr;
  NonceStore* nonces = nullptr;
  RateLimiter* ip_limiter = nullptr;   // null: off
  RateLimiter* key_limiter = nullptr;  // null: off
  const Clock* clock = nullptr;
  int64_t timestamp_window_seconds = 300;
  // Requests dated before this (Unix seconds) are stale: the in-memory nonce store
  // forgot everything earlier when the process started. 0 with a shared (Redis) store.
  int64_t started_at_seconds = 0;
  // With the in-memory nonce store: where nonces of requests dated in the current second
  // go, for a graceful stop to keep (see same_second_nonces.h). Null with Redis.
  SameSecondNonces* same_second_nonces = nullptr;
  // How old and how far ahead an offline file may be (docs/protocol.md §21.1).
  OfflineFileLimits offline_limits;
};

struct IncomingRequest {
  std::string_view method;
  std::string_view path;  // without query string
  std::string_view content_type;
  std::string_view body;
  std::string_view client_ip;
  RawSigningHeaders signing;
};

struct AuthorizedRequest {
  Endpoint endpoint{};
  LicenseRequest body;
  const SigningKey* key = nullptr;
  std::string nonce;
  // The request was dated ahead of our clock: its nonce must be kept in the store,
  // since the restart rule would not refuse a replay of it.
  bool keep_nonce_durably = false;
  UnixMillis nonce_expires_at = 0;
  // offline-activate and offline-deactivate: the file as read at step 8 (its own checks
  // run at step 10, check_offline_request); `body` is then its inner body.
  std::optional<OfflineFile> offline_file;
};

// True for the endpoints whose body carries an offline file.
bool is_offline_endpoint(Endpoint endpoint);
// Step 10's first part for those (docs/protocol.md §21.2): the file's own key, timestamp and
// signature; the key that signed it, or 400 1702 `field: "request"` with `reason`.
ApiResult<const SigningKey*> check_offline_request(const PipelineContext& ctx,
                                                   const AuthorizedRequest& request);

void check_ip_bucket(const PipelineContext& ctx, std::string_view client_ip, CheckDone done);
// Parses the headers and looks the key id up; `key` is null for an unknown id.
ApiResult<SigningHeaders> check_signing_headers(const PipelineContext& ctx,
                                                const RawSigningHeaders& raw,
                                                const SigningKey*& key);
std::optional<ApiError> check_timestamp(const PipelineContext& ctx, const SigningHeaders& h);
std::optional<ApiError> check_signature(const SigningKey& key, const SigningHeaders& h,
                                        std::string_view method, std::string_view api_path,
                                        std::string_view body);
void check_nonce(const PipelineContext& ctx, const SigningHeaders& h, CheckDone done);
// The request's signature when it is valid for the request as received, checked apart
// from the order of checks: a request refused at step 3 still gets a bound answer.
std::optional<Sha256Digest> valid_request_signature(const PipelineContext& ctx,
                                                    const IncomingRequest& in);
ApiResult<LicenseRequest> check_body(Endpoint endpoint, std::string_view content_type,
                                     std::string_view body);
void check_key_bucket(const PipelineContext& ctx, std::string_view license_key, CheckDone done);

// Outcome of steps 3 to 9. On error, `nonce_to_keep` tells whether the nonce was
// consumed by a request dated ahead of the clock and must still be stored durably.
// `binding` is what the answer's signature binds to (docs/protocol.md §13.5): the request's
// signature when it is valid for the request as received, whichever step answered, except that an
// answer `nonce_reused` binds to "-" (docs/protocol.md §13.5).
struct PipelineOutcome {
  ApiResult<AuthorizedRequest> request;
  std::optional<AuthorizedRequest> nonce_to_keep;
  std::optional<Sha256Digest> binding;
};

// Runs steps 3 to 9 and hands their outcome to `done`, once. A step after a check that
// parked runs on `home`, and so does `done` then; with in-memory services (or an empty
// `home`) everything runs on the caller's thread before this returns. What `in` points
// to must stay valid until `done` is called.
void run_pipeline(const PipelineContext& ctx, Endpoint endpoint, const IncomingRequest& in,
                  const ConnectionExecutor& home, Completion<PipelineOutcome> done);

}  // namespace licensed
