// Signed answers verified on a sample during a load run (issue 26 item 4): every Nth
// answer's X-License-Response-Signature is checked, plain (v2-response) or batched (a
// tree, docs/protocol.md §13.3), with the verifier the SDK and licensectl run
// (auth/response_signature.h) against the keys the server publishes. A run that
// measured answers which do not verify has measured nothing a client would accept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/response_signature.h"
#include "core/result.h"

namespace licensed::bench {

// One load thread's choice of the answers it checks: every `every`th (0: none).
class AnswerSample {
 public:
  explicit AnswerSample(uint64_t every) : every_(every) {}
  // Called once per answer: whether this one is checked.
  bool take() { return every_ > 0 && ++seen_ % every_ == 0; }

 private:
  uint64_t every_;
  uint64_t seen_ = 0;
};

enum class AnswerCheck { kPlain, kTree, kFailed };

// Checks the answer `status` `body` with `header` (its X-License-Response-Signature, or
// nullopt when it had none) against `pinned`, bound to the request it answers, whose
// X-License-Signature was `request_signature` ("v1=" and 64 hex digits): kPlain or kTree
// when it verifies in that form, kFailed otherwise (a missing or malformed header too).
AnswerCheck check_answer_signature(const std::vector<PinnedResponseKey>& pinned,
                                   std::optional<std::string_view> header,
                                   std::string_view request_signature, unsigned status,
                                   std::string_view body);

// The keys of a GET /api/v1/license/public-keys answer, as a client pins them (each
// under the `kid` published with it); an error naming what is wrong when the body is not
// such an answer or lists no key.
Result<std::vector<PinnedResponseKey>> pinned_keys_of(std::string_view public_keys_body);

}  // namespace licensed::bench
