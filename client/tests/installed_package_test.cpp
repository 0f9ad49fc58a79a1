// Issue 5 item 1: the SDK as a plugin vendor gets it. `cmake --install` this build into a
// temporary prefix, configure and build client/examples/ with find_package(LicenseClient)
// against that prefix alone, and run the example hosts (C and C++) against the real
// server. The installed library exports the C ABI and nothing else. The plugin skeleton
// (examples/plugin_skeleton/, docs/sdk.md) is installed as a bundle, the SDK beside it,
// and loaded by its stand-in host.
#include <unistd.h>

#include <array>
#include <cstdlib>

#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

class InstalledPackage : public SdkTest {
 protected:
  // `cmake --install` this build into prefix(), then configure and build examples/ in
  // build() against that prefix alone.
  void BuildExamplesAgainstTheInstalledPrefix() {
    const bb::CommandResult install =
        bb::RunCommand({LICENSE_CLIENT_CMAKE, "--install", LICENSE_CLIENT_BUILD_DIR, "--prefix",
                        prefix().string()},
                       {}, kSlow);
    ASSERT_EQ(install.exit_code, 0) << install.Describe();
    ASSERT_TRUE(std::filesystem::exists(prefix() / "include/license_client/license_client.h"));
    ASSERT_TRUE(
        std::filesystem::exists(prefix() / "lib/cmake/LicenseClient/LicenseClientConfig.cmake"));

    std::vector<std::string> configure_args = {LICENSE_CLIENT_CMAKE,
                                               "-S",
                                               LICENSE_CLIENT_EXAMPLES_DIR,
                                               "-B",
                                               build().string(),
                                               "-G",
                                               LICENSE_CLIENT_GENERATOR,
                                               "-DCMAKE_PREFIX_PATH=" + prefix().string(),
                                               "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"};
    if (const std::string sanitize = LICENSE_CLIENT_SANITIZE; !sanitize.empty()) {
      // An instrumented library wants its sanitizer runtime loaded first: by the host,
      // built by the same compiler (GCC's and clang's runtimes do not mix).
      configure_args.push_back(std::string("-DCMAKE_CXX_COMPILER=") + LICENSE_CLIENT_CXX_COMPILER);
      configure_args.push_back(std::string("-DCMAKE_C_COMPILER=") + LICENSE_CLIENT_C_COMPILER);
      for (const char* flags : {"C_FLAGS", "CXX_FLAGS"}) {
        configure_args.push_back(std::string("-DCMAKE_") + flags + "=-fsanitize=" + sanitize);
      }
      // The C host links through the C driver: clang then needs telling that the
      // library's C++ parts want UBSan's C++ runtime too.
      configure_args.push_back(std::string("-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=") + sanitize +
                               LICENSE_CLIENT_HOST_EXTRA_LINK_FLAGS);
    }
    const bb::CommandResult configure = bb::RunCommand(configure_args, {}, kSlow);
    ASSERT_EQ(configure.exit_code, 0) << configure.Describe();
    const bb::CommandResult built =
        bb::RunCommand({LICENSE_CLIENT_CMAKE, "--build", build().string()}, {}, kSlow);
    ASSERT_EQ(built.exit_code, 0) << built.Describe();
  }

  std::filesystem::path prefix() const { return dir().path() / "prefix"; }
  std::filesystem::path build() const { return dir().path() / "example-build"; }

  // The settings the example hosts read (licensectl's variables) for this server.
  bb::EnvVars HostEnv(const std::string& license, const std::string& machine_id) const {
    return {{"LICENSE_SERVER_URL", Url()},
            {"LICENSE_KEY_ID", bb::kPluginKey.id},
            {"LICENSE_SECRET", bb::kPluginKey.secret},
            {"LICENSE_KEY", license},
            {"LICENSE_MACHINE_ID", machine_id},
            {"LICENSE_PUBLIC_KEY", SigningPublicKey()},
            {"XDG_CACHE_HOME", (dir().path() / "xdg").string()}};
  }

  static constexpr std::chrono::seconds kSlow{600};
};

// The text plugin_host printed from the line starting with `heading` to the next "---"
// line: one editor's text, or one summary line.
std::string Section(const std::string& out, const std::string& heading) {
  const size_t start = out.find("--- " + heading);
  if (start == std::string::npos) return "";
  const size_t body = out.find('\n', start);
  if (body == std::string::npos) return out.substr(start);
  const size_t end = out.find("\n---", body);
  return out.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// A number plugin_host printed as "name=<digits>" in `text`, or -1.
long Count(const std::string& text, const std::string& name) {
  const size_t at = text.find(" " + name + "=");
  return at == std::string::npos ? -1
                                 : std::strtol(text.c_str() + at + name.size() + 2, nullptr, 10);
}

TEST_F(InstalledPackage, ExampleHostsBuildAgainstTheInstalledPrefixAndRun) {
  ASSERT_NO_FATAL_FAILURE(BuildExamplesAgainstTheInstalledPrefix());
  const auto prefix = this->prefix();
  const auto build = this->build();

  Start();
  const std::string license = NewLicense(2);
  const bb::EnvVars env = HostEnv(license, "example-host-0001");
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

// The plugin pattern of docs/sdk.md, run by a stand-in DAW: the constructor answers from
// what is known without the network, the start-up check's answer reaches the editor and
// the audio thread, Activate runs off the UI thread, and audio is never silenced. A
// second session, with the server gone, starts licensed from the cache.
TEST_F(InstalledPackage, PluginSkeletonInItsBundleLoadsFromTheCacheAndNeverStopsTheAudio) {
  ASSERT_NO_FATAL_FAILURE(BuildExamplesAgainstTheInstalledPrefix());
  // Installed as a VST3 bundle is laid out on Linux: the SDK's library beside the
  // plugin's, found through the rpath $ORIGIN alone (the prefix is not searched).
  const auto bundle = dir().path() / "bundle";
  const bb::CommandResult installed = bb::RunCommand(
      {LICENSE_CLIENT_CMAKE, "--install", build().string(), "--prefix", bundle.string()}, {},
      kSlow);
  ASSERT_EQ(installed.exit_code, 0) << installed.Describe();
  const auto contents = bundle / "ExamplePlugin.vst3/Contents/x86_64-linux";
  const std::string plugin = (contents / "example_plugin.so").string();
  ASSERT_TRUE(std::filesystem::exists(contents / "liblicense_client.so.0"));
  const bb::CommandResult headers = bb::RunCommand({"/usr/bin/objdump", "-p", plugin});
  ASSERT_EQ(headers.exit_code, 0) << headers.Describe();
  EXPECT_NE(headers.out.find("RUNPATH              $ORIGIN\n"), std::string::npos) << headers.out;
  EXPECT_NE(headers.out.find("NEEDED               liblicense_client.so.0"), std::string::npos)
      << headers.out;
  const std::string host = (build() / "example_plugin_host").string();

  Start();
  const std::string license = NewLicense(2);
  const bb::EnvVars env = HostEnv(license, "plugin-skeleton-0001");

  // First session on a machine that was never activated.
  const bb::CommandResult first = bb::RunCommand({host, plugin, "--activate"}, env, kSlow);
  ASSERT_EQ(first.exit_code, 0) << first.Describe();
  // The constructor read the cache only: nothing there yet, and no network asked.
  EXPECT_NE(Section(first.out, "editor at load")
                .find("At load (cache only, no network): status=5 source=none "
                      "error=NO_ANSWER_YET\n"),
            std::string::npos)
      << first.out;
  // The start-up check asked the server, which said no: the editor says why and offers
  // Activate.
  const std::string checked = Section(first.out, "editor after the start-up check");
  EXPECT_NE(checked.find("License: not licensed\n"), std::string::npos) << first.out;
  EXPECT_NE(checked.find("Why: this computer is not activated: activate it\n"), std::string::npos)
      << first.out;
  EXPECT_NE(checked.find("Answer: start-up check: network, status 3\n"), std::string::npos)
      << first.out;
  EXPECT_NE(checked.find("[ Activate ]"), std::string::npos) << first.out;
  // Activate, pressed in the editor, ran off the UI thread and took a slot.
  const std::string activated = Section(first.out, "editor after activation");
  EXPECT_NE(activated.find("License: licensed\n"), std::string::npos) << first.out;
  EXPECT_NE(activated.find("Answer: activation: network, status 0, valid offline until "),
            std::string::npos)
      << first.out;
  EXPECT_EQ(activated.find("[ Activate ]"), std::string::npos) << first.out;
  // process() ran through every step: bypassed (dry) while not licensed, the effect
  // once activated, never silent.
  const std::string audio = Section(first.out, "audio:");
  EXPECT_EQ(Count(audio, "silent"), 0) << first.out;
  EXPECT_EQ(Count(audio, "other"), 0) << first.out;
  EXPECT_GT(Count(audio, "dry"), 0) << first.out;
  EXPECT_GT(Count(audio, "effect"), 0) << first.out;
  EXPECT_NE(first.out.find("--- destroyed\n--- unloaded\n"), std::string::npos) << first.out;
  const auto activations = AuditRecords(license, "license.activate");
  ASSERT_EQ(activations.size(), 1u);
  EXPECT_EQ(bb::Str(activations[0], "machineId"), "plugin-skeleton-0001");
  // The plugin names the machine by its host name (docs/sdk.md: telling clones apart).
  std::array<char, 256> host_name{};
  ASSERT_EQ(gethostname(host_name.data(), host_name.size() - 1), 0);
  const auto shown = admin().Show(license);
  ASSERT_EQ(bb::Arr(shown, "activations").size(), 1u);
  EXPECT_EQ(bb::Str(bb::Arr(shown, "activations")[0], "name"), host_name.data());

  // Second session, offline: the constructor answers from the cache, licensed, so the
  // effect runs from the first block on.
  ASSERT_EQ(Stop(), 0);
  const bb::CommandResult second = bb::RunCommand({host, plugin}, env, kSlow);
  ASSERT_EQ(second.exit_code, 0) << second.Describe();
  const std::string loaded = Section(second.out, "editor at load");
  EXPECT_NE(loaded.find("At load (cache only, no network): status=0 source=cache\n"),
            std::string::npos)
      << second.out;
  EXPECT_NE(loaded.find("License: licensed"), std::string::npos) << second.out;
  EXPECT_NE(Section(second.out, "editor after the start-up check")
                .find("Answer: start-up check: cache, status 0, valid offline until "),
            std::string::npos)
      << second.out;
  const std::string offline_audio = Section(second.out, "audio:");
  EXPECT_EQ(Count(offline_audio, "silent"), 0) << second.out;
  EXPECT_EQ(Count(offline_audio, "dry"), 0) << second.out;
  EXPECT_GT(Count(offline_audio, "effect"), 0) << second.out;
}

}  // namespace
}  // namespace licensed::client::test
