// The same host in C++ through the header-only wrapper: activate, then the start-up check.
#include <cstdlib>
#include <iostream>

#include "license_client/license_client.hpp"

int main() {
  lc_options options = lc_options_init();
  options.url = std::getenv("LICENSE_SERVER_URL");
  options.key_id = std::getenv("LICENSE_KEY_ID");
  options.secret = std::getenv("LICENSE_SECRET");
  options.license_key = std::getenv("LICENSE_KEY");
  options.machine_id = std::getenv("LICENSE_MACHINE_ID");
  options.public_key = std::getenv("LICENSE_PUBLIC_KEY");
  try {
    license_client::Client client(options);
    const license_client::Result activated = client.activate();
    std::cout << "activate: " << activated.status() << " " << activated.body() << "\n";
    if (!activated.ok()) return activated.status();
    const license_client::Result startup = client.check_at_startup();
    std::cout << "startup: " << startup.status() << " valid=" << startup.valid()
              << " source=" << (startup.source() == LC_SOURCE_CACHE ? "cache" : "network") << "\n";
    return startup.status();
  } catch (const std::exception& e) {
    std::cerr << "example_host_cpp: " << e.what() << "\n";
    return LC_USAGE;
  }
}
