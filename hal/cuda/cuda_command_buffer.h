// CudaCommandBuffer: what the two CUDA command buffer kinds share: the
// recorded command list (hal/utils/command_list.h), checked against this
// device when recorded, and its buffer references resolved to device
// addresses at submit.
//
// Recording checks that executables were loaded on this device, that grids
// are within CUDA's limits and that concrete buffers are this device's
// (binding-table slots are checked when submitted). End stages each
// update's bytes in device memory the command buffer owns, so that every
// executor copies them like a copy command.
//
// Library calls (library_call.h): a dispatch of an export that has a
// LibraryCall runs the call instead of the kernel. A binding must then hold
// the bytes the call reads or writes (RequiredBytes), checked when recorded
// for concrete buffers and when submitted for slots (CheckLibraryBindings).
// End plans each such dispatch once (a call the library has no algorithm
// for runs its kernel instead) and allocates one workspace for all of
// them: the calls between two barriers may run concurrently (graphs), so
// each gets its own range of it, and ranges are reused after a barrier.
//
// Collectives (hal/collective.h) run on NcclChannels of this device only
// (CheckChannel), and only the ops NCCL has (CheckCollective: no 16-bit
// integer reductions), both refused when recorded. Each executor enqueues
// them through the channel (EnqueueCollective): on the queue's stream, or
// captured into a graph node like a library call. A submission fails at
// once when one of its channels has failed (CheckChannels: an asynchronous
// NCCL error, an abort), and the queue has the device's NcclWatchdog watch
// the submissions that run collectives (collective_channels).
//
// Two subclasses execute the list:
//   - GraphCommandBuffer (graph_command_buffer.h, the default): a CUDA
//     graph built and instantiated once, replayed with cuGraphLaunch, with
//     slot addresses patched in place when they change;
//   - StreamCommandBuffer (stream_command_buffer.h, --cuda_use_streams):
//     direct launches on the stream at every submit, for debugging.
// A traced submission (hal/trace.h) calls IssueTraced instead of Issue: the
// stream executor launches as always with timing events around each
// dispatch (IssueAsStream); the graph executor launches a second graph of
// its own with event-record nodes around each dispatch node
// (graph_command_buffer.h, cuda_dispatch_timer.h).
// Both give identical results; a queue holds its lock while it issues a
// command buffer, so Issue is never called concurrently for one device.
#pragma once

#include <cuda.h>

#include <memory>
#include <vector>

#include "hal/cuda/cuda_buffer.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cuda_dispatch_timer.h"
#include "hal/cuda/cuda_executable.h"
#include "hal/cuda/nccl_channel.h"
#include "hal/utils/deferred_command_buffer.h"

namespace kiln::hal::cuda {

class CudaCommandBuffer : public utils::DeferredCommandBuffer {
 public:
  ~CudaCommandBuffer() override;

  // Enqueues the recorded work on the context's stream, with binding-table
  // slot i meaning `binding_table[i]` (validated by the device). The queue
  // has made the context current.
  virtual Status Issue(std::span<const Ref<Buffer>> binding_table) = 0;
  // Issue for a traced submission: each dispatch's begin and end go to
  // `timer` (cuda_dispatch_timer.h). By default the stream path
  // (IssueAsStream); GraphCommandBuffer launches its traced graph.
  virtual Status IssueTraced(std::span<const Ref<Buffer>> binding_table, CudaDispatchTimer& timer) {
    return IssueAsStream(binding_table, &timer);
  }
  // Enqueues the recorded work as direct launches on the stream (the
  // StreamCommandBuffer's Issue and IssueTraced), with `timer` (may be null)
  // recording events around each kernel and library call.
  Status IssueAsStream(std::span<const Ref<Buffer>> binding_table, CudaDispatchTimer* timer);

  const CudaContext& context() const { return *context_; }

  // Checks that each binding-table slot a library call uses holds the
  // bytes the call needs (the device calls it at submit, after
  // ValidateBindingTable).
  Status CheckLibraryBindings(std::span<const Ref<Buffer>> binding_table) const {
    // Inline: most command buffers' library calls use no slot (or there
    // are none), and every submit asks.
    if (library_slot_uses_.empty()) return OkStatus();
    return CheckLibrarySlotUses(binding_table);
  }
  // Dispatches that run a library call, and the workspace bytes they share.
  size_t library_call_count() const { return library_call_count_; }
  size_t workspace_bytes() const { return workspace_ ? workspace_->byte_length() : 0; }

  // The channels the recorded collectives run on, each once, in the order
  // first used (End).
  std::span<const Ref<NcclChannel>> collective_channels() const { return channels_; }
  // OK while every channel of the recorded collectives is usable; the
  // status of the first that failed otherwise (every submit asks).
  Status CheckChannels() const {
    for (const Ref<NcclChannel>& channel : channels_) KILN_RETURN_IF_ERROR(channel->health());
    return OkStatus();
  }

 protected:
  CudaCommandBuffer(Ref<CudaContext> context, CommandBufferMode mode)
      : DeferredCommandBuffer(mode), context_(std::move(context)) {}

  Status CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                       std::array<uint32_t, 3> workgroup_count) override;
  Status CheckBuffer(const BufferRef& ref, const utils::BufferSite& site) override;
  // The channel is an NcclChannel of this device, not failed.
  Status CheckChannel(const Channel& channel) override;
  // NCCL runs the op (NcclChannel::CheckOp).
  Status CheckCollective(const Channel& channel, const CollectiveOp& op) override;
  // Stages the updates' bytes (subclasses call it first from their EndImpl).
  Status EndImpl() override;

  // A copy (or an update, from its staged bytes) or a fill, resolved for a
  // submission.
  struct Transfer {
    bool fill = false;
    CUdeviceptr source = 0;  // Copies.
    CUdeviceptr target = 0;
    size_t length = 0;
    uint32_t pattern = 0;  // Fills.
    uint32_t pattern_length = 0;
  };
  // The transfer that command `index` performs under `table`; false for a
  // dispatch, a collective or a barrier.
  bool TransferOf(size_t index, std::span<const Ref<Buffer>> table, Transfer* transfer) const;
  // The device address of `ref` under `table`. Slots were validated by the
  // device; nothing can fail here. A slot the table does not have yet (an
  // empty table: a graph built before its first submit) has address 0.
  static CUdeviceptr Address(const BufferRef& ref, std::span<const Ref<Buffer>> table);
  // A dispatch's kernel function and shared memory.
  static const CudaKernel& KernelOf(const utils::DispatchCommand& dispatch);
  // The plan of command `index` when it is a dispatch that runs a library
  // call (End); null otherwise (it runs its kernel).
  const LibraryCallPlan* PlanOf(size_t index) const {
    return index < plans_.size() ? plans_[index].get() : nullptr;
  }
  // Enqueues the library call of dispatch `index` (PlanOf is non-null) on
  // `stream` with its bindings' addresses under `table`.
  Status EnqueueLibraryCall(size_t index, std::span<const Ref<Buffer>> table, CUstream stream);
  // Enqueues collective command `index` on `stream` with its send and recv
  // addresses under `table`.
  Status EnqueueCollective(size_t index, std::span<const Ref<Buffer>> table, CUstream stream) const;
  // Writes the dispatch's kernel parameters: each binding's address as a
  // 64-bit value, then each constant; `pointers[i]` points at parameter i.
  void PackKernelParams(const utils::DispatchCommand& dispatch, std::span<const Ref<Buffer>> table,
                        uint64_t* values, void** pointers) const;

  uint32_t max_params_ = 0;  // The most parameters of any dispatch (End).

 private:
  // Kernel-parameter scratch of IssueAsStream, sized for the largest
  // dispatch (the driver copies parameters at launch).
  std::vector<uint64_t> stream_values_;
  std::vector<void*> stream_pointers_;
  Ref<CudaContext> context_;
  // Per command: an update's bytes in device memory (null for others).
  std::vector<Ref<CudaBuffer>> staged_;

  // Plans the library calls and allocates their workspace (EndImpl).
  Status PlanLibraryCalls();
  // Per command: a library-call dispatch's plan and workspace offset.
  std::vector<std::unique_ptr<LibraryCallPlan>> plans_;
  std::vector<size_t> workspace_offsets_;
  Ref<CudaBuffer> workspace_;
  size_t library_call_count_ = 0;
  // A binding-table slot a library call uses, checked at submit.
  struct LibrarySlotUse {
    uint32_t command;
    uint32_t binding;
    uint64_t required;
  };
  std::vector<LibrarySlotUse> library_slot_uses_;
  // CheckLibraryBindings of a command buffer with library_slot_uses_.
  Status CheckLibrarySlotUses(std::span<const Ref<Buffer>> binding_table) const;
  std::vector<CUdeviceptr> library_addresses_;  // EnqueueLibraryCall's scratch.
  std::vector<Ref<NcclChannel>> channels_;      // collective_channels().
};

}  // namespace kiln::hal::cuda
