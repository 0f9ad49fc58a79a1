#include "observability/log_fields.h"

#include <vector>

namespace licensed {
namespace {

std::vector<LogField>& fields_of_this_thread() {
  thread_local std::vector<LogField> fields;
  return fields;
}

}  // namespace

ScopedLogFields::ScopedLogFields(std::initializer_list<LogField> fields)
    : restore_size_(fields_of_this_thread().size()) {
  auto& all = fields_of_this_thread();
  all.insert(all.end(), fields.begin(), fields.end());
}

ScopedLogFields::~ScopedLogFields() {
  fields_of_this_thread().resize(restore_size_);
}

std::span<const LogField> current_log_fields() {
  return fields_of_this_thread();
}

}  // namespace licensed
