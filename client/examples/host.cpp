// The same host in C++ through the header-only wrapper, laid out as a plugin uses the
// SDK: the constructor reads only what is known without the network, activation runs
// on demand, and the start-up check runs off the UI and audio threads, its answer
// delivered to a callback.
#include <cstdlib>
#include <future>
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
    // The plugin's constructor (and a host's plugin scan): no network, no wait.
    const license_client::Result known = client.check_cached();
    std::cout << "constructor: " << known.status() << " " << known.error() << ": "
              << known.message() << "\n";
    const license_client::Result activated = client.activate();
    std::cout << "activate: " << activated.status() << " " << activated.body() << "\n";
    if (!activated.ok()) return activated.status();
    // The start-up check on the SDK's thread; the callback hands its answer over.
    std::promise<license_client::Result> answered;
    const auto call = client.check_at_startup_async(
        [&answered](license_client::Result r) { answered.set_value(std::move(r)); });
    const license_client::Result startup = answered.get_future().get();
    std::cout << "startup: " << startup.status() << " valid=" << startup.valid()
              << " source=" << startup.source_name()
              << " valid_until=" << startup.valid_until().value_or(0) << "\n";
    return startup.status();
  } catch (const std::exception& e) {
    std::cerr << "example_host_cpp: " << e.what() << "\n";
    return LC_USAGE;
  }
}
