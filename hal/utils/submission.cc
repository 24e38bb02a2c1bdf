#include "hal/utils/submission.h"

namespace kiln::hal::utils {

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
