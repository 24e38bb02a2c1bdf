// NcclWatchdog: surfaces the asynchronous failures of a CUDA device's
// collectives as the failure of the submissions that ran them.
//
// NCCL reports what goes wrong after a collective was enqueued (a peer
// process that died, a network error) only when asked
// (ncclCommGetAsyncError), and a collective whose peer is gone does not
// finish: the submission's signal semaphores would never be reached, and a
// program waiting on them would hang. So the queue hands every submission
// that runs collectives (CudaQueue::Issue) to the device's watchdog: a
// completion event recorded after its work, its signal timepoints and the
// channels its collectives run on. A thread of the watchdog, started at the
// first such submission and sleeping whenever none is in flight, polls
// each one every kPollInterval until its event completes:
//   - a channel with an asynchronous error: the submission's signals are
//     failed with NCCL's error, naming the channel, and the channel is
//     aborted (NcclChannel::Abort);
//   - the device lost (the event fails with a sticky CUDA error, or the
//     context reports itself lost): the signals are failed with the lost
//     status and the channels aborted, so that the peers' collectives fail
//     too rather than wait for this one;
//   - the event completed: the channels are polled once more, and an error
//     fails the signals. A waiter that saw the semaphores reached before
//     that poll has seen success; the error reaches every later wait and,
//     the channel being failed, every later collective on it.
//
// Aborting a channel raises NCCL's abort flag, which makes the kernels of
// its collectives in flight return early: the GPU then reaches those
// submissions' completion events as if they had run. So before a channel
// raises the flag, every submission watched on it is failed
// (FailSubmissionsOn, which Abort calls), whichever thread aborts; and a
// submission handed over after its channel failed is refused (Watch), so
// no semaphore of a collective cut short is ever reached as a success.
//
// Polling costs a cuEventQuery and an ncclCommGetAsyncError per
// submission in flight and interval; the queue's work never waits for it.
#pragma once

#include <cuda.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/nccl_channel.h"
#include "hal/fence.h"

namespace kiln::hal::cuda {

class NcclWatchdog : public RefObject {
 public:
  // A collective in flight is polled this often; a failure surfaces within
  // about this long of NCCL noticing it.
  static constexpr std::chrono::milliseconds kPollInterval{1};

  explicit NcclWatchdog(Ref<CudaContext> context) : context_(std::move(context)) {}
  // Stops the thread (Shutdown).
  ~NcclWatchdog() override;

  // Watches a submission that ran collectives on `channels` until `event`
  // (from the context's pool, recorded on the queue's stream after the
  // submission's work; the watchdog gives it back) completes, failing
  // `signals` if the collectives fail. Called by the queue once the
  // submission is issued. A channel that has failed already: nothing is
  // watched, and the channel's failure is returned for the queue to fail
  // the submission with.
  Status Watch(CUevent event, std::span<const Fence::Timepoint> signals,
               std::span<const Ref<NcclChannel>> channels);

  // Fails, with `status`, every submission being watched that runs
  // collectives on `channel`, and stops watching them. NcclChannel::Abort
  // calls it (from any thread, the watchdog's own included) before it
  // raises NCCL's abort flag.
  void FailSubmissionsOn(const NcclChannel& channel, const Status& status);

  // Stops watching (the device is going away): the thread ends, and the
  // submissions still in flight complete without being watched.
  void Shutdown();

  // Submissions being watched (tests).
  size_t in_flight() const;

 private:
  struct Watched {
    CUevent event = nullptr;
    std::vector<Fence::Timepoint> signals;
    std::vector<Ref<NcclChannel>> channels;
    bool done = false;  // Completed or failed: let go at the end of the round.
    bool Uses(const NcclChannel& channel) const;
  };
  void Run();
  // Polls one submission; true when it is done with (completed or failed).
  bool Poll(Watched& watched);
  // Fails the submission's signals with `status`, then aborts its channels.
  void Fail(Watched& watched, const Status& status);

  Ref<CudaContext> context_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Watched> watched_;  // Guarded by mutex_.
  bool stopping_ = false;        // Guarded by mutex_.
  std::thread thread_;           // Started by the first Watch.
  std::thread::id thread_id_;    // thread_'s. Guarded by mutex_.
  // The thread polls a round of submissions (moved out of watched_ into
  // round_, then back) holding poll_mutex_; FailSubmissionsOn from another
  // thread takes it too, so it finds every submission in watched_.
  mutable std::mutex poll_mutex_;
  std::deque<Watched> round_;  // Guarded by poll_mutex_.
};

}  // namespace kiln::hal::cuda
