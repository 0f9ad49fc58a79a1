// The vendor the customer dashboard shows (--dashboard-brand, docs/dashboard.md): its
// name and support link, told to the page by GET /dashboard/api/brand, and its logo, read
// once at start-up and served at /dashboard/brand-logo from this origin, which the pages'
// CSP (img-src 'self') allows.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "core/result.h"

namespace licensed {

struct DashboardBrandAssets {
  std::string name;         // empty: the page's own "Licenses"
  std::string support_url;  // empty: no support link
  std::string logo;         // the file's bytes; empty: no logo
  std::string logo_type;    // its Content-Type
};

inline constexpr size_t kMaxBrandLogoBytes = 256 * 1024;

// The brand with its logo file read (`logo_file` empty: none). Errors (invalid argument,
// naming the file): unreadable, larger than kMaxBrandLogoBytes, or not .svg, .png, .jpg,
// .jpeg or .webp.
Result<DashboardBrandAssets> load_dashboard_brand(std::string name, const std::string& logo_file,
                                                  std::string support_url);

// {"name": ... | null, "logo": "/dashboard/brand-logo" | null, "support": ... | null}.
boost::json::object brand_json(const DashboardBrandAssets& brand);

}  // namespace licensed
