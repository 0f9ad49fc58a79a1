// Signing a finished License API answer (docs/protocol.md §13): the last step before it is
// written, after which neither its status nor its body may change.
#pragma once

#include <functional>
#include <optional>

#include "auth/batch_signer.h"
#include "auth/request_signature.h"
#include "auth/response_signer.h"
#include "core/clock.h"
#include "http/response.h"
#include "http/resume.h"

namespace licensed {

// The request signature an answer is bound to: the request's own when it was valid for
// the request as received, nullopt ("-") otherwise (docs/protocol.md §13.5).
using AnswerBinding = std::optional<Sha256Digest>;

// Sets X-License-Response-Signature over `res` as it stands, signed in `algorithm` (the
// one the request negotiated, docs/protocol.md §13.4) at `clock`'s current Unix second
// (the header's `t`: the clock the timestamp checks and serverTime read), bound to
// `binding`. When OpenSSL fails the answer goes out unsigned (logged): a client that pins
// the key treats it as no answer, which is what it is.
void sign_response(HttpResponse& res, const ResponseSigner& signer, ResponseAlgorithm algorithm,
                   const Clock& clock, const AnswerBinding& binding);

// As sign_response, through `batcher` (docs/protocol.md §13.3), on `home`: the thread of
// the answer's connection, where it is written anyway (docs/architecture.md "Where an
// answer is signed"), so signing costs no hand-off of its own. There the answers that
// reach the thread while it runs other ready work are signed together: the first one
// posts a flush behind that work, which signs them all as one batch (alone, in the plain
// form, when it is the only one: an idle thread runs the flush at once). `reply` gets
// `res` with its signature, plain or batched, on `home`'s thread, or on another
// network thread that signed it as the batch signer's leader. An empty `home` (no
// server: unit tests) signs through the batcher on the caller's thread.
void sign_response_batched(HttpResponse res, BatchSigner& batcher, ResponseAlgorithm algorithm,
                           const Clock& clock, const AnswerBinding& binding,
                           const ConnectionExecutor& home, std::function<void(HttpResponse)> reply);

// True when `res` already carries a response signature.
bool is_signed(const HttpResponse& res);

}  // namespace licensed
