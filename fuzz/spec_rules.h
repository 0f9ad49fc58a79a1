// The contract's syntax rules (docs/protocol.md §3 and §4) written a second time, plainly and
// from the spec alone, as oracles the fuzzers compare the server's parsers against. Kept
// deliberately independent of src/: a rule misread there should not be misread here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed::fuzz {

// Strict UTF-8 decoding: no overlong forms, no surrogates, nothing above U+10FFFF.
std::optional<std::u32string> decode_utf8(std::string_view bytes);

// U+0000-U+001F and U+007F-U+009F.
bool is_control(char32_t c);

// §4: licenseKey is a UUID v4 in 8-4-4-4-12 hex form, either case.
bool is_uuid_v4(std::string_view s);
bool is_lowercase(std::string_view s);
// §4: 8-128 code points (machineId), at most 100 (machineName), no controls.
bool is_valid_machine_id(std::string_view s);
bool is_valid_machine_name(std::string_view s);
// Well-formed UTF-8, no control characters, between min and max code points.
bool is_valid_text(std::string_view s, size_t min_code_points, size_t max_code_points);

// §3.1: the four signing headers.
bool is_valid_key_id(std::string_view s);     // 1-64 of [A-Za-z0-9._-]
bool is_valid_timestamp(std::string_view s);  // decimal, no sign, no leading zeros
bool is_valid_nonce(std::string_view s);      // 16-128 of [A-Za-z0-9_-]
bool is_valid_signature(std::string_view s);  // "v1=" and 64 hex digits, either case

std::string to_lower_ascii(std::string_view s);

}  // namespace licensed::fuzz
