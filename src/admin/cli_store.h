// What every `licensed admin` command group does around its work: report a failure the one
// way (cli_status.h's text and exit code) and open the --store it was given.
#pragma once

#include <iostream>
#include <string>

#include "admin/cli_status.h"
#include "store/store.h"

namespace licensed::admin_cli {

inline int report(const Error& e) {
  std::cerr << "licensed admin: " << cli_error_text(e) << "\n";
  return exit_code_of(e.code, CliStage::kRunning);
}

// Runs `fn(store)` on the store `url` names; a store that does not open is reported.
template <class Fn>
int with_store(const std::string& url, Fn&& fn) {
  auto store = open_store(url);
  if (!store.ok()) {
    std::cerr << "licensed admin: " << store.error().message << "\n";
    return exit_code_of(store.error().code, CliStage::kRunning);
  }
  return fn(*store.value());
}

}  // namespace licensed::admin_cli
