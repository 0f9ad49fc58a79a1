#include "config/settings_docs.h"

#include "config/serve_settings.h"

namespace licensed {
namespace {

constexpr const char* kMarkdownHead = R"(# Configuration of `licensed serve`

<!-- Generated from src/config/serve_settings.cpp by scripts/generate-config-docs.sh;
     the unit test ConfigurationDoc.IsUpToDateWithTheSettingsTable fails when it is not. -->

Every setting can be given four ways. A flag beats an environment variable, which beats
the TOML file named by `--config`, which beats the default; a list given at one level
replaces the lower levels' list whole (signing keys are never merged).

- **Mistakes stop the start.** A key in the TOML file that no setting has, or an
  environment variable named `LICENSED_*` that no setting reads, refuses the start with
  exit status 2 and names it: a misspelled `listen` would otherwise leave the default in
  force without a word.
- **`licensed serve --check-config`** reads everything `serve` would (flags, environment,
  the file, the secret files, the response key files), prints `configuration OK: ...` and
  exits 0, or prints what is wrong and exits as `serve` would. It contacts neither the
  store nor Redis.
- **Secrets from files.** A setting marked *secret* below can also be read from a file, so
  that it stays out of `ps`, the environment and the config file: `--NAME-file FILE`,
  the variable with `_FILE` appended, the TOML key with `_file` appended, or a systemd
  credential (`LoadCredential=NAME:/path`, read from `$CREDENTIALS_DIRECTORY`) named as
  the TOML key. The file holds the value (a trailing line end is dropped); a list's file
  holds one entry a line (or comma-separated), with blank lines and `#` comments. A
  credential sits between the environment and the config file; giving a value and its
  file at one level is refused. Error messages name the file, never what it holds.
- **SIGHUP** reopens the log file (`--log-file`, after logrotate moved it) and reads the
  configuration again from the same flags, environment and files. Settings marked
  *reloads* below take their new values at once; the others keep theirs until a restart.
  A configuration that no longer resolves is logged and changes nothing.
- **Admin commands** (`licensed admin ...`) write log lines to standard error, so that
  `--json` output can be piped (`licensed admin license show KEY --json | jq`).

## Settings
)";

constexpr const char* kTomlHead =
    R"(# /etc/licensed/licensed.toml: the configuration of `licensed serve`.
#
# Generated from src/config/serve_settings.cpp (scripts/generate-config-docs.sh); each
# setting is shown commented out at its default. docs/configuration.md says more about
# each, the order the sources win in, secrets from files and what SIGHUP reloads.
# A key that no setting has refuses the start, naming it.
#
# Secrets (the store and Redis URLs with their passwords, signing secrets, the Sentry
# DSN) are best kept out of this file: give them as systemd credentials (see
# licensed.service), or as NAME_file = "/path" here.
)";

// The help text as a sentence: capitalised, with a full stop.
std::string sentence(std::string_view help) {
  std::string out(help);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z')
    out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out + ".";
}

// `text` as "# " comment lines of at most 88 characters, broken at blanks.
std::string comment(std::string_view text) {
  constexpr size_t kWidth = 86;
  std::string out;
  while (!text.empty()) {
    size_t cut = text.size();
    if (cut > kWidth) {
      cut = text.rfind(' ', kWidth);
      if (cut == std::string_view::npos) cut = kWidth;
    }
    out += "# " + std::string(text.substr(0, cut)) + "\n";
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  return out;
}

std::string spelled(const SettingSpec& s) {
  std::string out;
  if (!s.flag.empty()) {
    out += "`--" + std::string(s.flag);
    if (!s.value_name.empty()) out += " " + std::string(s.value_name);
    out += "`, ";
  }
  out += "`" + std::string(s.env) + "`";
  if (s.kind == SettingKind::kList && !s.flag.empty()) {
    out += " (or `" + env_name_of_flag(s.flag) + "`)";
  }
  if (!s.toml.empty()) {
    out += ", TOML `" + std::string(s.read_toml != nullptr ? "[[" : "") + std::string(s.toml) +
           (s.read_toml != nullptr ? "]]" : "") + "`";
  }
  return out;
}

std::string default_text(const SettingSpec& s) {
  if (!s.default_help.empty()) return std::string(s.default_help);
  if (!s.default_value.empty()) return "`" + std::string(s.default_value) + "`";
  return "none";
}

std::string markdown_of(const SettingSpec& s) {
  const std::string name = s.flag.empty() ? std::string(s.toml) : std::string(s.flag);
  std::string out = "\n### `" + name + "`\n\n" + sentence(s.help) + "\n\n";
  out += "- Given by: " + spelled(s) + "\n";
  out += "- Default: " + default_text(s) + "\n";
  if (s.max != kNoBound) out += "- At most: " + std::to_string(s.max) + "\n";
  if (s.kind == SettingKind::kList) {
    out += "- A list: the flag is repeatable; comma-separated in the environment\n";
  }
  if (s.secret) {
    const SecretFileNames f = secret_file_names(s);
    out += "- *secret*: also from a file: ";
    if (!f.flag.empty()) out += "`--" + f.flag + " FILE`, ";
    for (const auto& e : f.env) out += "`" + e + "`, ";
    out += "TOML `" + f.toml + "`, systemd credential `" + f.credential + "`\n";
  }
  out += std::string("- SIGHUP: ") + (s.reloads ? "*reloads*" : "needs a restart") + "\n";
  return out;
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// The example value of a setting as TOML, at its default where it has one.
std::string toml_value_of(const SettingSpec& s) {
  const std::string_view d = s.default_value;
  switch (s.kind) {
    case SettingKind::kNumber:
    case SettingKind::kDuration:
      // A default computed at start (one thread per core): an example value instead.
      return d.empty() ? "4" : std::string(d);
    case SettingKind::kSwitch:
      return d.empty() ? "false" : std::string(d);
    case SettingKind::kList:
      return "[]";
    case SettingKind::kText:
    case SettingKind::kRateSpec:
      return quoted(d);
  }
  return quoted(d);
}

std::string toml_of(const SettingSpec& s) {
  std::string out = "\n" + comment(sentence(s.help));
  if (!s.default_help.empty()) out += comment("Default: " + std::string(s.default_help) + ".");
  if (s.kind == SettingKind::kList) out += "# A list of " + std::string(s.value_name) + ".\n";
  if (s.reloads) out += "# SIGHUP reloads it.\n";
  if (s.read_toml != nullptr) {
    out += "# [[" + std::string(s.toml) + "]]\n# id = \"plugin-2026\"\n# secret = \"...\"\n" +
           "# products = [\"reverb\"]   # optional: only requests for these product slugs\n";
  } else {
    out += "# " + std::string(s.toml) + " = " + toml_value_of(s) + "\n";
  }
  if (s.secret) {
    out += "# " + secret_file_names(s).toml + " = \"/etc/licensed/" + std::string(s.toml) +
           "\"   # or from a file\n";
  }
  return out;
}

}  // namespace

std::string configuration_markdown() {
  std::string out = kMarkdownHead;
  for (const auto& s : serve_settings()) out += markdown_of(s);
  return out;
}

std::string example_config_toml() {
  std::string out = kTomlHead;
  // Tables last: in TOML every key after a [[table]] header belongs to that table.
  for (const bool tables : {false, true}) {
    for (const auto& s : serve_settings()) {
      if (!s.toml.empty() && (s.read_toml != nullptr) == tables) out += toml_of(s);
    }
  }
  return out;
}

}  // namespace licensed
