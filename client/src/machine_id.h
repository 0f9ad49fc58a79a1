// The machine id the SDK sends when the host gives none: lowercase hex SHA-256 of a
// version tag, the vendor's salt and the operating system's machine GUID
// (platform/machine_identity.h). Nothing about the host program goes in, so two DAWs, a
// DAW and its plugin scanner, and one DAW before and after an upgrade are one computer,
// one slot; the salt keeps two vendors' ids for the same computer unlinkable. Never a
// process id or a boot id. docs/sdk.md says what keeps it stable and what changes it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "platform/machine_identity.h"

namespace licensed::client {

// sha256_hex("licensed-machine-id-v2\n" + salt + "\n" + trimmed lowercase guid). An empty
// guid is refused.
std::optional<std::string> derive_machine_id(std::string_view guid, std::string_view salt);

// derive_machine_id over what `source` gives; nullopt when it gives nothing.
std::optional<std::string> machine_id_from(const MachineGuidSource& source, std::string_view salt);

// True when `vendor` may name the salt and the cache folder: 1 to 64 characters of
// [A-Za-z0-9._-], not starting with a dot (a folder name on every system).
bool is_valid_vendor(std::string_view vendor);

}  // namespace licensed::client
