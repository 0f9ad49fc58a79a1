// Offline files submitted by support (docs/protocol.md §21.2, §21.5 and §21.7):
// the admin API's POST /api/v1/admin/licenses/{key}/offline-activations and
// .../offline-deactivations and the CLI's `license offline-activate` all come here, inside
// one store transaction. The file is read and checked by auth/offline_files.h (as the
// License API's offline endpoints check it), the operation is core's (actor admin), and the
// activation file is signed with the server's response key by sign_activation_file_member,
// the License API's own signing path.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

#include "admin/admin_operations.h"
#include "auth/key_ring.h"
#include "auth/offline_files.h"
#include "auth/response_signer.h"
#include "core/request_error.h"
#include "store/store_tx.h"

namespace licensed {

// What a submission needs besides the store: the signing keys that check the file, the
// offline age and skew limits, and the response keys that sign the activation file.
struct OfflineSubmission {
  const KeyRing* keys = nullptr;
  OfflineFileLimits limits;
  const ResponseSigner* signer = nullptr;
};

// `request_text` (an armoured request file) for the license `license_key`: 400 1702
// `field: "request"` with `reason` for a file that is not one or fails its checks, 404 1703
// when it names another license (or `license_key` is unknown), then as activate (1704,
// 1705), else the activate answer with `activationFile`, the armoured Ed25519-signed file.
RequestResult<boost::json::object> admin_offline_activate(StoreTx& tx, std::string_view license_key,
                                                          std::string_view request_text,
                                                          const OfflineSubmission& submission,
                                                          const AdminContext& ctx);

// `request_text` (an armoured deactivation file) for `license_key`: the same 1702 and 1703,
// 404 1707 when its activationId is not the machine's latest file, else {"ok", "activations",
// "max"}. Admin deactivations never count against maxDeactivations and are never refused
// by it (docs/protocol.md §21.6).
RequestResult<boost::json::object> admin_offline_deactivate(StoreTx& tx,
                                                            std::string_view license_key,
                                                            std::string_view request_text,
                                                            const OfflineSubmission& submission,
                                                            const AdminContext& ctx);

}  // namespace licensed
