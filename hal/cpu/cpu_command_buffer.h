// CpuCommandBuffer: the CPU driver's command buffer, whose executor replays
// the recorded command list (hal/utils/command_list.h) on the host.
//
// Dispatches run their workgroups on the device's thread pool (or inline
// for cpu-sync) and return when every workgroup has finished, so commands
// already execute one after another and an execution barrier needs no work.
// A dispatch of an export with a library call (library_call.h) runs the
// call once, on the executing thread, instead of its workgroups; the bytes
// the call needs of each binding are checked against the binding's range
// (concrete ranges when recorded, binding-table slots when executed).
// Binding-table slots are looked up in the table of each submission.
// A collective runs on its CpuChannel (cpu_channel.h) on the executing
// thread, blocking it until the peers have done their part (traced as a
// device span "collective <op>"); its failure fails the submission like a
// failing kernel.
#pragma once

#include <span>

#include "hal/cpu/cpu_executable.h"
#include "hal/cpu/thread_pool.h"
#include "hal/trace.h"
#include "hal/utils/deferred_command_buffer.h"

namespace kiln::hal::cpu {

class CpuCommandBuffer final : public utils::DeferredCommandBuffer {
 public:
  explicit CpuCommandBuffer(CommandBufferMode mode) : DeferredCommandBuffer(mode) {}

  // Runs the recorded commands. `pool` is null to run workgroups inline. The
  // first failing command stops execution and its status is returned. With
  // a `trace`, each dispatch (all its workgroups) is timed on the trace's
  // clock and added as a device span on `track`; a failing one too.
  Status Execute(std::span<const Ref<Buffer>> binding_table, ThreadPool* pool,
                 Trace* trace = nullptr, uint64_t track = 0) const;

 protected:
  // The executable is a CpuExecutable; concrete buffers are host memory.
  Status CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                       std::array<uint32_t, 3> workgroup_count) override;
  Status CheckBuffer(const BufferRef& ref, const utils::BufferSite& site) override;
  // The channel is a CpuChannel (made by a CPU device).
  Status CheckChannel(const Channel& channel) override;

 private:
  Status RunDispatch(const utils::DispatchCommand& command,
                     std::span<const Ref<Buffer>> binding_table, ThreadPool* pool) const;
};

}  // namespace kiln::hal::cpu
