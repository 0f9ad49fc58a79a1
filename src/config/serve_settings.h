// The settings of `licensed serve`, each declared once: its flag, environment variable,
// TOML key, default, help text, bounds and how its value lands in ServeConfig. The
// command line (CLI11), the environment, the TOML file and `--help` all read this table
// (serve_config.cpp); nothing else spells a setting's name.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/serve_config.h"
#include "core/result.h"

namespace licensed {

// How a setting's value is written, which decides how each source reads it.
enum class SettingKind {
  kText,      // a string, checked by the setting's setter
  kNumber,    // a whole number from 1 to `max`; the command line parses it as an integer
  kDuration,  // a kNumber counted in the unit its value name gives (SECONDS, MS)
  kRateSpec,  // N/PERIOD or off (docs/protocol.md §18)
  kList,      // repeatable flag; comma-separated in the environment; an array in TOML
  kSwitch,    // a flag without a value; true, false, 1, 0 or empty (false) in the
              // environment; a boolean in TOML. No value name.
};

// One value and where it came from ("--store", "LICENSED_STORE", "config store",
// "default"), so that an error can name it.
struct Sourced {
  std::string value;
  std::string source;
};

constexpr int64_t kNoBound = INT64_MAX;

// A setting's value refused: kInvalidArgument about "config", the message naming the
// value's source so the operator finds the line.
Error config_error(std::string message);

struct SettingSpec {
  // The rule of docs/protocol.md §18: flag `--NAME`, variable `LICENSED_NAME` upper-cased with
  // `_` for `-`, TOML key NAME with `_` for `-`; a list's variable and key are plural
  // (LICENSED_SIGNING_KEYS, signing_keys) and its variable is read under the singular
  // name too. The test of this table checks every spelling against the rule.
  std::string_view flag = {};  // without "--"; empty: environment and file only
  std::string_view env = {};
  std::string_view toml = {};  // empty: not read from the file
  SettingKind kind = SettingKind::kText;
  std::string_view value_name = {};  // what --help shows for the value: HOST:PORT, SECONDS;
                                     // empty for a kSwitch
  std::string_view help = {};
  // The text the setter reads when no source sets the setting; empty: ServeConfig's
  // zero value, which `default_help` describes.
  std::string_view default_value = {};
  std::string_view default_help = {};
  int64_t max = kNoBound;  // kNumber, kDuration: the largest value accepted
  // Takes one value (of a list: one entry) into the config; a bad one is an error naming
  // its source. Null only for --config, which is read before the others.
  Status (*set)(ServeConfig&, const Sourced&, const SettingSpec&) = nullptr;
  // Lists written in TOML as something other than an array of strings (the
  // [[signing_keys]] tables) read their node themselves.
  Status (*read_toml)(ServeConfig&, const toml::node&) = nullptr;
  // Run once the setting is resolved, on the whole value (a list's entries together).
  Status (*check)(const ServeConfig&) = nullptr;
  // A credential (a password in a URL, a signing secret, a DSN's key): it can also be read
  // from a file, so that it stays out of the command line, the environment and the
  // config file (see secret_file_names).
  bool secret = false;
  // SIGHUP makes a running server take the setting's new value (docs/configuration.md);
  // the others need a restart.
  bool reloads = false;
};

// Every setting, in the order --help lists them.
std::span<const SettingSpec> serve_settings();

// The setting of this flag (without "--"); null if there is none.
const SettingSpec* find_setting(std::string_view flag);

// The environment variable the general rule gives a flag: LICENSED_ + NAME_IN_CAPS.
std::string env_name_of_flag(std::string_view flag);

// The ways a secret setting is read from a file: the flag `--NAME-file`, the variable
// `ENV_FILE` (a list's singular variable too), the TOML key `toml_file`, and the systemd
// credential named as the TOML key in $CREDENTIALS_DIRECTORY. Empty strings where the
// setting has no flag or no TOML key.
struct SecretFileNames {
  std::string flag;              // "signing-key-file"
  std::vector<std::string> env;  // {"LICENSED_SIGNING_KEYS_FILE", "LICENSED_SIGNING_KEY_FILE"}
  std::string toml;              // "signing_keys_file"
  std::string credential;        // "signing_keys"
};
SecretFileNames secret_file_names(const SettingSpec& setting);

// Every LICENSED_* variable `licensed` reads: each setting's, a list's singular name,
// a secret's _FILE forms, and those only admin commands read (LICENSED_STORE_SECRET).
std::vector<std::string> known_environment_names();

// Every key a TOML config file may hold at its top level.
std::vector<std::string> known_toml_keys();

// Where an operator can give the setting, for messages: "--signing-key ID=SECRET,
// LICENSED_SIGNING_KEYS or [[signing_keys]] in the config file".
std::string where_to_set(const SettingSpec& setting);

}  // namespace licensed
