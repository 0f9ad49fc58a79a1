#include "machine_id.h"

#include "auth/request_signature.h"

namespace licensed::client {

std::optional<std::string> derive_machine_id(std::string_view guid, std::string_view salt) {
  const std::string normal = trimmed_lower(guid);
  if (normal.empty()) return std::nullopt;
  return sha256_hex("licensed-machine-id-v2\n" + std::string(salt) + "\n" + normal);
}

std::optional<std::string> machine_id_from(const MachineGuidSource& source, std::string_view salt) {
  if (!source) return std::nullopt;
  const auto guid = source();
  if (!guid) return std::nullopt;
  return derive_machine_id(*guid, salt);
}

bool is_valid_vendor(std::string_view vendor) {
  if (vendor.empty() || vendor.size() > 64 || vendor.front() == '.') return false;
  for (const char c : vendor) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace licensed::client
