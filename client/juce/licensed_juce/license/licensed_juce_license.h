// One license state per process, shared by every plugin instance (License::shared).
//
// Threads: the constructor and shared() make no network call (the SDK's lc_check_cached
// only). start(), activate(), startTrial(), deactivate() and the offline calls return at
// once and run on the SDK's thread or a thread of their own; their answers reach
// listeners on the message thread (sendChangeMessage). audio() is for the audio thread:
// one atomic load, no lock, no allocation. details() takes a mutex the audio thread
// never takes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "license_client/license_client.hpp"
#include "licensed_juce_settings.h"

namespace licensed_juce {

// What the plugin knows about its license, in the words the screen shows.
enum class State : uint8_t {
  checking = 0,  // nothing known yet; the start-up check has not answered
  licensed,      // the server's (or its signed, cached) yes
  trial,         // a running trial: daysLeft() days left
  offline,       // activated through an activation file, until validUntil
  notActivated,  // this computer is not activated (yet)
  expired,       // the license (or the trial) has expired
  refused,       // the server said no: suspended, revoked, unknown key (see message)
  limitReached,  // activated on as many computers as it allows (1705): free a slot
  notConfirmed,  // no answer: offline, the server busy or unreachable. Not a "no".
  misconfigured  // the plugin's license settings are wrong (see message)
};

const char* stateName(State s);  // "licensed", "trial", ... (stable: tests read them)

// What the audio thread reads: a copy of one 64-bit word. Registered entitlement i is
// Settings::entitlements[i].
class AudioView {
 public:
  constexpr AudioView() = default;
  constexpr explicit AudioView(uint64_t bits) : bits_(bits) {}
  State state() const noexcept { return static_cast<State>(bits_ & 0xff); }
  // Licensed, a running trial, or activated offline.
  bool mayRun() const noexcept { return (bits_ >> 8) & 1; }
  bool isTrial() const noexcept { return (bits_ >> 9) & 1; }
  // A trial's whole days left; -1 when not a trial.
  int trialDaysLeft() const noexcept { return static_cast<int>((bits_ >> 16) & 0xffff) - 1; }
  bool hasEntitlement(int i) const noexcept { return bit(32, i); }
  // The entitlement covers this build (Settings::buildDate): see lc_result_allowed_for_build.
  bool allowedForBuild(int i) const noexcept { return bit(48, i); }
  uint64_t bits() const noexcept { return bits_; }

 private:
  bool bit(int base, int i) const noexcept {
    return i >= 0 && i < 16 && ((bits_ >> (base + i)) & 1);
  }
  uint64_t bits_ = 0;
};

// What the message thread shows: the whole answer, in words.
struct Details {
  State state = State::checking;
  juce::String headline;      // "Licensed", "Trial: 12 days left", ...
  juce::String message;       // the SDK's sentence for the user ("" for a yes)
  juce::String dashboardUrl;  // for limitReached: where to free a slot
  juce::String warning;       // e.g. an offline activation ending soon
  juce::String source;        // "network", "cache", "offline", "none"
  juce::String licenseKey;    // the key in use ("" when none)
  juce::String machineId;
  juce::String fileText;       // the request or deactivation file the last action wrote
  juce::String actionMessage;  // how the last action (import, deactivate, ...) ended
  int64_t validUntil = 0;      // Unix seconds it serves offline until; 0: none
  int trialDaysLeft = -1;
  bool busy = false;      // an action runs: show progress, offer cancel
  juce::String busyWith;  // "Checking the license", "Activating", ...
  int apiCode = 0;
};

class License : public juce::ChangeBroadcaster, public std::enable_shared_from_this<License> {
 public:
  // The process's License: made from `settings` by the first caller; later callers get
  // the same one while any instance holds it. No network.
  static std::shared_ptr<License> shared(const Settings& settings);

  explicit License(Settings settings);
  ~License() override;
  License(const License&) = delete;
  License& operator=(const License&) = delete;

  // Audio thread: lock-free, allocation-free.
  AudioView audio() const noexcept { return AudioView(bits_.load(std::memory_order_acquire)); }
  static_assert(std::atomic<uint64_t>::is_always_lock_free, "the audio thread must never wait");

  // Any thread but the audio thread.
  Details details() const;
  const Settings& settings() const { return settings_; }

  // The start-up check, once per License (later calls do nothing): cache first, then
  // the server within the SDK's budget, on the SDK's thread. When it finds this computer
  // not activated and a license key is set, it activates in the background if
  // activateWhenNotActivated (the vendor's policy) is true.
  void start(bool activateWhenNotActivated);

  // The editor's actions, each in the background (cancel() stops waiting for it).
  void activate(const juce::String& pastedKey = {});
  void startTrial();
  void deactivate();
  void importActivationFile(const juce::File& file);
  void importActivationText(const juce::String& text);
  void writeOfflineRequest(const juce::File& file);
  // Stops waiting for the running action: the screen is free again at once. A request
  // already sent may still take effect on the server; the state then shows it.
  void cancel();
  // Reads what is known again, without the network (the editor's timer).
  void refreshFromCache();

 private:
  struct Options;  // lc_options with the strings it points to
  using Action = std::function<license_client::Result(license_client::Client&)>;
  using Then = std::function<void(License&, const license_client::Result&)>;
  std::unique_ptr<Options> options() const;
  void publish(const license_client::Result& r, bool keepFileText = false);
  void publishFailure(State state, const juce::String& message);
  void setActionMessage(const juce::String& message, const juce::String& fileText = {});
  // One action at a time, on a detached thread with a client of its own (made from the
  // same options, so it shares the process's SDK state); `then` gets its answer.
  void runInBackground(const juce::String& what, Action action, Then then);
  // A new license key: a new client for the checks (the old start-up check cancelled).
  void useKey(const juce::String& key);
  void remember();  // the key in use, into Settings::keyFile

  Settings settings_;
  std::atomic<uint64_t> bits_{0};
  mutable std::mutex mu_;  // never taken on the audio thread
  Details details_;
  juce::String licenseKey_;  // guarded by mu_
  uint64_t generation_ = 0;  // guarded by mu_: bumped by cancel(), so late answers are dropped
  std::mutex clientMu_;      // client_ and startup_; never held while waiting for mu_'s holders
  std::unique_ptr<license_client::Client> client_;
  std::unique_ptr<license_client::Call> startup_;  // destroyed before client_
  bool started_ = false;
};

}  // namespace licensed_juce
