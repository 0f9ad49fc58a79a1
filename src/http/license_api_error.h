// The License API's one translation of an internal status to the wire (docs/protocol.md
// §5): the only place where a store's failure becomes 1708 or 1709.
#pragma once

#include "core/api_error.h"
#include "core/status.h"

namespace licensed {

// Never carries Error::message to the client: the store's own words stay in the log.
// (A RequestError's chosen answer goes as it is: RequestError::answer_or(to_api_error).)
ApiError to_api_error(const Error& error);

}  // namespace licensed
