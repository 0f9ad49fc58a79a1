/*******************************************************************************
 The block below describes the properties of this module, and is read by
 the Projucer to automatically generate project code that uses it.

 BEGIN_JUCE_MODULE_DECLARATION

  ID:                 licensed_juce
  vendor:             licensed
  version:            0.1.0
  name:               licensed: license activation for JUCE plugins
  description:        One license state per process over the licensed client SDK, read
                      lock-free from the audio thread, and an activation screen.
  license:            same as the licensed project
  minimumCppStandard: 17

  dependencies:       juce_core, juce_events, juce_graphics, juce_gui_basics

 END_JUCE_MODULE_DECLARATION

*******************************************************************************/
// licensed_juce: a JUCE module over the licensed client SDK (docs/juce.md).
//
// - licensed_juce::License: one license state per process, shared by every plugin
//   instance (License::shared). Its constructor reads only what is known without the
//   network (lc_check_cached); start() begins the start-up check in the background (call
//   it from prepareToPlay or when the editor opens, never from a constructor: JUCE's
//   LV2 build step and hosts' scans construct plugins). Results reach listeners on the
//   message thread (it is a juce::ChangeBroadcaster).
// - License::audio(): what the audio thread reads, one atomic load, no lock, no
//   allocation: may this run, the state, trial days left, entitlements and
//   allowed_for_build for codes registered in Settings.
// - licensed_juce::ActivationScreen: the component a vendor drops into the editor.
//
// The SDK (client/include, its static library LicenseClient::license_client_static)
// must be on the include path and linked: see docs/juce.md.
#pragma once
#define LICENSED_JUCE_H_INCLUDED

#include <juce_core/juce_core.h>
#include <juce_events/juce_events.h>
#include <juce_graphics/juce_graphics.h>
#include <juce_gui_basics/juce_gui_basics.h>

// Each header includes what it needs of the others.
#include "license/licensed_juce_license.h"
#include "license/licensed_juce_settings.h"
#include "license_client/license_client.hpp"
#include "screen/licensed_juce_activation_screen.h"
