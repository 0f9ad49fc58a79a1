// The example's editor: opening it starts the start-up check too (a host may open the
// editor before it prepares the plugin).
#include "PluginEditor.h"

JuceGainEditor::JuceGainEditor(JuceGainProcessor& processor)
    : AudioProcessorEditor(processor), screen_(processor.sharedLicense()) {
  processor.startLicenseCheck();
  addAndMakeVisible(screen_);
  setResizable(true, true);
  setResizeLimits(licensed_juce::ActivationScreen::kMinimumWidth,
                  licensed_juce::ActivationScreen::kMinimumHeight, 1200, 900);
  setSize(480, 340);
}

void JuceGainEditor::resized() {
  screen_.setBounds(getLocalBounds());
}
