#include "dashboard/brand.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace licensed {
namespace {

std::string logo_type_of(const std::string& file) {
  const auto ends = [&](std::string_view ext) { return file.ends_with(ext); };
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".jpg") || ends(".jpeg")) return "image/jpeg";
  if (ends(".webp")) return "image/webp";
  return "";
}

boost::json::value or_null(const std::string& s) {
  return s.empty() ? boost::json::value(nullptr) : boost::json::value(s);
}

}  // namespace

Result<DashboardBrandAssets> load_dashboard_brand(std::string name, const std::string& logo_file,
                                                  std::string support_url) {
  DashboardBrandAssets brand{std::move(name), std::move(support_url), "", ""};
  if (logo_file.empty()) return brand;
  brand.logo_type = logo_type_of(logo_file);
  if (brand.logo_type.empty()) {
    return Error::invalid_argument("config", "dashboard brand logo " + logo_file +
                                                 ": expected a .svg, .png, .jpg or .webp file");
  }
  std::ifstream in(logo_file, std::ios::binary);
  if (!in)
    return Error::invalid_argument("config", "cannot read dashboard brand logo " + logo_file);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  brand.logo = std::move(bytes).str();
  if (brand.logo.empty() || brand.logo.size() > kMaxBrandLogoBytes) {
    return Error::invalid_argument(
        "config", "dashboard brand logo " + logo_file + ": expected 1 byte to 256 KiB");
  }
  return brand;
}

boost::json::object brand_json(const DashboardBrandAssets& brand) {
  return {{"name", or_null(brand.name)},
          {"logo", brand.logo.empty() ? boost::json::value(nullptr)
                                      : boost::json::value("/dashboard/brand-logo")},
          {"support", or_null(brand.support_url)}};
}

}  // namespace licensed
