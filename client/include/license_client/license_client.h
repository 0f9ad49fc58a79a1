/* The license client SDK's C ABI: for plugin hosts in any language.
 *
 * An opaque client made from options, four calls of the contract plus the start-up
 * check, each giving a status code and a result read through getters. No C++ exception
 * crosses this boundary; every function is safe to call with NULL where it takes a
 * pointer (it then returns LC_USAGE, 0 or NULL). Strings are UTF-8, NUL-terminated, and
 * owned by the object they come from.
 *
 * Inside a plugin (the rules this SDK keeps, and the pattern it is made for):
 * - In the plugin's constructor and during a host's plugin scan, call only
 *   lc_check_cached: it never touches the network and never waits.
 * - Off the audio thread, start lc_check_at_startup_async (or call lc_check_at_startup
 *   from a thread that may wait its budget, startup_budget_ms). Every plugin instance of
 *   a process made with the same options shares one client state: the first instance's
 *   check serves the others, a cached answer that is still good answers at once (and is
 *   refreshed in the background), and after a check that found no answer the next ones
 *   answer at once for 30 s. So eight instances loading offline cost one bounded wait.
 * - A "no" learned later (a refresh) is for new instances and the next check: nothing
 *   in this SDK stops audio that is playing.
 * - Calls of one client may run on several threads at once; no lock is held across a
 *   network exchange. Every budget and timeout holds whatever the network or the name
 *   resolver does: each exchange runs on a thread of the SDK's own, and the caller stops
 *   waiting for it when its time is spent.
 * - Unloading: lc_client_free may be called at any time, from any thread, with calls in
 *   flight; see lc_client_free. Once the SDK has started a thread, its shared library
 *   stays loaded until the process exits (dlclose / FreeLibrary leave it mapped), because
 *   a thread stuck in a name lookup may still be running its code; such a thread owns
 *   everything it touches and never delays the host's exit. */
#ifndef LICENSE_CLIENT_H
#define LICENSE_CLIENT_H

#include <stdint.h>
#include <string.h>

#include "license_client/license_client_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same numbers as licensectl's exit statuses (docs/protocol.md §16). Every result
 * other than LC_OK carries an error name (lc_result_error) and a message a plugin can show
 * its user (lc_result_message, e.g. "this computer is not activated: activate it"). */
typedef enum lc_status {
  LC_OK = 0,            /* success; for status: valid for this machine */
  LC_USAGE = 2,         /* bad options or arguments */
  LC_NOT_USABLE = 3,    /* 1703, 1704, 1707, or status answering valid:false */
  LC_LIMIT_REACHED = 4, /* 1705: see lc_result_activations/max/dashboard_url */
  LC_UNAVAILABLE = 5,   /* gave up on 1706, 1708, 1709 or the network within the timeout */
  LC_REFUSED = 6        /* 1700, 1701 after its one resend, 1702 */
} lc_status;

/* Where an answer came from. OFFLINE: an installed activation file (offline activation,
 * lc_offline_*). LEASE: an installed lease file of a borrowed seat (lc_seat_borrow). */
typedef enum lc_source {
  LC_SOURCE_NONE = 0,
  LC_SOURCE_NETWORK = 1,
  LC_SOURCE_CACHE = 2,
  LC_SOURCE_OFFLINE = 3,
  LC_SOURCE_LEASE = 4
} lc_source;

typedef struct lc_client lc_client;
typedef struct lc_result lc_result;
typedef struct lc_call lc_call;
typedef struct lc_seat lc_seat;

/* Start from lc_options_init() and set what you need; NULL or 0 means the default.
 * struct_size lets a later SDK grow this struct without breaking hosts built against
 * this one: it reads only the fields the host's struct has. */
typedef struct lc_options {
  uint32_t struct_size;     /* sizeof(lc_options) as the host was compiled */
  const char* url;          /* required: server base URL */
  const char* key_id;       /* required */
  const char* secret;       /* required */
  const char* license_key;  /* required, unless product is set for lc_start_trial */
  const char* machine_id;   /* default: derived from the OS machine GUID and the vendor */
  const char* machine_name; /* optional */
  /* Pinned response key: Ed25519 (base64 of the raw 32 bytes) or P-256 (base64 of the
   * 65-byte uncompressed point), or PEM "PUBLIC KEY" text of either. With a P-256 key the
   * client asks for ES256 answers (X-License-Accept-Signature: es256), which operating
   * systems' own crypto libraries can verify. NULL: answers are unverified, plain
   * http:// is refused unless to a loopback host, and there is NO offline cache (no
   * grace period): without a key a hand-written cache file could not be told apart. */
  const char* public_key;
  const char* cache_dir;         /* UTF-8; default: the per-user cache directory's vendor folder */
  const char* host_install_path; /* ignored: the machine id no longer depends on
                                    the host program (one slot per computer) */
  int64_t timeout_ms;            /* each call, retries included; default 10000 */
  int64_t startup_budget_ms;     /* lc_check_at_startup's network budget; default 1500 */
  /* A cached answer's maximum age when the server's answer carries no validUntil;
   * default 7 days. An answer with validUntil is used until then and never after, and
   * never past the license's expiresAt either way. */
  int64_t grace_seconds;
  /* Added after the first version (read only when struct_size covers it): */
  const char* product; /* this plugin's product slug; NULL: not checked. When set, a
                          status answer about another product is not valid here. */
  /* The vendor's name, 1-64 characters of A-Z a-z 0-9 . _ - : salts the derived machine
   * id (two vendors' ids for one computer are unlinkable) and names the cache folder
   * (~/.cache/<vendor>, ~/Library/Caches/<vendor>, %LOCALAPPDATA%\<vendor>). NULL: the
   * key_id salts the id (a new key id then means new ids, new slots) and the folder is
   * "licensed-client". Set it once and never change it. */
  const char* vendor;
  /* Where activation files are installed and read (UTF-8). NULL: the vendor's
   * machine-wide directory, shared by every user, host and plugin format: Windows
   * %PROGRAMDATA%\<vendor>; macOS /Library/Application Support/<vendor> (else the user's
   * ~/Library/Application Support/<vendor>); Linux /var/lib/<vendor> when an installer made
   * it writable, else $XDG_DATA_HOME/<vendor> (~/.local/share/<vendor>). */
  const char* offline_dir;
} lc_options;

/* Options with every field at its default and struct_size set. */
static inline lc_options lc_options_init(void) {
  lc_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  return o;
}

/* This SDK's version ("0.1.0") and a short English text for a status code. */
LICENSE_CLIENT_API const char* lc_version(void);
LICENSE_CLIENT_API const char* lc_status_string(lc_status status);
/* "none", "network", "cache", "offline", "lease". */
LICENSE_CLIENT_API const char* lc_source_string(lc_source source);

/* NULL on failure; `error` (may be NULL) then receives why, in `error_size` bytes: a
 * missing setting, or a pinned public_key that cannot be read (reported here, before any
 * request, never retried as an outage). Makes no network call: safe in a constructor. */
LICENSE_CLIENT_API lc_client* lc_client_new(const lc_options* options, char* error,
                                            uint64_t error_size);
/* May be called at any time, from any thread, with calls in flight, and from inside a
 * callback of this client. It returns promptly, without waiting for the network: calls of
 * this client blocked on other threads return at once (LC_UNAVAILABLE, error CANCELLED;
 * their thread must not use the client after that), and its asynchronous calls are
 * cancelled. When it returns, no callback of this client is running (one running on
 * another thread is waited for: a callback must not wait for the thread that frees the
 * client) and none will be called. lc_call handles stay valid until lc_call_free. */
LICENSE_CLIENT_API void lc_client_free(lc_client* client);
/* The machine id the client sends (given or derived). */
LICENSE_CLIENT_API const char* lc_client_machine_id(const lc_client* client);

/* Each stores a result in *result (free it with lc_result_free) when result is not NULL. */
LICENSE_CLIENT_API lc_status lc_activate(lc_client* client, lc_result** result);
/* After this client's activate or heartbeat succeeded, a heartbeat that finds the
 * machine reclaimed as stale (1707) activates again and answers that activation. */
LICENSE_CLIENT_API lc_status lc_heartbeat(lc_client* client, lc_result** result);
LICENSE_CLIENT_API lc_status lc_status_check(lc_client* client, lc_result** result);
LICENSE_CLIENT_API lc_status lc_deactivate(lc_client* client, lc_result** result);
/* Starts this machine's trial of options.product, or finds the one it already had (one
 * per machine, ever): lc_result_trial is 1, lc_result_license_key the trial's key (keep
 * it and configure it from then on), lc_result_days_left the whole days left. The client
 * may be made with a product and no license key for this. */
LICENSE_CLIENT_API lc_status lc_start_trial(lc_client* client, lc_result** result);
/* The start-up check, cache first: the answer another instance of this process already
 * got; else a cached answer that is still good, at once (refreshed in the background);
 * else a status request, waited for at most startup_budget_ms (shared by every
 * instance). lc_result_source says where the answer came from, lc_result_valid_until
 * how long it stays good. The cache is used only with a pinned public_key, and only an
 * answer about this license key and machine id (and product, when set) is taken from it:
 * a status or activate answer, signed at most 24 hours ahead of the local clock, used
 * before its validUntil (or its signed time plus grace_seconds) and the license's
 * expiresAt, measured by the latest time the SDK has seen (a clock set back does not
 * bring an answer back). Blocks at most its budget: call it off the UI and audio
 * threads, or use the asynchronous form. */
LICENSE_CLIENT_API lc_status lc_check_at_startup(lc_client* client, lc_result** result);
/* What is known without the network, at once: the process's answer or the cache, else
 * LC_UNAVAILABLE with error NO_ANSWER_YET. For constructors and plugin scans. */
LICENSE_CLIENT_API lc_status lc_check_cached(lc_client* client, lc_result** result);

/* Offline activation (docs/sdk.md, "Offline activation"). None of these touches the
 * network; each answers at once (a small file read or written). The file's armoured text
 * is lc_result_file_text.
 * lc_offline_request: the request file to carry to a machine that is online (signed now,
 *   under 1 KiB, pasteable into the dashboard or `licensectl offline submit`).
 * lc_offline_install_file / _text: checks an activation file (signature by the pinned
 *   public_key, this machine, license key and product, the clock) and installs it in the
 *   machine-wide directory; LC_NOT_USABLE with the reason in lc_result_message when it is
 *   not valid here, LC_USAGE without a pinned key. From then on lc_check_at_startup and
 *   lc_check_cached answer from it (source LC_SOURCE_OFFLINE, validity until the file's
 *   end in lc_result_valid_until, entitlements from the file) with no network, and
 *   lc_result_warning says so from 14 days before the end.
 * lc_offline_deactivate: deletes the installed activation file FIRST, then gives the
 *   deactivation file that frees the slot when submitted. */
LICENSE_CLIENT_API lc_status lc_offline_request(lc_client* client, lc_result** result);
LICENSE_CLIENT_API lc_status lc_offline_install_file(lc_client* client, const char* path,
                                                     lc_result** result);
LICENSE_CLIENT_API lc_status lc_offline_install_text(lc_client* client, const char* text,
                                                     lc_result** result);
LICENSE_CLIENT_API lc_status lc_offline_deactivate(lc_client* client, lc_result** result);

/* The asynchronous start-up check. `callback` (may be NULL: then poll) is called once,
 * on a thread of the SDK's own, with the result, which it may read during the call only
 * (lc_result_copy keeps it). Returns NULL when the call could not be started. */
typedef void (*lc_callback)(void* user_data, lc_status status, const lc_result* result);
LICENSE_CLIENT_API lc_call* lc_check_at_startup_async(lc_client* client, lc_callback callback,
                                                      void* user_data);
/* 0 while the call runs; 1 once it has finished (or was cancelled), storing its status
 * in *status and a copy of its result in *result (free it) when they are not NULL. */
LICENSE_CLIENT_API int lc_call_poll(lc_call* call, lc_status* status, lc_result** result);
/* Stops the call: when this returns, its callback is not running (unless this is called
 * from inside it) and will not be called; lc_call_poll then gives LC_UNAVAILABLE with
 * error CANCELLED (or the result, when it had finished before). */
LICENSE_CLIENT_API void lc_call_cancel(lc_call* call);
/* Cancels the call when it still runs, then frees the handle. */
LICENSE_CLIENT_API void lc_call_free(lc_call* call);

/* Concurrent seats (docs/protocol.md §27, docs/sdk.md "Concurrent seats"). One lease per
 * process and configuration, shared by every instance: each instance joins in its
 * constructor and leaves in its destructor; neither waits for the network. The SDK's own
 * thread checks out, renews every leaseTtl / 3, and calls `on_lost` (may be NULL) on that
 * thread when the seat is lost (every seat taken: 1710, or the license refused): lock the
 * editor and new instances, never stop audio already running. The last instance to leave
 * checks the seat in; a process that dies frees it when its lease ends. The client may be
 * freed while seats joined with it are held. */
typedef void (*lc_seat_lost_callback)(void* user_data, const lc_result* why);
LICENSE_CLIENT_API lc_seat* lc_seat_join(lc_client* client, lc_seat_lost_callback on_lost,
                                         void* user_data);
/* 0 pending (no answer yet), 1 held, 2 lost. */
LICENSE_CLIENT_API int lc_seat_state(const lc_seat* seat);
LICENSE_CLIENT_API void lc_seat_leave(lc_seat* seat);
/* Borrowing a seat (a laptop taken off the network): lc_seat_borrow checks out this
 * machine's seat (session: the machine id) for `duration` ("3d", at most the license's
 * maxBorrow) on the network, blocking like lc_activate, and installs the signed lease file
 * of the answer (lc_result_file_text) beside the activation files. From then on, until the
 * file's end, lc_check_at_startup and lc_check_cached answer from it with no network
 * (source LC_SOURCE_LEASE, lc_result_valid_until the file's end), and a joined seat holds
 * it without taking another. A file that is edited, another computer's or expired is
 * refused. lc_result_warning says when the file could not be installed (no pinned
 * public_key), and, from a lease file, from 24 hours before its end.
 * lc_seat_return deletes the lease file FIRST, then checks the seat in (the server keeps a
 * borrowed seat counted until the file's end all the same).
 * lc_lease_install_file / _text install a lease file received another way (licensectl
 * checkout --borrow on this computer installs it already), checked as above; no network. */
LICENSE_CLIENT_API lc_status lc_seat_borrow(lc_client* client, const char* duration,
                                            lc_result** result);
LICENSE_CLIENT_API lc_status lc_seat_return(lc_client* client, lc_result** result);
LICENSE_CLIENT_API lc_status lc_lease_install_file(lc_client* client, const char* path,
                                                   lc_result** result);
LICENSE_CLIENT_API lc_status lc_lease_install_text(lc_client* client, const char* text,
                                                   lc_result** result);

LICENSE_CLIENT_API void lc_result_free(lc_result* result);
LICENSE_CLIENT_API lc_result* lc_result_copy(const lc_result* result);
LICENSE_CLIENT_API lc_status lc_result_status(const lc_result* result);
LICENSE_CLIENT_API lc_source lc_result_source(const lc_result* result);
LICENSE_CLIENT_API int lc_result_http_status(const lc_result* result);     /* 0: none */
LICENSE_CLIENT_API int lc_result_api_code(const lc_result* result);        /* 0: none */
LICENSE_CLIENT_API const char* lc_result_error(const lc_result* result);   /* "" : none */
LICENSE_CLIENT_API const char* lc_result_message(const lc_result* result); /* "" : none */
LICENSE_CLIENT_API const char* lc_result_body(const lc_result* result);    /* server JSON */
LICENSE_CLIENT_API int lc_result_valid(const lc_result* result);           /* status: 1/0 */
/* -1 when the answer has none. */
LICENSE_CLIENT_API int64_t lc_result_activations(const lc_result* result);
LICENSE_CLIENT_API int64_t lc_result_max(const lc_result* result);
/* NULL when the answer has none. */
LICENSE_CLIENT_API const char* lc_result_license_status(const lc_result* result);
LICENSE_CLIENT_API const char* lc_result_dashboard_url(const lc_result* result);
LICENSE_CLIENT_API int lc_result_attempts(const lc_result* result);
/* For an answer signed by the pinned key: the Unix second from which it no longer
 * serves the start-up check offline (its validUntil, else its signed time plus
 * grace_seconds, never past expiresAt), and the time it was signed. 0: none. */
LICENSE_CLIENT_API int64_t lc_result_valid_until(const lc_result* result);
LICENSE_CLIENT_API int64_t lc_result_signed_at(const lc_result* result);

/* Entitlements of a 200 answer (editions, features, "updates until"), sorted by code.
 * lc_result_has_entitlement: 1 when `code` is listed and active. lc_result_allowed_for_build:
 * 1 when `code` is listed and its expiry is none or not before `build_date` (Unix
 * seconds, the plugin's release date): a build released before "updates until" keeps
 * the feature. */
LICENSE_CLIENT_API int lc_result_has_entitlement(const lc_result* result, const char* code);
LICENSE_CLIENT_API int lc_result_allowed_for_build(const lc_result* result, const char* code,
                                                   int64_t build_date);
LICENSE_CLIENT_API uint64_t lc_result_entitlement_count(const lc_result* result);
/* The i-th entitlement: its code (NULL past the end), expiry (0: never), 1/0 active, and
 * value as JSON text (NULL: none). */
LICENSE_CLIENT_API const char* lc_result_entitlement_code(const lc_result* result, uint64_t i);
LICENSE_CLIENT_API int64_t lc_result_entitlement_expires_at(const lc_result* result, uint64_t i);
LICENSE_CLIENT_API int lc_result_entitlement_active(const lc_result* result, uint64_t i);
LICENSE_CLIENT_API const char* lc_result_entitlement_value(const lc_result* result, uint64_t i);
/* 1 for a trial's answer. */
LICENSE_CLIENT_API int lc_result_trial(const lc_result* result);
/* A trial's whole days left (0 once over); -1 when the answer is not a trial's. */
LICENSE_CLIENT_API int64_t lc_result_days_left(const lc_result* result);
/* The license key the answer names; NULL when it names none. */
LICENSE_CLIENT_API const char* lc_result_license_key(const lc_result* result);
/* The armoured text of the request or deactivation file an lc_offline_* call wrote (or of
 * the activation file installed); NULL when none. */
LICENSE_CLIENT_API const char* lc_result_file_text(const lc_result* result);
/* A warning to show the user ("this computer's offline activation ends on 2026-12-20: make
 * a new activation request before then"); NULL when none. */
LICENSE_CLIENT_API const char* lc_result_warning(const lc_result* result);

#ifdef __cplusplus
}
#endif

#endif /* LICENSE_CLIENT_H */
