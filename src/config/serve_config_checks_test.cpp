// Issue 24 item 5: unknown TOML keys and LICENSED_* variables are refused by name, and
// secrets are read from files (`--NAME-file`, NAME_FILE variables, `name_file` keys, systemd
// credentials) without their contents ever reaching a message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "config/serve_config.h"
#include "config/serve_settings.h"

namespace licensed {
namespace {

EnvLookup Env(const std::map<std::string, std::string>& vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// A scratch directory of files, removed at the end of the test.
class Files {
 public:
  Files()
      : dir_(std::filesystem::temp_directory_path() /
             ("serve_config_checks_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(dir_);
  }
  ~Files() { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

Result<ServeConfig> FromToml(const Files& files, const std::string& toml,
                             std::map<std::string, std::string> env = {}) {
  env["LICENSED_CONFIG"] = files.Write("licensed.toml", toml);
  return resolve_serve_config({}, Env(env));
}

TEST(ServeConfigUnknownNames, AMisspelledTomlKeyIsRefusedNamingIt) {
  const Files files;
  auto c = FromToml(files, "lisen = \"127.0.0.1:9\"\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("unknown setting 'lisen'"), std::string::npos)
      << c.error().message;
  EXPECT_TRUE(FromToml(files, "listen = \"127.0.0.1:9\"\n").ok());
}

TEST(ServeConfigUnknownNames, AnUnknownKeyInASigningKeyTableIsRefusedNamingIt) {
  const Files files;
  auto c = FromToml(files, "[[signing_keys]]\nid = \"a\"\nscret = \"b\"\nsecret = \"c\"\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("unknown key 'scret'"), std::string::npos) << c.error().message;
}

TEST(ServeConfigUnknownNames, OnlyUnknownLicensedVariablesAreRefused) {
  EXPECT_TRUE(check_environment_names({"PATH", "HOME", "LICENSEDX", "LICENSE_KEY"}).ok());
  EXPECT_TRUE(check_environment_names(known_environment_names()).ok());
  EXPECT_TRUE(check_environment_names({"LICENSED_SIGNING_KEY", "LICENSED_STORE_FILE",
                                       "LICENSED_SIGNING_KEYS_FILE", "LICENSED_STORE_SECRET"})
                  .ok());
  const Status s = check_environment_names({"PATH", "LICENSED_LISTN"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("LICENSED_LISTN"), std::string::npos) << s.error().message;
  // Only secrets have _FILE forms.
  EXPECT_FALSE(check_environment_names({"LICENSED_LISTEN_FILE"}).ok());
}

TEST(ServeConfigSecretFiles, AStoreUrlComesFromItsFileWithoutTheLineEnd) {
  const Files files;
  const std::string path = files.Write("store", "postgresql://app:pw@db/licensed\n");
  auto c = resolve_serve_config({}, Env({{"LICENSED_STORE_FILE", path}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->store, "postgresql://app:pw@db/licensed");
  ServeFlags flags;
  flags.set("store-file", path);
  auto f = resolve_serve_config(flags, Env({{"LICENSED_STORE", "sqlite:env.db"}}));
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->store, "postgresql://app:pw@db/licensed") << "a flag's file beats the environment";
}

TEST(ServeConfigSecretFiles, ASigningKeyFileHoldsOneKeyALineWithComments) {
  const Files files;
  const std::string path = files.Write("keys", "# rotation: new first\nnew=s2\n\nold=s1\n");
  ServeFlags flags;
  flags.set("signing-key-file", path);
  auto c = resolve_serve_config(flags, Env({}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->signing_keys.size(), 2u);
  EXPECT_EQ(c->signing_keys[0].id, "new");
  EXPECT_EQ(c->signing_keys[1].secret, "s1");
}

TEST(ServeConfigSecretFiles, ACredentialSitsBetweenTheEnvironmentAndTheConfigFile) {
  const Files files;
  files.Write("redis", "redis://:credential@127.0.0.1:6379\n");
  auto from_credential = FromToml(files, "redis = \"redis://127.0.0.1:1\"\n",
                                  {{"CREDENTIALS_DIRECTORY", files.dir()}});
  ASSERT_TRUE(from_credential.ok()) << from_credential.error().message;
  EXPECT_EQ(from_credential->redis->port, 6379);
  auto from_env = FromToml(
      files, "",
      {{"CREDENTIALS_DIRECTORY", files.dir()}, {"LICENSED_REDIS", "redis://127.0.0.1:7000"}});
  ASSERT_TRUE(from_env.ok()) << from_env.error().message;
  EXPECT_EQ(from_env->redis->port, 7000);
}

TEST(ServeConfigSecretFiles, TheTomlFileKeyNamesAFile) {
  const Files files;
  const std::string path = files.Write("sentry", "http://public@127.0.0.1:9/1\n");
  auto c = FromToml(files, "sentry_dsn_file = \"" + path + "\"\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->sentry_dsn);
}

TEST(ServeConfigSecretFiles, AValueAndItsFileAtOneLevelAreRefused) {
  const Files files;
  const std::string path = files.Write("store", "sqlite:file.db");
  auto env = resolve_serve_config(
      {}, Env({{"LICENSED_STORE", "sqlite:a.db"}, {"LICENSED_STORE_FILE", path}}));
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.error().message.find("LICENSED_STORE and LICENSED_STORE_FILE are both set"),
            std::string::npos)
      << env.error().message;
  auto toml = FromToml(files, "signing_keys_file = \"" + path +
                                  "\"\n[[signing_keys]]\nid = \"a\"\nsecret = \"b\"\n");
  ASSERT_FALSE(toml.ok());
  EXPECT_NE(toml.error().message.find("both set"), std::string::npos) << toml.error().message;
}

TEST(ServeConfigSecretFiles, AMessageNamesTheFileButNeverItsContents) {
  const Files files;
  const std::string path = files.Write("redis", "rediss://:hunter2-secret@@@\n");
  auto bad = resolve_serve_config({}, Env({{"LICENSED_REDIS_FILE", path}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(path), std::string::npos) << bad.error().message;
  EXPECT_EQ(bad.error().message.find("hunter2"), std::string::npos) << bad.error().message;
  auto missing = resolve_serve_config({}, Env({{"LICENSED_REDIS_FILE", files.dir() + "/none"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("LICENSED_REDIS_FILE: cannot read"), std::string::npos)
      << missing.error().message;
}

TEST(ServeConfigLogging, LevelFileAndAccessLogFollowTheUsualOrder) {
  const Files files;
  auto c = FromToml(files, "log_level = \"warn\"\naccess_log = true\nlog_file = \"/tmp/x.log\"\n",
                    {{"LICENSED_LOG_LEVEL", "debug"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->log_level, LogLevel::kDebug);
  EXPECT_TRUE(c->access_log);
  EXPECT_EQ(c->log_file, "/tmp/x.log");
  auto d = resolve_serve_config({}, Env({}));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->log_level, LogLevel::kInfo);
  EXPECT_FALSE(d->access_log);
  auto bad = resolve_serve_config({}, Env({{"LICENSED_LOG_LEVEL", "verbose"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("LICENSED_LOG_LEVEL"), std::string::npos);
}

}  // namespace
}  // namespace licensed
