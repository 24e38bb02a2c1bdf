// DeferredCommandBuffer: a command buffer that records into a CommandList
// (command_list.h) for its driver to execute later.
//
// hal::CommandBuffer validates every recording call against the HAL's rules;
// this class then asks the driver about what only it knows (CheckDispatch:
// the executable is its own and the workgroup count within its limits;
// CheckBuffer: a concrete buffer is memory it can address) and appends the
// command. A refused call appends nothing. Each driver's command buffer
// derives from this class and adds one executor: the code that replays or
// translates the list (CPU: run on the host; CUDA: graph or stream; Vulkan:
// one-shot or reusable recordings).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "hal/command_buffer.h"
#include "hal/utils/command_list.h"

namespace kiln::hal::utils {

// Where a buffer reference is used, for the driver's error messages:
// "CopyBuffer source", or "Dispatch of 'f' binding 2" (rendered only on the
// error path).
struct BufferSite {
  const char* command = nullptr;               // Transfers: "FillBuffer target".
  const ExecutableExport* dispatch = nullptr;  // Dispatches: the export.
  uint32_t binding = 0;                        // Dispatches: the binding index.
  // Dispatches: the executable and the export's ordinal, for drivers whose
  // export needs more of a binding than its range (CUDA's library calls).
  const Executable* executable = nullptr;
  uint32_t export_ordinal = 0;

  bool is_dispatch_binding() const { return dispatch != nullptr; }
  std::string Describe() const;
};

class DeferredCommandBuffer : public CommandBuffer {
 public:
  const CommandList& command_list() const { return commands_; }

 protected:
  explicit DeferredCommandBuffer(CommandBufferMode mode) : CommandBuffer(mode) {}

  // The driver's record-time checks; the defaults accept. CheckDispatch
  // runs first, then CheckBuffer for each concrete reference of the command
  // (slots are checked at submit, against the table).
  virtual Status CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                               std::array<uint32_t, 3> workgroup_count) {
    return OkStatus();
  }
  virtual Status CheckBuffer(const BufferRef& ref, const BufferSite& site) { return OkStatus(); }
  // Whether `channel` is one this driver's executor runs (its own kind, on
  // this device). The default refuses: a driver without collectives
  // (Vulkan) keeps it, and Collective fails at record time.
  virtual Status CheckChannel(const Channel& channel);
  // What only the driver knows of collective `op` on a channel it accepted
  // (CheckChannel; `op` has passed the HAL's checks): whether its library
  // runs the op (NCCL has no 16-bit integer reductions). The default
  // accepts.
  virtual Status CheckCollective(const Channel& channel, const CollectiveOp& op) {
    return OkStatus();
  }

  // For commands a driver records for itself, bypassing the HAL's checks
  // (Vulkan's staged host reads and writes).
  CommandList& mutable_command_list() { return commands_; }

 private:
  Status DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                      std::array<uint32_t, 3> workgroup_count, std::span<const uint32_t> constants,
                      std::span<const BufferRef> bindings) final;
  Status CopyBufferImpl(const BufferRef& source, const BufferRef& target, size_t length) final;
  Status FillBufferImpl(const BufferRef& target, uint32_t pattern, size_t pattern_length) final;
  Status UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) final;
  Status ExecutionBarrierImpl() final;
  Status CollectiveImpl(const Ref<Channel>& channel, const CollectiveOp& op, const BufferRef& send,
                        const BufferRef& recv, uint64_t element_count) final;

  Status CheckConcrete(const BufferRef& ref, const BufferSite& site);

  CommandList commands_;
};

}  // namespace kiln::hal::utils
