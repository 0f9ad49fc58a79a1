// licensectl: the license client for CI pipelines and scripts (docs/protocol.md §16).
#include "licensectl.h"

#if defined(_WIN32)
#include <windows.h>

#include <string>
#include <vector>

// Windows hands a console program its arguments in UTF-16; the ANSI argv of main() would
// lose what the code page cannot hold (a machine name with accents). They are passed on
// as UTF-8, the SDK's encoding. Linked with -municode.
int wmain(int argc, wchar_t** argv) {
  std::vector<std::string> utf8;
  for (int i = 0; i < argc; ++i) {
    const int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, nullptr, 0, nullptr, nullptr);
    std::string arg(static_cast<size_t>(n > 0 ? n - 1 : 0), '\0');
    if (n > 1) WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, arg.data(), n, nullptr, nullptr);
    utf8.push_back(std::move(arg));
  }
  std::vector<char*> pointers;
  for (std::string& arg : utf8) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  return licensed::client::run_licensectl(argc, pointers.data());
}
#else
int main(int argc, char** argv) {
  return licensed::client::run_licensectl(argc, argv);
}
#endif
