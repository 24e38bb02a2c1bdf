#include "hal/cuda/cublaslt_matmul.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cuda {

namespace lib = ::kiln::schema::library;

namespace {

// The workspace a plan may ask for: enough for every algorithm the
// heuristic ranks first on current GPUs (cuBLAS recommends 32 MiB on
// Hopper), and allocated once per command buffer.
constexpr uint64_t kMaxWorkspaceBytes = 32ull << 20;
// The operand alignment plans assume (the heuristic's preference). Device
// allocations are 256-byte aligned and the compiler's buffer offsets are
// multiples of 64; an operand less aligned is an error at enqueue rather
// than a silently slower algorithm for every call. A strided operand whose
// offset into its binding is less aligned (library_call.fbs) gets the
// alignment of its offset instead.
constexpr uint32_t kOperandAlignment = 16;

struct ElementType {
  cudaDataType_t type;
  uint32_t bytes;
  const char* name;
};

ElementType ElementTypeOf(lib::LibraryElementType type) {
  switch (type) {
    case lib::LibraryElementType::F16:
      return {CUDA_R_16F, 2, "f16"};
    case lib::LibraryElementType::BF16:
      return {CUDA_R_16BF, 2, "bf16"};
    case lib::LibraryElementType::F32:
    default:
      return {CUDA_R_32F, 4, "f32"};
  }
}

// The operands by role; binding indices, -1 for none.
enum Role { kA, kB, kC, kD, kBias, kRoleCount };
constexpr const char* kRoleNames[kRoleCount] = {"a", "b", "c", "d", "bias"};

// The plan of one dispatch: its own operation descriptor (the bias address
// is an attribute of the descriptor, set at each enqueue, so dispatches
// cannot share one) and the pinned algorithm.
class CublasLtPlan final : public LibraryCallPlan {
 public:
  CublasLtPlan(Ref<CublasLtLibrary> library, cublasLtMatmulDesc_t operation)
      : library_(std::move(library)), operation_(operation) {}
  ~CublasLtPlan() override { library_->symbols().cublasLtMatmulDescDestroy(operation_); }
  size_t workspace_bytes() const override { return workspace_bytes_; }

  Ref<CublasLtLibrary> library_;
  cublasLtMatmulDesc_t operation_;
  cublasLtMatmulAlgo_t algorithm_ = {};
  size_t workspace_bytes_ = 0;
};

// D = activation(A·B + bias + C) in row-major order, computed as the
// column-major D^T = B^T·A^T: a row-major m×n matrix is the column-major
// n×m matrix with the same bytes, so cuBLASLt's A is kiln's B (n×k, or k×n
// transposed), its B is kiln's A, and its m and n are kiln's n and m. The
// bias (n elements, one per column of kiln's D) is then one per row of
// cuBLASLt's D, which is how its BIAS epilogues broadcast.
class CublasLtMatmul final : public LibraryCall {
 public:
  CublasLtMatmul(Ref<CublasLtLibrary> library, uint32_t binding_count)
      : library_(std::move(library)), required_(binding_count, 0) {}
  ~CublasLtMatmul() override {
    const CublasLtSymbols& s = library_->symbols();
    for (cublasLtMatrixLayout_t layout : layouts_) {
      if (layout) s.cublasLtMatrixLayoutDestroy(layout);
    }
  }

  const std::string& description() const override { return description_; }
  uint64_t RequiredBytes(uint32_t binding) const override {
    return binding < required_.size() ? required_[binding] : 0;
  }
  Result<std::unique_ptr<LibraryCallPlan>> Plan() const override;
  Status Enqueue(const LibraryCallPlan& plan, CUstream stream,
                 std::span<const CUdeviceptr> bindings, CUdeviceptr workspace) const override;

  // Creates the layouts (after the fields below are set).
  Status CreateLayouts();

  Ref<CublasLtLibrary> library_;
  std::vector<uint64_t> required_;  // Per binding.
  std::string description_;
  std::array<int32_t, kRoleCount> bindings_ = {-1, -1, -1, -1, -1};
  ElementType element_ = {};
  uint64_t m_ = 0, n_ = 0, k_ = 0;
  uint32_t batch_count_ = 1;
  bool transpose_a_ = false, transpose_b_ = false;
  std::array<uint64_t, kRoleCount> batch_strides_ = {};  // Elements; bias unused.
  std::array<uint64_t, kRoleCount> lds_ = {};            // Elements; bias unused.
  std::array<uint64_t, kRoleCount> offset_bytes_ = {};   // From the binding's address.
  // The alignment each operand's address must have (and the plan assumes).
  std::array<uint32_t, kRoleCount> alignments_ = {kOperandAlignment, kOperandAlignment,
                                                  kOperandAlignment, kOperandAlignment,
                                                  kOperandAlignment};
  cublasComputeType_t compute_ = CUBLAS_COMPUTE_32F;
  cublasLtEpilogue_t epilogue_ = CUBLASLT_EPILOGUE_DEFAULT;
  // Host scalars (the default pointer mode): read when a call is enqueued
  // or captured.
  float alpha_ = 1.0f;
  float beta_ = 0.0f;
  // cuBLASLt's A (kiln's B), B (kiln's A), C and D.
  std::array<cublasLtMatrixLayout_t, 4> layouts_ = {};

 private:
  // A new operation descriptor with every attribute but the bias address.
  Result<cublasLtMatmulDesc_t> CreateOperation() const;
};

Status CublasLtMatmul::CreateLayouts() {
  const CublasLtSymbols& s = library_->symbols();
  // A row-major operand stored `stored_rows` x `stored_cols` with its rows
  // `ld` apart is the column-major stored_cols x stored_rows matrix with
  // leading dimension ld.
  auto layout = [&](cublasLtMatrixLayout_t* out, uint64_t rows, uint64_t cols, uint64_t ld,
                    uint64_t stride) -> Status {
    KILN_RETURN_IF_ERROR(s.Check(
        s.cublasLtMatrixLayoutCreate(out, element_.type, rows, cols, static_cast<int64_t>(ld)),
        "cublasLtMatrixLayoutCreate"));
    if (batch_count_ == 1) return OkStatus();
    const int32_t count = static_cast<int32_t>(batch_count_);
    const int64_t offset = static_cast<int64_t>(stride);
    KILN_RETURN_IF_ERROR(
        s.Check(s.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                   sizeof(count)),
                "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"));
    return s.Check(s.cublasLtMatrixLayoutSetAttribute(
                       *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset, sizeof(offset)),
                   "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  };
  // kiln's B, stored n×k column-major (k×n row-major), or k×n when
  // transposed; cuBLASLt transposes it back (TRANSA).
  KILN_RETURN_IF_ERROR(transpose_b_ ? layout(&layouts_[0], k_, n_, lds_[kB], batch_strides_[kB])
                                    : layout(&layouts_[0], n_, k_, lds_[kB], batch_strides_[kB]));
  KILN_RETURN_IF_ERROR(transpose_a_ ? layout(&layouts_[1], m_, k_, lds_[kA], batch_strides_[kA])
                                    : layout(&layouts_[1], k_, m_, lds_[kA], batch_strides_[kA]));
  // Without an addend, C is D's layout (beta = 0: never read).
  const Role c = bindings_[kC] >= 0 ? kC : kD;
  KILN_RETURN_IF_ERROR(layout(&layouts_[2], n_, m_, lds_[c], batch_strides_[c]));
  return layout(&layouts_[3], n_, m_, lds_[kD], batch_strides_[kD]);
}

Result<cublasLtMatmulDesc_t> CublasLtMatmul::CreateOperation() const {
  const CublasLtSymbols& s = library_->symbols();
  cublasLtMatmulDesc_t operation = nullptr;
  KILN_RETURN_IF_ERROR(s.Check(s.cublasLtMatmulDescCreate(&operation, compute_, CUDA_R_32F),
                               description_ + ": cublasLtMatmulDescCreate"));
  const cublasOperation_t transa = transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t transb = transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N;
  const uint32_t epilogue = epilogue_;
  Status status = s.Check(s.cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA,
                                                           &transa, sizeof(transa)),
                          description_ + ": setting TRANSA");
  if (status.ok()) {
    status = s.Check(s.cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSB,
                                                      &transb, sizeof(transb)),
                     description_ + ": setting TRANSB");
  }
  if (status.ok()) {
    status = s.Check(s.cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                      &epilogue, sizeof(epilogue)),
                     description_ + ": setting the epilogue");
  }
  if (!status.ok()) {
    s.cublasLtMatmulDescDestroy(operation);
    return status;
  }
  return operation;
}

Result<std::unique_ptr<LibraryCallPlan>> CublasLtMatmul::Plan() const {
  const CublasLtSymbols& s = library_->symbols();
  KILN_ASSIGN_OR_RETURN(cublasLtMatmulDesc_t operation, CreateOperation());
  auto plan = std::make_unique<CublasLtPlan>(library_, operation);
  cublasLtMatmulPreference_t preference = nullptr;
  KILN_RETURN_IF_ERROR(s.Check(s.cublasLtMatmulPreferenceCreate(&preference),
                               description_ + ": cublasLtMatmulPreferenceCreate"));
  auto set = [&](cublasLtMatmulPreferenceAttributes_t attribute, const auto& value) {
    return s.Check(
        s.cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof(value)),
        description_ + ": cublasLtMatmulPreferenceSetAttribute");
  };
  Status status = set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, kMaxWorkspaceBytes);
  // cuBLASLt's A, B, C and D are kiln's B, A, C (D without an addend), D.
  const std::pair<cublasLtMatmulPreferenceAttributes_t, Role> alignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, kB},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, kA},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, bindings_[kC] >= 0 ? kC : kD},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, kD}};
  for (const auto& [attribute, role] : alignments) {
    if (status.ok()) status = set(attribute, alignments_[role]);
  }
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  if (status.ok()) {
    std::unique_lock<std::mutex> lock = library_->Lock();
    status = s.Check(
        s.cublasLtMatmulAlgoGetHeuristic(library_->handle(), operation, layouts_[0], layouts_[1],
                                         layouts_[2], layouts_[3], preference, 1, &result, &found),
        description_ + ": cublasLtMatmulAlgoGetHeuristic");
  }
  s.cublasLtMatmulPreferenceDestroy(preference);
  KILN_RETURN_IF_ERROR(status);
  if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS) {
    return UnimplementedError(description_ + ": cuBLASLt has no algorithm for it on this device");
  }
  plan->algorithm_ = result.algo;
  plan->workspace_bytes_ = result.workspaceSize;
  return std::unique_ptr<LibraryCallPlan>(std::move(plan));
}

Status CublasLtMatmul::Enqueue(const LibraryCallPlan& plan, CUstream stream,
                               std::span<const CUdeviceptr> bindings, CUdeviceptr workspace) const {
  const auto& own = static_cast<const CublasLtPlan&>(plan);
  const CublasLtSymbols& s = library_->symbols();
  std::array<CUdeviceptr, kRoleCount> address = {};
  for (int role = 0; role < kRoleCount; ++role) {
    if (bindings_[role] < 0) continue;
    if (static_cast<size_t>(bindings_[role]) >= bindings.size()) {
      return InvalidArgumentError(description_ + ": given " + std::to_string(bindings.size()) +
                                  " bindings, operand " + kRoleNames[role] + " is binding " +
                                  std::to_string(bindings_[role]));
    }
    address[role] = bindings[bindings_[role]] + offset_bytes_[role];
    if (role != kBias && address[role] % alignments_[role] != 0) {
      return InvalidArgumentError(description_ + ": operand " + kRoleNames[role] + " (binding " +
                                  std::to_string(bindings_[role]) + ") is not " +
                                  std::to_string(alignments_[role]) +
                                  "-byte aligned (its binding offset); cuBLASLt calls need it");
    }
  }
  const CUdeviceptr c = bindings_[kC] >= 0 ? address[kC] : address[kD];
  std::unique_lock<std::mutex> lock = library_->Lock();
  if (bindings_[kBias] >= 0) {
    const void* bias = reinterpret_cast<const void*>(address[kBias]);
    KILN_RETURN_IF_ERROR(
        s.Check(s.cublasLtMatmulDescSetAttribute(own.operation_, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                 &bias, sizeof(bias)),
                description_ + ": setting the bias address"));
  }
  // CUstream and cudaStream_t are the same type (CUstream_st*).
  return s.Check(
      s.cublasLtMatmul(library_->handle(), own.operation_, &alpha_,
                       reinterpret_cast<const void*>(address[kB]), layouts_[0],
                       reinterpret_cast<const void*>(address[kA]), layouts_[1], &beta_,
                       reinterpret_cast<const void*>(c), layouts_[2],
                       reinterpret_cast<void*>(address[kD]), layouts_[3], &own.algorithm_,
                       reinterpret_cast<void*>(workspace), own.workspace_bytes_, stream),
      description_ + ": cublasLtMatmul");
}

}  // namespace

Result<Ref<CublasLtLibrary>> LoadCublasLt(Ref<CudaContext> context, const char* library_path) {
  return CublasLtLibrary::Load(std::move(context), library_path);
}

Result<std::unique_ptr<LibraryCall>> CreateCublasLtMatmul(Ref<CublasLtLibrary> library,
                                                          const lib::MatmulCall& call,
                                                          const ExecutableExport& info,
                                                          std::string_view where) {
  auto invalid = [&](const std::string& what) {
    return InvalidArgumentError(std::string(where) + ": cuBLASLt matmul: " + what);
  };
  // Binding indices, sizes, layouts and the bytes each binding must hold.
  KILN_ASSIGN_OR_RETURN(utils::MatmulSpec spec, utils::ValidateMatmulCall(call, info, where));
  if (spec.batch_count > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return invalid("batch_count " + std::to_string(spec.batch_count) +
                   " exceeds cuBLASLt's 2^31 - 1");
  }
  const uint32_t binding_count = static_cast<uint32_t>(info.layout.bindings.size());
  auto matmul = std::make_unique<CublasLtMatmul>(std::move(library), binding_count);
  CublasLtMatmul& mm = *matmul;
  mm.required_ = spec.required;
  mm.bindings_ = {spec.a, spec.b, spec.c, spec.d, spec.bias};
  mm.element_ = ElementTypeOf(spec.element_type);
  mm.m_ = spec.m;
  mm.n_ = spec.n;
  mm.k_ = spec.k;
  mm.batch_count_ = static_cast<uint32_t>(spec.batch_count);
  mm.transpose_a_ = spec.transpose_a;
  mm.transpose_b_ = spec.transpose_b;
  mm.batch_strides_ = {spec.batch_stride_a, spec.batch_stride_b, spec.batch_stride_c,
                       spec.batch_stride_d, 0};
  mm.lds_ = {spec.lda, spec.ldb, spec.ldc, spec.ldd, 0};
  const std::array<uint64_t, kRoleCount> offsets = {spec.offset_a, spec.offset_b, spec.offset_c,
                                                    spec.offset_d, 0};
  for (int role = 0; role < kRoleCount; ++role) {
    // Both below 2^63 bytes: the spec checked the operand's last element.
    mm.offset_bytes_[role] = offsets[role] * spec.element_bytes;
    const uint64_t low_bit = mm.offset_bytes_[role] & (~mm.offset_bytes_[role] + 1);
    if (low_bit != 0 && low_bit < kOperandAlignment) {
      mm.alignments_[role] = static_cast<uint32_t>(low_bit);
    }
  }
  const bool f32 = call.element_type() == lib::LibraryElementType::F32;
  mm.compute_ = f32 && call.allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const bool bias = mm.bindings_[kBias] >= 0;
  switch (call.activation()) {
    case lib::LibraryActivation::Relu:
      mm.epilogue_ = bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
      break;
    case lib::LibraryActivation::GeluTanh:
      // cuBLASLt's GELU is the tanh approximation.
      mm.epilogue_ = bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
      break;
    case lib::LibraryActivation::None:
    default:
      mm.epilogue_ = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
      break;
  }
  mm.beta_ = mm.bindings_[kC] >= 0 ? 1.0f : 0.0f;
  // "cublasLt matmul 4x256x1024x1024 f16 A^T +bias +C relu".
  std::string& text = mm.description_;
  text = "cublasLt matmul ";
  if (mm.batch_count_ > 1) text += std::to_string(mm.batch_count_) + "x";
  text += std::to_string(mm.m_) + "x" + std::to_string(mm.n_) + "x" + std::to_string(mm.k_) + " " +
          mm.element_.name;
  if (f32 && call.allow_tf32()) text += " tf32";
  if (mm.transpose_a_) text += " A^T";
  if (mm.transpose_b_) text += " B^T";
  if (bias) text += " +bias";
  if (mm.bindings_[kC] >= 0) text += " +C";
  if (call.activation() == lib::LibraryActivation::Relu) text += " relu";
  if (call.activation() == lib::LibraryActivation::GeluTanh) text += " gelu_tanh";
  text += spec.layout_description;
  Status created = mm.CreateLayouts();
  if (!created.ok()) return created.WithContext(std::string(where) + ": " + text);
  return std::unique_ptr<LibraryCall>(std::move(matmul));
}

}  // namespace kiln::hal::cuda
