#include "platform/machine_identity.h"

#include <gtest/gtest.h>

#include <fstream>

#include "platform/platform_test_support.h"

namespace licensed::client {
namespace {

TEST(MachineIdentity, TheOsSourceGivesOneTrimmedLowerCaseValueEveryTime) {
  const auto source = os_machine_guid_source();
  const auto first = source();
  if (!first)
    GTEST_SKIP() << "this system has no machine GUID (a container without /etc/machine-id)";
  EXPECT_FALSE(first->empty());
  EXPECT_EQ(*first, trimmed_lower(*first));
  EXPECT_EQ(source(), first);
  EXPECT_EQ(os_machine_guid_source()(), first);
}

#if defined(_WIN32)
// Under Wine as on Windows: HKLM\SOFTWARE\Microsoft\Cryptography\MachineGuid, a GUID
// without braces.
TEST(MachineIdentity, WindowsReadsTheRegistrysMachineGuid) {
  const auto guid = os_machine_guid_source()();
  ASSERT_TRUE(guid.has_value());
  EXPECT_EQ(guid->size(), 36u) << *guid;
  EXPECT_EQ(guid->find_first_not_of("0123456789abcdef-"), std::string::npos) << *guid;
}
#endif

TEST(MachineIdentity, LinuxReadsEtcMachineIdElseDbus) {
  test::ScratchDir root;
  EXPECT_FALSE(linux_machine_guid(root.path()).has_value());
  std::filesystem::create_directories(root.path() / "var/lib/dbus");
  std::ofstream(root.path() / "var/lib/dbus/machine-id") << "DBUS0123456789abcdef0123456789ab\n";
  EXPECT_EQ(linux_machine_guid(root.path()), "dbus0123456789abcdef0123456789ab");
  std::filesystem::create_directories(root.path() / "etc");
  std::ofstream(root.path() / "etc/machine-id") << "8f3a0c2be41d4c7f9a5e6b1d2c3f4a5b\n";
  EXPECT_EQ(linux_machine_guid(root.path()), "8f3a0c2be41d4c7f9a5e6b1d2c3f4a5b");
}

TEST(MachineIdentity, AnEmptyMachineIdFileIsNoIdentity) {
  // systemd's first-boot state: /etc/machine-id exists but is empty ("uninitialized").
  test::ScratchDir root;
  std::filesystem::create_directories(root.path() / "etc");
  std::ofstream(root.path() / "etc/machine-id") << "  \n";
  EXPECT_FALSE(linux_machine_guid(root.path()).has_value());
}

TEST(MachineIdentity, TrimmedLowerDropsSurroundingWhitespaceAndCase) {
  EXPECT_EQ(trimmed_lower("  0A1B2C3D-4E5F\r\n"), "0a1b2c3d-4e5f");
  EXPECT_EQ(trimmed_lower(" \t\n"), "");
}

}  // namespace
}  // namespace licensed::client
