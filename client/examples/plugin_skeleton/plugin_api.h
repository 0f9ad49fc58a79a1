/* A made-up plugin interface, small enough to read in a minute: it stands in for VST3,
 * AU or CLAP (whose SDKs are not part of this repository) in the plugin skeleton
 * (plugin.cpp) and its stand-in host (plugin_host.cpp). Each call says on which of the
 * host's threads it runs, as the real formats do:
 *
 *   plugin_create, plugin_destroy   the host's main thread (also during a plugin scan)
 *   plugin_process                  the audio thread: real time, must never wait
 *   plugin_editor_*, plugin_activate  the UI thread: must not wait for the network
 *
 * The host never calls plugin_process and plugin_destroy at the same time (it stops its
 * audio thread first), as every real plugin format requires. */
#ifndef PLUGIN_SKELETON_PLUGIN_API_H
#define PLUGIN_SKELETON_PLUGIN_API_H

#include <stddef.h>

#if defined(_WIN32)
#define PLUGIN_API __declspec(dllexport)
#else
#define PLUGIN_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct plugin plugin;

/* A new instance; NULL when it cannot be made. Never touches the network. */
PLUGIN_API plugin* plugin_create(void);
/* Processes `n` samples in place. */
PLUGIN_API void plugin_process(plugin* p, float* samples, int n);
/* What the editor shows, NUL-terminated in `buffer` (cut to `size` bytes); returns the
 * length of the whole text. The editor redraws it from a timer. */
PLUGIN_API size_t plugin_editor_text(plugin* p, char* buffer, size_t size);
/* 1 while a license check or an activation is running (the editor shows a spinner and
 * greys out its Activate button), else 0. */
PLUGIN_API int plugin_editor_busy(plugin* p);
/* The editor's Activate button: starts the activation and returns at once. */
PLUGIN_API void plugin_activate(plugin* p);
/* Frees the instance at once, whatever the network is doing. */
PLUGIN_API void plugin_destroy(plugin* p);

#ifdef __cplusplus
}
#endif

#endif /* PLUGIN_SKELETON_PLUGIN_API_H */
