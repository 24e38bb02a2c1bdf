// CpuQueue: the in-order queue of a CPU device.
//
// Submissions run one at a time, in submission order, each once every
// semaphore of its wait fence has reached its value. A submission whose wait
// is not yet reached blocks the ones behind it (the queue is in order), and
// the queue asks that semaphore to call it back instead of polling.
//
// Two ways to run:
//   - asynchronous (the "cpu" device): a worker thread owned by the queue
//     executes submissions; QueueExecute only enqueues.
//   - synchronous ("cpu-sync"): no thread; a submission runs on the thread
//     that makes it runnable, i.e. inline in QueueExecute when its waits are
//     already reached, otherwise on the thread that signals the last
//     semaphore it waits on.
//
// When a submission's wait fails, or one of its command buffers fails, its
// signal semaphores are failed with that status (utils::CompleteSignals). Shutdown (device
// destruction) fails the submissions still pending with ABORTED.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/ref.h"
#include "hal/cpu/cpu_command_buffer.h"
#include "hal/cpu/cpu_semaphore.h"
#include "hal/cpu/thread_pool.h"
#include "hal/fence.h"
#include "hal/utils/submission.h"

namespace kiln::hal::cpu {

// The queue drops every reference of a submission before signaling it; its
// wait semaphores are CpuSemaphores (CpuDevice checks).
using CpuSubmission = utils::Submission<CpuCommandBuffer>;

class CpuQueue : public RefObject {
 public:
  // `pool` (may be null: workgroups inline) must outlive Shutdown().
  CpuQueue(ThreadPool* pool, bool asynchronous);
  ~CpuQueue() override;

  // Enqueues (and for a synchronous queue possibly runs) a submission whose
  // fields the device has validated.
  void Submit(CpuSubmission submission);
  // Stops the queue: pending submissions fail with ABORTED, the worker
  // thread is joined. Idempotent.
  void Shutdown();

 private:
  enum class WaitState { kReady, kFailed, kBlocked };
  static WaitState CheckWaits(const std::vector<Fence::Timepoint>& waits, Status* failure,
                              CpuSemaphore** blocker, uint64_t* blocker_value);
  // Both drop the submission's references, then signal or fail its
  // semaphores.
  void Run(CpuSubmission& submission);
  void Fail(CpuSubmission& submission, const Status& failure);
  void WorkerMain();
  void Wake();
  void Pump();

  ThreadPool* pool_;
  bool asynchronous_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<CpuSubmission> pending_;  // Guarded by mutex_.
  uint64_t epoch_ = 0;                 // Guarded by mutex_; bumped by semaphore callbacks.
  bool shutdown_ = false;              // Guarded by mutex_.
  // Whether pending_ is non-empty or shutdown_ is set, written under mutex_:
  // the idle worker polls it before blocking (spin_wait.h).
  std::atomic<bool> has_work_{false};
  bool pumping_ = false;  // Guarded by mutex_ (synchronous queues).
  bool repump_ = false;   // Guarded by mutex_ (synchronous queues).
  std::thread worker_;
};

}  // namespace kiln::hal::cpu
