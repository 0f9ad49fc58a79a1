// One request counted against a rate-limit bucket, as a check of the License API's
// pipeline or of the dashboard: nothing when it is admitted, 429 1706 naming the bucket
// (with the wait) when it is refused. With Redis buckets the answer comes from a Redis
// worker, so the caller resumes where it must (http/resume.h).
#pragma once

#include <optional>
#include <string_view>

#include "core/api_error.h"
#include "core/clock.h"
#include "core/completion.h"
#include "ratelimit/rate_limiter.h"

namespace licensed {

// The answer of a check that may park: nothing when it passes, else its refusal.
using CheckDone = Completion<std::optional<ApiError>>;

// Counts one request against `key` in `limiter` at `now` and hands the verdict to `done`;
// with no limiter (null: the limit is off), passes at once. `bucket` names the bucket in
// the refusal and must outlive the call (a literal).
void check_bucket(RateLimiter* limiter, std::string_view key, std::string_view bucket,
                  UnixMillis now, CheckDone done);

}  // namespace licensed
