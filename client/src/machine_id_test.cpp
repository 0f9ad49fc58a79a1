#include "machine_id.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "support/temp_dir.h"

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

TEST(MachineId, IsSha256OfTheGuidAndTheInstallPath) {
  const auto id = machine_id_from(fixed(kWindowsGuid), "C:\\Program Files\\Editor");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->size(), 64u);
  EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(id, derive_machine_id(kWindowsGuid, "C:\\Program Files\\Editor"));
}

TEST(MachineId, IsStableAcrossCallsAndTracksTheInstallPath) {
  const auto a = machine_id_from(fixed(kMacUuid), "/Applications/Editor.app");
  const auto b = machine_id_from(fixed(kMacUuid), "/Applications/Editor.app");
  const auto other_install = machine_id_from(fixed(kMacUuid), "/Applications/Editor 2.app");
  const auto other_machine = machine_id_from(fixed(kWindowsGuid), "/Applications/Editor.app");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other_install);
  EXPECT_NE(a, other_machine);
}

TEST(MachineId, IgnoresCaseAndSurroundingWhitespaceOfTheGuid) {
  EXPECT_EQ(derive_machine_id(kMacUuid, "/x"),
            derive_machine_id("  0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d\r\n", "/x"));
}

TEST(MachineId, NothingToDeriveFromIsNoId) {
  EXPECT_FALSE(machine_id_from(fixed(std::nullopt), "/x").has_value());
  EXPECT_FALSE(machine_id_from(fixed("  \n"), "/x").has_value());
  EXPECT_FALSE(machine_id_from(MachineGuidSource{}, "/x").has_value());
}

TEST(MachineId, IsNeverTheProcessId) {
  const std::string pid = std::to_string(::getpid());
  const auto id = machine_id_from(os_machine_guid_source(), current_executable_dir());
  if (!id) GTEST_SKIP() << "this machine has no /etc/machine-id";
  EXPECT_EQ(id->find(pid), std::string::npos);
  // Another process would derive the same: nothing per-process goes in.
  EXPECT_EQ(id, machine_id_from(os_machine_guid_source(), current_executable_dir()));
}

TEST(LinuxMachineGuid, ReadsEtcMachineIdElseDbus) {
  bb::TempDir root;
  EXPECT_FALSE(linux_machine_guid(root.path()).has_value());
  std::filesystem::create_directories(root.path() / "var/lib/dbus");
  std::ofstream(root.path() / "var/lib/dbus/machine-id") << "dbus0123456789abcdef0123456789ab\n";
  EXPECT_EQ(linux_machine_guid(root.path()), "dbus0123456789abcdef0123456789ab");
  std::filesystem::create_directories(root.path() / "etc");
  std::ofstream(root.path() / "etc/machine-id") << kLinuxId;
  EXPECT_EQ(linux_machine_guid(root.path()), "8f3a0c2be41d4c7f9a5e6b1d2c3f4a5b");
}

TEST(LinuxMachineGuid, AnEmptyEtcMachineIdFallsBackToDbus) {
  bb::TempDir root;
  std::filesystem::create_directories(root.path() / "etc");
  std::filesystem::create_directories(root.path() / "var/lib/dbus");
  std::ofstream(root.path() / "etc/machine-id") << "\n";  // first boot, not yet written
  std::ofstream(root.path() / "var/lib/dbus/machine-id") << "abcdef";
  EXPECT_EQ(linux_machine_guid(root.path()), "abcdef");
}

}  // namespace
}  // namespace licensed::client
