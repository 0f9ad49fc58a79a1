// The settings table against the rule of docs/protocol.md §18 and against what operators
// read: `licensed serve --help`, README.md and docs/deploy.md.
#include "config/serve_settings.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

#include "config/serve_config.h"
#include "config/settings_docs.h"
#include "support/admin.h"
#include "support/process.h"

namespace licensed {
namespace {

// NAME with `_` for `-`, in capitals when `upper`.
std::string Snake(std::string_view name, bool upper) {
  std::string out;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    out += ch == '-' ? '_' : static_cast<char>(upper ? std::toupper(c) : c);
  }
  return out;
}

// What the setting is called where it has no flag: its TOML key, with `-` for `_`.
std::string NameOf(const SettingSpec& s) {
  if (!s.flag.empty()) return std::string(s.flag);
  std::string name(s.toml);
  for (char& ch : name) ch = ch == '_' ? '-' : ch;
  return name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ServeHelp() {
  const bb::CommandResult r = bb::RunCommand({bb::LicensedBinary(), "serve", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  return r.out;
}

// The words --help prints for one flag: from its name to the next flag.
std::string HelpOfFlag(const std::string& help, const std::string& flag) {
  const auto start = help.find("  --" + flag + " ");
  if (start == std::string::npos) return "";
  return help.substr(start, help.find("\n  --", start + 1) - start);
}

TEST(ServeConfigSettings, EverySpellingFollowsTheRuleOfSpecSection10) {
  for (const SettingSpec& s : serve_settings()) {
    const std::string name = NameOf(s);
    SCOPED_TRACE(name);
    // Lists are plural in the environment and the file: LICENSED_SIGNING_KEYS, signing_keys.
    const std::string plural = s.kind == SettingKind::kList && !s.flag.empty() ? "s" : "";
    EXPECT_EQ(s.env, "LICENSED_" + Snake(name, true) + Snake(plural, true));
    if (!s.flag.empty()) {
      EXPECT_EQ(env_name_of_flag(s.flag), "LICENSED_" + Snake(name, true));
    }
    // Only --config has no TOML key (a file cannot name itself), and only settings that
    // were never flags have no flag.
    if (s.toml.empty()) {
      EXPECT_EQ(s.flag, "config");
    } else {
      EXPECT_EQ(s.toml, Snake(name, false) + plural);
    }
    EXPECT_FALSE(s.help.empty());
    // Only a switch, which takes no value, has no value name.
    EXPECT_EQ(s.value_name.empty(), s.kind == SettingKind::kSwitch);
    EXPECT_EQ(s.set == nullptr, s.flag == "config") << "every setting but --config has a setter";
  }
}

TEST(ServeConfigSettings, EverySettingIsListedByServeHelpWithItsOtherSpellings) {
  const std::string help = ServeHelp();
  for (const SettingSpec& s : serve_settings()) {
    SCOPED_TRACE(NameOf(s));
    if (!s.flag.empty()) {
      EXPECT_NE(help.find("--" + std::string(s.flag) + " " + std::string(s.value_name)),
                std::string::npos)
          << help;
    }
    EXPECT_NE(help.find(std::string(s.env)), std::string::npos) << help;
    if (!s.toml.empty()) {
      EXPECT_NE(help.find("TOML " + std::string(s.toml)), std::string::npos);
    }
  }
}

TEST(ServeConfigSettings, StoreHelpNamesBothSqliteAndPostgresql) {
  const std::string store_help = HelpOfFlag(ServeHelp(), "store");
  EXPECT_NE(store_help.find("sqlite:"), std::string::npos) << store_help;
  EXPECT_NE(store_help.find("postgresql://"), std::string::npos) << store_help;
}

// Each setting is described in prose (in backquotes, not only in the usage block) in
// README.md or docs/deploy.md, under its flag or, without one, its variable or TOML key.
TEST(ServeConfigSettings, EverySettingIsDescribedInTheReadmeOrTheDeploymentGuide) {
  const std::string docs =
      ReadFile(LICENSED_SOURCE_DIR "/README.md") + ReadFile(LICENSED_SOURCE_DIR "/docs/deploy.md");
  ASSERT_NE(docs.find("licensed serve"), std::string::npos) << "documents not found";
  for (const SettingSpec& s : serve_settings()) {
    SCOPED_TRACE(NameOf(s));
    if (!s.flag.empty()) {
      EXPECT_NE(docs.find("`--" + std::string(s.flag)), std::string::npos);
    } else {
      EXPECT_TRUE(docs.find("`" + std::string(s.env)) != std::string::npos ||
                  docs.find(std::string(s.toml) + " = ") != std::string::npos);
    }
  }
}

// The defaults moved from ServeConfig's initializers into the table; these are the
// values every release before had.
TEST(ServeConfigSettings, DefaultsAreTheOnesTheServerAlwaysHad) {
  auto c =
      resolve_serve_config({}, [](const std::string&) { return std::optional<std::string>(); });
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->listen_host, "127.0.0.1");
  EXPECT_EQ(c->listen_port, 8080);
  EXPECT_EQ(c->store, "sqlite:./licensed.db");
  EXPECT_FALSE(c->redis);
  EXPECT_EQ(c->redis_timeout_ms, 250);
  EXPECT_TRUE(c->signing_keys.empty());
  EXPECT_TRUE(c->response_keys.empty());
  EXPECT_FALSE(c->dashboard_url);
  EXPECT_FALSE(c->public_url);
  ASSERT_TRUE(c->rate_limit_key && c->rate_limit_ip);
  EXPECT_EQ(c->rate_limit_key->count, 120);
  EXPECT_EQ(c->rate_limit_key->period_ms, 60'000);
  EXPECT_EQ(c->rate_limit_ip->count, 600);
  EXPECT_EQ(c->rate_limit_ip->period_ms, 60'000);
  EXPECT_EQ(c->timestamp_window, 300);
  EXPECT_TRUE(c->trusted_proxies.empty());
  EXPECT_EQ(c->threads, 0u);
  ASSERT_TRUE(c->admin_listen);
  EXPECT_EQ(*c->admin_listen, std::make_pair(std::string("127.0.0.1"), uint16_t{9464}));
  EXPECT_EQ(c->max_connections, 10'000u);
  EXPECT_EQ(c->max_connections_per_ip, 256u);
  EXPECT_EQ(c->header_timeout, 10);
  EXPECT_EQ(c->idle_timeout, 60);
  EXPECT_EQ(c->max_queue, 10'000u);
  EXPECT_EQ(c->store_pool_size, 0u);
  EXPECT_EQ(c->max_nonces, 20'000'000u);
  EXPECT_EQ(c->log_format, LogFormat::kText);
  EXPECT_FALSE(c->sentry_dsn);
  EXPECT_FALSE(c->webhook_allow_http);
  EXPECT_FALSE(c->webhook_allow_private);
  EXPECT_TRUE(c->outgoing_ca_file.empty());
}

TEST(ServeConfigSettings, TheMissingSigningKeyMessageNamesEverySpelling) {
  EXPECT_EQ(where_to_set(*find_setting("signing-key")),
            "--signing-key ID=SECRET, LICENSED_SIGNING_KEYS or [[signing_keys]] in the config "
            "file");
  EXPECT_EQ(find_setting("no-such-flag"), nullptr);
}

// The dashboard's brand, read from the environment as from any source.
Result<ServeConfig> with_brand(const std::string& spec) {
  return resolve_serve_config({}, [spec](const std::string& name) {
    return name == "LICENSED_DASHBOARD_BRAND" ? std::optional<std::string>(spec) : std::nullopt;
  });
}

TEST(ServeConfigSettings, TheDashboardBrandTakesANameALogoFileAndASupportLink) {
  auto c = with_brand("name=Acme Audio;logo=/etc/licensed/acme.svg;support=mailto:help@acme.test");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->dashboard_brand.name, "Acme Audio");
  EXPECT_EQ(c->dashboard_brand.logo_file, "/etc/licensed/acme.svg");
  EXPECT_EQ(c->dashboard_brand.support_url, "mailto:help@acme.test");
  auto only_name = with_brand("name=Acme");
  ASSERT_TRUE(only_name.ok());
  EXPECT_EQ(only_name->dashboard_brand.support_url, "");
}

TEST(ServeConfigSettings, ADashboardBrandWithAScriptLinkOrAnUnknownPartIsRefused) {
  EXPECT_FALSE(with_brand("support=javascript:alert(1)").ok());
  EXPECT_FALSE(with_brand("colour=red").ok());
  EXPECT_FALSE(with_brand("name=").ok());
  EXPECT_FALSE(with_brand("name=" + std::string(101, 'a')).ok());
}

// The generated documents match the table; UPDATE_GENERATED_DOCS=1 rewrites them
// (scripts/generate-config-docs.sh).
void ExpectGenerated(const std::string& relative, const std::string& expected) {
  const std::string path = LICENSED_SOURCE_DIR "/" + relative;
  if (std::getenv("UPDATE_GENERATED_DOCS") != nullptr) std::ofstream(path) << expected;
  EXPECT_TRUE(ReadFile(path) == expected)
      << relative << " is not what the settings table gives: run scripts/generate-config-docs.sh";
}

TEST(ConfigurationDoc, IsUpToDateWithTheSettingsTable) {
  ExpectGenerated("docs/configuration.md", configuration_markdown());
}

TEST(ConfigurationDoc, TheExampleConfigIsUpToDateAndNamesEveryTomlKey) {
  ExpectGenerated("deploy/licensed.toml", example_config_toml());
  for (const auto& key : known_toml_keys()) {
    EXPECT_TRUE(example_config_toml().find(key + " = ") != std::string::npos ||
                example_config_toml().find("[[" + key + "]]") != std::string::npos)
        << key;
  }
}

TEST(ConfigurationDoc, NamesEverySpellingOfEverySetting) {
  const std::string doc = configuration_markdown();
  for (const auto& name : known_environment_names()) {
    if (name == "LICENSED_STORE_SECRET") continue;  // an admin command's, not serve's
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name;
  }
  for (const SettingSpec& s : serve_settings()) {
    if (!s.flag.empty()) {
      EXPECT_NE(doc.find("`--" + std::string(s.flag)), std::string::npos);
    }
  }
}

// Uncommented, the example is a valid configuration (with a signing key added): every
// key it shows is one the server takes, at a value it takes.
TEST(ConfigurationDoc, TheExampleConfigUncommentedIsAcceptedByTheServer) {
  std::string uncommented;
  std::istringstream lines(example_config_toml());
  for (std::string line; std::getline(lines, line);) {
    // "# key = value" lines only; the [[signing_keys]] table and file forms stay out.
    const bool setting = line.starts_with("# ") && line.find(" = ") != std::string::npos &&
                         line.find("_file = ") == std::string::npos &&
                         line.find('[') == std::string::npos && !line.starts_with("# id") &&
                         !line.starts_with("# secret") && !line.starts_with("# products");
    if (setting) uncommented += line.substr(2) + "\n";
  }
  uncommented += "signing_keys = []\n";
  const std::string path = ::testing::TempDir() + "/example.toml";
  std::ofstream(path) << uncommented;
  auto c = resolve_serve_config({}, [&path](const std::string& name) -> std::optional<std::string> {
    if (name == "LICENSED_CONFIG") return path;
    return std::nullopt;
  });
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message) << "\n" << uncommented;
}

}  // namespace
}  // namespace licensed
