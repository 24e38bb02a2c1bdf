// Library calls in the CUDA driver (hal/cuda/library_call.h): cuBLASLt
// matmuls dispatched through cuda-nvptx-fb exports, compared with a CPU
// reference, through both executors (graphs and streams), with binding-table
// slots patched between submits (captures cached by address), traced,
// turned off (--cuda_library_calls=false: the export's kernel runs), and
// malformed calls refused at load.
//
// Each executable is built here: a PTX kernel that writes a sentinel into
// d[0] (what runs when the call does not) plus the MatmulCall. The tests
// skip where there is no GPU, and where libcublasLt.so.13 is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "hal/builtin_drivers.h"
#include "hal/cuda/cublaslt_symbols.h"
#include "hal/cuda/cuda_executable.h"
#include "hal/cuda/cudnn_symbols.h"
#include "hal/cuda/graph_command_buffer.h"
#include "hal/device.h"
#include "hal/trace.h"
#include "schemas/executable_cuda_generated.h"
#include "tests/hal/cuda/cuda_test_util.h"

namespace kiln::hal::cuda {
namespace {

namespace fb = ::kiln::schema::cuda;
namespace lib = ::kiln::schema::library;

constexpr float kSentinel = 12345.0f;

// The `cuda` device, or null with the reason in *skip.
Ref<Device> CreateDevice(bool use_streams, bool library_calls, std::string* skip) {
  return testing::CreateCudaDevice(use_streams, skip, library_calls);
}

// A kernel with `params` pointer parameters whose first thread stores
// kSentinel into the float at parameter `d`.
std::string SentinelPtx(const std::string& name, int params, int d) {
  std::string ptx = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry " + name + "(";
  for (int i = 0; i < params; ++i)
    ptx += (i ? ",\n" : "\n") + std::string(".param .u64 p") + std::to_string(i);
  ptx += ")\n{\n  .reg .b64 %rd<3>;\n  .reg .b32 %r<2>;\n  ld.param.u64 %rd1, [p" +
         std::to_string(d) +
         "];\n  cvta.to.global.u64 %rd2, %rd1;\n  mov.b32 %r1, 0x4640E400;\n"
         "  st.global.u32 [%rd2], %r1;\n  ret;\n}\n";
  return ptx;
}

struct MatmulSpec {
  lib::LibraryElementType type = lib::LibraryElementType::F32;
  uint32_t m = 1, n = 1, k = 1, batch = 1;
  bool transpose_a = false, transpose_b = false;
  int32_t a = 0, b = 1, d = 2, bias = -1, c = -1;
  uint64_t stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;
  lib::LibraryActivation activation = lib::LibraryActivation::None;
  // Strided operands (library_call.fbs; 0: packed at the binding's start).
  uint64_t lda = 0, ldb = 0, ldd = 0, offset_a = 0, offset_b = 0, offset_d = 0;
  std::vector<bool> read_only = {true, true, false};
  // Hostile variants.
  bool with_convolution = false;
  bool without_matmul = false;
  // A convolution (instead of the matmul) whose result is in the cpu
  // driver's blocked layout, which cuDNN cannot write.
  bool blocked_convolution = false;
};

std::vector<uint8_t> BuildExecutable(const MatmulSpec& spec) {
  flatbuffers::FlatBufferBuilder builder;
  const int params = static_cast<int>(spec.read_only.size());
  const int d_param = spec.d >= 0 && spec.d < params ? spec.d : 0;
  auto ptx = builder.CreateString(SentinelPtx("mm_kernel", params, d_param));
  auto arch = builder.CreateString("sm_75");
  std::vector<flatbuffers::Offset<fb::PtxImage>> images = {fb::CreatePtxImage(builder, arch, ptx)};
  flatbuffers::Offset<lib::MatmulCall> matmul = 0;
  if (!spec.without_matmul) {
    lib::MatmulCallBuilder mm(builder);
    mm.add_element_type(spec.type);
    mm.add_m(spec.m);
    mm.add_n(spec.n);
    mm.add_k(spec.k);
    mm.add_batch_count(spec.batch);
    mm.add_transpose_a(spec.transpose_a);
    mm.add_transpose_b(spec.transpose_b);
    mm.add_a(spec.a);
    mm.add_b(spec.b);
    mm.add_d(spec.d);
    mm.add_bias(spec.bias);
    mm.add_c(spec.c);
    mm.add_batch_stride_a(spec.stride_a);
    mm.add_batch_stride_b(spec.stride_b);
    mm.add_batch_stride_c(spec.stride_c);
    mm.add_batch_stride_d(spec.stride_d);
    mm.add_activation(spec.activation);
    mm.add_lda(spec.lda);
    mm.add_ldb(spec.ldb);
    mm.add_ldd(spec.ldd);
    mm.add_offset_a(spec.offset_a);
    mm.add_offset_b(spec.offset_b);
    mm.add_offset_d(spec.offset_d);
    matmul = mm.Finish();
  }
  flatbuffers::Offset<lib::ConvolutionCall> convolution = 0;
  if (spec.with_convolution) convolution = lib::CreateConvolutionCall(builder);
  if (spec.blocked_convolution) {
    lib::ConvolutionCallBuilder conv(builder);
    conv.add_n(1);
    conv.add_c(16);
    conv.add_h(4);
    conv.add_w(4);
    conv.add_k(16);
    conv.add_r(1);
    conv.add_s(1);
    conv.add_x(0);
    conv.add_filter(1);
    conv.add_y(2);
    conv.add_y_blocked(true);
    convolution = conv.Finish();
  }
  auto call = lib::CreateLibraryCall(builder, matmul, convolution);
  std::vector<flatbuffers::Offset<fb::Binding>> bindings;
  for (bool read_only : spec.read_only) bindings.push_back(fb::CreateBinding(builder, read_only));
  fb::BlockSize block(1, 1, 1);
  auto name = builder.CreateString("mm");
  auto kernel = builder.CreateString("mm_kernel");
  auto binding_vector = builder.CreateVector(bindings);
  fb::ExportBuilder e(builder);
  e.add_name(name);
  e.add_kernel_name(kernel);
  e.add_block_size(&block);
  e.add_bindings(binding_vector);
  e.add_library_call(call);
  std::vector<flatbuffers::Offset<fb::Export>> exports = {e.Finish()};
  fb::FinishCudaExecutableBuffer(builder,
                                 fb::CreateCudaExecutable(builder, builder.CreateVector(images),
                                                          builder.CreateVector(exports)));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

uint32_t ElementBytes(lib::LibraryElementType type) {
  return type == lib::LibraryElementType::F32 ? 4 : 2;
}

// Host values as the device stores them (f16 through _Float16, bf16 by
// rounding the f32 bits), and back.
std::vector<uint8_t> Encode(const std::vector<float>& values, lib::LibraryElementType type) {
  std::vector<uint8_t> bytes(values.size() * ElementBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == lib::LibraryElementType::F32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
    } else if (type == lib::LibraryElementType::F16) {
      _Float16 h = static_cast<_Float16>(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
    } else {
      uint32_t bits;
      std::memcpy(&bits, &values[i], 4);
      const uint16_t top = static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
      std::memcpy(&bytes[i * 2], &top, 2);
    }
  }
  return bytes;
}

std::vector<float> Decode(const std::vector<uint8_t>& bytes, lib::LibraryElementType type) {
  std::vector<float> values(bytes.size() / ElementBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == lib::LibraryElementType::F32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
    } else if (type == lib::LibraryElementType::F16) {
      _Float16 h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = static_cast<float>(h);
    } else {
      uint16_t top;
      std::memcpy(&top, &bytes[i * 2], 2);
      const uint32_t bits = uint32_t{top} << 16;
      std::memcpy(&values[i], &bits, 4);
    }
  }
  return values;
}

// Deterministic values in [-1, 1), already representable in `type`.
std::vector<float> Values(size_t count, uint32_t seed, lib::LibraryElementType type) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (float& v : values) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>((state >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return Decode(Encode(values, type), type);
}

// The operands of one matmul on the host.
struct Operands {
  std::vector<float> a, b, bias, c;
};

size_t Span(uint32_t batch, uint64_t stride, uint64_t matrix) {
  return static_cast<size_t>((batch - 1) * stride + matrix);
}

Operands MakeOperands(const MatmulSpec& spec, uint32_t seed) {
  Operands o;
  o.a = Values(Span(spec.batch, spec.stride_a, uint64_t{spec.m} * spec.k), seed, spec.type);
  o.b = Values(Span(spec.batch, spec.stride_b, uint64_t{spec.k} * spec.n), seed + 1, spec.type);
  if (spec.bias >= 0) o.bias = Values(spec.n, seed + 2, spec.type);
  if (spec.c >= 0) {
    o.c = Values(Span(spec.batch, spec.stride_c, uint64_t{spec.m} * spec.n), seed + 3, spec.type);
  }
  return o;
}

std::vector<float> Reference(const MatmulSpec& spec, const Operands& o) {
  const uint64_t m = spec.m, n = spec.n, k = spec.k;
  std::vector<float> d(Span(spec.batch, spec.stride_d, m * n), 0.0f);
  for (uint64_t batch = 0; batch < spec.batch; ++batch) {
    for (uint64_t i = 0; i < m; ++i) {
      for (uint64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (uint64_t kk = 0; kk < k; ++kk) {
          const float a = o.a[batch * spec.stride_a + (spec.transpose_a ? kk * m + i : i * k + kk)];
          const float b = o.b[batch * spec.stride_b + (spec.transpose_b ? j * k + kk : kk * n + j)];
          sum += double{a} * b;
        }
        if (spec.bias >= 0) sum += o.bias[j];
        if (spec.c >= 0) sum += o.c[batch * spec.stride_c + i * n + j];
        if (spec.activation == lib::LibraryActivation::Relu) sum = std::max(sum, 0.0);
        if (spec.activation == lib::LibraryActivation::GeluTanh) {
          sum =
              0.5 * sum * (1 + std::tanh(std::sqrt(2 / M_PI) * (sum + 0.044715 * sum * sum * sum)));
        }
        d[batch * spec.stride_d + i * n + j] = static_cast<float>(sum);
      }
    }
  }
  return d;
}

// Every element within `rtol` of the reference's largest magnitude.
void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, double rtol) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 0;
  for (float v : want) scale = std::max(scale, double{std::fabs(v)});
  const double tolerance = rtol * std::max(scale, 1e-6);
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if (std::fabs(double{got[i]} - want[i]) > tolerance) {
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want[i]
                    << " (tolerance " << tolerance << ")";
      ++bad;
    }
  }
}

Ref<Buffer> Upload(Device& device, const std::vector<uint8_t>& bytes) {
  Result<Ref<Buffer>> buffer = device.allocator().Allocate(BufferParams{}, bytes.size());
  EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
  if (!buffer.ok()) return nullptr;
  EXPECT_TRUE((*buffer)->WriteData(0, bytes).ok());
  return *buffer;
}

std::vector<uint8_t> Download(Buffer& buffer) {
  std::vector<uint8_t> bytes(buffer.byte_length());
  EXPECT_TRUE(buffer.ReadData(0, bytes).ok());
  return bytes;
}

Status SubmitAndWait(Device& device, const Ref<CommandBuffer>& command_buffer,
                     std::span<const Ref<Buffer>> table = {}) {
  KILN_ASSIGN_OR_RETURN(Ref<Semaphore> semaphore, device.CreateSemaphore(0));
  Fence signal({{semaphore, 1}});
  const Ref<CommandBuffer> list[] = {command_buffer};
  KILN_RETURN_IF_ERROR(device.QueueExecute(Fence(), signal, list, table));
  return signal.Wait(std::chrono::seconds(20));
}

// The device buffers of one matmul, in binding order.
std::vector<Ref<Buffer>> MakeBindings(Device& device, const MatmulSpec& spec, const Operands& o) {
  std::vector<Ref<Buffer>> buffers(spec.read_only.size());
  buffers[spec.a] = Upload(device, Encode(o.a, spec.type));
  buffers[spec.b] = Upload(device, Encode(o.b, spec.type));
  if (spec.bias >= 0) buffers[spec.bias] = Upload(device, Encode(o.bias, spec.type));
  if (spec.c >= 0) buffers[spec.c] = Upload(device, Encode(o.c, spec.type));
  const size_t d_elements = Span(spec.batch, spec.stride_d, uint64_t{spec.m} * spec.n);
  buffers[spec.d] = Upload(device, std::vector<uint8_t>(d_elements * ElementBytes(spec.type), 0));
  return buffers;
}

class LibraryCallTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string skip;
    device_ = CreateDevice(/*use_streams=*/GetParam(), /*library_calls=*/true, &skip);
    if (!device_) GTEST_SKIP() << skip;
  }

  // The executable of `spec`, skipping the test where cuBLASLt is missing
  // (the export then has no library call).
  Ref<Executable> Load(const MatmulSpec& spec) {
    const std::vector<uint8_t> bytes = BuildExecutable(spec);
    Result<Ref<Executable>> executable = device_->CreateExecutable("cuda-nvptx-fb", bytes);
    EXPECT_TRUE(executable.ok()) << executable.status().ToString();
    if (!executable.ok()) return nullptr;
    if (static_cast<const CudaExecutable&>(**executable).library_call(0) == nullptr) {
      cublaslt_missing_ = true;
    }
    return *executable;
  }

  // Records one dispatch of `spec` on `buffers`, runs it and compares.
  void RunAndCompare(const MatmulSpec& spec, double rtol) {
    Ref<Executable> executable = Load(spec);
    ASSERT_TRUE(executable);
    if (cublaslt_missing_) GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
    const Operands operands = MakeOperands(spec, 7);
    std::vector<Ref<Buffer>> buffers = MakeBindings(*device_, spec, operands);
    std::vector<BufferRef> refs;
    for (const Ref<Buffer>& buffer : buffers) refs.push_back(BufferRef::Of(buffer));
    Result<Ref<CommandBuffer>> cb = device_->CreateCommandBuffer(CommandBufferMode::kOneShot);
    ASSERT_TRUE(cb.ok());
    ASSERT_TRUE((*cb)->Begin().ok());
    Status dispatched = (*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, refs);
    ASSERT_TRUE(dispatched.ok()) << dispatched.ToString();
    Status ended = (*cb)->End();
    ASSERT_TRUE(ended.ok()) << ended.ToString();
    Status ran = SubmitAndWait(*device_, *cb);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    ExpectNear(Decode(Download(*buffers[spec.d]), spec.type), Reference(spec, operands), rtol);
  }

  // Dispatches `spec` once on `values` (one buffer per binding, as
  // `spec.type`) and returns binding spec.d; empty where cuBLASLt is
  // missing (cublaslt_missing_ set).
  std::vector<float> RunStrided(const MatmulSpec& spec,
                                const std::vector<std::vector<float>>& values) {
    Ref<Executable> executable = Load(spec);
    if (!executable || cublaslt_missing_) return {};
    std::vector<Ref<Buffer>> buffers;
    std::vector<BufferRef> refs;
    for (const std::vector<float>& v : values) {
      buffers.push_back(Upload(*device_, Encode(v, spec.type)));
      refs.push_back(BufferRef::Of(buffers.back()));
    }
    Result<Ref<CommandBuffer>> cb = device_->CreateCommandBuffer(CommandBufferMode::kOneShot);
    EXPECT_TRUE(cb.ok());
    if (!cb.ok()) return {};
    Status status = (*cb)->Begin();
    if (status.ok()) status = (*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, refs);
    if (status.ok()) status = (*cb)->End();
    if (status.ok()) status = SubmitAndWait(*device_, *cb);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return Decode(Download(*buffers[spec.d]), spec.type);
  }

  Ref<Device> device_;
  bool cublaslt_missing_ = false;
};

TEST_P(LibraryCallTest, F32MatchesReference) {
  MatmulSpec spec;
  spec.m = 33;
  spec.n = 65;
  spec.k = 17;
  RunAndCompare(spec, 1e-5);
}

// Attention's matmuls reading and writing strided operands (the layout
// fields of library_call.fbs): the scores QK^T with the query and key heads
// read in place from one qkv binding ([seq, 3 * hidden]; the key at offset
// hidden, transposed), then AV with the value heads from the same binding
// and the heads written side by side into rows of hidden elements at an
// offset of 4 elements (8 bytes in f16: less aligned than cuBLASLt's
// default 16, so the plan asks for 8). Elements outside the written heads
// keep their zeros. f32 and f16.
TEST_P(LibraryCallTest, StridedOperandsOfOneBinding) {
  constexpr uint32_t kSeq = 64, kHeads = 4, kHead = 32, kHidden = kHeads * kHead;
  for (lib::LibraryElementType type :
       {lib::LibraryElementType::F32, lib::LibraryElementType::F16}) {
    SCOPED_TRACE(type == lib::LibraryElementType::F32 ? "f32" : "f16");
    const double rtol = type == lib::LibraryElementType::F32 ? 1e-5 : 1e-2;
    const std::vector<float> qkv = Values(kSeq * 3 * kHidden, 11, type);
    MatmulSpec scores;
    scores.type = type;
    scores.m = kSeq, scores.n = kSeq, scores.k = kHead, scores.batch = kHeads;
    scores.transpose_b = true;
    scores.a = 0, scores.b = 0, scores.d = 1;
    scores.read_only = {true, false};
    scores.lda = scores.ldb = 3 * kHidden;
    scores.offset_b = kHidden;
    scores.stride_a = scores.stride_b = kHead;
    scores.stride_d = kSeq * kSeq;
    std::vector<float> want(kHeads * kSeq * kSeq, 0.0f);
    for (uint32_t h = 0; h < kHeads; ++h) {
      for (uint32_t i = 0; i < kSeq; ++i) {
        for (uint32_t j = 0; j < kSeq; ++j) {
          double sum = 0;
          for (uint32_t p = 0; p < kHead; ++p) {
            sum += double{qkv[i * 3 * kHidden + h * kHead + p]} *
                   qkv[kHidden + j * 3 * kHidden + h * kHead + p];
          }
          want[(h * kSeq + i) * kSeq + j] = static_cast<float>(sum);
        }
      }
    }
    std::vector<float> got = RunStrided(scores, {qkv, std::vector<float>(want.size(), 0.0f)});
    if (cublaslt_missing_) GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
    ExpectNear(got, want, rtol);

    MatmulSpec heads;
    heads.type = type;
    heads.m = kSeq, heads.n = kHead, heads.k = kSeq, heads.batch = kHeads;
    heads.a = 0, heads.b = 1, heads.d = 2;
    heads.stride_a = kSeq * kSeq;
    heads.ldb = 3 * kHidden, heads.offset_b = 2 * kHidden, heads.stride_b = kHead;
    heads.ldd = kHidden, heads.offset_d = 4, heads.stride_d = kHead;
    const std::vector<float> probs = Values(kHeads * kSeq * kSeq, 12, type);
    std::vector<float> rows((kSeq + 1) * kHidden, 0.0f);
    for (uint32_t h = 0; h < kHeads; ++h) {
      for (uint32_t i = 0; i < kSeq; ++i) {
        for (uint32_t j = 0; j < kHead; ++j) {
          double sum = 0;
          for (uint32_t p = 0; p < kSeq; ++p) {
            sum += double{probs[(h * kSeq + i) * kSeq + p]} *
                   qkv[2 * kHidden + p * 3 * kHidden + h * kHead + j];
          }
          rows[4 + i * kHidden + h * kHead + j] = static_cast<float>(sum);
        }
      }
    }
    got = RunStrided(heads, {probs, qkv, std::vector<float>(rows.size(), 0.0f)});
    ExpectNear(got, rows, rtol);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(got[i], 0.0f) << "element " << i;
  }
}

TEST_P(LibraryCallTest, F32BiasRelu) {
  MatmulSpec spec;
  spec.m = 64;
  spec.n = 48;
  spec.k = 40;
  spec.bias = 2;
  spec.d = 3;
  spec.read_only = {true, true, true, false};
  spec.activation = lib::LibraryActivation::Relu;
  RunAndCompare(spec, 1e-5);
}

TEST_P(LibraryCallTest, F32BiasGeluTanh) {
  MatmulSpec spec;
  spec.m = 32;
  spec.n = 40;
  spec.k = 24;
  spec.bias = 2;
  spec.d = 3;
  spec.read_only = {true, true, true, false};
  spec.activation = lib::LibraryActivation::GeluTanh;
  RunAndCompare(spec, 1e-4);
}

TEST_P(LibraryCallTest, F32Addend) {
  MatmulSpec spec;
  spec.m = 20;
  spec.n = 36;
  spec.k = 12;
  spec.c = 2;
  spec.d = 3;
  spec.read_only = {true, true, true, false};
  RunAndCompare(spec, 1e-5);
}

TEST_P(LibraryCallTest, BatchedWithBroadcastOperand) {
  MatmulSpec spec;
  spec.m = 16;
  spec.n = 24;
  spec.k = 8;
  spec.batch = 3;
  spec.stride_a = 16 * 8;
  spec.stride_b = 0;  // One B for every batch.
  spec.stride_d = 16 * 24;
  RunAndCompare(spec, 1e-5);
}

TEST_P(LibraryCallTest, TransposedOperands) {
  MatmulSpec spec;
  spec.m = 24;
  spec.n = 40;
  spec.k = 16;
  spec.transpose_a = true;
  spec.transpose_b = true;
  RunAndCompare(spec, 1e-5);
}

TEST_P(LibraryCallTest, F16) {
  MatmulSpec spec;
  spec.type = lib::LibraryElementType::F16;
  spec.m = 64;
  spec.n = 64;
  spec.k = 64;
  spec.bias = 2;
  spec.d = 3;
  spec.read_only = {true, true, true, false};
  // f16 results: about 3 significant digits.
  RunAndCompare(spec, 2e-3);
}

TEST_P(LibraryCallTest, ReusableWithSlotsPatchedBetweenSubmits) {
  MatmulSpec spec;
  spec.m = 32;
  spec.n = 32;
  spec.k = 32;
  spec.bias = 2;
  spec.d = 3;
  spec.read_only = {true, true, true, false};
  spec.activation = lib::LibraryActivation::Relu;
  Ref<Executable> executable = Load(spec);
  ASSERT_TRUE(executable);
  if (cublaslt_missing_) GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
  Result<Ref<CommandBuffer>> cb = device_->CreateCommandBuffer(CommandBufferMode::kReusable);
  ASSERT_TRUE(cb.ok());
  ASSERT_TRUE((*cb)->Begin().ok());
  const BufferRef refs[] = {BufferRef::Slot(0), BufferRef::Slot(1), BufferRef::Slot(2),
                            BufferRef::Slot(3)};
  ASSERT_TRUE((*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, refs).ok());
  Status ended = (*cb)->End();
  ASSERT_TRUE(ended.ok()) << ended.ToString();
  // Both tables stay alive, so the second has other addresses.
  std::vector<std::vector<Ref<Buffer>>> tables;
  for (uint32_t seed : {11u, 23u}) {
    const Operands operands = MakeOperands(spec, seed);
    const std::vector<Ref<Buffer>>& table =
        tables.emplace_back(MakeBindings(*device_, spec, operands));
    Status ran = SubmitAndWait(*device_, *cb, table);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    ExpectNear(Decode(Download(*table[spec.d]), spec.type), Reference(spec, operands), 1e-5);
  }
  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(cb->get())) {
    // Built at the first submit (the call uses slots); the second table
    // gets a graph of its own, the first kept for its addresses.
    EXPECT_EQ(graph->instantiation_count(), 2u);
    EXPECT_EQ(graph->patched_node_count(), 0u);
  }
}

// A model called in a loop alternates between two output buffers: each
// graph library-call node keeps its captures by binding addresses, so the
// alternation captures the call once per table, not once per submit.
TEST_P(LibraryCallTest, AlternatingTablesReuseTheirCaptures) {
  MatmulSpec spec;
  spec.m = 48;
  spec.n = 40;
  spec.k = 24;
  spec.bias = 2;
  spec.d = 3;
  spec.read_only = {true, true, true, false};
  Ref<Executable> executable = Load(spec);
  ASSERT_TRUE(executable);
  if (cublaslt_missing_) GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
  Result<Ref<CommandBuffer>> cb = device_->CreateCommandBuffer(CommandBufferMode::kReusable);
  ASSERT_TRUE(cb.ok());
  ASSERT_TRUE((*cb)->Begin().ok());
  const BufferRef refs[] = {BufferRef::Slot(0), BufferRef::Slot(1), BufferRef::Slot(2),
                            BufferRef::Slot(3)};
  ASSERT_TRUE((*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, refs).ok());
  Status ended = (*cb)->End();
  ASSERT_TRUE(ended.ok()) << ended.ToString();
  // Two tables with different operands and results, both alive throughout.
  std::vector<Operands> operands = {MakeOperands(spec, 31), MakeOperands(spec, 47)};
  std::vector<std::vector<Ref<Buffer>>> tables;
  for (const Operands& o : operands) tables.push_back(MakeBindings(*device_, spec, o));
  const size_t d_bytes = size_t{spec.m} * spec.n * ElementBytes(spec.type);
  for (int submit = 0; submit < 6; ++submit) {
    SCOPED_TRACE("submit " + std::to_string(submit));
    const size_t t = submit % 2;
    // Cleared first: a result left by an earlier submit cannot pass for
    // this one's (a capture of the other table's addresses would leave 0).
    ASSERT_TRUE(tables[t][spec.d]->WriteData(0, std::vector<uint8_t>(d_bytes, 0)).ok());
    Status ran = SubmitAndWait(*device_, *cb, tables[t]);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    ExpectNear(Decode(Download(*tables[t][spec.d]), spec.type), Reference(spec, operands[t]), 1e-5);
  }
  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(cb->get())) {
    // Built at the first submit (the call uses slots), capturing table 0's
    // addresses; the second submit builds a second graph, capturing table
    // 1's; the four after it launch the graph that holds their addresses.
    EXPECT_EQ(graph->instantiation_count(), 2u);
    EXPECT_EQ(graph->library_capture_count(), 2u);
    EXPECT_EQ(graph->patched_node_count(), 0u);
  }
}

TEST_P(LibraryCallTest, TooSmallBindingsAreRefused) {
  MatmulSpec spec;
  spec.m = 16;
  spec.n = 16;
  spec.k = 16;
  Ref<Executable> executable = Load(spec);
  ASSERT_TRUE(executable);
  if (cublaslt_missing_) GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
  const Operands operands = MakeOperands(spec, 3);
  std::vector<Ref<Buffer>> buffers = MakeBindings(*device_, spec, operands);
  // A concrete range: refused when recorded.
  Result<Ref<CommandBuffer>> cb = device_->CreateCommandBuffer(CommandBufferMode::kReusable);
  ASSERT_TRUE(cb.ok());
  ASSERT_TRUE((*cb)->Begin().ok());
  const BufferRef short_d[] = {BufferRef::Of(buffers[0]), BufferRef::Of(buffers[1]),
                               BufferRef::Of(buffers[2], 0, 16 * 16 * 4 - 4)};
  Status dispatched = (*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, short_d);
  EXPECT_EQ(dispatched.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dispatched.message().find("binding 2"), std::string::npos) << dispatched.ToString();
  // A slot: refused when submitted.
  const BufferRef slots[] = {BufferRef::Slot(0), BufferRef::Slot(1), BufferRef::Slot(2)};
  ASSERT_TRUE((*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, slots).ok());
  ASSERT_TRUE((*cb)->End().ok());
  Result<Ref<Buffer>> small = device_->allocator().Allocate(BufferParams{}, 64);
  ASSERT_TRUE(small.ok());
  const Ref<Buffer> table[] = {buffers[0], *small, buffers[2]};
  Status submitted = SubmitAndWait(*device_, *cb, table);
  EXPECT_EQ(submitted.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(submitted.message().find("slot 1"), std::string::npos) << submitted.ToString();
}

// A traced submit times the call like a kernel: between event-record nodes
// of the graph command buffer's traced graph (graph_command_buffer.h), or
// between events on the stream; either way it gets its span.
TEST_P(LibraryCallTest, TracedSubmit) {
  MatmulSpec spec;
  spec.m = 128;
  spec.n = 128;
  spec.k = 128;
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  device_->AttachTrace(trace);
  RunAndCompare(spec, 1e-5);
  device_->FlushTrace();
  device_->AttachTrace(nullptr);
  std::vector<Trace::Span> spans;
  for (const Trace::Span& span : trace->Spans()) {
    if (span.category == "device") spans.push_back(span);
  }
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "dispatch @mm");
  EXPECT_GT(spans[0].duration_ns, 0);
}

// A reusable command buffer with a call on slots, submitted traced and not:
// the traced graph is built at the first traced submit and patched like the
// plain one, both sharing the call's captures.
TEST_P(LibraryCallTest, TracedAndUntracedSubmitsOfAReusableCall) {
  MatmulSpec spec;
  spec.m = 128;
  spec.n = 96;
  spec.k = 64;
  Ref<Executable> executable = Load(spec);
  ASSERT_TRUE(executable);
  if (cublaslt_missing_) GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
  executable->set_name("lib");
  Result<Ref<CommandBuffer>> cb = device_->CreateCommandBuffer(CommandBufferMode::kReusable);
  ASSERT_TRUE(cb.ok());
  ASSERT_TRUE((*cb)->Begin().ok());
  const BufferRef refs[] = {BufferRef::Slot(0), BufferRef::Slot(1), BufferRef::Slot(2)};
  ASSERT_TRUE((*cb)->Dispatch(executable, 0, {1, 1, 1}, {}, refs).ok());
  ASSERT_TRUE((*cb)->End().ok());
  std::vector<Operands> operands = {MakeOperands(spec, 5), MakeOperands(spec, 9)};
  std::vector<std::vector<Ref<Buffer>>> tables;
  for (const Operands& o : operands) tables.push_back(MakeBindings(*device_, spec, o));
  const size_t d_bytes = size_t{spec.m} * spec.n * 4;
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  // Traced (table 0), untraced (table 0), traced (table 1), untraced (1).
  for (int submit = 0; submit < 4; ++submit) {
    SCOPED_TRACE("submit " + std::to_string(submit));
    const bool traced = submit % 2 == 0;
    const size_t t = submit / 2;
    device_->AttachTrace(traced ? trace : nullptr);
    ASSERT_TRUE(tables[t][spec.d]->WriteData(0, std::vector<uint8_t>(d_bytes, 0)).ok());
    Status ran = SubmitAndWait(*device_, *cb, tables[t]);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    device_->FlushTrace();
    ExpectNear(Decode(Download(*tables[t][spec.d]), spec.type), Reference(spec, operands[t]), 1e-5);
  }
  device_->AttachTrace(nullptr);
  std::vector<Trace::Span> spans;
  for (const Trace::Span& span : trace->Spans()) {
    if (span.category == "device") spans.push_back(span);
  }
  ASSERT_EQ(spans.size(), 2u);
  for (const Trace::Span& span : spans) {
    EXPECT_EQ(span.name, "dispatch @lib::@mm");
    EXPECT_GT(span.duration_ns, 0);
  }
  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(cb->get())) {
    EXPECT_EQ(graph->traced_instantiation_count(), 1u);
    // One plain graph per table (they alternate: each keeps its addresses).
    EXPECT_EQ(graph->instantiation_count(), 2u);
    // One capture per table: each graph found the other's in the cache.
    EXPECT_EQ(graph->library_capture_count(), 2u);
    // Each traced submit waited for its times to be read: one event set.
    EXPECT_EQ(graph->timing_event_set_count(), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Executors, LibraryCallTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Streams" : "Graphs";
                         });

// --cuda_library_calls=false: the export's kernel runs (it writes the
// sentinel), in both executors.
TEST(LibraryCallOffTest, KernelRuns) {
  for (bool use_streams : {false, true}) {
    std::string skip;
    Ref<Device> device = CreateDevice(use_streams, /*library_calls=*/false, &skip);
    if (!device) GTEST_SKIP() << skip;
    MatmulSpec spec;
    spec.m = 8;
    spec.n = 8;
    spec.k = 8;
    Result<Ref<Executable>> executable =
        device->CreateExecutable("cuda-nvptx-fb", BuildExecutable(spec));
    ASSERT_TRUE(executable.ok()) << executable.status().ToString();
    EXPECT_EQ(static_cast<const CudaExecutable&>(**executable).library_call(0), nullptr);
    std::vector<Ref<Buffer>> buffers = MakeBindings(*device, spec, MakeOperands(spec, 5));
    std::vector<BufferRef> refs;
    for (const Ref<Buffer>& buffer : buffers) refs.push_back(BufferRef::Of(buffer));
    Result<Ref<CommandBuffer>> cb = device->CreateCommandBuffer(CommandBufferMode::kOneShot);
    ASSERT_TRUE(cb.ok());
    ASSERT_TRUE((*cb)->Begin().ok());
    ASSERT_TRUE((*cb)->Dispatch(*executable, 0, {1, 1, 1}, {}, refs).ok());
    ASSERT_TRUE((*cb)->End().ok());
    ASSERT_TRUE(SubmitAndWait(*device, *cb).ok());
    EXPECT_EQ(Decode(Download(*buffers[spec.d]), spec.type)[0], kSentinel);
  }
}

// Malformed calls are load errors naming the export, never crashes.
TEST(LibraryCallLoadTest, MalformedCallsAreRefused) {
  std::string skip;
  Ref<Device> device = CreateDevice(/*use_streams=*/false, /*library_calls=*/true, &skip);
  if (!device) GTEST_SKIP() << skip;
  {
    MatmulSpec fine;
    Result<Ref<Executable>> loaded =
        device->CreateExecutable("cuda-nvptx-fb", BuildExecutable(fine));
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    if (static_cast<const CudaExecutable&>(**loaded).library_call(0) == nullptr) {
      GTEST_SKIP() << "libcublasLt.so.13 is not usable here";
    }
  }
  struct Case {
    const char* what;
    MatmulSpec spec;
    const char* message;
  };
  std::vector<Case> cases;
  MatmulSpec spec;
  spec.b = 7;
  cases.push_back({"binding out of range", spec, "names binding 7"});
  spec = MatmulSpec();
  spec.a = -2;
  cases.push_back({"negative binding", spec, "names binding -2"});
  spec = MatmulSpec();
  spec.m = 0;
  cases.push_back({"m = 0", spec, ">= 1"});
  spec = MatmulSpec();
  spec.m = 0xffffffffu;
  spec.k = 0xffffffffu;
  cases.push_back({"m*k bytes overflow", spec, "2^63"});
  spec = MatmulSpec();
  spec.batch = 0x7fffffffu;
  spec.stride_a = uint64_t{1} << 40;
  spec.stride_d = 1;
  cases.push_back({"batch stride overflow", spec, "2^63"});
  spec = MatmulSpec();
  spec.read_only = {true, true, true};
  cases.push_back({"read-only result", spec, "read-only"});
  spec = MatmulSpec();
  spec.m = spec.n = spec.k = 8;
  spec.lda = 7;
  cases.push_back({"ld below the row length", spec, "lda 7 is less than the 8 elements"});
  spec = MatmulSpec();
  spec.offset_b = uint64_t{1} << 62;
  cases.push_back({"offset past 2^63 bytes", spec, "operand b spans more than 2^63 bytes"});
  spec = MatmulSpec();
  spec.d = 0;
  spec.read_only = {false, true, false};
  cases.push_back({"result aliases an input", spec, "both binding 0"});
  spec = MatmulSpec();
  spec.with_convolution = true;
  cases.push_back({"matmul and convolution", spec, "exactly one"});
  spec = MatmulSpec();
  spec.without_matmul = true;
  cases.push_back({"neither", spec, "exactly one"});
  spec = MatmulSpec();
  spec.without_matmul = true;
  spec.blocked_convolution = true;
  cases.push_back({"a blocked convolution", spec,
                   "convolution: y is in the blocked layout (y_blocked), which only the cpu"});
  for (const Case& c : cases) {
    Result<Ref<Executable>> loaded =
        device->CreateExecutable("cuda-nvptx-fb", BuildExecutable(c.spec));
    ASSERT_FALSE(loaded.ok()) << c.what;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << c.what;
    EXPECT_NE(loaded.status().message().find("export 'mm'"), std::string::npos)
        << c.what << ": " << loaded.status().ToString();
    EXPECT_NE(loaded.status().message().find(c.message), std::string::npos)
        << c.what << ": " << loaded.status().ToString();
  }
}

// Where cuBLASLt or cuDNN is not installed their loaders say so (the device
// then runs the exports' kernels, and --list_devices prints the message).
// No GPU needed.
TEST(LibrarySymbolsTest, MissingLibrariesAreUnavailableAndNamed) {
  Result<Ref<CublasLtSymbols>> cublaslt = CublasLtSymbols::Load("libkiln-absent-cublasLt.so");
  ASSERT_FALSE(cublaslt.ok());
  EXPECT_EQ(cublaslt.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(cublaslt.status().message().find("cuBLASLt library libkiln-absent-cublasLt.so"),
            std::string::npos)
      << cublaslt.status().ToString();
  Result<Ref<CudnnSymbols>> cudnn = CudnnSymbols::Load("libkiln-absent-cudnn.so");
  ASSERT_FALSE(cudnn.ok());
  EXPECT_EQ(cudnn.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(cudnn.status().message().find("cuDNN library libkiln-absent-cudnn.so"),
            std::string::npos)
      << cudnn.status().ToString();
}

}  // namespace
}  // namespace kiln::hal::cuda
