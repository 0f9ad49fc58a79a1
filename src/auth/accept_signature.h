// Which algorithm signs an answer (docs/protocol.md §13.4): the client's
// X-License-Accept-Signature header is a comma-separated preference list of `ed25519` and
// `es256`, and the first of them the server has a key for signs. The one place this is
// decided, for every signed answer of the client endpoints; offline, lease and
// activation files would take the same choice.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "auth/response_signature.h"

namespace licensed {

// The first algorithm of `accept_header` (the header's value; nullopt when absent) found
// in `available`. Tokens are compared case-insensitively after trimming spaces and tabs;
// unknown and empty ones are skipped. Without a match (no header, no known token, or
// none the server has a key for) Ed25519, or the first of `available` when there is no
// Ed25519 key.
ResponseAlgorithm choose_response_algorithm(std::optional<std::string_view> accept_header,
                                            const std::vector<ResponseAlgorithm>& available);

}  // namespace licensed
