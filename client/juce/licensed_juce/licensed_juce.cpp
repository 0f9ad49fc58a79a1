// The module's one translation unit (JUCE modules compile as one file per module).
#ifdef LICENSED_JUCE_H_INCLUDED
/* When you add this cpp file to your project, you mustn't include it in a file where
   you've already included any other headers - just put it inside a file on its own,
   possibly with your config flags preceding it, but don't include anything else. */
#error "Incorrect use of JUCE cpp file"
#endif

#include "licensed_juce.h"

#include "license/licensed_juce_license.cpp"
#include "license/licensed_juce_settings.cpp"
#include "screen/licensed_juce_activation_screen.cpp"
