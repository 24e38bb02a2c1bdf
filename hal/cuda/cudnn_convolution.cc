#include "hal/cuda/cudnn_convolution.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cuda {

namespace {

namespace lib = ::kiln::schema::library;

// Algorithms whose workspace exceeds this are passed over: the command
// buffer allocates every call's workspace once and keeps it, and the
// heuristic always offers an algorithm that needs little or none.
constexpr size_t kMaxWorkspaceBytes = size_t{64} << 20;

// cuDNN's legacy descriptors take int dimensions and limit a tensor to
// 2^31 - 1 elements.
constexpr uint64_t kMaxCudnnElements = std::numeric_limits<int32_t>::max();

// A cuDNN descriptor destroyed with its owner.
template <typename T>
class CudnnObject {
 public:
  using Destroy = cudnnStatus_t (*)(T);
  CudnnObject() = default;
  CudnnObject(const CudnnObject&) = delete;
  CudnnObject& operator=(const CudnnObject&) = delete;
  ~CudnnObject() {
    if (value_) destroy_(value_);
  }
  // Creates the object with `create`; `destroy` releases it.
  Status Create(const CudnnSymbols& s, cudnnStatus_t (*create)(T*), Destroy destroy,
                std::string_view what) {
    destroy_ = destroy;
    return s.Check(create(&value_), what);
  }
  T get() const { return value_; }

 private:
  T value_ = nullptr;
  Destroy destroy_ = nullptr;
};

const char* AlgorithmName(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "?";
  }
}

void* Address(CUdeviceptr pointer) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(pointer));
}

// A validated call: its shape (every value fits cuDNN's int), bindings,
// byte sizes and types.
struct ConvolutionSpec {
  int n, c, h, w;  // x
  int k, r, s;     // filter: k x (c / groups) x r x s
  int groups;
  int stride_h, stride_w, dilation_h, dilation_w;
  int p, q;                       // y: n x k x p x q
  int32_t x, filter, y, bias, z;  // Binding indices; -1: none.
  bool relu;
  cudnnDataType_t data_type;
  uint64_t element_bytes;
  cudnnMathType_t math_type;  // What the heuristic is asked for.
  bool strict_f32;            // f32 without TF32: FMA math only.
  uint64_t x_bytes, filter_bytes, y_bytes, bias_bytes;
  std::string description;
};

// What recording chose: an algorithm, the convolution descriptor with the
// math type the heuristic chose it for (a plan of its own, so that plans of
// one call never change each other's descriptor), and whether the fused
// cudnnConvolutionBiasActivationForward runs the epilogue.
class CudnnConvolutionPlan final : public LibraryCallPlan {
 public:
  size_t workspace_bytes() const override { return workspace_size; }

  CudnnObject<cudnnConvolutionDescriptor_t> convolution;
  cudnnConvolutionFwdAlgo_t algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace_size = 0;
  bool fused = false;
  // Set when cuDNN refused the fused call for these shapes at run time
  // (NOT_SUPPORTED: the heuristic does not know the fused call's rules);
  // later enqueues go straight to the unfused sequence.
  mutable std::atomic<bool> fused_refused{false};
};

class CudnnConvolution final : public LibraryCall {
 public:
  CudnnConvolution(Ref<CudnnLibrary> library, ConvolutionSpec spec)
      : library_(std::move(library)), c_(std::move(spec)) {}

  ~CudnnConvolution() override {
    if (zero_bias_ != 0 && library_->context().MakeCurrent().ok()) {
      library_->context().symbols().cuMemFree(zero_bias_);
    }
  }

  // Creates the descriptors (and the zero bias the fused call may need).
  Status Initialize();

  const std::string& description() const override { return c_.description; }

  uint64_t RequiredBytes(uint32_t binding) const override {
    const int64_t index = binding;
    uint64_t bytes = 0;
    auto role = [&](int32_t role_binding, uint64_t role_bytes) {
      if (role_binding == index) bytes = std::max(bytes, role_bytes);
    };
    role(c_.x, c_.x_bytes);
    role(c_.filter, c_.filter_bytes);
    role(c_.y, c_.y_bytes);
    role(c_.bias, c_.bias_bytes);
    role(c_.z, c_.y_bytes);
    return bytes;
  }

  Result<std::unique_ptr<LibraryCallPlan>> Plan() const override;

  Status Enqueue(const LibraryCallPlan& plan, CUstream stream,
                 std::span<const CUdeviceptr> bindings, CUdeviceptr workspace) const override;

 private:
  // The epilogue (bias, addend, ReLU) in cudnnConvolutionBiasActivationForward.
  bool wants_fused() const { return c_.bias >= 0 || c_.z >= 0 || c_.relu; }
  Status ConfigureConvolution(cudnnConvolutionDescriptor_t descriptor,
                              cudnnMathType_t math_type) const;
  Status Run(const CudnnConvolutionPlan& plan, void* x, void* w, void* y, void* bias, void* z,
             void* workspace) const;

  Ref<CudnnLibrary> library_;
  const ConvolutionSpec c_;
  CudnnObject<cudnnTensorDescriptor_t> x_desc_, y_desc_, bias_desc_;
  CudnnObject<cudnnFilterDescriptor_t> w_desc_;
  CudnnObject<cudnnConvolutionDescriptor_t> conv_desc_;
  CudnnObject<cudnnActivationDescriptor_t> activation_desc_;
  // k zero elements: the fused call always reads a bias, and a call
  // without one adds these. Owned by the call.
  CUdeviceptr zero_bias_ = 0;
};

Status CudnnConvolution::ConfigureConvolution(cudnnConvolutionDescriptor_t descriptor,
                                              cudnnMathType_t math_type) const {
  const CudnnSymbols& s = library_->symbols();
  // No padding: the input binding holds the padded image. Accumulation in
  // f32 for every element type (PSEUDO_HALF / PSEUDO_BFLOAT16 for 16-bit
  // data), like the generated kernel.
  KILN_RETURN_IF_ERROR(s.Check(
      s.cudnnSetConvolution2dDescriptor(descriptor, 0, 0, c_.stride_h, c_.stride_w, c_.dilation_h,
                                        c_.dilation_w, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
      c_.description + ": cudnnSetConvolution2dDescriptor"));
  KILN_RETURN_IF_ERROR(s.Check(s.cudnnSetConvolutionGroupCount(descriptor, c_.groups),
                               c_.description + ": cudnnSetConvolutionGroupCount"));
  return s.Check(s.cudnnSetConvolutionMathType(descriptor, math_type),
                 c_.description + ": cudnnSetConvolutionMathType");
}

Status CudnnConvolution::Initialize() {
  const CudnnSymbols& s = library_->symbols();
  const std::string& d = c_.description;
  KILN_RETURN_IF_ERROR(x_desc_.Create(s, s.cudnnCreateTensorDescriptor,
                                      s.cudnnDestroyTensorDescriptor,
                                      d + ": cudnnCreateTensorDescriptor"));
  KILN_RETURN_IF_ERROR(y_desc_.Create(s, s.cudnnCreateTensorDescriptor,
                                      s.cudnnDestroyTensorDescriptor,
                                      d + ": cudnnCreateTensorDescriptor"));
  KILN_RETURN_IF_ERROR(bias_desc_.Create(s, s.cudnnCreateTensorDescriptor,
                                         s.cudnnDestroyTensorDescriptor,
                                         d + ": cudnnCreateTensorDescriptor"));
  KILN_RETURN_IF_ERROR(w_desc_.Create(s, s.cudnnCreateFilterDescriptor,
                                      s.cudnnDestroyFilterDescriptor,
                                      d + ": cudnnCreateFilterDescriptor"));
  KILN_RETURN_IF_ERROR(conv_desc_.Create(s, s.cudnnCreateConvolutionDescriptor,
                                         s.cudnnDestroyConvolutionDescriptor,
                                         d + ": cudnnCreateConvolutionDescriptor"));
  KILN_RETURN_IF_ERROR(activation_desc_.Create(s, s.cudnnCreateActivationDescriptor,
                                               s.cudnnDestroyActivationDescriptor,
                                               d + ": cudnnCreateActivationDescriptor"));

  KILN_RETURN_IF_ERROR(s.Check(s.cudnnSetTensor4dDescriptor(x_desc_.get(), CUDNN_TENSOR_NCHW,
                                                            c_.data_type, c_.n, c_.c, c_.h, c_.w),
                               d + ": cudnnSetTensor4dDescriptor (x)"));
  KILN_RETURN_IF_ERROR(s.Check(s.cudnnSetTensor4dDescriptor(y_desc_.get(), CUDNN_TENSOR_NCHW,
                                                            c_.data_type, c_.n, c_.k, c_.p, c_.q),
                               d + ": cudnnSetTensor4dDescriptor (y)"));
  // The bias broadcasts over N, H and W: 1 x k x 1 x 1, of y's type (the
  // fused call's rule for every floating-point configuration).
  KILN_RETURN_IF_ERROR(s.Check(s.cudnnSetTensor4dDescriptor(bias_desc_.get(), CUDNN_TENSOR_NCHW,
                                                            c_.data_type, 1, c_.k, 1, 1),
                               d + ": cudnnSetTensor4dDescriptor (bias)"));
  KILN_RETURN_IF_ERROR(
      s.Check(s.cudnnSetFilter4dDescriptor(w_desc_.get(), c_.data_type, CUDNN_TENSOR_NCHW, c_.k,
                                           c_.c / c_.groups, c_.r, c_.s),
              d + ": cudnnSetFilter4dDescriptor"));
  KILN_RETURN_IF_ERROR(ConfigureConvolution(conv_desc_.get(), c_.math_type));
  // IDENTITY is accepted by the fused call only; the unfused sequence
  // applies the activation only for ReLU.
  KILN_RETURN_IF_ERROR(s.Check(
      s.cudnnSetActivationDescriptor(activation_desc_.get(),
                                     c_.relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                     CUDNN_PROPAGATE_NAN, 0.0),
      d + ": cudnnSetActivationDescriptor"));

  // cuDNN must agree with the schema's output size, or the binding sizes
  // checked against RequiredBytes would not be the bytes cuDNN writes.
  int on = 0, ok = 0, op = 0, oq = 0;
  KILN_RETURN_IF_ERROR(
      s.Check(s.cudnnGetConvolution2dForwardOutputDim(conv_desc_.get(), x_desc_.get(),
                                                      w_desc_.get(), &on, &ok, &op, &oq),
              d + ": cudnnGetConvolution2dForwardOutputDim"));
  if (on != c_.n || ok != c_.k || op != c_.p || oq != c_.q) {
    return InternalError(d + ": cuDNN computes the output " + std::to_string(on) + "x" +
                         std::to_string(ok) + "x" + std::to_string(op) + "x" + std::to_string(oq) +
                         ", the call says " + std::to_string(c_.n) + "x" + std::to_string(c_.k) +
                         "x" + std::to_string(c_.p) + "x" + std::to_string(c_.q));
  }

  if (wants_fused() && c_.bias < 0) {
    const CudaContext& context = library_->context();
    const CudaSymbols& cu = context.symbols();
    KILN_RETURN_IF_ERROR(context.MakeCurrent());
    const size_t bytes = static_cast<size_t>(c_.k) * c_.element_bytes;
    KILN_RETURN_IF_ERROR(
        context.Check(cu.cuMemAlloc(&zero_bias_, bytes), d + ": cuMemAlloc (zero bias)"));
    // Zero bits are 0.0 in f32, f16 and bf16. Synchronized here, at
    // creation, so that any stream may read the bias afterwards.
    KILN_RETURN_IF_ERROR(context.Check(cu.cuMemsetD8Async(zero_bias_, 0, bytes, context.stream()),
                                       d + ": cuMemsetD8Async (zero bias)"));
    KILN_RETURN_IF_ERROR(context.Check(cu.cuStreamSynchronize(context.stream()),
                                       d + ": cuStreamSynchronize (zero bias)"));
  }
  return OkStatus();
}

Result<std::unique_ptr<LibraryCallPlan>> CudnnConvolution::Plan() const {
  const CudnnSymbols& s = library_->symbols();
  const std::string& d = c_.description;
  KILN_RETURN_IF_ERROR(library_->context().MakeCurrent());
  auto plan = std::make_unique<CudnnConvolutionPlan>();
  KILN_RETURN_IF_ERROR(plan->convolution.Create(s, s.cudnnCreateConvolutionDescriptor,
                                                s.cudnnDestroyConvolutionDescriptor,
                                                d + ": cudnnCreateConvolutionDescriptor"));
  KILN_RETURN_IF_ERROR(ConfigureConvolution(plan->convolution.get(), c_.math_type));

  std::unique_lock<std::mutex> lock = library_->Lock();
  cudnnHandle_t handle = library_->handle();
  int max_count = 0;
  KILN_RETURN_IF_ERROR(s.Check(s.cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_count),
                               d + ": cudnnGetConvolutionForwardAlgorithmMaxCount"));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> candidates(std::max(max_count, 1));
  int returned = 0;
  KILN_RETURN_IF_ERROR(
      s.Check(s.cudnnGetConvolutionForwardAlgorithm_v7(
                  handle, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(),
                  static_cast<int>(candidates.size()), &returned, candidates.data()),
              d + ": cudnnGetConvolutionForwardAlgorithm_v7"));
  candidates.resize(std::clamp(returned, 0, static_cast<int>(candidates.size())));

  // The first candidate, in the heuristic's order, that cuDNN supports for
  // these descriptors and whose workspace fits. The fused call with an
  // IDENTITY activation (a bias or an addend, no ReLU) takes only
  // IMPLICIT_PRECOMP_GEMM; when that is not offered, the epilogue runs
  // unfused after the heuristic's first choice.
  std::string passed_over;
  auto choose = [&](bool fused) -> bool {
    passed_over.clear();
    for (const cudnnConvolutionFwdAlgoPerf_t& candidate : candidates) {
      if (candidate.status != CUDNN_STATUS_SUCCESS) continue;
      const char* name = AlgorithmName(candidate.algo);
      // f32 without --allow-tf32 must not round its inputs to TF32 (asked
      // for FMA math, the heuristic offers FMA candidates: PyTorch asserts
      // as much).
      if (c_.strict_f32 && candidate.mathType != CUDNN_FMA_MATH) {
        passed_over += std::string(passed_over.empty() ? "" : ", ") + name + " (tensor ops)";
        continue;
      }
      if (fused && !c_.relu && candidate.algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
        continue;
      }
      // The math type is part of the choice: the heuristic may offer an
      // algorithm for another math type than the one asked for.
      if (s.cudnnSetConvolutionMathType(plan->convolution.get(), candidate.mathType) !=
          CUDNN_STATUS_SUCCESS) {
        continue;
      }
      size_t bytes = 0;
      if (s.cudnnGetConvolutionForwardWorkspaceSize(
              handle, x_desc_.get(), w_desc_.get(), plan->convolution.get(), y_desc_.get(),
              candidate.algo, &bytes) != CUDNN_STATUS_SUCCESS) {
        passed_over += std::string(passed_over.empty() ? "" : ", ") + name + " (no workspace size)";
        continue;
      }
      if (bytes > kMaxWorkspaceBytes) {
        passed_over += std::string(passed_over.empty() ? "" : ", ") + name + " (" +
                       std::to_string(bytes) + " workspace bytes)";
        continue;
      }
      plan->algorithm = candidate.algo;
      plan->workspace_size = bytes;
      plan->fused = fused;
      return true;
    }
    return false;
  };
  if ((wants_fused() && choose(/*fused=*/true)) || choose(/*fused=*/false)) {
    return std::unique_ptr<LibraryCallPlan>(std::move(plan));
  }
  return UnimplementedError(
      d + ": cuDNN's heuristic offers no forward algorithm with a workspace of at most " +
      std::to_string(kMaxWorkspaceBytes) + " bytes (" + std::to_string(candidates.size()) +
      " candidates" + (passed_over.empty() ? "" : "; passed over: " + passed_over) + ")");
}

Status CudnnConvolution::Run(const CudnnConvolutionPlan& plan, void* x, void* w, void* y,
                             void* bias, void* z, void* workspace) const {
  const CudnnSymbols& s = library_->symbols();
  cudnnHandle_t handle = library_->handle();
  const std::string& d = c_.description;
  // Scaling factors are floats for every non-double configuration.
  const float one = 1.0f, zero = 0.0f;
  if (plan.fused && !plan.fused_refused.load(std::memory_order_relaxed)) {
    // y = act(1 * conv(x, w) + alpha2 * z + bias); without an addend, z is
    // y itself and alpha2 = 0, so it is not read.
    const float alpha2 = c_.z >= 0 ? 1.0f : 0.0f;
    cudnnStatus_t status = s.cudnnConvolutionBiasActivationForward(
        handle, &one, x_desc_.get(), x, w_desc_.get(), w, plan.convolution.get(), plan.algorithm,
        workspace, plan.workspace_size, &alpha2, y_desc_.get(), c_.z >= 0 ? z : y, bias_desc_.get(),
        bias, activation_desc_.get(), y_desc_.get(), y);
    if (status == CUDNN_STATUS_SUCCESS) return OkStatus();
    // 3xxx: this configuration is not supported by the fused call (nothing
    // was enqueued); other failures are errors.
    if (static_cast<int>(status) / 1000 != 3) {
      return s.Check(status, d + ": cudnnConvolutionBiasActivationForward (" +
                                 AlgorithmName(plan.algorithm) + ")");
    }
    plan.fused_refused.store(true, std::memory_order_relaxed);
  }
  // The unfused sequence: y = z (when there is an addend elsewhere), then
  // y = conv(x, w) + beta * y, y += bias, y = relu(y).
  float beta = 0.0f;
  if (c_.z >= 0) {
    if (z != y) {
      KILN_RETURN_IF_ERROR(
          s.Check(s.cudnnAddTensor(handle, &one, y_desc_.get(), z, &zero, y_desc_.get(), y),
                  d + ": cudnnAddTensor (copying the addend)"));
    }
    beta = 1.0f;
  }
  KILN_RETURN_IF_ERROR(
      s.Check(s.cudnnConvolutionForward(handle, &one, x_desc_.get(), x, w_desc_.get(), w,
                                        plan.convolution.get(), plan.algorithm, workspace,
                                        plan.workspace_size, &beta, y_desc_.get(), y),
              d + ": cudnnConvolutionForward (" + AlgorithmName(plan.algorithm) + ")"));
  if (c_.bias >= 0) {
    KILN_RETURN_IF_ERROR(
        s.Check(s.cudnnAddTensor(handle, &one, bias_desc_.get(), bias, &one, y_desc_.get(), y),
                d + ": cudnnAddTensor (bias)"));
  }
  if (c_.relu) {
    KILN_RETURN_IF_ERROR(
        s.Check(s.cudnnActivationForward(handle, activation_desc_.get(), &one, y_desc_.get(), y,
                                         &zero, y_desc_.get(), y),
                d + ": cudnnActivationForward (relu)"));
  }
  return OkStatus();
}

Status CudnnConvolution::Enqueue(const LibraryCallPlan& plan_base, CUstream stream,
                                 std::span<const CUdeviceptr> bindings,
                                 CUdeviceptr workspace) const {
  const auto& plan = static_cast<const CudnnConvolutionPlan&>(plan_base);
  const int32_t highest = std::max({c_.x, c_.filter, c_.y, c_.bias, c_.z});
  if (static_cast<int64_t>(bindings.size()) <= highest) {
    return InvalidArgumentError(c_.description + ": " + std::to_string(bindings.size()) +
                                " bindings given, the call uses binding " +
                                std::to_string(highest));
  }
  if (plan.workspace_size > 0 && workspace == 0) {
    return InvalidArgumentError(c_.description + ": the plan needs " +
                                std::to_string(plan.workspace_size) +
                                " workspace bytes and none was given");
  }
  void* x = Address(bindings[c_.x]);
  void* w = Address(bindings[c_.filter]);
  void* y = Address(bindings[c_.y]);
  void* bias = c_.bias >= 0 ? Address(bindings[c_.bias]) : Address(zero_bias_);
  void* z = c_.z >= 0 ? Address(bindings[c_.z]) : nullptr;
  void* scratch = plan.workspace_size > 0 ? Address(workspace) : nullptr;

  const CudaContext& context = library_->context();
  KILN_RETURN_IF_ERROR(context.MakeCurrent());
  const CudnnSymbols& s = library_->symbols();
  std::unique_lock<std::mutex> lock = library_->Lock();
  // cudaStream_t and CUstream are the same type (struct CUstream_st*).
  KILN_RETURN_IF_ERROR(
      s.Check(s.cudnnSetStream(library_->handle(), stream), c_.description + ": cudnnSetStream"));
  Status status = Run(plan, x, w, y, bias, z, scratch);
  // Back to the queue stream, which lives as long as the library: a
  // capturing stream may be destroyed before the handle is used again.
  s.cudnnSetStream(library_->handle(), context.stream());
  return status;
}

// Checked arithmetic for sizes from an untrusted file.
bool Multiply(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }

}  // namespace

Result<Ref<CudnnLibrary>> LoadCudnn(Ref<CudaContext> context, const char* library_path) {
  return CudnnLibrary::Load(std::move(context), library_path);
}

Result<std::unique_ptr<LibraryCall>> CreateCudnnConvolution(Ref<CudnnLibrary> library,
                                                            const lib::ConvolutionCall& call,
                                                            const ExecutableExport& info,
                                                            std::string_view where) {
  const std::string prefix = std::string(where) + ": cuDNN convolution: ";
  auto invalid = [&](const std::string& message) { return InvalidArgumentError(prefix + message); };

  // Element type and epilogue.
  cudnnDataType_t data_type;
  uint64_t element_bytes;
  switch (call.element_type()) {
    case lib::LibraryElementType::F32:
      data_type = CUDNN_DATA_FLOAT;
      element_bytes = 4;
      break;
    case lib::LibraryElementType::F16:
      data_type = CUDNN_DATA_HALF;
      element_bytes = 2;
      break;
    case lib::LibraryElementType::BF16:
      data_type = CUDNN_DATA_BFLOAT16;
      element_bytes = 2;
      break;
    default:
      return invalid("unknown element type " +
                     std::to_string(static_cast<int>(call.element_type())));
  }
  switch (call.activation()) {
    case lib::LibraryActivation::None:
    case lib::LibraryActivation::Relu:
      break;
    case lib::LibraryActivation::GeluTanh:
      // A valid call cuDNN cannot make: not INVALID_ARGUMENT, so that the
      // export runs its generated kernel (CudaExecutable::Load).
      return UnimplementedError(
          prefix +
          "cuDNN does not fuse a GeluTanh activation into a convolution (the export's "
          "generated kernel computes it)");
    default:
      return invalid("unknown activation " + std::to_string(static_cast<int>(call.activation())));
  }

  // Bindings: indices within the layout, the output writable and apart
  // from the operands it is computed from.
  const size_t binding_count = info.layout.bindings.size();
  auto check_binding = [&](const char* role, int32_t index, bool optional) -> Status {
    if (optional && index == -1) return OkStatus();
    if (index < 0 || static_cast<size_t>(index) >= binding_count) {
      return invalid(std::string(role) + " binding " + std::to_string(index) +
                     " is out of range (the export has " + std::to_string(binding_count) +
                     " bindings" + (optional ? "; -1 for none" : "") + ")");
    }
    return OkStatus();
  };
  KILN_RETURN_IF_ERROR(check_binding("x", call.x(), false));
  KILN_RETURN_IF_ERROR(check_binding("filter", call.filter(), false));
  KILN_RETURN_IF_ERROR(check_binding("y", call.y(), false));
  KILN_RETURN_IF_ERROR(check_binding("bias", call.bias(), true));
  KILN_RETURN_IF_ERROR(check_binding("z", call.z(), true));
  if (info.layout.bindings[call.y()].read_only) {
    return invalid("the output y (binding " + std::to_string(call.y()) + ") is read-only");
  }
  if (call.y() == call.x() || call.y() == call.filter() || call.y() == call.bias()) {
    return invalid("the output y (binding " + std::to_string(call.y()) +
                   ") is also the input x, the filter or the bias");
  }

  // Dimensions: each at least 1 and an int for cuDNN.
  const std::pair<const char*, uint32_t> dims[] = {
      {"n", call.n()},
      {"c", call.c()},
      {"h", call.h()},
      {"w", call.w()},
      {"k", call.k()},
      {"r", call.r()},
      {"s", call.s()},
      {"groups", call.groups()},
      {"stride_h", call.stride_h()},
      {"stride_w", call.stride_w()},
      {"dilation_h", call.dilation_h()},
      {"dilation_w", call.dilation_w()},
  };
  for (const auto& [name, value] : dims) {
    if (value == 0) return invalid(std::string(name) + " is 0 (every dimension must be >= 1)");
    if (value > kMaxCudnnElements) {
      return invalid(std::string(name) + " = " + std::to_string(value) +
                     " exceeds cuDNN's int dimensions");
    }
  }
  if (call.c() % call.groups() != 0 || call.k() % call.groups() != 0) {
    return invalid("groups " + std::to_string(call.groups()) +
                   " does not divide the input channels c = " + std::to_string(call.c()) +
                   " and the output channels k = " + std::to_string(call.k()));
  }
  // Output size: the dilated filter must fit in the (padded) input.
  auto output_size = [&](const char* axis, uint64_t input, uint64_t filter, uint64_t dilation,
                         uint64_t stride, uint64_t* out) -> Status {
    const uint64_t extent = dilation * (filter - 1) + 1;  // < 2^64: both factors < 2^32.
    if (extent > input) {
      return invalid("the dilated filter spans " + std::to_string(extent) + " " + axis +
                     " elements, more than the input's " + std::to_string(input));
    }
    *out = (input - extent) / stride + 1;
    return OkStatus();
  };
  uint64_t p = 0, q = 0;
  KILN_RETURN_IF_ERROR(
      output_size("h", call.h(), call.r(), call.dilation_h(), call.stride_h(), &p));
  KILN_RETURN_IF_ERROR(
      output_size("w", call.w(), call.s(), call.dilation_w(), call.stride_w(), &q));

  // Tensor sizes: cuDNN's legacy API limits each to 2^31 - 1 elements,
  // which also keeps every byte count far from overflowing.
  auto elements = [&](const char* what, std::initializer_list<uint64_t> extents,
                      uint64_t* out) -> Status {
    uint64_t count = 1;
    for (uint64_t extent : extents) {
      if (!Multiply(count, extent, &count) || count > kMaxCudnnElements) {
        return invalid(std::string(what) +
                       " has more than 2^31 - 1 elements, cuDNN's limit for one tensor");
      }
    }
    *out = count;
    return OkStatus();
  };
  uint64_t x_elements = 0, w_elements = 0, y_elements = 0;
  KILN_RETURN_IF_ERROR(elements("x", {call.n(), call.c(), call.h(), call.w()}, &x_elements));
  KILN_RETURN_IF_ERROR(elements(
      "the filter", {call.k(), call.c() / call.groups(), call.r(), call.s()}, &w_elements));
  KILN_RETURN_IF_ERROR(elements("y", {call.n(), call.k(), p, q}, &y_elements));

  // f32: FMA only, unless --allow-tf32, which lets cuDNN choose TF32 tensor
  // cores (DEFAULT_MATH, as PyTorch does; ALLOW_CONVERSION would also let
  // cuDNN round f32 inputs to f16). 16-bit types: tensor cores.
  const bool is_f32 = data_type == CUDNN_DATA_FLOAT;
  ConvolutionSpec spec{
      .n = static_cast<int>(call.n()),
      .c = static_cast<int>(call.c()),
      .h = static_cast<int>(call.h()),
      .w = static_cast<int>(call.w()),
      .k = static_cast<int>(call.k()),
      .r = static_cast<int>(call.r()),
      .s = static_cast<int>(call.s()),
      .groups = static_cast<int>(call.groups()),
      .stride_h = static_cast<int>(call.stride_h()),
      .stride_w = static_cast<int>(call.stride_w()),
      .dilation_h = static_cast<int>(call.dilation_h()),
      .dilation_w = static_cast<int>(call.dilation_w()),
      .p = static_cast<int>(p),
      .q = static_cast<int>(q),
      .x = call.x(),
      .filter = call.filter(),
      .y = call.y(),
      .bias = call.bias(),
      .z = call.z(),
      .relu = call.activation() == lib::LibraryActivation::Relu,
      .data_type = data_type,
      .element_bytes = element_bytes,
      .math_type =
          is_f32 ? (call.allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH) : CUDNN_TENSOR_OP_MATH,
      .strict_f32 = is_f32 && !call.allow_tf32(),
      .x_bytes = x_elements * element_bytes,
      .filter_bytes = w_elements * element_bytes,
      .y_bytes = y_elements * element_bytes,
      .bias_bytes = call.bias() >= 0 ? uint64_t{call.k()} * element_bytes : 0,
      .description = {},
  };

  // "cuDNN conv 1x64x56x56 * 64x64x3x3 stride 1 f32 bias relu".
  auto x4 = [](uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c) + "x" +
           std::to_string(d);
  };
  std::string& description = spec.description;
  description = "cuDNN conv " + x4(call.n(), call.c(), call.h(), call.w()) + " * " +
                x4(call.k(), call.c() / call.groups(), call.r(), call.s());
  description += " stride " + std::to_string(call.stride_h());
  if (call.stride_w() != call.stride_h()) description += "x" + std::to_string(call.stride_w());
  if (call.dilation_h() != 1 || call.dilation_w() != 1) {
    description += " dilation " + std::to_string(call.dilation_h());
    if (call.dilation_w() != call.dilation_h()) {
      description += "x" + std::to_string(call.dilation_w());
    }
  }
  if (call.groups() != 1) description += " groups " + std::to_string(call.groups());
  description += std::string(" ") + utils::LibraryElementTypeName(call.element_type());
  if (is_f32 && call.allow_tf32()) description += " tf32";
  if (call.bias() >= 0) description += " bias";
  if (call.z() >= 0) description += " +z";
  if (spec.relu) description += " relu";

  auto conv = std::make_unique<CudnnConvolution>(std::move(library), std::move(spec));
  Status initialized = conv->Initialize();
  if (!initialized.ok()) return initialized.WithContext(where);
  return std::unique_ptr<LibraryCall>(std::move(conv));
}

}  // namespace kiln::hal::cuda
