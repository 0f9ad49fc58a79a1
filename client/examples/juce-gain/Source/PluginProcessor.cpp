// The example plugin: a gain, licensed through licensed_juce (docs/juce.md).
#include "PluginProcessor.h"

#include <iostream>

#include "PluginEditor.h"

namespace {

// ======================= THE LICENSE POLICY (the one place to change) ====================
namespace policy {
// Activate in the background once the host has prepared the plugin, when a license key
// is given and the start-up check finds this computer not activated.
constexpr bool kActivateWhenNotActivated = true;
// Whether this block is processed. The example processes audio whatever the license
// says, so a license lost (or not yet confirmed) never silences audio that is playing;
// its editor shows the state. A vendor who gates audio does it here, reading only the
// lock-free view (never the network, never a lock), and only until the instance first
// passes audio.
inline bool processesAudio(licensed_juce::AudioView /*license*/) {
  return true;
}
// The server, the key id, the secret and the pinned public key: a shipped plugin
// compiles them in here; the LICENSE_* variables (as licensectl reads them) and
// LICENSE_CACHE_DIR override them for tests.
licensed_juce::Settings settings() {
  licensed_juce::Settings s;
  s.vendor = "juce-gain-example";
  s.entitlements = {"pro"};
  s.buildDate = 1767225600;  // this build's release date: 2026-01-01
  s = s.withEnvironment();
  s.product = juce::SystemStats::getEnvironmentVariable("LICENSE_PRODUCT", s.product);
  const juce::File base =
      s.cacheDir.isNotEmpty()
          ? juce::File(s.cacheDir)
          : juce::File::getSpecialLocation(juce::File::userApplicationDataDirectory)
                .getChildFile("JuceGainExample");
  s.keyFile = base.getChildFile("license-key");
  return s;
}
}  // namespace policy
// ==========================================================================================

// Set LICENSED_JUCE_TRACE=1 to have every state change written to stderr (the tests
// read it; so can a vendor's support).
bool tracing() {
  static const bool on =
      juce::SystemStats::getEnvironmentVariable("LICENSED_JUCE_TRACE", {}) == "1";
  return on;
}

}  // namespace

JuceGainProcessor::JuceGainProcessor()
    : AudioProcessor(BusesProperties()
                         .withInput("Input", juce::AudioChannelSet::stereo(), true)
                         .withOutput("Output", juce::AudioChannelSet::stereo(), true)),
      // The process's one license state: no network here (a host's scan and JUCE's LV2
      // build step run this constructor).
      license_(licensed_juce::License::shared(policy::settings())) {
  addParameter(gain_ = new juce::AudioParameterFloat(juce::ParameterID{"gain", 1}, "Gain", 0.0f,
                                                     1.0f, 0.5f));
  license_->addChangeListener(this);
  if (tracing()) {
    std::cerr << "licensed_juce: constructed, state "
              << licensed_juce::stateName(license_->audio().state())
              << " at=" << juce::String(juce::Time::getMillisecondCounterHiRes(), 3) << std::endl;
  }
}

JuceGainProcessor::~JuceGainProcessor() {
  license_->removeChangeListener(this);
}

void JuceGainProcessor::prepareToPlay(double, int) {
  // The host prepared the plugin: the start-up check (and, by the policy, the
  // activation) begins in the background. Once per process; nothing here waits.
  startLicenseCheck();
}

void JuceGainProcessor::startLicenseCheck() {
  license_->start(policy::kActivateWhenNotActivated);
}

bool JuceGainProcessor::isBusesLayoutSupported(const BusesLayout& layouts) const {
  return layouts.getMainOutputChannelSet() == layouts.getMainInputChannelSet() &&
         !layouts.getMainInputChannelSet().isDisabled();
}

void JuceGainProcessor::processBlock(juce::AudioBuffer<float>& buffer, juce::MidiBuffer&) {
  juce::ScopedNoDenormals noDenormals;
  if (!policy::processesAudio(license_->audio())) return;  // dry, never silence
  buffer.applyGain(gain_->get());
}

juce::AudioProcessorEditor* JuceGainProcessor::createEditor() {
  return new JuceGainEditor(*this);
}

void JuceGainProcessor::changeListenerCallback(juce::ChangeBroadcaster*) {
  if (!tracing()) return;
  const licensed_juce::Details d = license_->details();
  std::cerr << "licensed_juce: state " << licensed_juce::stateName(d.state)
            << (d.busy ? " (busy: " + d.busyWith + ")" : juce::String()) << ": " << d.headline
            << " [source " << d.source
            << "] at=" << juce::String(juce::Time::getMillisecondCounterHiRes(), 3) << std::endl;
}

juce::AudioProcessor* JUCE_CALLTYPE createPluginFilter() {
  return new JuceGainProcessor();
}
