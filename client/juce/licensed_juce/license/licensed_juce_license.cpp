// The process's license state: answers of the SDK turned into words for the screen and
// one atomic word for the audio thread.
#include <system_error>
#include <thread>

#if JUCE_WINDOWS
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace licensed_juce {

const char* stateName(State s) {
  switch (s) {
    case State::checking:
      return "checking";
    case State::licensed:
      return "licensed";
    case State::trial:
      return "trial";
    case State::offline:
      return "offline";
    case State::notActivated:
      return "not-activated";
    case State::expired:
      return "expired";
    case State::refused:
      return "refused";
    case State::limitReached:
      return "limit-reached";
    case State::notConfirmed:
      return "not-confirmed";
    case State::misconfigured:
      return "misconfigured";
  }
  return "unknown";
}

namespace {

// An action's thread is detached (a host freeing the plugin must not wait for the
// network), so the code it runs must stay mapped after the host unloads the plugin:
// pin this library, as the SDK pins its own when it starts a thread.
void keepThisLibraryLoaded() {
  static std::once_flag once;
  std::call_once(once, [] {
#if JUCE_WINDOWS
    HMODULE self = nullptr;
    GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                       reinterpret_cast<LPCWSTR>(&keepThisLibraryLoaded), &self);
#else
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&keepThisLibraryLoaded), &info) != 0 &&
        info.dli_fname != nullptr) {
      (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    }
#endif
  });
}

const char* const kChecking = "Checking the license";

juce::String dateOf(int64_t unixSeconds) {
  return juce::Time(unixSeconds * 1000).formatted("%Y-%m-%d");
}

State stateOf(const license_client::Result& r) {
  switch (r.status()) {
    case LC_OK:
      if (r.trial()) return State::trial;
      return r.source() == LC_SOURCE_OFFLINE ? State::offline : State::licensed;
    case LC_LIMIT_REACHED:
      return State::limitReached;
    case LC_UNAVAILABLE:
      return State::notConfirmed;
    case LC_USAGE:
      return State::misconfigured;
    case LC_REFUSED:
      return State::refused;
    case LC_NOT_USABLE:
      break;
  }
  if (r.license_status() == std::optional<std::string>("EXPIRED")) return State::expired;
  // 1707, or a status answer (200 valid:false) whose license is fine: this machine.
  if (r.api_code() == 1707) return State::notActivated;
  if (r.api_code() == 0 && r.license_status().value_or("ACTIVE") == "ACTIVE") {
    return State::notActivated;
  }
  return State::refused;
}

juce::String headlineOf(State s, const Details& d) {
  switch (s) {
    case State::checking:
      return "Checking the license";
    case State::licensed:
      return d.source == "cache" && d.validUntil > 0
                 ? "Licensed (works offline until " + dateOf(d.validUntil) + ")"
                 : juce::String("Licensed");
    case State::trial:
      return "Trial: " + juce::String(d.trialDaysLeft) +
             (d.trialDaysLeft == 1 ? " day left" : " days left");
    case State::offline:
      return "Activated offline until " + dateOf(d.validUntil);
    case State::notActivated:
      return "Not activated on this computer";
    case State::expired:
      return "Expired";
    case State::refused:
      return "Refused: " + d.message;
    case State::limitReached:
      return "Activated on too many computers";
    case State::notConfirmed:
      return "Not confirmed: no answer from the license server";
    case State::misconfigured:
      return "The license settings are wrong";
  }
  return {};
}

bool mayRun(State s) {
  return s == State::licensed || s == State::trial || s == State::offline;
}

uint64_t packState(State s, int trialDaysLeft) {
  const auto days = static_cast<uint64_t>(juce::jlimit(0, 0xfffe, trialDaysLeft + 1));
  return static_cast<uint64_t>(s) | (uint64_t(mayRun(s)) << 8) |
         (uint64_t(s == State::trial) << 9) | (days << 16);
}

std::weak_ptr<License>& processLicense() {
  static std::weak_ptr<License> license;
  return license;
}

}  // namespace

// lc_options and the strings it points to, for a client made on any thread.
struct License::Options {
  std::string url, keyId, secret, publicKey, licenseKey, machineId, machineName, product, vendor,
      cacheDir, offlineDir;
  lc_options o = lc_options_init();

  void point() {
    const auto orNull = [](const std::string& s) { return s.empty() ? nullptr : s.c_str(); };
    o.url = url.c_str();
    o.key_id = keyId.c_str();
    o.secret = secret.c_str();
    o.license_key = orNull(licenseKey);
    o.machine_id = orNull(machineId);
    o.machine_name = orNull(machineName);
    o.public_key = orNull(publicKey);
    o.product = orNull(product);
    o.vendor = orNull(vendor);
    o.cache_dir = orNull(cacheDir);
    o.offline_dir = orNull(offlineDir);
  }
};

std::shared_ptr<License> License::shared(const Settings& settings) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<License> license = processLicense().lock();
  if (!license) {
    license = std::make_shared<License>(settings);
    processLicense() = license;
  }
  return license;
}

License::License(Settings settings) : settings_(std::move(settings)) {
  licenseKey_ = normaliseLicenseKey(settings_.licenseKey);
  if (licenseKey_.isEmpty() && settings_.keyFile.existsAsFile()) {
    licenseKey_ = normaliseLicenseKey(settings_.keyFile.loadFileAsString());
  }
  if (settings_.machineName.isEmpty()) {
    settings_.machineName = juce::SystemStats::getComputerName();
  }
  try {
    client_ = std::make_unique<license_client::Client>(options()->o);  // no network
  } catch (const std::exception& e) {
    publishFailure(State::misconfigured, e.what());
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    details_.machineId = client_->machine_id();
  }
  // What is known without the network: another instance's answer, an activation file,
  // or the cache. Nothing else happens here (JUCE's LV2 build step runs constructors).
  const license_client::Result known = client_->check_cached();
  if (known.status() != LC_UNAVAILABLE) publish(known);
}

License::~License() {
  // The check first: its callback, if running, is waited for (it only takes mu_).
  std::lock_guard<std::mutex> lock(clientMu_);
  startup_.reset();
  client_.reset();
}

std::unique_ptr<License::Options> License::options() const {
  auto o = std::make_unique<Options>();
  o->url = settings_.url.toStdString();
  o->keyId = settings_.keyId.toStdString();
  o->secret = settings_.secret.toStdString();
  o->publicKey = settings_.publicKey.toStdString();
  {
    std::lock_guard<std::mutex> lock(mu_);
    o->licenseKey = licenseKey_.toStdString();
  }
  o->machineId = settings_.machineId.toStdString();
  o->machineName = settings_.machineName.toStdString();
  o->product = settings_.product.toStdString();
  o->vendor = settings_.vendor.toStdString();
  o->cacheDir = settings_.cacheDir.toStdString();
  o->offlineDir = settings_.offlineDir.toStdString();
  o->o.timeout_ms = settings_.timeoutMs;
  o->o.startup_budget_ms = settings_.startupBudgetMs;
  o->point();
  return o;
}

Details License::details() const {
  std::lock_guard<std::mutex> lock(mu_);
  Details d = details_;
  d.licenseKey = licenseKey_;
  return d;
}

void License::publish(const license_client::Result& r, bool keepFileText) {
  const State s = stateOf(r);
  uint64_t entitlementBits = 0;
  for (int i = 0; i < juce::jmin(16, settings_.entitlements.size()); ++i) {
    const std::string code = settings_.entitlements[i].toStdString();
    if (r.has_entitlement(code)) entitlementBits |= uint64_t(1) << (32 + i);
    if (r.allowed_for_build(code, settings_.buildDate)) entitlementBits |= uint64_t(1) << (48 + i);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    // No answer is not a "no": it never replaces a yes already known.
    if (s == State::notConfirmed && mayRun(details_.state)) return;
    details_.state = s;
    details_.message = r.ok() ? juce::String() : juce::String(r.message());
    details_.dashboardUrl = r.dashboard_url().value_or("");
    details_.warning = r.warning().value_or("");
    details_.source = r.source_name();
    details_.validUntil = r.valid_until().value_or(0);
    details_.trialDaysLeft = r.trial() ? static_cast<int>(r.days_left().value_or(0)) : -1;
    details_.apiCode = r.api_code();
    if (!keepFileText) details_.fileText = {};
    details_.headline = headlineOf(s, details_);
    bits_.store(packState(s, details_.trialDaysLeft) | entitlementBits, std::memory_order_release);
  }
  sendChangeMessage();
}

void License::publishFailure(State state, const juce::String& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    details_.state = state;
    details_.message = message;
    details_.headline = headlineOf(state, details_);
    bits_.store(packState(state, -1), std::memory_order_release);
  }
  sendChangeMessage();
}

void License::setActionMessage(const juce::String& message, const juce::String& fileText) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    details_.actionMessage = message;
    if (fileText.isNotEmpty()) details_.fileText = fileText;
  }
  sendChangeMessage();
}

void License::start(bool activateWhenNotActivated) {
  std::lock_guard<std::mutex> lock(clientMu_);
  if (started_ || !client_) return;
  started_ = true;
  // No key yet (a first start, before the customer pasted one): nothing to ask the
  // server, which would refuse an empty key as malformed.
  if (details().licenseKey.isEmpty()) {
    if (audio().state() == State::checking) {
      publishFailure(State::notActivated,
                     "enter your license key and press Activate, or start a trial");
    }
    return;
  }
  {
    std::lock_guard<std::mutex> detailsLock(mu_);
    details_.busy = true;
    details_.busyWith = kChecking;
  }
  sendChangeMessage();
  // On the SDK's thread; destroying startup_ (cancel(), the destructor) waits for it.
  startup_ =
      client_->check_at_startup_async([this, activateWhenNotActivated](license_client::Result r) {
        {
          std::lock_guard<std::mutex> detailsLock(mu_);
          if (details_.busyWith == kChecking) details_.busy = false;
        }
        publish(r);
        const bool haveKey = [this] {
          std::lock_guard<std::mutex> detailsLock(mu_);
          return licenseKey_.isNotEmpty();
        }();
        if (activateWhenNotActivated && haveKey && stateOf(r) == State::notActivated) activate();
      });
  if (!startup_->started()) publishFailure(State::notConfirmed, "the check could not be started");
}

void License::runInBackground(const juce::String& what, Action action, Then then) {
  const std::shared_ptr<License> self = weak_from_this().lock();
  if (!self) return;  // being destroyed
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (details_.busy && details_.busyWith != kChecking) return;  // one at a time
    details_.busy = true;
    details_.busyWith = what;
    details_.actionMessage = {};
    generation = generation_;
  }
  sendChangeMessage();
  std::shared_ptr<Options> options = this->options();
  keepThisLibraryLoaded();
  try {
    std::thread([self, generation, options, action = std::move(action), then = std::move(then)] {
      std::optional<license_client::Result> r;
      juce::String failure;
      try {
        license_client::Client client(options->o);  // shares the process's SDK state
        r.emplace(action(client));
      } catch (const std::exception& e) {
        failure = e.what();
      }
      {
        std::lock_guard<std::mutex> lock(self->mu_);
        if (generation != self->generation_) return;  // cancelled: dropped
        self->details_.busy = false;
      }
      if (!r) {
        self->publishFailure(State::misconfigured, failure);
      } else if (then) {
        then(*self, *r);
      } else {
        self->publish(*r);
      }
    }).detach();
  } catch (const std::system_error&) {
    std::lock_guard<std::mutex> lock(mu_);
    details_.busy = false;
  }
}

void License::activate(const juce::String& pastedKey) {
  const juce::String key = normaliseLicenseKey(pastedKey);
  if (key.isNotEmpty() && key != details().licenseKey) useKey(key);
  runInBackground(
      "Activating", [](license_client::Client& c) { return c.activate(); },
      [](License& self, const license_client::Result& r) {
        self.publish(r);
        if (r.ok()) self.remember();
      });
}

void License::startTrial() {
  runInBackground(
      "Starting a trial", [](license_client::Client& c) { return c.start_trial(); },
      [](License& self, const license_client::Result& r) {
        if (r.license_key()) self.useKey(normaliseLicenseKey(*r.license_key()));
        self.publish(r);
        if (r.ok()) self.remember();
      });
}

void License::deactivate() {
  runInBackground(
      "Deactivating", [](license_client::Client& c) { return c.deactivate(); },
      [](License& self, const license_client::Result& r) {
        if (r.ok()) {
          self.publishFailure(State::notActivated, {});
          self.setActionMessage("This computer is deactivated: its slot is free.");
        } else {
          self.setActionMessage("Not deactivated: " + juce::String(r.message()));
        }
      });
}

void License::importActivationText(const juce::String& text) {
  const std::string armoured = text.toStdString();
  runInBackground(
      "Importing the activation",
      [armoured](license_client::Client& c) { return c.install_activation_text(armoured); },
      [](License& self, const license_client::Result& r) {
        if (r.ok()) {
          self.publish(r);
          self.setActionMessage("The activation file is installed.");
        } else {
          self.setActionMessage("Not imported: " + juce::String(r.message()));
        }
      });
}

void License::importActivationFile(const juce::File& file) {
  importActivationText(file.loadFileAsString());
}

void License::writeOfflineRequest(const juce::File& file) {
  runInBackground(
      "Writing the offline request", [](license_client::Client& c) { return c.offline_request(); },
      [file](License& self, const license_client::Result& r) {
        const juce::String text = r.file_text().value_or("");
        if (r.ok() && text.isNotEmpty() && file.replaceWithText(text)) {
          self.setActionMessage("The request is in " + file.getFullPathName() +
                                    ": send it from a computer that is online.",
                                text);
        } else {
          self.setActionMessage("No request written: " +
                                juce::String(r.ok() ? "the file cannot be written" : r.message()));
        }
      });
}

void License::cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++generation_;
    details_.busy = false;
    details_.actionMessage = "Cancelled.";
  }
  {
    std::lock_guard<std::mutex> lock(clientMu_);
    if (startup_) startup_->cancel();
  }
  sendChangeMessage();
}

void License::refreshFromCache() {
  std::optional<license_client::Result> known;
  {
    std::lock_guard<std::mutex> lock(clientMu_);
    if (client_) known.emplace(client_->check_cached());
  }
  if (known && known->ok()) publish(*known);  // a "yes" only: never a downgrade here
}

void License::useKey(const juce::String& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    licenseKey_ = key;
  }
  std::unique_ptr<Options> o = options();
  std::lock_guard<std::mutex> lock(clientMu_);
  startup_.reset();  // its answer was about the old key
  try {
    client_ = std::make_unique<license_client::Client>(o->o);
  } catch (const std::exception&) {
    client_.reset();  // the action's own client reports why
  }
}

void License::remember() {
  const juce::String key = details().licenseKey;
  if (settings_.keyFile != juce::File() && key.isNotEmpty()) {
    settings_.keyFile.getParentDirectory().createDirectory();
    settings_.keyFile.replaceWithText(key);
  }
}

}  // namespace licensed_juce
