// ASCII armour of the offline files (docs/protocol.md §21.1): "-----BEGIN <LABEL>-----", the base64
// of the file's bytes (a JSON object) wrapped at 64 columns, "-----END <LABEL>-----", so a customer
// can paste a file into a web form or an email. Shared by the server and the SDK (licensed_signing:
// plain C++, no library), so both read one grammar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed {

// The labels of docs/protocol.md §21.1 and §21.3.
inline constexpr std::string_view kActivationRequestLabel = "LICENSE ACTIVATION REQUEST";
inline constexpr std::string_view kActivationFileLabel = "LICENSE ACTIVATION";
inline constexpr std::string_view kDeactivationFileLabel = "LICENSE DEACTIVATION";

// Armoured text longer than this is refused before any decoding (a request stays under
// 1 KiB; an activation file with many entitlements stays well under this).
inline constexpr size_t kMaxArmouredBytes = 64 * 1024;

std::string armour(std::string_view label, std::string_view bytes);

struct Dearmoured {
  std::string label;
  std::vector<uint8_t> bytes;
};

// The label and bytes of armoured `text`, or nullopt. Whitespace (space, tab, CR, LF)
// around lines and blank lines are ignored; anything else is refused: text before BEGIN
// or after END, a label that differs between BEGIN and END or has characters other than
// A-Z and single spaces, a body line longer than 64 columns or not the last yet shorter
// than 64, base64 that is not canonical, no body at all.
std::optional<Dearmoured> dearmour(std::string_view text);

// dearmour, and the label must be `label`.
std::optional<std::vector<uint8_t>> dearmour_as(std::string_view text, std::string_view label);

}  // namespace licensed
