// What every Store implementation does with a job around its transaction: run it without
// letting an exception cross a store thread, answer it exactly once, and refuse it at
// once when the queue is full.
#pragma once

#include <optional>

#include "core/log_throttle.h"
#include "store/store.h"

namespace licensed {

// Runs a job's body and turns an escaped exception (bad_alloc, a bug) into a rollback.
bool run_store_job(StoreJob& job, StoreTx& tx);
// Calls job.done, logging (never throwing) what it throws.
void finish_store_job(StoreJob& job, const std::optional<Error>& failure);
// Overload answers 1708 at once instead of growing the queue without bound: true when
// the job was refused (and answered) because `depth` reached `max_queued` or the store
// is stopping.
bool refuse_when_full(StoreJob& job, size_t depth, size_t max_queued, bool stopping,
                      LogThrottle& overload_log);

}  // namespace licensed
