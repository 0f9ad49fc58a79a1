// The operator's documents written from the settings table, so that they cannot drift
// from it: docs/configuration.md (every setting, its spellings, default and whether
// SIGHUP reloads it) and deploy/licensed.toml (the example config the Debian package
// installs, every setting commented out at its default). A unit test compares the
// checked-in files with these; scripts/generate-config-docs.sh rewrites them.
#pragma once

#include <string>

namespace licensed {

std::string configuration_markdown();
std::string example_config_toml();

}  // namespace licensed
