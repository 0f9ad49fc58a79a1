// The admin API's one translation of an internal status to the wire (docs/protocol.md
// §18): the §5 error shape, with the codes of the License API where they fit.
#pragma once

#include "core/api_error.h"
#include "core/status.h"

namespace licensed {

// An admin is told why their call was refused (Error::message of an invalid argument or
// a conflict, which name the member at fault); never a store's own words. (A chosen
// answer, a read-only token's 403, goes as it is: RequestError::answer_or.)
ApiError to_admin_api_error(const Error& error);

}  // namespace licensed
