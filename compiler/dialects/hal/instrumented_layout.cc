// Instrumented pipeline layouts (instrumented_layout.h).
#include "compiler/dialects/hal/instrumented_layout.h"

#include "llvm/ADT/SmallVector.h"

namespace kiln::compiler::HAL {

bool IsInstrumentedLayout(PipelineLayoutAttr layout) {
  if (!layout || layout.getBindings().empty()) return false;
  return layout.getBindings().back().isInstrumentation();
}

PipelineLayoutAttr MakeInstrumentedLayout(PipelineLayoutAttr layout) {
  llvm::SmallVector<PipelineBindingAttr> bindings(layout.getBindings());
  bindings.push_back(PipelineBindingAttr::get(layout.getContext(), DescriptorType::StorageBuffer,
                                              DescriptorFlags::Instrumentation));
  return PipelineLayoutAttr::get(layout.getContext(), layout.getConstants() + 1, bindings,
                                 layout.getFlags());
}

int64_t InstrumentationSiteIdOrdinal(PipelineLayoutAttr layout) {
  return layout.getConstants() - 1;
}

int64_t InstrumentationRingBinding(PipelineLayoutAttr layout) {
  return static_cast<int64_t>(layout.getBindings().size()) - 1;
}

}  // namespace kiln::compiler::HAL
