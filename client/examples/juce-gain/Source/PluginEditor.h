// The example's editor: the activation screen, resizable down to 400 x 300.
#pragma once

#include "PluginProcessor.h"

class JuceGainEditor : public juce::AudioProcessorEditor {
 public:
  explicit JuceGainEditor(JuceGainProcessor& processor);
  void resized() override;

 private:
  licensed_juce::ActivationScreen screen_;
};
