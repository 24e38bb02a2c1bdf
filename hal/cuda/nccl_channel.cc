#include "hal/cuda/nccl_channel.h"

#include <chrono>
#include <cstring>
#include <span>
#include <vector>

#include "hal/cuda/nccl_watchdog.h"

namespace kiln::hal::cuda {

namespace {

// How long Abort waits for a thread inside an NCCL call on the channel
// before aborting under it: an enqueue or a capture returns in
// microseconds; one that takes longer waits on a peer that is gone.
constexpr auto kAbortLockWait = std::chrono::seconds(1);

std::string GroupName(const std::string& group) {
  return group.empty() ? "the default channel" : "channel '" + group + "'";
}

void* Pointer(CUdeviceptr address) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}

ncclRedOp_t NcclReduction(CollectiveReduction reduction) {
  switch (reduction) {
    case CollectiveReduction::kProduct:
      return ncclProd;
    case CollectiveReduction::kMinimum:
      return ncclMin;
    case CollectiveReduction::kMaximum:
      return ncclMax;
    case CollectiveReduction::kAverage:
      return ncclAvg;
    case CollectiveReduction::kSum:
    case CollectiveReduction::kNone:  // Not a reducing kind (checked when recorded).
      break;
  }
  return ncclSum;
}

}  // namespace

Result<ncclDataType_t> NcclDataType(const CollectiveOp& op) {
  const uint32_t bits = ElementBitWidth(op.element_type);
  switch (ElementKind(op.element_type)) {
    case NumericalKind::kInteger:  // Signless: read as signed (collective.h).
    case NumericalKind::kIntegerSigned:
      if (bits == 8) return ncclInt8;
      if (bits == 32) return ncclInt32;
      if (bits == 64) return ncclInt64;
      break;
    case NumericalKind::kIntegerUnsigned:
      if (bits == 8) return ncclUint8;
      if (bits == 32) return ncclUint32;
      if (bits == 64) return ncclUint64;
      break;
    case NumericalKind::kFloatIeee:
      if (bits == 16) return ncclFloat16;
      if (bits == 32) return ncclFloat32;
      if (bits == 64) return ncclFloat64;
      break;
    case NumericalKind::kFloatBrain:
      if (bits == 16) return ncclBfloat16;
      break;
    default:
      break;
  }
  const bool reduces =
      op.kind == CollectiveKind::kAllReduce || op.kind == CollectiveKind::kReduceScatter;
  if (bits == 16 && IsIntegerType(op.element_type) && !reduces) {
    // The kinds that only move data never read the elements: NCCL copies
    // the bits of a 16-bit float as they are.
    return ncclFloat16;
  }
  return InvalidArgumentError(
      "Collective " + DescribeCollective(op) + ": NCCL has no " +
      std::string(FormatElementType(op.element_type)) +
      " type (its reductions take i8/si8/ui8, i32/si32/ui32, i64/si64/ui64, f16, bf16, f32 and "
      "f64; 16-bit integers are only gathered, exchanged or sent)");
}

Status NcclChannel::CheckOp(const CollectiveOp& op) { return NcclDataType(op).status(); }

NcclChannel::NcclChannel(Ref<CudaContext> context, Ref<NcclSymbols> symbols,
                         Ref<NcclWatchdog> watchdog, ncclComm_t comm, int32_t rank, int32_t count,
                         std::string group)
    : Channel(rank, count),
      context_(std::move(context)),
      symbols_(std::move(symbols)),
      watchdog_(std::move(watchdog)),
      comm_(comm),
      group_(std::move(group)) {
  description_ = GroupName(group_) + " (rank " + std::to_string(rank) + " of " +
                 std::to_string(count) + ", cuda://" + std::to_string(context_->ordinal()) + ")";
}

Result<Ref<NcclChannel>> NcclChannel::Create(Ref<CudaContext> context, Ref<NcclSymbols> symbols,
                                             Ref<NcclWatchdog> watchdog,
                                             const ChannelParams& params) {
  const std::string where = "CreateChannel: " + GroupName(params.group) + " (rank " +
                            std::to_string(params.rank) + " of " + std::to_string(params.count) +
                            ", cuda://" + std::to_string(context->ordinal()) + ")";
  if (params.count < 1 || params.rank < 0 || params.rank >= params.count) {
    return InvalidArgumentError(where + ": the rank is not in [0, " + std::to_string(params.count) +
                                ")");
  }
  if (params.count > 1 && !params.rendezvous) {
    return InvalidArgumentError(where + ": a group of " + std::to_string(params.count) +
                                " participants needs a rendezvous to meet");
  }
  if (params.rendezvous && params.rendezvous->world_size() != params.count) {
    return InvalidArgumentError(where + ": the rendezvous " + params.rendezvous->spec() +
                                " is for " + std::to_string(params.rendezvous->world_size()) +
                                " participants");
  }
  KILN_RETURN_IF_ERROR(context->health());
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  // One key per group name: its rank 0 writes it once (a rendezvous key has
  // one writer), everyone else reads it.
  const std::string key =
      (params.group.empty() ? std::string() : params.group + "/") + "cuda/nccl_unique_id";
  if (params.rank == 0) {
    KILN_RETURN_IF_ERROR(
        symbols->Check(symbols->ncclGetUniqueId(&id), where + ": ncclGetUniqueId"));
    if (params.count > 1) {
      Status set = params.rendezvous->Set(
          key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&id), sizeof(id)));
      if (!set.ok()) return set.WithContext(where + ": publishing NCCL's unique id");
    }
  } else {
    Result<std::vector<uint8_t>> value = params.rendezvous->Get(key);
    if (!value.ok()) return value.status().WithContext(where + ": waiting for NCCL's unique id");
    if (value->size() != sizeof(id)) {
      return DataLossError(where + ": the rendezvous key '" + key + "' of " +
                           params.rendezvous->spec() + " holds " + std::to_string(value->size()) +
                           " bytes, not an ncclUniqueId's " + std::to_string(sizeof(id)));
    }
    std::memcpy(&id, value->data(), sizeof(id));
  }
  // NCCL binds the communicator to the current device (the CUDA runtime
  // inside NCCL shares the primary context kiln retained).
  KILN_RETURN_IF_ERROR(context->MakeCurrent());
  ncclComm_t comm = nullptr;
  const ncclResult_t joined = symbols->ncclCommInitRank(&comm, params.count, id, params.rank);
  if (joined != ncclSuccess) {
    Status error = symbols->Check(joined, where + ": ncclCommInitRank", comm);
    if (comm != nullptr) symbols->ncclCommAbort(comm);
    return error;
  }
  return Ref<NcclChannel>::Adopt(new NcclChannel(std::move(context), std::move(symbols),
                                                 std::move(watchdog), comm, params.rank,
                                                 params.count, params.group));
}

NcclChannel::~NcclChannel() {
  {
    std::lock_guard<std::mutex> state(state_mutex_);
    if (abort_thread_.joinable()) {
      // The graphs the abort waits for are gone with the references to
      // this channel.
      abort_thread_.join();
      return;
    }
  }
  if (!context_->MakeCurrent().ok()) {
    symbols_->ncclCommAbort(comm_);
    return;
  }
  // Graphs that ran the communicator may still be running on the queue's
  // stream (their execs were destroyed, CUDA frees them once they finish):
  // the communicator must outlive them. A lost device never finishes them,
  // and a failed channel has nothing to wait for: aborted instead.
  const bool healthy = context_->health().ok() && !failed_.load(std::memory_order_acquire) &&
                       context_->symbols().cuStreamSynchronize(context_->stream()) == CUDA_SUCCESS;
  if (healthy) {
    symbols_->ncclCommDestroy(comm_);
  } else {
    symbols_->ncclCommAbort(comm_);
  }
}

void NcclChannel::SetFailure(const Status& status) const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (failed_.load(std::memory_order_relaxed)) return;
  failure_ = status;
  failed_.store(true, std::memory_order_release);
}

Status NcclChannel::PollAsyncError() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (failed_.load(std::memory_order_relaxed)) return failure_;
  ncclResult_t async = ncclSuccess;
  ncclResult_t polled = symbols_->ncclCommGetAsyncError(comm_, &async);
  // ncclInProgress: a nonblocking communicator still initializing (kiln's
  // are blocking): nothing has failed.
  if (polled == ncclSuccess && (async == ncclSuccess || async == ncclInProgress)) {
    return OkStatus();
  }
  if (polled != ncclSuccess) async = polled;
  return symbols_->Check(async, "NCCL reported an asynchronous error on " + description_, comm_);
}

void NcclChannel::Abort(const Status& status) const {
  // The failure first: a thread that takes the lock after this point sees
  // it and never touches the communicator again, and the watchdog watches
  // no submission on the channel from now on.
  SetFailure(status);
  // Then the submissions in flight, whose kernels the abort cuts short.
  if (watchdog_) watchdog_->FailSubmissionsOn(*this, health());
  std::lock_guard<std::mutex> state(state_mutex_);
  if (abort_thread_.joinable()) return;  // Started already.
  abort_thread_ = std::thread([this] {
    std::unique_lock<std::timed_mutex> calls(mutex_, std::defer_lock);
    (void)calls.try_lock_for(kAbortLockWait);
    (void)context_->MakeCurrent();
    symbols_->ncclCommAbort(comm_);
  });
}

Result<Ref<Channel>> NcclChannel::Split(int32_t color, int32_t key) {
  const std::string where = "Split of " + description_ + " (color " + std::to_string(color) +
                            ", key " + std::to_string(key) + ")";
  if (color < -1) return InvalidArgumentError(where + ": a color is -1 (none) or at least 0");
  std::lock_guard<std::timed_mutex> lock(mutex_);
  Status healthy = health();
  if (!healthy.ok()) return healthy.WithContext(where);
  KILN_RETURN_IF_ERROR(context_->health());
  KILN_RETURN_IF_ERROR(context_->MakeCurrent());
  ncclComm_t split = nullptr;
  // A null config: the new communicator inherits this one's (blocking).
  KILN_RETURN_IF_ERROR(symbols_->Check(
      symbols_->ncclCommSplit(comm_, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &split, nullptr),
      where + ": ncclCommSplit", comm_));
  if (split == nullptr) return Ref<Channel>();  // Left out (color -1).
  int rank = 0, count = 0;
  Status described = symbols_->Check(symbols_->ncclCommUserRank(split, &rank),
                                     where + ": ncclCommUserRank", split);
  if (described.ok()) {
    described =
        symbols_->Check(symbols_->ncclCommCount(split, &count), where + ": ncclCommCount", split);
  }
  if (!described.ok()) {
    symbols_->ncclCommAbort(split);
    return described;
  }
  const std::string group = group_ + (group_.empty() ? "" : "/") + "split" + std::to_string(color);
  return Ref<Channel>(Ref<NcclChannel>::Adopt(
      new NcclChannel(context_, symbols_, watchdog_, split, rank, count, group)));
}

Status NcclChannel::Enqueue(const CollectiveOp& op, CUdeviceptr send, CUdeviceptr recv,
                            uint64_t element_count, CUstream stream) const {
  std::lock_guard<std::timed_mutex> lock(mutex_);
  Status status = health();
  if (status.ok()) status = context_->MakeCurrent();
  if (status.ok()) status = EnqueueLocked(op, send, recv, element_count, stream);
  if (!status.ok()) [[unlikely]] {
    return status.WithContext("Collective " + DescribeCollective(op) + " on " + description_);
  }
  return OkStatus();
}

Status NcclChannel::EnqueueLocked(const CollectiveOp& op, CUdeviceptr send, CUdeviceptr recv,
                                  uint64_t element_count, CUstream stream) const {
  // Checked when recorded (CheckOp): cannot fail here.
  KILN_ASSIGN_OR_RETURN(const ncclDataType_t type, NcclDataType(op));
  const NcclSymbols& s = *symbols_;
  const size_t element_bytes = ElementByteSize(op.element_type);
  const size_t n = element_count;
  switch (op.kind) {
    case CollectiveKind::kAllReduce:
      return s.Check(s.ncclAllReduce(Pointer(send), Pointer(recv), n, type,
                                     NcclReduction(op.reduction), comm_, stream),
                     "ncclAllReduce", comm_);
    case CollectiveKind::kAllGather:
      return s.Check(s.ncclAllGather(Pointer(send), Pointer(recv), n, type, comm_, stream),
                     "ncclAllGather", comm_);
    case CollectiveKind::kReduceScatter:
      // NCCL's recvcount: each participant's share, the command's count.
      return s.Check(s.ncclReduceScatter(Pointer(send), Pointer(recv), n, type,
                                         NcclReduction(op.reduction), comm_, stream),
                     "ncclReduceScatter", comm_);
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kSendRecv:
      break;
  }
  if (op.kind == CollectiveKind::kSendRecv && op.recv_rank < 0 && n != 0) {
    // Nothing arrives: the recv range reads as zeros.
    KILN_RETURN_IF_ERROR(
        context_->Check(context_->symbols().cuMemsetD8Async(recv, 0, n * element_bytes, stream),
                        "cuMemsetD8Async (a send_recv that receives from no rank)"));
  }
  // Sends and receives of one collective progress together only inside one
  // NCCL group (a ring of send_recv would deadlock otherwise).
  KILN_RETURN_IF_ERROR(s.Check(s.ncclGroupStart(), "ncclGroupStart", comm_));
  Status status;
  if (op.kind == CollectiveKind::kAllToAll) {
    // Chunk r of the send range goes to rank r; chunk r of the recv range
    // comes from rank r.
    const size_t chunk = n / static_cast<size_t>(count());
    const size_t chunk_bytes = chunk * element_bytes;
    for (int32_t r = 0; r < count() && status.ok(); ++r) {
      const size_t offset = static_cast<size_t>(r) * chunk_bytes;
      status = s.Check(s.ncclSend(Pointer(send + offset), chunk, type, r, comm_, stream),
                       "ncclSend (to rank " + std::to_string(r) + ")", comm_);
      if (status.ok()) {
        status = s.Check(s.ncclRecv(Pointer(recv + offset), chunk, type, r, comm_, stream),
                         "ncclRecv (from rank " + std::to_string(r) + ")", comm_);
      }
    }
  } else {
    if (op.send_rank >= 0) {
      status = s.Check(s.ncclSend(Pointer(send), n, type, op.send_rank, comm_, stream),
                       "ncclSend (to rank " + std::to_string(op.send_rank) + ")", comm_);
    }
    if (status.ok() && op.recv_rank >= 0) {
      status = s.Check(s.ncclRecv(Pointer(recv), n, type, op.recv_rank, comm_, stream),
                       "ncclRecv (from rank " + std::to_string(op.recv_rank) + ")", comm_);
    }
  }
  // Ended even after a failed call, so that the thread leaves the group.
  const ncclResult_t ended = s.ncclGroupEnd();
  if (status.ok()) status = s.Check(ended, "ncclGroupEnd", comm_);
  return status;
}

}  // namespace kiln::hal::cuda
