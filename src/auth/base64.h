// Standard base64 (RFC 4648 section 4, with padding) and base64url, strict: the decoders
// refuse whitespace, misplaced padding and non-canonical trailing bits. Plain C++ with no
// library, so the SDK compiles the same file on every system (docs/architecture.md §1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed {

std::string base64_encode(const uint8_t* data, size_t size);

// The bytes of `text`, or nullopt unless it is canonical padded base64: length a multiple
// of 4, only the 64 letters, "=" only as the last one or two characters, and unused bits
// zero (so each byte string has exactly one accepted text).
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

// base64url without padding (RFC 4648 section 5), for tokens and cursors that travel in
// URLs and headers; the decoder accepts only the canonical text, like base64_decode.
std::string base64url_encode(const uint8_t* data, size_t size);
std::optional<std::vector<uint8_t>> base64url_decode(std::string_view text);

}  // namespace licensed
