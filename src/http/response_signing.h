// Signing a finished License API answer (spec section 13): the last step before it is
// written, after which neither its Date header nor its body may change.
#pragma once

#include <optional>
#include <string_view>

#include "auth/response_signer.h"
#include "http/response.h"

namespace licensed {

// Sets X-License-Response-Signature over `res` as it stands, for a request that carried
// `nonce` (nullopt: none). An answer without a Date header gets one first, so the
// signed Date is the one sent. When OpenSSL fails the answer goes out unsigned (logged):
// a client that pins the key treats it as no answer, which is what it is.
void sign_response(HttpResponse& res, const ResponseSigner& signer,
                   std::optional<std::string_view> nonce);

}  // namespace licensed
