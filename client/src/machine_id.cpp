#include "machine_id.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "auth/request_signature.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <CoreFoundation/CoreFoundation.h>
#include <IOKit/IOKitLib.h>
#include <mach-o/dyld.h>
#endif

namespace licensed::client {

namespace {

std::string trimmed_lower(std::string_view text) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  auto begin = std::find_if(text.begin(), text.end(), not_space);
  auto end = std::find_if(text.rbegin(), text.rend(), not_space).base();
  std::string out(begin, begin < end ? end : begin);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<std::string> first_line_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  line = trimmed_lower(line);
  if (line.empty()) return std::nullopt;
  return line;
}

#if defined(_WIN32)
std::optional<std::string> windows_machine_guid() {
  char value[128] = {0};
  DWORD size = sizeof(value);
  // KEY_WOW64_64KEY: a 32-bit host must read the same value as a 64-bit one.
  if (RegGetValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Cryptography", "MachineGuid",
                   RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, nullptr, value, &size) != ERROR_SUCCESS) {
    return std::nullopt;
  }
  return std::string(value);
}
#elif defined(__APPLE__)
std::optional<std::string> macos_platform_uuid() {
  io_service_t service =
      IOServiceGetMatchingService(MACH_PORT_NULL, IOServiceMatching("IOPlatformExpertDevice"));
  if (service == 0) return std::nullopt;
  CFTypeRef uuid =
      IORegistryEntryCreateCFProperty(service, CFSTR("IOPlatformUUID"), kCFAllocatorDefault, 0);
  IOObjectRelease(service);
  if (uuid == nullptr) return std::nullopt;
  char buffer[128] = {0};
  const bool ok = CFGetTypeID(uuid) == CFStringGetTypeID() &&
                  CFStringGetCString(static_cast<CFStringRef>(uuid), buffer, sizeof(buffer),
                                     kCFStringEncodingUTF8);
  CFRelease(uuid);
  if (!ok) return std::nullopt;
  return std::string(buffer);
}
#endif

}  // namespace

std::optional<std::string> linux_machine_guid(const std::filesystem::path& root) {
  if (auto id = first_line_of(root / "etc/machine-id")) return id;
  return first_line_of(root / "var/lib/dbus/machine-id");
}

MachineGuidSource os_machine_guid_source() {
#if defined(_WIN32)
  return windows_machine_guid;
#elif defined(__APPLE__)
  return macos_platform_uuid;
#else
  return [] { return linux_machine_guid("/"); };
#endif
}

std::optional<std::string> derive_machine_id(std::string_view guid,
                                             std::string_view host_install_path) {
  const std::string normal = trimmed_lower(guid);
  if (normal.empty()) return std::nullopt;
  return sha256_hex(normal + "\n" + std::string(host_install_path));
}

std::string current_executable_dir() {
  std::error_code ec;
#if defined(_WIN32)
  char path[MAX_PATH] = {0};
  const DWORD n = GetModuleFileNameA(nullptr, path, MAX_PATH);
  if (n == 0 || n == MAX_PATH) return "";
  return std::filesystem::path(path).parent_path().string();
#elif defined(__APPLE__)
  char path[4096] = {0};
  uint32_t size = sizeof(path);
  if (_NSGetExecutablePath(path, &size) != 0) return "";
  return std::filesystem::weakly_canonical(path, ec).parent_path().string();
#else
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : exe.parent_path().string();
#endif
}

std::optional<std::string> machine_id_from(const MachineGuidSource& source,
                                           std::string_view host_install_path) {
  if (!source) return std::nullopt;
  const auto guid = source();
  if (!guid) return std::nullopt;
  return derive_machine_id(*guid, host_install_path);
}

}  // namespace licensed::client
