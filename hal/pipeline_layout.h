// PipelineLayout: the interface between a dispatch and its kernel.
//
// `constants` 32-bit push constants plus an ordered list of storage-buffer
// bindings, each optionally read-only: what MLIR writes as
// #hal.pipeline.layout<constants = 1, bindings = [
//     #hal.pipeline.binding<storage_buffer, ReadOnly>, ...]>.
// A dispatch passes exactly `constant_count` constants and one buffer range
// per binding, in order; how they reach the kernel is the driver's ABI
// (kernel parameters on CUDA, set 0 + push constants on Vulkan, the dispatch
// state of hal/cpu/kernel_abi.h on the CPU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::hal {

enum class DescriptorType : uint8_t {
  kStorageBuffer = 0,
};

struct PipelineBinding {
  DescriptorType type = DescriptorType::kStorageBuffer;
  bool read_only = false;

  bool operator==(const PipelineBinding&) const = default;
};

struct PipelineLayout {
  uint32_t constant_count = 0;
  std::vector<PipelineBinding> bindings;

  bool operator==(const PipelineLayout&) const = default;

  // "constants = 1, bindings = [storage_buffer ReadOnly, storage_buffer]".
  std::string ToString() const {
    std::string out = "constants = " + std::to_string(constant_count) + ", bindings = [";
    for (size_t i = 0; i < bindings.size(); ++i) {
      if (i) out += ", ";
      out += "storage_buffer";
      if (bindings[i].read_only) out += " ReadOnly";
    }
    return out + "]";
  }
};

}  // namespace kiln::hal
