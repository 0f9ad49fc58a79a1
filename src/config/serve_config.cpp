// The readers of the settings table: the command line, the environment, the TOML file
// and --help each go through serve_settings() instead of naming settings themselves.
#include "config/serve_config.h"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "config/serve_settings.h"
#include "core/text.h"

namespace licensed {
namespace {

bool is_list(const SettingSpec& s) {
  return s.kind == SettingKind::kList;
}

// The help line of a setting: what it is, its bounds, its default and its other
// spellings, all from the table.
std::string help_text(const SettingSpec& s) {
  std::string out(s.help);
  if (is_list(s)) out += s.flag.empty() ? "; comma-separated" : "; repeatable";
  if (s.max != kNoBound) out += "; 1 to " + std::to_string(s.max);
  out += " (";
  if (!s.default_help.empty() || !s.default_value.empty()) {
    out += "default " + std::string(s.default_help.empty() ? s.default_value : s.default_help);
    out += "; ";
  }
  out += "env " + std::string(s.env);
  if (is_list(s) && !s.flag.empty()) out += " or " + env_name_of_flag(s.flag);
  if (!s.toml.empty()) out += ", TOML " + std::string(s.toml);
  return out + ")";
}

// The settings without a flag, listed under the options so that --help names them too.
std::string flagless_help() {
  std::string out;
  for (const auto& s : serve_settings()) {
    if (!s.flag.empty()) continue;
    if (out.empty()) out = "Settings without a flag (environment or config file only):\n";
    out += "  " + std::string(s.env) + " " + std::string(s.value_name) + ",...  " + help_text(s) +
           "\n";
  }
  return out;
}

void add_flag(CLI::App& app, ServeFlags& flags, const SettingSpec& s) {
  const std::string name = "--" + std::string(s.flag);
  const std::string flag(s.flag);
  CLI::Option* option = nullptr;
  if (s.kind == SettingKind::kSwitch) {
    app.add_flag_callback(
        name, [&flags, flag] { flags.set(flag, "true"); }, help_text(s));
    return;
  }
  if (is_list(s)) {
    option = app.add_option_function<std::vector<std::string>>(
        name, [&flags, flag](const std::vector<std::string>& v) { flags.set(flag, v); },
        help_text(s));
  } else if (s.kind == SettingKind::kNumber || s.kind == SettingKind::kDuration) {
    // CLI11 reads the integer (as it always has: 0x10 is 16); the table's setter checks it.
    option = app.add_option_function<int64_t>(
        name, [&flags, flag](const int64_t& v) { flags.set(flag, std::to_string(v)); },
        help_text(s));
  } else {
    option = app.add_option_function<std::string>(
        name, [&flags, flag](const std::string& v) { flags.set(flag, v); }, help_text(s));
  }
  option->type_name(std::string(s.value_name));
}

// A secret's `--NAME-file FILE`: the file holds the value (of a list: its entries, one a
// line), so that the secret stays out of `ps`.
void add_secret_file_flag(CLI::App& app, ServeFlags& flags, const SettingSpec& s) {
  const std::string flag = secret_file_names(s).flag;
  app.add_option_function<std::string>(
         "--" + flag, [&flags, flag](const std::string& v) { flags.set(flag, v); },
         "a file holding what --" + std::string(s.flag) + " takes" +
             (is_list(s) ? ", one a line" : "") + " (env " + secret_file_names(s).env.front() +
             ", TOML " + secret_file_names(s).toml + ")")
      ->type_name("FILE");
}

// A secret read from its file: the whole file, without the line end that editors add.
// The message names the file, never what it holds.
Result<Sourced> read_secret_file(const Sourced& path) {
  std::ifstream in(path.value, std::ios::binary);
  if (!in) return config_error(path.source + ": cannot read '" + path.value + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return Sourced{std::move(text), path.source + " (" + path.value + ")"};
}

// One level's value: given directly, or (secrets) by a file; both at one level is a
// mistake, since neither could be said to win.
Result<std::optional<Sourced>> value_or_file(std::optional<Sourced> value,
                                             std::optional<Sourced> file) {
  if (value && file) {
    return config_error(value->source + " and " + file->source + " are both set: give one");
  }
  if (file) {
    ASSIGN_OR_RETURN(auto read, read_secret_file(*file));
    return std::optional<Sourced>(std::move(read));
  }
  return value;
}

std::optional<Sourced> flag_value(const ServeFlags& flags, std::string_view flag) {
  const auto* given = flags.find(flag);
  if (given == nullptr || given->empty()) return std::nullopt;
  return Sourced{given->back(), "--" + std::string(flag)};
}

std::optional<Sourced> env_value(const EnvLookup& env, const std::vector<std::string>& names,
                                 bool empty_counts) {
  for (const auto& name : names) {
    if (auto v = env(name); v && (empty_counts || !v->empty())) return Sourced{*v, name};
  }
  return std::nullopt;
}

std::optional<Sourced> toml_value(const toml::table* file, const std::string& key) {
  if (file == nullptr || key.empty()) return std::nullopt;
  const auto* node = file->get(key);
  if (node == nullptr) return std::nullopt;
  const std::string source = "config " + key;
  if (auto text = node->value<std::string>()) return Sourced{*text, source};
  if (auto number = node->value<int64_t>()) return Sourced{std::to_string(*number), source};
  if (auto boolean = node->value<bool>()) return Sourced{*boolean ? "true" : "false", source};
  return std::nullopt;
}

// A secret's systemd credential ($CREDENTIALS_DIRECTORY/<toml key>, LoadCredential=): its
// path when the unit gave one.
std::optional<Sourced> credential_path(const SettingSpec& s, const EnvLookup& env) {
  const auto dir = env("CREDENTIALS_DIRECTORY");
  const std::string name = secret_file_names(s).credential;
  if (!dir || dir->empty() || name.empty()) return std::nullopt;
  const std::string path = *dir + "/" + name;
  if (!std::filesystem::exists(path)) return std::nullopt;
  return Sourced{path, "credential " + name};
}

// The variables of a setting, a list's plural name first, then its singular one.
std::vector<std::string> env_names(const SettingSpec& s) {
  std::vector<std::string> names{std::string(s.env)};
  if (is_list(s) && !s.flag.empty()) names.push_back(env_name_of_flag(s.flag));
  return names;
}

// The value of the highest level that gives one: flag, environment, systemd credential
// (secrets), config file. An empty environment variable counts for a scalar: it is how
// an environment turns off what the file turned on; for a list it does not.
Result<std::optional<Sourced>> pick(const SettingSpec& s, const ServeFlags& flags,
                                    const EnvLookup& env, const toml::table* file) {
  const bool secret = s.secret;
  const SecretFileNames names = secret ? secret_file_names(s) : SecretFileNames{};
  ASSIGN_OR_RETURN(auto from_flags,
                   value_or_file(flag_value(flags, s.flag),
                                 secret ? flag_value(flags, names.flag) : std::nullopt));
  if (from_flags) return from_flags;
  ASSIGN_OR_RETURN(auto from_env,
                   value_or_file(env_value(env, env_names(s), !is_list(s)),
                                 secret ? env_value(env, names.env, false) : std::nullopt));
  if (from_env) return from_env;
  if (secret) {
    if (auto credential = credential_path(s, env)) {
      ASSIGN_OR_RETURN(auto read, read_secret_file(*credential));
      return std::optional<Sourced>(std::move(read));
    }
  }
  // A list's own TOML node is read by read_toml_list; only its _file key is a value here.
  auto in_file = is_list(s) ? std::nullopt : toml_value(file, std::string(s.toml));
  return value_or_file(std::move(in_file), secret ? toml_value(file, names.toml) : std::nullopt);
}

// Comma-separated entries; blanks around an entry ("a=x, b=y") are the list's, and a
// trailing comma ends the list. A file's list may also put one entry a line, with
// blank lines and `#` comment lines between them.
std::vector<std::string> split_list(std::string_view rest) {
  std::vector<std::string> out;
  while (!rest.empty()) {
    const auto line_end = rest.find('\n');
    std::string_view line = trim_blanks(rest.substr(0, line_end));
    rest = line_end == std::string_view::npos ? std::string_view() : rest.substr(line_end + 1);
    if (!line.empty() && line.back() == '\r') line = trim_blanks(line.substr(0, line.size() - 1));
    if (line.starts_with('#') || (line.empty() && line_end != std::string_view::npos)) continue;
    while (!line.empty()) {
      const auto comma = line.find(',');
      out.emplace_back(trim_blanks(line.substr(0, comma)));
      line = comma == std::string_view::npos ? std::string_view() : line.substr(comma + 1);
    }
  }
  return out;
}

Status set_entries(ServeConfig& c, const SettingSpec& s, const std::vector<std::string>& entries,
                   const std::string& source) {
  for (const auto& entry : entries) RETURN_IF_ERROR(s.set(c, Sourced{entry, source}, s));
  return Ok{};
}

Status read_toml_list(ServeConfig& c, const SettingSpec& s, const toml::node& node) {
  if (s.read_toml != nullptr) return s.read_toml(c, node);
  const std::string source = "config " + std::string(s.toml);
  const auto* arr = node.as_array();
  if (arr == nullptr) return config_error(source + ": expected a list of strings");
  for (const auto& entry : *arr) {
    auto text = entry.value<std::string>();
    if (!text) return config_error(source + ": expected a list of strings");
    RETURN_IF_ERROR(s.set(c, Sourced{*text, source}, s));
  }
  return Ok{};
}

// A list from the highest level that gives one; it replaces the lower levels' whole.
// True when some level gave it.
Result<bool> read_list(ServeConfig& c, const SettingSpec& s, const ServeFlags& flags,
                       const EnvLookup& env, const toml::table* file) {
  if (const auto* given = flags.find(s.flag); given != nullptr && !given->empty()) {
    if (s.secret && flags.find(secret_file_names(s).flag) != nullptr) {
      return config_error("--" + std::string(s.flag) + " and --" + secret_file_names(s).flag +
                          " are both set: give one");
    }
    RETURN_IF_ERROR(set_entries(c, s, *given, "--" + std::string(s.flag)));
    return true;
  }
  ASSIGN_OR_RETURN(const auto picked, pick(s, flags, env, file));
  if (picked) {
    if (file != nullptr && picked->source.starts_with("config ") && file->get(s.toml) != nullptr) {
      return config_error("config " + std::string(s.toml) + " and " + picked->source +
                          " are both set: give one");
    }
    RETURN_IF_ERROR(set_entries(c, s, split_list(picked->value), picked->source));
    return true;
  }
  const auto* node = file != nullptr && !s.toml.empty() ? file->get(s.toml) : nullptr;
  if (node == nullptr) return false;
  RETURN_IF_ERROR(read_toml_list(c, s, *node));
  return true;
}

// One setting from its sources into `c`; true when some source gave it.
Result<bool> read_setting(ServeConfig& c, const SettingSpec& s, const ServeFlags& flags,
                          const EnvLookup& env, const toml::table* file) {
  if (is_list(s)) return read_list(c, s, flags, env, file);
  ASSIGN_OR_RETURN(const auto picked, pick(s, flags, env, file));
  if (!picked) return false;
  RETURN_IF_ERROR(s.set(c, *picked, s));
  return true;
}

Status apply_defaults(ServeConfig& c) {
  for (const auto& s : serve_settings()) {
    if (!s.default_value.empty())
      RETURN_IF_ERROR(s.set(c, {std::string(s.default_value), "default"}, s));
  }
  return Ok{};
}

// A key no setting has is a mistake (a misspelled `listen` would leave the default in
// force without a word), so the file is refused naming it.
Status check_toml_keys_known(const toml::table& table, const std::string& path) {
  const auto known = known_toml_keys();
  for (const auto& [key, value] : table) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    return config_error("config " + path + ": unknown setting '" + std::string(key.str()) +
                        "' (docs/configuration.md lists them all)");
  }
  return Ok{};
}

// The file --config (or its variable) names; nullopt when none is named.
Result<std::optional<toml::table>> read_config_file(const ServeFlags& flags, const EnvLookup& env) {
  ASSIGN_OR_RETURN(const auto picked, pick(*find_setting("config"), flags, env, nullptr));
  if (!picked) return std::optional<toml::table>();
  const Sourced* path = &*picked;
  // toml++ reports parse errors by exception; this runs once, at start-up.
  try {
    auto table = toml::parse_file(path->value);
    RETURN_IF_ERROR(check_toml_keys_known(table, path->value));
    return std::optional<toml::table>(std::move(table));
  } catch (const toml::parse_error& e) {
    return config_error("cannot read config " + path->value + ": " + std::string(e.description()));
  }
}

bool is_secret_file_flag(std::string_view flag) {
  for (const auto& s : serve_settings()) {
    if (s.secret && !s.flag.empty() && secret_file_names(s).flag == flag) return true;
  }
  return false;
}

// A flag the table does not know can only come from a caller's typo (CLI11 refuses
// unknown flags before this).
Status check_flags_known(const ServeFlags& flags) {
  for (const auto& [flag, values] : flags.all()) {
    if (find_setting(flag) == nullptr && !is_secret_file_flag(flag)) {
      return config_error("no setting has the flag --" + flag);
    }
  }
  return Ok{};
}

}  // namespace

const std::vector<std::string>* ServeFlags::find(std::string_view flag) const {
  if (flag.empty()) return nullptr;
  const auto it = values_.find(flag);
  return it == values_.end() ? nullptr : &it->second;
}

void add_serve_flags(CLI::App& app, ServeFlags& flags) {
  for (const auto& s : serve_settings()) {
    if (!s.flag.empty()) add_flag(app, flags, s);
    if (!s.flag.empty() && s.secret) add_secret_file_flag(app, flags, s);
  }
  app.footer(flagless_help());
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Status check_environment_names(const std::vector<std::string>& names) {
  const auto known = known_environment_names();
  for (const auto& name : names) {
    if (!name.starts_with("LICENSED_")) continue;
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return config_error("unknown environment variable " + name +
                        " (docs/configuration.md lists them all)");
  }
  return Ok{};
}

std::vector<std::string> process_environment_names() {
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    names.emplace_back(entry.substr(0, entry.find('=')));
  }
  return names;
}

Result<ServeConfig> resolve_serve_config(const ServeFlags& flags, const EnvLookup& env) {
  RETURN_IF_ERROR(check_flags_known(flags));
  ServeConfig c;
  RETURN_IF_ERROR(apply_defaults(c));
  ASSIGN_OR_RETURN(const auto file, read_config_file(flags, env));
  const toml::table* t = file ? &*file : nullptr;
  bool admin_listen_given = false;
  for (const auto& s : serve_settings()) {
    if (s.set == nullptr) continue;  // --config, read above
    ASSIGN_OR_RETURN(const bool was_given, read_setting(c, s, flags, env, t));
    admin_listen_given |= was_given && &s == find_setting("admin-listen");
    if (s.check != nullptr) RETURN_IF_ERROR(s.check(c));
  }
  // A throwaway instance (API on port 0) gets a throwaway admin port, so that several
  // can run side by side.
  if (!admin_listen_given && c.listen_port == 0) c.admin_listen->second = 0;
  return c;
}

}  // namespace licensed
