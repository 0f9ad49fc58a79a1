// Parsing of the four X-License-* headers (docs/protocol.md §3.5, check 4). Pure syntax:
// whether the key id is known is the key ring's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "auth/request_signature.h"
#include "core/api_error.h"

namespace licensed {

struct RawSigningHeaders {
  std::optional<std::string_view> key_id;
  std::optional<std::string_view> timestamp;
  std::optional<std::string_view> nonce;
  std::optional<std::string_view> signature;
};

struct SigningHeaders {
  std::string_view key_id;
  std::string_view timestamp_text;  // exactly as sent: it is part of the signed string
  int64_t timestamp = 0;
  std::string_view nonce;
  Sha256Digest signature{};
};

ApiResult<SigningHeaders> parse_signing_headers(const RawSigningHeaders& raw);

// valid_key_id, valid_request_nonce and parse_request_signature, the syntax of each
// value, are auth/request_signature.h's (the offline files use them too).

}  // namespace licensed
