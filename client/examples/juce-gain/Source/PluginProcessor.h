// The example's processor: a gain (parameter "gain", 0.5 by default) licensed through
// licensed_juce. The license policy sits in one marked place, PluginProcessor.cpp.
#pragma once

#include <JuceHeader.h>

class JuceGainProcessor : public juce::AudioProcessor, private juce::ChangeListener {
 public:
  JuceGainProcessor();
  ~JuceGainProcessor() override;

  void prepareToPlay(double sampleRate, int samplesPerBlock) override;
  void releaseResources() override {}
  bool isBusesLayoutSupported(const BusesLayout& layouts) const override;
  void processBlock(juce::AudioBuffer<float>&, juce::MidiBuffer&) override;

  juce::AudioProcessorEditor* createEditor() override;
  bool hasEditor() const override { return true; }
  const juce::String getName() const override { return "JuceGain"; }
  bool acceptsMidi() const override { return false; }
  bool producesMidi() const override { return false; }
  bool isMidiEffect() const override { return false; }
  double getTailLengthSeconds() const override { return 0.0; }
  int getNumPrograms() override { return 1; }
  int getCurrentProgram() override { return 0; }
  void setCurrentProgram(int) override {}
  const juce::String getProgramName(int) override { return {}; }
  void changeProgramName(int, const juce::String&) override {}
  void getStateInformation(juce::MemoryBlock&) override {}
  void setStateInformation(const void*, int) override {}

  // The start-up check, by the policy (prepareToPlay, or the editor opening first).
  void startLicenseCheck();
  licensed_juce::License& license() { return *license_; }
  const std::shared_ptr<licensed_juce::License>& sharedLicense() const { return license_; }

 private:
  void changeListenerCallback(juce::ChangeBroadcaster*) override;

  std::shared_ptr<licensed_juce::License> license_;
  juce::AudioParameterFloat* gain_ = nullptr;
};
