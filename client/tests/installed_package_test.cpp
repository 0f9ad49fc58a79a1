// Issue 5 item 1: the SDK as a plugin vendor gets it. `cmake --install` this build into a
// temporary prefix, configure and build client/examples/ with find_package(LicenseClient)
// against that prefix alone, and run the example hosts (C and C++) against the real
// server. The installed library exports the C ABI and nothing else.
#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

class InstalledPackage : public SdkTest {};

TEST_F(InstalledPackage, ExampleHostsBuildAgainstTheInstalledPrefixAndRun) {
  const auto prefix = dir().path() / "prefix";
  const auto build = dir().path() / "example-build";
  const std::chrono::seconds slow(600);
  const bb::CommandResult install = bb::RunCommand(
      {LICENSE_CLIENT_CMAKE, "--install", LICENSE_CLIENT_BUILD_DIR, "--prefix", prefix.string()},
      {}, slow);
  ASSERT_EQ(install.exit_code, 0) << install.Describe();
  ASSERT_TRUE(std::filesystem::exists(prefix / "include/license_client/license_client.h"));
  ASSERT_TRUE(
      std::filesystem::exists(prefix / "lib/cmake/LicenseClient/LicenseClientConfig.cmake"));

  std::vector<std::string> configure_args = {LICENSE_CLIENT_CMAKE,
                                             "-S",
                                             LICENSE_CLIENT_EXAMPLES_DIR,
                                             "-B",
                                             build.string(),
                                             "-G",
                                             LICENSE_CLIENT_GENERATOR,
                                             "-DCMAKE_PREFIX_PATH=" + prefix.string(),
                                             "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"};
  if (const std::string sanitize = LICENSE_CLIENT_SANITIZE; !sanitize.empty()) {
    // An instrumented library wants its sanitizer runtime loaded first: by the host, built
    // by the same compiler (GCC's and clang's runtimes do not mix).
    configure_args.push_back(std::string("-DCMAKE_CXX_COMPILER=") + LICENSE_CLIENT_CXX_COMPILER);
    configure_args.push_back(std::string("-DCMAKE_C_COMPILER=") + LICENSE_CLIENT_C_COMPILER);
    for (const char* flags : {"C_FLAGS", "CXX_FLAGS"}) {
      configure_args.push_back(std::string("-DCMAKE_") + flags + "=-fsanitize=" + sanitize);
    }
    // The C host links through the C driver: clang then needs telling that the library's
    // C++ parts want UBSan's C++ runtime too.
    configure_args.push_back(std::string("-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=") + sanitize +
                             LICENSE_CLIENT_HOST_EXTRA_LINK_FLAGS);
  }
  const bb::CommandResult configure = bb::RunCommand(configure_args, {}, slow);
  ASSERT_EQ(configure.exit_code, 0) << configure.Describe();
  const bb::CommandResult built =
      bb::RunCommand({LICENSE_CLIENT_CMAKE, "--build", build.string()}, {}, slow);
  ASSERT_EQ(built.exit_code, 0) << built.Describe();

  Start();
  const std::string license = NewLicense(2);
  const bb::EnvVars env = {{"LICENSE_SERVER_URL", Url()},
                           {"LICENSE_KEY_ID", bb::kPluginKey.id},
                           {"LICENSE_SECRET", bb::kPluginKey.secret},
                           {"LICENSE_KEY", license},
                           {"LICENSE_MACHINE_ID", "example-host-0001"},
                           {"LICENSE_PUBLIC_KEY", SigningPublicKey()},
                           {"XDG_CACHE_HOME", (dir().path() / "xdg").string()}};
  const bb::CommandResult c_host = bb::RunCommand({(build / "example_host_c").string()}, env);
  EXPECT_EQ(c_host.exit_code, 0) << c_host.Describe();
  EXPECT_NE(c_host.out.find("activate: status=0 http=200 code=0 activations=1 max=2"),
            std::string::npos)
      << c_host.Describe();
  EXPECT_NE(c_host.out.find("startup: status=0"), std::string::npos) << c_host.Describe();
  EXPECT_NE(c_host.out.find("deactivate: status=0"), std::string::npos) << c_host.Describe();

  const bb::CommandResult cpp_host = bb::RunCommand({(build / "example_host_cpp").string()}, env);
  EXPECT_EQ(cpp_host.exit_code, 0) << cpp_host.Describe();
  // Its constructor knew nothing yet; activating wrote the cache, so the asynchronous
  // start-up check answered from it at once.
  EXPECT_NE(cpp_host.out.find("constructor: 5 NO_ANSWER_YET"), std::string::npos)
      << cpp_host.Describe();
  EXPECT_NE(cpp_host.out.find("startup: 0 valid=1 source=cache"), std::string::npos)
      << cpp_host.Describe();

  // Only lc_* is exported: Boost.JSON, OpenSSL wrappers and our C++ stay private.
  const bb::CommandResult symbols = bb::RunCommand(
      {"/usr/bin/nm", "-D", "--defined-only", (prefix / "lib/liblicense_client.so").string()});
  ASSERT_EQ(symbols.exit_code, 0) << symbols.Describe();
  EXPECT_EQ(symbols.out.find("boost"), std::string::npos);
  EXPECT_EQ(symbols.out.find("licensed"), std::string::npos);
  EXPECT_NE(symbols.out.find(" T lc_activate"), std::string::npos) << symbols.out;
  // And the server's dependencies stay out of the plugin: libcurl and OpenSSL only.
  const bb::CommandResult needed =
      bb::RunCommand({"/usr/bin/objdump", "-p", (prefix / "lib/liblicense_client.so").string()});
  ASSERT_EQ(needed.exit_code, 0) << needed.Describe();
  EXPECT_NE(needed.out.find("NEEDED               libcurl.so"), std::string::npos) << needed.out;
  for (const char* server_only : {"boost", "sqlite", "spdlog", "fmt", "toml"}) {
    EXPECT_EQ(needed.out.find(std::string("NEEDED               lib") + server_only),
              std::string::npos)
        << server_only;
  }
}

}  // namespace
}  // namespace licensed::client::test
