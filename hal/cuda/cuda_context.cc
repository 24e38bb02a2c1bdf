#include "hal/cuda/cuda_context.h"

namespace kiln::hal::cuda {

Result<Ref<CudaContext>> CudaContext::Create(Ref<CudaSymbols> symbols, int ordinal) {
  Ref<CudaContext> ctx = Ref<CudaContext>::Adopt(new CudaContext(std::move(symbols), ordinal));
  const CudaSymbols& s = *ctx->symbols_;
  const std::string where = "cuda://" + std::to_string(ordinal);
  KILN_RETURN_IF_ERROR(s.Check(s.cuDeviceGet(&ctx->device_, ordinal), where + ": cuDeviceGet"));
  KILN_RETURN_IF_ERROR(s.Check(s.cuDevicePrimaryCtxRetain(&ctx->context_, ctx->device_),
                               where + ": cuDevicePrimaryCtxRetain"));
  KILN_RETURN_IF_ERROR(ctx->MakeCurrent());
  auto attribute = [&](CUdevice_attribute which, int* out) {
    return s.Check(s.cuDeviceGetAttribute(out, which, ctx->device_),
                   where + ": cuDeviceGetAttribute");
  };
  int major = 0, minor = 0, pools = 0;
  KILN_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major));
  KILN_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor));
  KILN_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                 &ctx->max_shared_memory_optin_));
  KILN_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &pools));
  ctx->compute_capability_ = major * 10 + minor;
  ctx->supports_memory_pools_ = pools != 0;
  // Non-blocking: the queue's work does not serialize with the legacy
  // default stream that synchronous copies (ReadData/WriteData) use.
  KILN_RETURN_IF_ERROR(
      s.Check(s.cuStreamCreate(&ctx->stream_, CU_STREAM_NON_BLOCKING), where + ": cuStreamCreate"));
  if (ctx->supports_memory_pools_) {
    // Keep freed stream-ordered memory in the pool instead of returning it
    // to the OS at every synchronization: queue_alloca then reuses it.
    CUmemoryPool pool = nullptr;
    if (s.cuDeviceGetDefaultMemPool(&pool, ctx->device_) == CUDA_SUCCESS) {
      cuuint64_t threshold = ~cuuint64_t{0};
      s.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
    }
  }
  return ctx;
}

CudaContext::~CudaContext() {
  if (!context_) return;
  const CudaSymbols& s = *symbols_;
  if (s.cuCtxSetCurrent(context_) == CUDA_SUCCESS) {
    if (stream_) {
      for (CUdeviceptr block : block_cache_.TakeAll()) s.cuMemFreeAsync(block, stream_);
      s.cuStreamSynchronize(stream_);
      s.cuStreamDestroy(stream_);
    }
    for (CUevent event : free_events_) s.cuEventDestroy(event);
  }
  s.cuDevicePrimaryCtxRelease(device_);
}

Status CudaContext::MakeCurrent() const {
  // The current context is per thread, and an embedding application may set
  // its own: ask (cheap) rather than remember.
  CUcontext current = nullptr;
  if (symbols_->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_) {
    return OkStatus();
  }
  return symbols_->Check(symbols_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Status CudaContext::Check(CUresult result, std::string_view what) const {
  if (result == CUDA_SUCCESS) return OkStatus();
  Status status = symbols_->Check(result, what);
  if (IsStickyError(result)) {
    MarkLost(status);
    return health();
  }
  return status;
}

void CudaContext::MarkLost(const Status& status) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (lost_.load(std::memory_order_relaxed)) return;
  lost_status_ = UnavailableError("the CUDA device cuda://" + std::to_string(ordinal_) +
                                  " is lost: " + status.message());
  lost_.store(true, std::memory_order_release);
}

Result<CUevent> CudaContext::AcquireEvent() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_events_.empty()) {
      CUevent event = free_events_.back();
      free_events_.pop_back();
      return event;
    }
  }
  KILN_RETURN_IF_ERROR(MakeCurrent());
  CUevent event = nullptr;
  KILN_RETURN_IF_ERROR(
      Check(symbols_->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  return event;
}

void CudaContext::ReleaseEvent(CUevent event) const {
  std::lock_guard<std::mutex> lock(mutex_);
  free_events_.push_back(event);
}

}  // namespace kiln::hal::cuda
