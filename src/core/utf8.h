// Text that leaves the process as JSON (log lines, error reports) must be valid UTF-8,
// and Boost.JSON serializes whatever bytes it is given: this makes any bytes valid.
#pragma once

#include <string>
#include <string_view>

namespace licensed {

// `text` with each ill-formed sequence (stray continuation bytes, truncated or overlong
// sequences, surrogates, code points above U+10FFFF) replaced by U+FFFD, one per
// maximal ill-formed subpart as Unicode recommends. Valid input is returned unchanged.
std::string valid_utf8(std::string_view text);

}  // namespace licensed
