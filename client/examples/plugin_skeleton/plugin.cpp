// A plugin skeleton that uses the license SDK the way docs/sdk.md describes, behind the
// made-up interface of plugin_api.h (a real plugin has the same three places: the
// constructor, the audio callback and the editor):
//
// - The constructor (plugin_create, also run by a host's plugin scan) asks the SDK only
//   what is known without the network: check_cached(). It never waits.
// - The start-up check runs on the SDK's own thread (check_at_startup_async); its answer
//   reaches the audio thread through a std::atomic and the editor through a mutex that
//   the audio thread never takes.
// - The editor's Activate button starts the activation on a thread of its own and
//   returns at once; the editor shows a spinner while plugin_editor_busy() says 1.
// - plugin_destroy frees the client without waiting for the network.
//
// The audio policy, and why: audio always passes. A licensed instance applies its effect
// (a -6 dB gain stands in for the plugin's real processing); an instance that has not
// seen a "yes" passes the dry signal unchanged (bypass), and its editor says why and
// offers Activate. Once the effect is on, it stays on for the life of the instance,
// whatever the license answers later. Not silence, because:
// - the host may call process() before the start-up check has answered (a session
//   loading on stage), so silence at load would depend on how fast the network was;
// - a "no" learned later (a background refresh, a cache that ran out) must never cut
//   audio that is playing: it is for the next check and for new instances;
// - a bypassed plugin leaves the mix playable when the license cannot be checked
//   (offline on the first start), while the editor tells the user what to do.
// A vendor who wants silence for a never-licensed instance can gate on the same atomic,
// but only until the instance first passes audio, never after.
//
// Settings come from licensectl's variables (LICENSE_SERVER_URL, LICENSE_KEY_ID,
// LICENSE_SECRET, LICENSE_KEY, LICENSE_MACHINE_ID, LICENSE_PUBLIC_KEY). A real plugin
// compiles in the URL, key id, secret and public key, and keeps the license key the user
// typed into its editor in its own preferences.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "license_client/license_client.hpp"
#include "plugin_api.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#include <unistd.h>
#endif

namespace {

constexpr float kGain = 0.5F;  // the "effect"

// What the audio thread reads, once per block: a lock-free atomic, never a lock.
enum License : int { kChecking = 0, kLicensed = 1, kNotLicensed = 2 };
static_assert(std::atomic<int>::is_always_lock_free, "the audio thread must never wait");

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The name the vendor's admin and the customer's dashboard show for this machine: the
// host name tells two machines apart (and shows a cloned VM image, whose machine id is
// the same on every clone, as one id under two names).
std::string host_name() {
#if defined(_WIN32)
  char name[MAX_COMPUTERNAME_LENGTH + 1] = {0};
  DWORD size = sizeof(name);
  return GetComputerNameA(name, &size) ? std::string(name, size) : "";
#else
  char name[256] = {0};
  return gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : "";
#endif
}

// The options, with strings that outlive every client made from them.
struct Settings {
  std::string url = env("LICENSE_SERVER_URL");
  std::string key_id = env("LICENSE_KEY_ID");
  std::string secret = env("LICENSE_SECRET");
  std::string license_key = env("LICENSE_KEY");
  std::string machine_id = env("LICENSE_MACHINE_ID");  // empty: derived by the SDK
  std::string machine_name = host_name();
  std::string public_key = env("LICENSE_PUBLIC_KEY");

  lc_options options() const {
    const auto or_null = [](const std::string& s) { return s.empty() ? nullptr : s.c_str(); };
    lc_options o = lc_options_init();
    o.url = url.c_str();
    o.key_id = key_id.c_str();
    o.secret = secret.c_str();
    o.license_key = license_key.c_str();
    o.machine_id = or_null(machine_id);
    o.machine_name = or_null(machine_name);
    o.public_key = or_null(public_key);
    return o;
  }
};

// The activation thread is detached (plugin_destroy must not wait for it), so the code it
// runs must stay mapped after the host unloads this library: pin it, as the SDK pins
// its own library once it starts a thread.
void keep_this_library_loaded() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(_WIN32)
    HMODULE self = nullptr;
    GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                       reinterpret_cast<LPCWSTR>(&keep_this_library_loaded), &self);
#else
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&keep_this_library_loaded), &info) != 0 &&
        info.dli_fname != nullptr) {
      (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    }
#endif
  });
}

std::string utc_time(int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char text[32] = {0};
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

const char* headline_of(const license_client::Result& r) {
  if (r.ok()) return "licensed";
  // No answer (offline, the server busy, the budget spent) is not a "no".
  if (r.status() == LC_UNAVAILABLE) return "not confirmed";
  return "not licensed";
}

// What the plugin instance shares with the SDK's callback thread and its own activation
// thread: each holds it by shared_ptr, so it outlives a plugin destroyed meanwhile.
struct Shared {
  const Settings settings{};
  std::atomic<int> license{kChecking};  // read by the audio thread
  std::atomic<bool> busy{false};        // a check or an activation is running
  std::mutex mu;                        // the editor's texts; never taken on the audio thread
  std::string loaded;                   // what the constructor knew (cache only)
  std::string headline = "checking";    // "licensed", "not licensed", "not confirmed"
  std::string answer;                   // the latest answer, as the editor shows it
  std::string why;                      // its message, when it is not a "yes"

  // An answer (of the start-up check or of an activation) for the editor and the audio.
  void publish(const license_client::Result& r, const char* from) {
    std::ostringstream line;
    line << from << ": " << r.source_name() << ", status " << r.status();
    if (const auto until = r.valid_until()) line << ", valid offline until " << utc_time(*until);
    {
      std::lock_guard<std::mutex> lock(mu);
      headline = headline_of(r);
      answer = line.str();
      why = r.ok() ? "" : r.message();
    }
    license.store(r.ok() ? kLicensed : kNotLicensed);
  }

  void fail(const std::string& text) {
    {
      std::lock_guard<std::mutex> lock(mu);
      headline = "not licensed";
      why = text;
    }
    license.store(kNotLicensed);
  }

  // On the activation thread. Its own client, made from the same options, so it shares
  // this process's license state; it is freed here, when the activation has answered
  // (within timeout_ms). plugin_destroy never frees a client another thread is about to
  // call into: lc_client_free makes calls already blocked return, but a call that starts
  // after it would use a freed client.
  void activate_now() {
    try {
      license_client::Client client(settings.options());
      publish(client.activate(), "activation");
    } catch (const std::exception& e) {
      fail(std::string("the license settings are wrong: ") + e.what());
    }
    busy.store(false);
  }
};

}  // namespace

struct plugin {
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  std::optional<license_client::Client> client;   // empty when the settings are wrong
  std::unique_ptr<license_client::Call> startup;  // destroyed before `client`
  std::string machine_id;
  bool effect_on = false;                        // the audio thread's own: once on, on for good
  std::chrono::steady_clock::time_point looked;  // the editor's last check_cached()
};

extern "C" {

plugin* plugin_create(void) {
  try {
    auto p = std::make_unique<plugin>();
    Shared& s = *p->shared;
    try {
      p->client.emplace(s.settings.options());  // no network: safe in a constructor
    } catch (const std::exception& e) {
      // A plugin with wrong license settings still loads (a failed scan hides it from
      // the user, who then cannot read why): it runs bypassed and its editor says why.
      s.fail(std::string("the license settings are wrong: ") + e.what());
      return p.release();
    }
    p->machine_id = p->client->machine_id();
    // What is known without the network: the process's answer or the cache, at once.
    const license_client::Result known = p->client->check_cached();
    {
      std::ostringstream line;
      line << "status=" << known.status() << " source=" << known.source_name();
      if (!known.ok()) line << " error=" << known.error();
      std::lock_guard<std::mutex> lock(s.mu);
      s.loaded = line.str();
    }
    if (known.ok()) s.publish(known, "at load");
    // The start-up check on the SDK's thread. A cached "yes" answers it at once (and the
    // SDK refreshes it in the background); without one, it asks the server.
    s.busy.store(true);
    std::weak_ptr<Shared> weak = p->shared;
    p->startup = p->client->check_at_startup_async([weak](license_client::Result r) {
      // On the SDK's thread: quick, and never waits for the thread that frees the client.
      if (auto shared = weak.lock()) {
        shared->publish(r, "start-up check");
        shared->busy.store(false);
      }
    });
    if (!p->startup->started()) {
      s.fail("the license check could not be started");
      s.busy.store(false);
    }
    return p.release();
  } catch (...) {
    return nullptr;  // out of memory: no exception crosses the plugin's C interface
  }
}

void plugin_process(plugin* p, float* samples, int n) {
  if (p == nullptr || samples == nullptr) return;
  if (!p->effect_on && p->shared->license.load() == kLicensed) p->effect_on = true;
  if (!p->effect_on) return;  // bypass: the dry signal passes unchanged
  for (int i = 0; i < n; ++i) samples[i] *= kGain;
}

size_t plugin_editor_text(plugin* p, char* buffer, size_t size) {
  if (p == nullptr) return 0;
  Shared& s = *p->shared;
  // A start-up check that ran out of budget (offline at load) goes on in the SDK's
  // background, and its answer serves the next check: while not licensed, the editor
  // looks again now and then, from the cache and the process's answer only.
  const auto now = std::chrono::steady_clock::now();
  if (p->client && s.license.load() != kLicensed && !s.busy.load() &&
      now - p->looked >= std::chrono::seconds(2)) {
    p->looked = now;
    const license_client::Result known = p->client->check_cached();
    if (known.ok()) s.publish(known, "looked again");  // a "yes" only: never a downgrade
  }
  std::ostringstream text;
  const bool licensed = s.license.load() == kLicensed;
  const bool busy = s.busy.load();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    text << "License: " << s.headline << (busy ? " (checking...)" : "") << "\n";
    if (!s.why.empty()) text << "Why: " << s.why << "\n";
    if (!s.answer.empty()) text << "Answer: " << s.answer << "\n";
    if (!licensed && !busy && p->client) text << "[ Activate ]\n";
    text << "At load (cache only, no network): " << s.loaded << "\n";
  }
  text << "Machine: " << p->machine_id << "\n";
  const std::string out = text.str();
  if (buffer != nullptr && size > 0) {
    const size_t n = out.size() < size ? out.size() : size - 1;
    std::memcpy(buffer, out.data(), n);
    buffer[n] = '\0';
  }
  return out.size();
}

int plugin_editor_busy(plugin* p) {
  return p != nullptr && p->shared->busy.load() ? 1 : 0;
}

void plugin_activate(plugin* p) {
  if (p == nullptr || !p->client) return;
  bool idle = false;
  if (!p->shared->busy.compare_exchange_strong(idle, true)) return;  // the button is grey
  keep_this_library_loaded();
  try {
    std::thread([shared = p->shared] { shared->activate_now(); }).detach();
  } catch (const std::system_error&) {
    p->shared->fail("the activation could not be started");
    p->shared->busy.store(false);
  }
}

void plugin_destroy(plugin* p) {
  // `startup` goes first: its check is cancelled (its callback, if running, is waited
  // for: it only takes the editor's mutex), then the client is freed, which returns at
  // once whatever the network does. An activation still running keeps its own client
  // and its Shared, and ends within its timeout.
  delete p;
}

}  // extern "C"
