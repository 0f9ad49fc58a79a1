// The readers of the settings table: the command line, the environment, the TOML file
// and --help each go through serve_settings() instead of naming settings themselves.
#include "config/serve_config.h"

#include <toml++/toml.h>

#include <cstdlib>

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

// A scalar setting's value from the highest level that gives one. An empty environment
// variable counts: it is how an environment turns off what the file turned on.
std::optional<Sourced> pick_scalar(const SettingSpec& s, const ServeFlags& flags,
                                   const EnvLookup& env, const toml::table* file) {
  if (const auto* given = flags.find(s.flag); given != nullptr && !given->empty()) {
    return Sourced{given->back(), "--" + std::string(s.flag)};
  }
  if (auto v = env(std::string(s.env))) return Sourced{*v, std::string(s.env)};
  if (file == nullptr || s.toml.empty()) return std::nullopt;
  const auto* node = file->get(s.toml);
  if (node == nullptr) return std::nullopt;
  const std::string source = "config " + std::string(s.toml);
  if (auto text = node->value<std::string>()) return Sourced{*text, source};
  if (auto number = node->value<int64_t>()) return Sourced{std::to_string(*number), source};
  if (auto boolean = node->value<bool>()) return Sourced{*boolean ? "true" : "false", source};
  return std::nullopt;
}

// A list in the environment: the table's (plural) name first, then the one the general
// rule gives the flag (LICENSED_SIGNING_KEY); an empty one is not set.
std::optional<Sourced> list_env(const SettingSpec& s, const EnvLookup& env) {
  std::vector<std::string> names{std::string(s.env)};
  if (!s.flag.empty()) names.push_back(env_name_of_flag(s.flag));
  for (const auto& name : names) {
    if (auto v = env(name); v && !v->empty()) return Sourced{*v, name};
  }
  return std::nullopt;
}

// Comma-separated entries; blanks around an entry ("a=x, b=y") are the list's, and a
// trailing comma ends the list.
std::vector<std::string> split_list(std::string_view rest) {
  std::vector<std::string> out;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    out.emplace_back(trim_blanks(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
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
    RETURN_IF_ERROR(set_entries(c, s, *given, "--" + std::string(s.flag)));
    return true;
  }
  if (auto v = list_env(s, env)) {
    RETURN_IF_ERROR(set_entries(c, s, split_list(v->value), v->source));
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
  const auto picked = pick_scalar(s, flags, env, file);
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

// The file --config (or its variable) names; nullopt when none is named.
Result<std::optional<toml::table>> read_config_file(const ServeFlags& flags, const EnvLookup& env) {
  const auto path = pick_scalar(*find_setting("config"), flags, env, nullptr);
  if (!path) return std::optional<toml::table>();
  // toml++ reports parse errors by exception; this runs once, at start-up.
  try {
    return std::optional<toml::table>(toml::parse_file(path->value));
  } catch (const toml::parse_error& e) {
    return config_error("cannot read config " + path->value + ": " + std::string(e.description()));
  }
}

// A flag the table does not know can only come from a caller's typo (CLI11 refuses
// unknown flags before this).
Status check_flags_known(const ServeFlags& flags) {
  for (const auto& [flag, values] : flags.all()) {
    if (find_setting(flag) == nullptr) return config_error("no setting has the flag --" + flag);
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
