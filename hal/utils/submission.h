// The submission skeleton every driver's queue operations share: check,
// claim, enqueue; then wait semaphores -> run -> signal semaphores.
//
// A device's QueueExecute is
//
//   return utils::QueueExecute<CpuCommandBuffer>(objects, wait, signal,
//                                               command_buffers, binding_table,
//                                               [&](auto submission) {...enqueue...});
//
// which makes, in this order and with this wording for every driver:
//   1. the device's health (a lost device refuses everything);
//   2. the fences: no null semaphore, each one the device's queue can wait
//      on or signal ("QueueExecute: a wait semaphore was not created by this
//      Vulkan device");
//   3. CommandBuffer::ValidateSubmission (ended, binding table, one-shot
//      reuse), then each binding-table buffer and each command buffer is the
//      device's;
//   4. the claim of the one-shot command buffers (below), and the enqueue.
// QueueAlloca and QueueDealloca make steps 1-2 (PrepareQueueOperation).
// A driver whose queue takes the caller's fences, command buffers and table
// without copying them (CUDA) checks with CheckQueueExecute and
// CheckQueueOperation instead, with the same checks, order and wording.
//
// When a one-shot command buffer counts as submitted. It is claimed
// atomically after every check has passed and before the queue sees it, and
// given back if the enqueue returns an error (an error from a queue
// operation means the submission did not happen: hal/device.h). Earlier
// would consume it for a submission that was refused; later (after the
// enqueue, where Vulkan used to mark it) leaves a window in which the queue
// has run it, or another thread woken by its signal resubmits it, while it
// still reads as never submitted, so it could run twice. The claim is a
// test-and-set, so two threads submitting one command buffer at once cannot
// both pass. (cpu-sync runs a submission inside the enqueue call: it runs
// claimed too.)
//
// Queues run an accepted submission when its waits are reached, then
// complete its signals (CompleteSignals): signaled when it succeeded,
// failed with its status when a wait failed or its work did, so failure
// flows down a chain of dependent submissions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/command_buffer.h"
#include "hal/fence.h"
#include "hal/trace.h"

namespace kiln::hal::utils {

// A queue operation as a driver's queue holds it.
template <typename CommandBufferT>
struct Submission {
  std::vector<Fence::Timepoint> waits;
  std::vector<Fence::Timepoint> signals;
  std::vector<Ref<CommandBufferT>> command_buffers;
  std::vector<Ref<Buffer>> binding_table;
  // QueueDealloca: the buffer the device holds until the submission runs.
  Ref<Buffer> released;
  // QueueExecute: the trace its dispatches' device spans go to (the
  // device's attached trace when submitted; null: not measured).
  Ref<Trace> trace;
};

enum class SemaphoreRole { kWait, kSignal };

// What a device tells the skeleton about its objects. A driver passes an
// object with these members (a small struct next to its device):
//   std::string_view owner() const;  // "a CPU device", "this CUDA device"
//   Status health() const;
//   bool OwnsSemaphore(const Semaphore&, SemaphoreRole) const;
//   // Whether a binding-table buffer is the device's, and the error for
//   // one that is not (`where` is "QueueExecute: binding-table slot 3"),
//   // built only then: a model's call checks every slot.
//   bool OwnsBuffer(const Buffer&) const;
//   Status ForeignBufferError(const Buffer&, const std::string& where) const;
//   CommandBufferT* OwnCommandBuffer(CommandBuffer&) const;  // null: foreign

// The errors of the checks below, built out of line and only on failure:
// a model's call passes every check, and its path stays short without them.
[[gnu::cold]] Status NullSemaphoreError(std::string_view operation);
[[gnu::cold]] Status ForeignSemaphoreError(std::string_view operation, SemaphoreRole role,
                                           std::string_view owner);
[[gnu::cold]] Status ForeignCommandBufferError(size_t index, std::string_view owner);
template <typename Objects>
[[gnu::cold, gnu::noinline]] Status ForeignTableBufferError(const Objects& objects,
                                                            const Buffer& buffer, size_t slot) {
  return objects.ForeignBufferError(buffer,
                                    "QueueExecute: binding-table slot " + std::to_string(slot));
}

// Steps 1-2, making nothing: the device's health, then each wait and each
// signal semaphore is non-null and the device's.
template <typename Objects>
Status CheckQueueOperation(const Objects& objects, std::string_view operation, const Fence& wait,
                           const Fence& signal) {
  KILN_RETURN_IF_ERROR(objects.health());
  for (const Fence::Timepoint& t : wait.timepoints()) {
    if (!t.semaphore) [[unlikely]]
      return NullSemaphoreError(operation);
    if (!objects.OwnsSemaphore(*t.semaphore, SemaphoreRole::kWait)) [[unlikely]] {
      return ForeignSemaphoreError(operation, SemaphoreRole::kWait, objects.owner());
    }
  }
  for (const Fence::Timepoint& t : signal.timepoints()) {
    if (!t.semaphore) [[unlikely]]
      return NullSemaphoreError(operation);
    if (!objects.OwnsSemaphore(*t.semaphore, SemaphoreRole::kSignal)) [[unlikely]] {
      return ForeignSemaphoreError(operation, SemaphoreRole::kSignal, objects.owner());
    }
  }
  return OkStatus();
}

// Steps 1-2: a submission holding the fences' timepoints.
template <typename CommandBufferT, typename Objects>
Result<Submission<CommandBufferT>> PrepareQueueOperation(const Objects& objects,
                                                         std::string_view operation,
                                                         const Fence& wait, const Fence& signal) {
  KILN_RETURN_IF_ERROR(CheckQueueOperation(objects, operation, wait, signal));
  Submission<CommandBufferT> submission;
  submission.waits = wait.timepoints();
  submission.signals = signal.timepoints();
  return submission;
}

// Steps 1-3 of a QueueExecute, making nothing: once it returns OK, each
// command buffer is a CommandBufferT of the device (a static_cast to it is
// exact). A driver whose queue takes the caller's fences, command buffers
// and table as they are (CUDA: a submission whose waits are met is issued
// at once, and copying it would cost a call heap allocations) checks with
// this, then claims and enqueues with SubmitClaimingOneShots.
template <typename CommandBufferT, typename Objects>
Status CheckQueueExecute(const Objects& objects, const Fence& wait, const Fence& signal,
                         std::span<const Ref<CommandBuffer>> command_buffers,
                         std::span<const Ref<Buffer>> binding_table) {
  KILN_RETURN_IF_ERROR(CheckQueueOperation(objects, "QueueExecute", wait, signal));
  KILN_RETURN_IF_ERROR(CommandBuffer::ValidateSubmission(command_buffers, binding_table));
  for (size_t i = 0; i < binding_table.size(); ++i) {
    // Unused slots may be empty.
    if (!binding_table[i] || objects.OwnsBuffer(*binding_table[i])) continue;
    return ForeignTableBufferError(objects, *binding_table[i], i);
  }
  for (size_t i = 0; i < command_buffers.size(); ++i) {
    if (objects.OwnCommandBuffer(*command_buffers[i]) == nullptr) [[unlikely]] {
      return ForeignCommandBufferError(i, objects.owner());
    }
  }
  return OkStatus();
}

// Step 4: claims the one-shot command buffers, runs `enqueue()` and gives
// the claims back if it returns an error.
template <typename Enqueue>
Status SubmitClaimingOneShots(std::span<const Ref<CommandBuffer>> command_buffers,
                              Enqueue&& enqueue) {
  KILN_RETURN_IF_ERROR(CommandBuffer::ClaimSubmission(command_buffers));
  Status status = enqueue();
  if (!status.ok()) [[unlikely]]
    CommandBuffer::ReleaseSubmission(command_buffers);
  return status;
}

// The whole of a QueueExecute. `enqueue(Submission<CommandBufferT>)`
// returns OK once the queue holds the submission, an error if it refused
// it (nothing enqueued).
template <typename CommandBufferT, typename Objects, typename Enqueue>
Status QueueExecute(const Objects& objects, const Fence& wait, const Fence& signal,
                    std::span<const Ref<CommandBuffer>> command_buffers,
                    std::span<const Ref<Buffer>> binding_table, Enqueue&& enqueue) {
  KILN_RETURN_IF_ERROR(
      CheckQueueExecute<CommandBufferT>(objects, wait, signal, command_buffers, binding_table));
  Submission<CommandBufferT> submission;
  submission.waits = wait.timepoints();
  submission.signals = signal.timepoints();
  submission.command_buffers.reserve(command_buffers.size());
  for (const Ref<CommandBuffer>& command_buffer : command_buffers) {
    // Checked above: each is the device's CommandBufferT.
    submission.command_buffers.emplace_back(static_cast<CommandBufferT*>(command_buffer.get()));
  }
  submission.binding_table.assign(binding_table.begin(), binding_table.end());
  return SubmitClaimingOneShots(command_buffers, [&] { return enqueue(std::move(submission)); });
}

// Completes the signals of a submission that ran (`status` OK: each
// semaphore is signaled; a signal that does not advance it fails it
// instead, the submitter's error carried to whoever waits) or that failed
// (each is failed with `status`).
void CompleteSignals(std::span<const Fence::Timepoint> signals, const Status& status);

}  // namespace kiln::hal::utils
