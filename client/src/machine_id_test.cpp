#include "machine_id.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "auth/request_signature.h"

namespace licensed::client {
namespace {

// What the OS sources give, in their own shapes: Linux's machine-id (32 hex digits and a
// newline), Windows's MachineGuid (a braceless GUID) and macOS's IOPlatformUUID (an
// upper-case UUID). The Windows and macOS readers are compiled only there; the rule that
// turns their value into a machine id is this one.
constexpr const char* kLinuxId = "8f3a0c2be41d4c7f9a5e6b1d2c3f4a5b\n";
constexpr const char* kWindowsGuid = "6a9d3e1c-54b2-4f8e-a7c0-1d2e3f4a5b6c";
constexpr const char* kMacUuid = "0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D";

MachineGuidSource fixed(const std::optional<std::string>& value) {
  return [value] { return value; };
}

TEST(MachineId, IsSha256OfATagTheSaltAndTheGuid) {
  const auto id = machine_id_from(fixed(kWindowsGuid), "acme-audio");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->size(), 64u);
  EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(id, sha256_hex(std::string("licensed-machine-id-v2\nacme-audio\n") + kWindowsGuid));
}

// Issue item 4: nothing about the host goes in, so every program on one computer derives
// the same id; another vendor's salt gives an unlinkable one.
TEST(MachineId, DependsOnTheComputerAndTheVendorOnly) {
  const auto a = machine_id_from(fixed(kMacUuid), "acme-audio");
  EXPECT_EQ(a, machine_id_from(fixed(kMacUuid), "acme-audio"));
  EXPECT_NE(a, machine_id_from(fixed(kMacUuid), "other-vendor"));
  EXPECT_NE(a, machine_id_from(fixed(kWindowsGuid), "acme-audio"));
}

TEST(MachineId, IgnoresCaseAndSurroundingWhitespaceOfTheGuid) {
  EXPECT_EQ(derive_machine_id(kMacUuid, "v"),
            derive_machine_id("  0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d\r\n", "v"));
  EXPECT_EQ(derive_machine_id(kLinuxId, "v"),
            derive_machine_id("8f3a0c2be41d4c7f9a5e6b1d2c3f4a5b", "v"));
}

TEST(MachineId, NothingToDeriveFromIsNoId) {
  EXPECT_FALSE(machine_id_from(fixed(std::nullopt), "v").has_value());
  EXPECT_FALSE(machine_id_from(fixed("  \n"), "v").has_value());
  EXPECT_FALSE(machine_id_from(MachineGuidSource{}, "v").has_value());
}

TEST(MachineId, IsNeverTheProcessId) {
  const std::string pid = std::to_string(::getpid());
  const auto id = machine_id_from(os_machine_guid_source(), "v");
  if (!id) GTEST_SKIP() << "this machine has no /etc/machine-id";
  EXPECT_EQ(id->find(pid), std::string::npos);
  // Another process would derive the same: nothing per-process goes in.
  EXPECT_EQ(id, machine_id_from(os_machine_guid_source(), "v"));
}

TEST(MachineId, AVendorNameIsAFolderNameOnEverySystem) {
  EXPECT_TRUE(is_valid_vendor("acme-audio"));
  EXPECT_TRUE(is_valid_vendor("Acme_Audio.2"));
  EXPECT_TRUE(is_valid_vendor(std::string(64, 'a')));
  EXPECT_FALSE(is_valid_vendor(""));
  EXPECT_FALSE(is_valid_vendor(std::string(65, 'a')));
  EXPECT_FALSE(is_valid_vendor(".hidden"));
  EXPECT_FALSE(is_valid_vendor(".."));
  EXPECT_FALSE(is_valid_vendor("acme/audio"));
  EXPECT_FALSE(is_valid_vendor("acme\\audio"));
  EXPECT_FALSE(is_valid_vendor("acme audio"));
  EXPECT_FALSE(is_valid_vendor("acm\xc3\xa9"));
}

}  // namespace
}  // namespace licensed::client
