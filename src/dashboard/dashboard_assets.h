// The dashboard's pages, styles and scripts (src/dashboard/assets/), embedded in the
// binary by the build (scripts/embed_files.py): nothing is read from disk or fetched
// at run time.
#pragma once

#include <optional>
#include <string_view>

namespace licensed {

struct EmbeddedFile {
  std::string_view bytes;
  std::string_view content_type;
};

// The asset of that file name ("customer.html", "app.css", ...), or nullopt.
std::optional<EmbeddedFile> dashboard_asset(std::string_view name);

}  // namespace licensed
