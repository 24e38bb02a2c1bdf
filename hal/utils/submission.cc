#include "hal/utils/submission.h"

namespace kiln::hal::utils {

Status NullSemaphoreError(std::string_view operation) {
  return InvalidArgumentError(std::string(operation) + ": null semaphore");
}

Status ForeignSemaphoreError(std::string_view operation, SemaphoreRole role,
                             std::string_view owner) {
  return InvalidArgumentError(std::string(operation) + ": a " +
                              (role == SemaphoreRole::kWait ? "wait" : "signal") +
                              " semaphore was not created by " + std::string(owner));
}

Status ForeignCommandBufferError(size_t index, std::string_view owner) {
  return InvalidArgumentError("QueueExecute: command buffer " + std::to_string(index) +
                              " was not created by " + std::string(owner));
}

void CompleteSignals(std::span<const Fence::Timepoint> signals, const Status& status) {
  for (const Fence::Timepoint& t : signals) {
    if (!status.ok()) {
      t.semaphore->Fail(status);
      continue;
    }
    Status signaled = t.semaphore->Signal(t.value);
    if (!signaled.ok()) t.semaphore->Fail(signaled);
  }
}

}  // namespace kiln::hal::utils
