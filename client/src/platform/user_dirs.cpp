#include "platform/user_dirs.h"

#include <cstdlib>

namespace licensed::client {

namespace {

#if defined(_WIN32)
// A user name need not be ASCII: the variable is read as UTF-16, never through the ANSI
// code page.
std::filesystem::path path_from_environment(const wchar_t* name) {
  const wchar_t* value = _wgetenv(name);
  if (value == nullptr || *value == L'\0') return {};
  return std::filesystem::path(value);
}
#else
std::filesystem::path path_from_environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return {};
  return std::filesystem::path(value);
}
#endif

}  // namespace

std::filesystem::path path_from_utf8(std::string_view utf8) {
#if defined(__cpp_char8_t)
  return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
#else
  return std::filesystem::u8path(utf8.begin(), utf8.end());
#endif
}

std::filesystem::path default_cache_dir(std::string_view folder) {
  const std::filesystem::path name = path_from_utf8(folder);
#if defined(_WIN32)
  const auto local = path_from_environment(L"LOCALAPPDATA");
  if (local.is_absolute()) return local / name;
#elif defined(__APPLE__)
  const auto home = path_from_environment("HOME");
  if (!home.empty()) return home / "Library" / "Caches" / name;
#else
  // The XDG spec: a relative path in XDG_CACHE_HOME is invalid and is to be ignored.
  const auto xdg = path_from_environment("XDG_CACHE_HOME");
  if (xdg.is_absolute()) return xdg / name;
  const auto home = path_from_environment("HOME");
  if (!home.empty()) return home / ".cache" / name;
#endif
  return {};
}

std::vector<std::filesystem::path> machine_file_dirs(std::string_view folder) {
  const std::filesystem::path name = path_from_utf8(folder);
  std::vector<std::filesystem::path> out;
#if defined(_WIN32)
  const auto program_data = path_from_environment(L"PROGRAMDATA");
  if (program_data.is_absolute()) out.push_back(program_data / name);
#elif defined(__APPLE__)
  out.push_back(std::filesystem::path("/Library/Application Support") / name);
  const auto home = path_from_environment("HOME");
  if (home.is_absolute()) out.push_back(home / "Library" / "Application Support" / name);
#else
  out.push_back(std::filesystem::path("/var/lib") / name);
  const auto xdg = path_from_environment("XDG_DATA_HOME");
  const auto home = path_from_environment("HOME");
  if (xdg.is_absolute()) {
    out.push_back(xdg / name);
  } else if (home.is_absolute()) {
    out.push_back(home / ".local" / "share" / name);
  }
#endif
  return out;
}

}  // namespace licensed::client
