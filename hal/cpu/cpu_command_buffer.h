// CpuCommandBuffer: the CPU driver's command buffer, a recorded list of
// commands that the queue replays on the host.
//
// Dispatches run their workgroups on the device's thread pool (or inline
// for cpu-sync) and return when every workgroup has finished, so commands
// already execute one after another and an execution barrier needs no work.
// Binding-table slots are looked up in the table of each submission.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "hal/command_buffer.h"
#include "hal/cpu/cpu_executable.h"
#include "hal/cpu/thread_pool.h"

namespace kiln::hal::cpu {

class CpuCommandBuffer final : public CommandBuffer {
 public:
  explicit CpuCommandBuffer(CommandBufferMode mode) : CommandBuffer(mode) {}

  // Runs the recorded commands. `pool` is null to run workgroups inline. The
  // first failing command stops execution and its status is returned.
  Status Execute(std::span<const Ref<Buffer>> binding_table, ThreadPool* pool) const;


 protected:
  Status DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                      std::array<uint32_t, 3> workgroup_count, std::span<const uint32_t> constants,
                      std::span<const BufferRef> bindings) override;
  Status CopyBufferImpl(const BufferRef& source, const BufferRef& target, size_t length) override;
  Status FillBufferImpl(const BufferRef& target, uint32_t pattern, size_t pattern_length) override;
  Status UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) override;
  Status ExecutionBarrierImpl() override { return OkStatus(); }

 private:
  struct DispatchCommand {
    Ref<CpuExecutable> executable;
    uint32_t export_ordinal;
    std::array<uint32_t, 3> workgroup_count;
    std::vector<uint32_t> constants;
    std::vector<BufferRef> bindings;
  };
  struct CopyCommand {
    BufferRef source, target;
    size_t length;
  };
  struct FillCommand {
    BufferRef target;
    uint32_t pattern;
    size_t pattern_length;
  };
  struct UpdateCommand {
    std::vector<uint8_t> data;
    BufferRef target;
  };
  using Command = std::variant<DispatchCommand, CopyCommand, FillCommand, UpdateCommand>;

  Status RunDispatch(const DispatchCommand& command, std::span<const Ref<Buffer>> binding_table,
                     ThreadPool* pool) const;

  std::vector<Command> commands_;
};

}  // namespace kiln::hal::cpu
