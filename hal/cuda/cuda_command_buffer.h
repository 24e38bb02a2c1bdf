// CudaCommandBuffer: what the two CUDA command buffer kinds share: the
// recorded command list, with buffer references resolved to device
// addresses at submit.
//
// Recording (the HAL hooks) appends commands: dispatches (kernel, grid,
// block, shared memory, bindings, constants), fills, copies, updates (the
// data is staged in device memory owned by the command buffer, at record
// time) and barriers. Concrete buffers are checked to belong to this device
// when recorded; binding-table slots when submitted.
//
// Two subclasses execute the list:
//   - GraphCommandBuffer (graph_command_buffer.h, the default): a CUDA
//     graph built and instantiated once, replayed with cuGraphLaunch, with
//     slot addresses patched in place when they change;
//   - StreamCommandBuffer (stream_command_buffer.h, --cuda_use_streams):
//     direct launches on the stream at every submit, for debugging.
// Both give identical results; a queue holds its lock while it issues a
// command buffer, so Issue is never called concurrently for one device.
#pragma once

#include <cuda.h>

#include <atomic>
#include <vector>

#include "hal/command_buffer.h"
#include "hal/cuda/cuda_buffer.h"
#include "hal/cuda/cuda_context.h"

namespace kiln::hal::cuda {

class CudaCommandBuffer : public CommandBuffer {
 public:
  ~CudaCommandBuffer() override;

  // Enqueues the recorded work on the context's stream, with binding-table
  // slot i meaning `binding_table[i]` (validated by the device). The queue
  // has made the context current.
  virtual Status Issue(std::span<const Ref<Buffer>> binding_table) = 0;

  const CudaContext& context() const { return *context_; }

 protected:
  CudaCommandBuffer(Ref<CudaContext> context, CommandBufferMode mode)
      : CommandBuffer(mode), context_(std::move(context)) {}

  // A buffer range: a concrete allocation, or a binding-table slot.
  struct Range {
    Ref<Buffer> buffer;    // Keeps a concrete buffer alive; null for a slot.
    CUdeviceptr base = 0;  // Concrete: the allocation's address + the offset.
    uint32_t slot = 0;
    size_t offset = 0;  // Slot: within the slot's buffer.
    size_t length = 0;  // kWholeBuffer only for slots.
    bool is_slot() const { return !buffer; }
  };
  struct Command {
    enum class Kind : uint8_t { kDispatch, kFill, kCopy, kBarrier } kind;
    // Dispatch.
    CUfunction function = nullptr;
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t shared_memory_bytes = 0;
    uint32_t first_range = 0;  // Bindings: ranges_[first_range, + binding_count).
    uint32_t binding_count = 0;
    uint32_t first_constant = 0;  // constants_[first_constant, + constant_count).
    uint32_t constant_count = 0;
    bool uses_slots = false;
    // Fill: ranges_[first_range] is the target. Copy (and update, from its
    // staging range): ranges_[first_range] the source, [first_range + 1]
    // the target.
    uint32_t pattern = 0;
    uint32_t pattern_length = 0;
    size_t length = 0;  // Fill/copy bytes; kWholeBuffer: resolved at submit.
  };

  // The device address and byte length of `range` for this submission.
  // Slots were validated by the device; nothing can fail here. A slot the
  // table does not have yet (an empty table: a graph built before its first
  // submit) has address 0.
  static CUdeviceptr Address(const Range& range, std::span<const Ref<Buffer>> table);
  static size_t Length(const Range& range, std::span<const Ref<Buffer>> table);
  // A fill/copy command's byte count for this submission.
  size_t ResolvedLength(const Command& command, std::span<const Ref<Buffer>> table) const;
  // Writes dispatch `command`'s kernel parameters: each binding's address as
  // a 64-bit value, then each constant; `pointers[i]` points at parameter i.
  void PackKernelParams(const Command& command, std::span<const Ref<Buffer>> table,
                        uint64_t* values, void** pointers) const;

  std::vector<Command> commands_;
  std::vector<Range> ranges_;
  std::vector<uint32_t> constants_;
  uint32_t max_params_ = 0;  // The most parameters of any dispatch.
  bool uses_slots_ = false;

 private:
  Status DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                      std::array<uint32_t, 3> workgroup_count, std::span<const uint32_t> constants,
                      std::span<const BufferRef> bindings) override;
  Status CopyBufferImpl(const BufferRef& source, const BufferRef& target, size_t length) override;
  Status FillBufferImpl(const BufferRef& target, uint32_t pattern, size_t pattern_length) override;
  Status UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) override;
  Status ExecutionBarrierImpl() override;

  // Appends `ref` to ranges_, checking that a concrete buffer is this
  // device's; `what()` names the reference in the error (built only then).
  template <typename Describe>
  Status AddRange(const BufferRef& ref, const Describe& what);
  // Appends a command whose ranges were added (keeps uses_slots_).
  void Append(const Command& command);

  Ref<CudaContext> context_;
  std::vector<Ref<Buffer>> staging_;  // UpdateBuffer's data, in device memory.
};

}  // namespace kiln::hal::cuda
