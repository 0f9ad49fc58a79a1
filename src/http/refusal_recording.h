// Records a refused activation, checkout, deactivation or trial (1705, 1710, 1711, 1712)
// for the support console (docs/protocol.md §26.1), off the request's path: the answer has
// gone out before the record's transaction is even queued, the record is a job of its
// own whose failure is only logged, and when the store is busy the record is dropped
// rather than queued ahead of requests still waiting for an answer.
#pragma once

#include <optional>
#include <string>

#include "core/api_error.h"
#include "core/operations.h"
#include "core/request_body.h"
#include "store/store.h"

namespace licensed {

// Jobs queued or running beyond which refusals are not recorded: they are the first
// work shed under load, never a reason for a request to wait or be refused with 1708.
inline constexpr size_t kRefusalRecordingMaxQueue = 64;

// True for the codes that are recorded.
bool is_recorded_refusal(const ApiError& error);

struct RefusedRequest {
  UnixMillis at = 0;
  int code = 0;
  LicenseRequest body;  // the license key, machine and, for a trial, product and email
  std::string ip;
  std::string key_id;
  std::string request_id;
};

// Queues the record (see above). A trial's 1712 names no license: it is recorded under
// the license the email's earlier trial made, found through `trials` (null: not recorded).
void record_refusal(Store& store, const TrialIdentity* trials, RefusedRequest refused);

}  // namespace licensed
