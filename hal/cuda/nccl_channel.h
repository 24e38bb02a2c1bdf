// NcclChannel: a CUDA device's channel (hal/channel.h): one NCCL
// communicator (ncclComm_t) bound to the device's primary context.
//
// Creation (Create, through CudaDevice::CreateChannel) is collective: rank 0
// makes an ncclUniqueId and sets it in the group's rendezvous under
// "<group>/cuda/nccl_unique_id"; the other ranks get it there; every rank
// then joins with ncclCommInitRank, the device's context current (NCCL's
// runtime takes the current device for the communicator). A channel of one
// participant makes its id locally and needs no rendezvous. A rendezvous
// key has one writer, so a group name makes one channel per rendezvous;
// Split makes the others. Several channels of one process (a process
// driving several GPUs) must be created from different threads: each
// creation waits for all of its group.
//
// Collectives (Enqueue) map onto NCCL's calls: all_reduce, all_gather and
// reduce_scatter are ncclAllReduce, ncclAllGather and ncclReduceScatter
// (NCCL's recvcount is the command's element_count, as collective.h
// says); all_to_all and send_recv are ncclSend/ncclRecv pairs in one NCCL
// group (so that they progress together); a send_recv that receives from
// no rank (-1) zero-fills its recv range on the stream. Element types map
// to NCCL's types (signless integers as signed ones). NCCL has no 16-bit
// integer type: all_reduce and reduce_scatter of si16/ui16/i16 are refused
// when recorded (CheckOp); the collectives that only move data carry them
// as 16-bit floats, whose bits NCCL copies unread.
//
// Every NCCL call on the communicator holds the channel's lock: a graph
// command buffer may capture its collectives at End on the recording thread
// while the queue issues others, and NCCL does not allow two threads to use
// one communicator at once.
//
// Failure. NCCL reports errors of the collectives already enqueued (a peer
// that died, a network error) asynchronously (ncclCommGetAsyncError);
// NcclWatchdog (nccl_watchdog.h) polls them for every submission that runs
// collectives. Once a channel has failed (an asynchronous error, or its
// device lost), every later use of it (recording, submitting, splitting)
// fails with the status that failed it, and its communicator is aborted
// (Abort). NCCL's abort first raises the flag that makes the kernels of
// collectives in flight return (the stream moves on rather than hang), so
// the submissions in flight on the channel are failed before it
// (NcclWatchdog::FailSubmissionsOn): none reads as a success. Then, since
// NCCL 2.26, the abort waits until every graph that captured the
// communicator is destroyed: the command buffers that hold those graphs
// may live on, so the abort runs on a thread of the channel's, joined when
// the channel goes (by then every such graph is gone, see Lifetime). A
// channel released while its device is lost is aborted rather than
// destroyed (ncclCommDestroy would wait for work that never finishes).
//
// Lifetime: graphs that captured a collective embed the communicator, and
// NCCL's destroy and abort wait for them; so every command buffer (and
// cached graph) that records on the channel holds a reference to it, and
// destroys its graphs before it lets the channel go. The channel then
// waits for its device's queue to drain (a destroyed graph exec may still
// be running) before it destroys the communicator.
#pragma once

#include <cuda.h>
#include <nccl.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include "base/ref.h"
#include "base/result.h"
#include "hal/channel.h"
#include "hal/collective.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/nccl_symbols.h"

namespace kiln::hal::cuda {

class NcclWatchdog;

class NcclChannel final : public Channel {
 public:
  // Joins the group `params` describes on `context`'s device (collective:
  // returns once every participant has joined). `watchdog` is the device's
  // (it watches the submissions that run the channel's collectives; Abort
  // fails them first). INVALID_ARGUMENT for inconsistent params (a rank out
  // of range, no rendezvous for a group of several, a rendezvous of another
  // size); the rendezvous's error (a timeout naming the key); NCCL's error
  // naming the group and the rank.
  static Result<Ref<NcclChannel>> Create(Ref<CudaContext> context, Ref<NcclSymbols> symbols,
                                         Ref<NcclWatchdog> watchdog, const ChannelParams& params);
  ~NcclChannel() override;

  // ncclCommSplit (collective over this channel); color -1 is
  // NCCL_SPLIT_NOCOLOR and returns a null channel.
  Result<Ref<Channel>> Split(int32_t color, int32_t key) override;

  const CudaContext& context() const { return *context_; }
  // "channel 'group' (rank 1 of 4, cuda://1)", for messages.
  const std::string& description() const { return description_; }

  // INVALID_ARGUMENT when NCCL cannot run `op` (a reduction of 16-bit
  // integers), naming the collective and the type; OK otherwise. `op` has
  // passed CollectiveBufferCounts.
  static Status CheckOp(const CollectiveOp& op);

  // Enqueues `op` of `element_count` (the command's) from `send` into
  // `recv` on `stream` (the queue's, or a capturing one). Nothing here
  // synchronizes, so it can be captured into a graph. Fails with the
  // channel's failure once it has failed.
  Status Enqueue(const CollectiveOp& op, CUdeviceptr send, CUdeviceptr recv, uint64_t element_count,
                 CUstream stream) const;

  // OK while the channel is usable; the status that failed it afterwards.
  // One atomic load while healthy: submissions ask every time.
  Status health() const {
    if (!failed_.load(std::memory_order_acquire)) [[likely]]
      return OkStatus();
    std::lock_guard<std::mutex> lock(state_mutex_);
    return failure_;
  }
  // Polls NCCL's asynchronous error of the communicator: OK, or the error
  // (UNAVAILABLE for a peer or network failure) naming NCCL's error
  // string and this channel; the failure of a channel that failed before.
  // Does not fail the channel (Abort does). Safe from any thread.
  Status PollAsyncError() const;
  // Fails the channel with `status` (the first failure wins), fails the
  // submissions in flight on it (NcclWatchdog::FailSubmissionsOn: NCCL's
  // abort cuts their kernels short), and starts aborting the communicator
  // (once), without waiting for the abort to finish (the header says why).
  // Safe from any thread, also while another is inside an NCCL call on the
  // channel: the abort waits a little for that call, then goes ahead
  // regardless (NCCL's abort is what unblocks a call waiting on a dead
  // peer).
  void Abort(const Status& status) const;

 private:
  NcclChannel(Ref<CudaContext> context, Ref<NcclSymbols> symbols, Ref<NcclWatchdog> watchdog,
              ncclComm_t comm, int32_t rank, int32_t count, std::string group);
  // Records the first failure.
  void SetFailure(const Status& status) const;
  // Enqueue's calls, under mutex_.
  Status EnqueueLocked(const CollectiveOp& op, CUdeviceptr send, CUdeviceptr recv,
                       uint64_t element_count, CUstream stream) const;

  Ref<CudaContext> context_;
  Ref<NcclSymbols> symbols_;
  Ref<NcclWatchdog> watchdog_;
  ncclComm_t comm_;
  std::string group_;
  std::string description_;

  // Held around every NCCL call that uses comm_ except the asynchronous
  // error poll and the abort (which must get through while a call hangs).
  mutable std::timed_mutex mutex_;
  // Guards failure_ and the abort's start, and is held around the poll, so
  // that the poll never reads a communicator being aborted (failed_ is set
  // first). Taken after mutex_ where both are.
  mutable std::mutex state_mutex_;
  mutable std::atomic<bool> failed_{false};
  mutable Status failure_;
  // Runs ncclCommAbort (Abort); once started, nothing else touches comm_.
  mutable std::thread abort_thread_;
};

// The NCCL type of `op`'s element type (signless integers as signed ones;
// 16-bit integers, which only move, as 16-bit floats); INVALID_ARGUMENT
// naming the type where NCCL has none (CheckOp).
Result<ncclDataType_t> NcclDataType(const CollectiveOp& op);

}  // namespace kiln::hal::cuda
