// The variables the JUCE example reads, as licensectl reads them (LICENSE_*), for a plugin
// whose cache and activation files live under `dir`: the one environment both JUCE test
// files start the example with, before adding their own.
#pragma once

#include <filesystem>
#include <string>

#include "support/fixture.h"
#include "support/process.h"

namespace bb {

inline EnvVars JucePluginEnv(const std::string& url, const std::string& license,
                             const std::string& machine_id, const std::string& public_key,
                             const std::filesystem::path& dir) {
  return {{"LICENSE_SERVER_URL", url},
          {"LICENSE_KEY_ID", kPluginKey.id},
          {"LICENSE_SECRET", kPluginKey.secret},
          {"LICENSE_KEY", license},
          {"LICENSE_MACHINE_ID", machine_id},
          {"LICENSE_PUBLIC_KEY", public_key},
          {"LICENSE_CACHE_DIR", (dir / "cache").string()},
          {"LICENSE_OFFLINE_DIR", (dir / "offline").string()},
          {"HOME", dir.string()}};
}

}  // namespace bb
