/* The license client SDK's C ABI: for plugin hosts in any language.
 *
 * An opaque client made from options, four calls of the contract plus the start-up
 * check, each giving a status code and a result read through getters. No C++ exception
 * crosses this boundary; every function is safe to call with NULL where it takes a
 * pointer (it then returns LC_USAGE, 0 or NULL). Strings are UTF-8, NUL-terminated, and
 * owned by the object they come from. A client serialises its calls: one at a time. */
#ifndef LICENSE_CLIENT_H
#define LICENSE_CLIENT_H

#include <stdint.h>
#include <string.h>

#include "license_client/license_client_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same numbers as licensectl's exit statuses (docs/protocol.md §16). */
typedef enum lc_status {
  LC_OK = 0,            /* success; for status: valid for this machine */
  LC_USAGE = 2,         /* bad options or arguments */
  LC_NOT_USABLE = 3,    /* 1703, 1704, 1707, or status answering valid:false */
  LC_LIMIT_REACHED = 4, /* 1705: see lc_result_activations/max/dashboard_url */
  LC_UNAVAILABLE = 5,   /* gave up on 1706, 1708, 1709 or the network within the timeout */
  LC_REFUSED = 6        /* 1700, 1701 after its one resend, 1702 */
} lc_status;

typedef enum lc_source { LC_SOURCE_NONE = 0, LC_SOURCE_NETWORK = 1, LC_SOURCE_CACHE = 2 } lc_source;

typedef struct lc_client lc_client;
typedef struct lc_result lc_result;

/* Start from lc_options_init() and set what you need; NULL or 0 means the default.
 * struct_size lets a later SDK grow this struct without breaking hosts built against
 * this one: it reads only the fields the host's struct has. */
typedef struct lc_options {
  uint32_t struct_size;     /* sizeof(lc_options) as the host was compiled */
  const char* url;          /* required: server base URL */
  const char* key_id;       /* required */
  const char* secret;       /* required */
  const char* license_key;  /* required */
  const char* machine_id;   /* default: derived from the OS machine GUID and install path */
  const char* machine_name; /* optional */
  /* Pinned Ed25519 key: base64 raw or PEM text. NULL: answers are unverified, plain
   * http:// is refused unless to a loopback host, and there is NO offline cache (no
   * grace period): without a key a hand-written cache file could not be told apart. */
  const char* public_key;
  const char* cache_dir;         /* default: per-user cache directory */
  const char* host_install_path; /* default: the directory of the running executable */
  int64_t timeout_ms;            /* each call, retries included; default 10000 */
  int64_t startup_budget_ms;     /* lc_check_at_startup's network budget; default 1500 */
  int64_t grace_seconds;         /* cached answer's maximum age; default 7 days */
  /* Added after the first version (read only when struct_size covers it): */
  const char* product; /* this plugin's product slug; NULL: not checked. When set, a
                          status answer about another product is not valid here. */
} lc_options;

/* Options with every field at its default and struct_size set. */
static inline lc_options lc_options_init(void) {
  lc_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  return o;
}

/* NULL on failure; `error` (may be NULL) then receives why, in `error_size` bytes. */
LICENSE_CLIENT_API lc_client* lc_client_new(const lc_options* options, char* error,
                                            uint64_t error_size);
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
/* Status from the network within the start-up budget, else from the cache within the
 * grace period; lc_result_source says which. The cache is used only with a pinned
 * public_key, and only an answer about this license key and machine id (and product,
 * when set), signed at most 24 hours ahead of the local clock, is taken from it. */
LICENSE_CLIENT_API lc_status lc_check_at_startup(lc_client* client, lc_result** result);

LICENSE_CLIENT_API void lc_result_free(lc_result* result);
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

#ifdef __cplusplus
}
#endif

#endif /* LICENSE_CLIENT_H */
