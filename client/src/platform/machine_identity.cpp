#include "platform/machine_identity.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <CoreFoundation/CoreFoundation.h>
#include <IOKit/IOKitLib.h>
#endif

namespace licensed::client {

namespace {

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
  // RRF_SUBKEY_WOW6464KEY: a 32-bit host must read the same value as a 64-bit one.
  if (RegGetValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Cryptography", "MachineGuid",
                   RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, nullptr, value, &size) != ERROR_SUCCESS) {
    return std::nullopt;
  }
  std::string guid = trimmed_lower(value);
  if (guid.empty()) return std::nullopt;
  return guid;
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
  std::string guid = trimmed_lower(buffer);
  if (guid.empty()) return std::nullopt;
  return guid;
}
#endif

}  // namespace

std::string trimmed_lower(std::string_view text) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  auto begin = std::find_if(text.begin(), text.end(), not_space);
  auto end = std::find_if(text.rbegin(), text.rend(), not_space).base();
  std::string out(begin, begin < end ? end : begin);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

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

}  // namespace licensed::client
