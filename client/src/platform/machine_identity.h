// The operating system's own identity for this computer: the value the SDK derives its
// machine id from (machine_id.h). Platform code only, no hashing and no third-party
// library, so it builds and is tested for Windows with mingw-w64 under Wine.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace licensed::client {

// Returns the OS machine GUID, or nullopt when the OS has none to give.
using MachineGuidSource = std::function<std::optional<std::string>()>;

// This OS's source: Linux /etc/machine-id, else /var/lib/dbus/machine-id; Windows the
// registry's HKLM\SOFTWARE\Microsoft\Cryptography\MachineGuid (64-bit view, so 32- and
// 64-bit hosts agree); macOS the IOPlatformUUID of the IOPlatformExpertDevice.
MachineGuidSource os_machine_guid_source();

// The Linux rule under `root` ("/" normally; tests give a directory of their own).
std::optional<std::string> linux_machine_guid(const std::filesystem::path& root);

// `text` without surrounding whitespace, in lower case (GUIDs come in either case).
std::string trimmed_lower(std::string_view text);

}  // namespace licensed::client
