// The machine id the SDK sends when the host gives none (the reference document's
// suggestion): lowercase hex SHA-256 of the operating system's machine GUID and the
// host editor's install path. The GUID survives restarts and reinstalls of the plugin;
// the path tells two installs of the editor apart. Never a process id or a boot id.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace licensed::client {

// Returns the OS machine GUID, or nullopt when the OS has none to give.
using MachineGuidSource = std::function<std::optional<std::string>()>;

// This OS's source: Linux /etc/machine-id, else /var/lib/dbus/machine-id; Windows the
// registry's HKLM\SOFTWARE\Microsoft\Cryptography\MachineGuid; macOS IOPlatformUUID.
MachineGuidSource os_machine_guid_source();

// The Linux rule under `root` ("/" normally; tests give a directory of their own).
std::optional<std::string> linux_machine_guid(const std::filesystem::path& root);

// sha256_hex(trimmed lowercase guid + "\n" + install path). Empty guid is refused.
std::optional<std::string> derive_machine_id(std::string_view guid,
                                             std::string_view host_install_path);

// The directory of the running executable (the host editor for a plugin), or "".
std::string current_executable_dir();

// derive_machine_id over what `source` gives; nullopt when it gives nothing.
std::optional<std::string> machine_id_from(const MachineGuidSource& source,
                                           std::string_view host_install_path);

}  // namespace licensed::client
