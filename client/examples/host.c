/* An example plugin host in C: start-up check, activate, heartbeat, deactivate.
 * Settings come from the environment licensectl reads (LICENSE_SERVER_URL, LICENSE_KEY_ID,
 * LICENSE_SECRET, LICENSE_KEY, LICENSE_MACHINE_ID, LICENSE_PUBLIC_KEY). Exit status: the
 * first call that did not succeed, as an lc_status; 0 when all did. */
#include <stdio.h>
#include <stdlib.h>

#include "license_client/license_client.h"

static int show(const char* what, lc_status status, lc_result* r) {
  printf("%s: status=%d http=%d code=%d activations=%lld max=%lld source=%s message=%s\n", what,
         (int)status, lc_result_http_status(r), lc_result_api_code(r),
         (long long)lc_result_activations(r), (long long)lc_result_max(r),
         lc_source_string(lc_result_source(r)), lc_result_message(r));
  lc_result_free(r);
  return (int)status;
}

int main(void) {
  lc_options options = lc_options_init();
  options.url = getenv("LICENSE_SERVER_URL");
  options.key_id = getenv("LICENSE_KEY_ID");
  options.secret = getenv("LICENSE_SECRET");
  options.license_key = getenv("LICENSE_KEY");
  options.machine_id = getenv("LICENSE_MACHINE_ID");
  options.public_key = getenv("LICENSE_PUBLIC_KEY");
  options.timeout_ms = 10000;
  char error[256];
  lc_client* client = lc_client_new(&options, error, sizeof error);
  if (client == NULL) {
    fprintf(stderr, "example_host_c: %s\n", error);
    return LC_USAGE;
  }
  printf("machine id: %s\n", lc_client_machine_id(client));
  lc_result* r = NULL;
  int rc = show("activate", lc_activate(client, &r), r);
  if (rc == 0) rc = show("startup", lc_check_at_startup(client, &r), r);
  if (rc == 0) rc = show("heartbeat", lc_heartbeat(client, &r), r);
  if (rc == 0) rc = show("deactivate", lc_deactivate(client, &r), r);
  lc_client_free(client);
  return rc;
}
