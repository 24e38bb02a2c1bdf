// The CPU driver's library calls (hal/cpu/library_call.h): ELF executables
// whose export carries a MatmulCall or ConvolutionCall, run with oneDNN on
// the cpu and cpu-sync devices and compared with a reference computed here;
// the export's kernel (test_kernels.c's fill_sentinel, which writes -7 into
// the result) runs where calls are off, the library is absent, or the call
// is one oneDNN does not make (f16); malformed calls fail the load.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "hal/cpu/cpu_device.h"
#include "hal/cpu/cpu_driver.h"
#include "hal/cpu/elf_loader.h"
#include "hal/cpu/thread_pool.h"
#include "schemas/executable_elf_generated.h"
#include "schemas/library_call_generated.h"
#include "tests/hal/elf_test_executable.h"
#include "tests/hal/test_util.h"
#if defined(KILN_HAVE_ONEDNN)
#include "hal/cpu/onednn_library.h"
#include "hal/cpu/onednn_symbols.h"
#endif

namespace kiln::hal {
namespace {

namespace fb = ::kiln::schema::elf;
namespace lib = ::kiln::schema::library;
using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::Unwrap;

constexpr float kSentinel = -7.0f;

// A MatmulCall's fields (the schema's defaults).
struct Matmul {
  lib::LibraryElementType element_type = lib::LibraryElementType::F32;
  uint32_t m = 1, n = 1, k = 1, batch_count = 1;
  bool transpose_a = false, transpose_b = false;
  int32_t a = -1, b = -1, d = -1, bias = -1, c = -1;
  uint64_t stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;
  lib::LibraryActivation activation = lib::LibraryActivation::None;
  // Strided operands (0: packed at the binding's start).
  uint64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
  uint64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;
};

// A ConvolutionCall's fields.
struct Convolution {
  lib::LibraryElementType element_type = lib::LibraryElementType::F32;
  uint32_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1, groups = 1;
  uint32_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int32_t x = -1, filter = -1, y = -1, bias = -1, z = -1;
  lib::LibraryActivation activation = lib::LibraryActivation::None;
  bool constant_filter = false;
  bool x_blocked = false, y_blocked = false, z_blocked = false;
};

flatbuffers::Offset<lib::LibraryCall> BuildCall(flatbuffers::FlatBufferBuilder& fbb,
                                                const Matmul* mm, const Convolution* cv) {
  flatbuffers::Offset<lib::MatmulCall> matmul;
  flatbuffers::Offset<lib::ConvolutionCall> convolution;
  if (mm != nullptr) {
    lib::MatmulCallBuilder b(fbb);
    b.add_element_type(mm->element_type);
    b.add_m(mm->m);
    b.add_n(mm->n);
    b.add_k(mm->k);
    b.add_batch_count(mm->batch_count);
    b.add_transpose_a(mm->transpose_a);
    b.add_transpose_b(mm->transpose_b);
    b.add_a(mm->a);
    b.add_b(mm->b);
    b.add_d(mm->d);
    b.add_bias(mm->bias);
    b.add_c(mm->c);
    b.add_batch_stride_a(mm->stride_a);
    b.add_batch_stride_b(mm->stride_b);
    b.add_batch_stride_c(mm->stride_c);
    b.add_batch_stride_d(mm->stride_d);
    b.add_activation(mm->activation);
    b.add_lda(mm->lda);
    b.add_ldb(mm->ldb);
    b.add_ldc(mm->ldc);
    b.add_ldd(mm->ldd);
    b.add_offset_a(mm->offset_a);
    b.add_offset_b(mm->offset_b);
    b.add_offset_c(mm->offset_c);
    b.add_offset_d(mm->offset_d);
    matmul = b.Finish();
  }
  if (cv != nullptr) {
    lib::ConvolutionCallBuilder b(fbb);
    b.add_element_type(cv->element_type);
    b.add_n(cv->n);
    b.add_c(cv->c);
    b.add_h(cv->h);
    b.add_w(cv->w);
    b.add_k(cv->k);
    b.add_r(cv->r);
    b.add_s(cv->s);
    b.add_groups(cv->groups);
    b.add_stride_h(cv->stride_h);
    b.add_stride_w(cv->stride_w);
    b.add_dilation_h(cv->dilation_h);
    b.add_dilation_w(cv->dilation_w);
    b.add_x(cv->x);
    b.add_filter(cv->filter);
    b.add_y(cv->y);
    b.add_bias(cv->bias);
    b.add_z(cv->z);
    b.add_activation(cv->activation);
    b.add_constant_filter(cv->constant_filter);
    b.add_x_blocked(cv->x_blocked);
    b.add_y_blocked(cv->y_blocked);
    b.add_z_blocked(cv->z_blocked);
    convolution = b.Finish();
  }
  return lib::CreateLibraryCall(fbb, matmul, convolution);
}

// An executable of the test kernel library with one export "call" (kernel
// fill_sentinel, one constant: the binding it fills) of `read_only.size()`
// bindings, carrying the call (either, both or none).
std::vector<uint8_t> BuildCallExecutable(const std::vector<uint8_t>& library,
                                         const std::vector<bool>& read_only, const Matmul* mm,
                                         const Convolution* cv) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Binding>> bindings;
  for (bool flag : read_only) bindings.push_back(fb::CreateBinding(fbb, flag));
  fb::WorkgroupSize size(1, 1, 1);
  auto call = BuildCall(fbb, mm, cv);
  auto name = fbb.CreateString("call");
  auto symbol = fbb.CreateString("fill_sentinel");
  auto e = fb::CreateExport(fbb, name, symbol, &size, fbb.CreateVector(bindings), 1, call);
  fbb.PreAlign(library.size(), 64);
  auto library_offset = fbb.CreateVector(library);
  std::vector<flatbuffers::Offset<fb::Export>> exports = {e};
  fb::FinishElfExecutableBuffer(
      fbb, fb::CreateElfExecutable(fbb, library_offset, fbb.CreateVector(exports)));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// Deterministic values in [-1, 1).
std::vector<float> Values(size_t count, uint32_t seed) {
  std::vector<float> out(count);
  uint32_t state = seed * 2654435761u + 1;
  for (float& v : out) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>((state >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return out;
}

float Activate(float x, lib::LibraryActivation activation) {
  switch (activation) {
    case lib::LibraryActivation::Relu:
      return x > 0 ? x : 0;
    case lib::LibraryActivation::GeluTanh:
      return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
    default:
      return x;
  }
}

// The reference of a matmul call over `buffers` (indexed by binding): D.
// Each operand's element (b, row, col) as stored is at
// offset + b * batch stride + row * ld + col (ld 0: the row length).
std::vector<float> ReferenceMatmul(const Matmul& mm, const std::vector<std::vector<float>>& buf) {
  std::vector<float> d = buf[mm.d];
  const uint64_t lda = mm.lda ? mm.lda : (mm.transpose_a ? mm.m : mm.k);
  const uint64_t ldb = mm.ldb ? mm.ldb : (mm.transpose_b ? mm.k : mm.n);
  const uint64_t ldc = mm.ldc ? mm.ldc : mm.n, ldd = mm.ldd ? mm.ldd : mm.n;
  for (uint32_t b = 0; b < mm.batch_count; ++b) {
    for (uint32_t i = 0; i < mm.m; ++i) {
      for (uint32_t j = 0; j < mm.n; ++j) {
        double sum = 0;
        for (uint32_t p = 0; p < mm.k; ++p) {
          const float a = buf[mm.a][mm.offset_a + b * mm.stride_a +
                                    (mm.transpose_a ? p * lda + i : i * lda + p)];
          const float w = buf[mm.b][mm.offset_b + b * mm.stride_b +
                                    (mm.transpose_b ? j * ldb + p : p * ldb + j)];
          sum += static_cast<double>(a) * w;
        }
        if (mm.bias >= 0) sum += buf[mm.bias][j];
        if (mm.c >= 0) sum += buf[mm.c][mm.offset_c + b * mm.stride_c + i * ldc + j];
        d[mm.offset_d + b * mm.stride_d + i * ldd + j] =
            Activate(static_cast<float>(sum), mm.activation);
      }
    }
  }
  return d;
}

std::vector<float> ReferenceConvolution(const Convolution& cv,
                                        const std::vector<std::vector<float>>& buf) {
  const uint32_t p_count = (cv.h - cv.dilation_h * (cv.r - 1) - 1) / cv.stride_h + 1;
  const uint32_t q_count = (cv.w - cv.dilation_w * (cv.s - 1) - 1) / cv.stride_w + 1;
  std::vector<float> y(static_cast<size_t>(cv.n) * cv.k * p_count * q_count);
  const uint32_t cg = cv.c / cv.groups, kg = cv.k / cv.groups;
  for (uint32_t n = 0; n < cv.n; ++n) {
    for (uint32_t k = 0; k < cv.k; ++k) {
      for (uint32_t p = 0; p < p_count; ++p) {
        for (uint32_t q = 0; q < q_count; ++q) {
          double sum = 0;
          const uint32_t group = k / kg;
          for (uint32_t c = 0; c < cg; ++c) {
            for (uint32_t r = 0; r < cv.r; ++r) {
              for (uint32_t s = 0; s < cv.s; ++s) {
                const uint32_t h = p * cv.stride_h + r * cv.dilation_h;
                const uint32_t w = q * cv.stride_w + s * cv.dilation_w;
                const uint32_t channel = group * cg + c;
                sum +=
                    static_cast<double>(buf[cv.x][((n * cv.c + channel) * cv.h + h) * cv.w + w]) *
                    buf[cv.filter][((k * cg + c) * cv.r + r) * cv.s + s];
              }
            }
          }
          const size_t at = ((static_cast<size_t>(n) * cv.k + k) * p_count + p) * q_count + q;
          if (cv.bias >= 0) sum += buf[cv.bias][k];
          if (cv.z >= 0) sum += buf[cv.z][at];
          y[at] = Activate(static_cast<float>(sum), cv.activation);
        }
      }
    }
  }
  return y;
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_NEAR(actual[i], expected[i], 1e-4f + 1e-4f * std::fabs(expected[i])) << "element " << i;
  }
}

class CpuLibraryCallTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    library_ = testing::ReadTestKernelLibrary();
    ASSERT_FALSE(library_.empty());
  }

  // A cpu device (GetParam(): asynchronous, 2 threads) or cpu-sync.
  Ref<Device> CreateDevice(bool library_calls = true, std::string onednn_library = "libdnnl.so.2") {
    cpu::CpuDeviceOptions options;
    options.asynchronous = GetParam();
    options.thread_count = 2;
    options.library_calls = library_calls;
    options.onednn_library = std::move(onednn_library);
    return Ref<Device>(Unwrap(cpu::CpuDevice::Create(options)));
  }

  // Loads the call's executable on `device`, dispatches it once on
  // `inputs` (one buffer per binding) and returns binding `result`.
  std::vector<float> Run(Device& device, const std::vector<bool>& read_only, const Matmul* mm,
                         const Convolution* cv, const std::vector<std::vector<float>>& inputs,
                         int32_t result) {
    Ref<Executable> executable = Unwrap(device.CreateExecutable(
        cpu::HostElfFormat(), BuildCallExecutable(library_, read_only, mm, cv)));
    std::vector<Ref<Buffer>> buffers;
    std::vector<BufferRef> bindings;
    for (const std::vector<float>& values : inputs) {
      buffers.push_back(MakeBuffer(device, values));
      bindings.push_back(BufferRef::Of(buffers.back()));
    }
    Ref<CommandBuffer> cb = Unwrap(device.CreateCommandBuffer(CommandBufferMode::kOneShot));
    const uint32_t constants[] = {static_cast<uint32_t>(result)};
    Status status = cb->Begin();
    if (status.ok()) status = cb->Dispatch(executable, 0, {1, 1, 1}, constants, bindings);
    if (status.ok()) status = cb->End();
    if (status.ok()) status = testing::SubmitAndWait(device, cb);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return ReadBuffer<float>(*buffers[result]);
  }

  Status Load(Device& device, const std::vector<bool>& read_only, const Matmul* mm,
              const Convolution* cv) {
    return device
        .CreateExecutable(cpu::HostElfFormat(), BuildCallExecutable(library_, read_only, mm, cv))
        .status();
  }

  std::vector<uint8_t> library_;
};

#if defined(KILN_HAVE_ONEDNN)
#define KILN_REQUIRE_ONEDNN()                                                    \
  do {                                                                           \
    if (!cpu::OnednnSymbols::Load().ok()) GTEST_SKIP() << "libdnnl.so.2 absent"; \
  } while (false)
#else
#define KILN_REQUIRE_ONEDNN() GTEST_SKIP() << "built without oneDNN's headers"
#endif

TEST_P(CpuLibraryCallTest, MatmulTransposed) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  Matmul mm;
  mm.m = 13, mm.n = 17, mm.k = 11;
  mm.transpose_a = mm.transpose_b = true;
  mm.a = 0, mm.b = 1, mm.d = 2;
  const std::vector<std::vector<float>> in = {Values(13 * 11, 1), Values(11 * 17, 2),
                                              std::vector<float>(13 * 17, 0.0f)};
  ExpectNear(Run(*device, {true, true, false}, &mm, nullptr, in, 2), ReferenceMatmul(mm, in));
  // Only A transposed.
  mm.transpose_b = false;
  ExpectNear(Run(*device, {true, true, false}, &mm, nullptr, in, 2), ReferenceMatmul(mm, in));
}

TEST_P(CpuLibraryCallTest, MatmulBatchedBroadcastBiasRelu) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  Matmul mm;
  mm.m = 8, mm.n = 6, mm.k = 5, mm.batch_count = 3;
  mm.a = 0, mm.b = 1, mm.bias = 2, mm.d = 3;
  mm.stride_a = 0;  // One A for every batch.
  mm.stride_b = 5 * 6;
  mm.stride_d = 8 * 6;
  mm.activation = lib::LibraryActivation::Relu;
  const std::vector<std::vector<float>> in = {Values(8 * 5, 3), Values(3 * 5 * 6, 4), Values(6, 5),
                                              std::vector<float>(3 * 8 * 6, 0.0f)};
  ExpectNear(Run(*device, {true, true, true, false}, &mm, nullptr, in, 3), ReferenceMatmul(mm, in));
  // B broadcast instead of A.
  mm.stride_a = 8 * 5;
  mm.stride_b = 0;
  const std::vector<std::vector<float>> in2 = {Values(3 * 8 * 5, 6), Values(5 * 6, 7), Values(6, 8),
                                               std::vector<float>(3 * 8 * 6, 0.0f)};
  ExpectNear(Run(*device, {true, true, true, false}, &mm, nullptr, in2, 3),
             ReferenceMatmul(mm, in2));
}

TEST_P(CpuLibraryCallTest, MatmulAddendGeluTanh) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  Matmul mm;
  mm.m = 7, mm.n = 9, mm.k = 16, mm.batch_count = 2;
  mm.a = 0, mm.b = 1, mm.bias = 2, mm.c = 3, mm.d = 4;
  mm.stride_a = 7 * 16, mm.stride_b = 16 * 9, mm.stride_c = 7 * 9, mm.stride_d = 7 * 9;
  mm.activation = lib::LibraryActivation::GeluTanh;
  const std::vector<std::vector<float>> in = {Values(2 * 7 * 16, 9), Values(2 * 16 * 9, 10),
                                              Values(9, 11), Values(2 * 7 * 9, 12),
                                              std::vector<float>(2 * 7 * 9, 0.0f)};
  ExpectNear(Run(*device, {true, true, true, true, false}, &mm, nullptr, in, 4),
             ReferenceMatmul(mm, in));
  // One C for every batch.
  mm.stride_c = 0;
  ExpectNear(Run(*device, {true, true, true, true, false}, &mm, nullptr, in, 4),
             ReferenceMatmul(mm, in));
}

TEST_P(CpuLibraryCallTest, MatmulAddendInPlace) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  // C is D's own binding: D = A·B + D.
  Matmul mm;
  mm.m = 4, mm.n = 5, mm.k = 3;
  mm.a = 0, mm.b = 1, mm.c = 2, mm.d = 2;
  const std::vector<std::vector<float>> in = {Values(4 * 3, 13), Values(3 * 5, 14),
                                              Values(4 * 5, 15)};
  ExpectNear(Run(*device, {true, true, false}, &mm, nullptr, in, 2), ReferenceMatmul(mm, in));
}

TEST_P(CpuLibraryCallTest, MatmulAddendAliasingTheResult) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  // C and D are distinct bindings of one buffer: the call must read C as it
  // was before D is written (it copies C aside).
  Matmul mm;
  mm.m = 6, mm.n = 5, mm.k = 4;
  mm.a = 0, mm.b = 1, mm.c = 2, mm.d = 3, mm.activation = lib::LibraryActivation::Relu;
  const std::vector<std::vector<float>> in = {Values(6 * 4, 22), Values(4 * 5, 23),
                                              Values(6 * 5, 24), Values(6 * 5, 24)};
  Ref<Executable> executable = Unwrap(device->CreateExecutable(
      cpu::HostElfFormat(),
      BuildCallExecutable(library_, {true, true, true, false}, &mm, nullptr)));
  Ref<Buffer> a = MakeBuffer(*device, in[0]);
  Ref<Buffer> b = MakeBuffer(*device, in[1]);
  Ref<Buffer> cd = MakeBuffer(*device, in[2]);
  Ref<CommandBuffer> cb = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_ASSERT_OK(cb->Begin());
  const uint32_t constants[] = {3};
  const BufferRef bindings[] = {BufferRef::Of(a), BufferRef::Of(b), BufferRef::Of(cd),
                                BufferRef::Of(cd)};
  KILN_ASSERT_OK(cb->Dispatch(executable, 0, {1, 1, 1}, constants, bindings));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(testing::SubmitAndWait(*device, cb));
  ExpectNear(ReadBuffer<float>(*cd), ReferenceMatmul(mm, in));
}

// Attention's matmuls on strided operands: the query and key heads read in
// place from one qkv binding ([seq, 3 * heads * head]), the scores
// QK^T, then the heads of AV written side by side into rows of
// heads * head (ldd), with an addend read likewise strided. Elements the
// calls must not touch (between the heads' rows, past the offsets) keep
// their values.
TEST_P(CpuLibraryCallTest, MatmulStridedOperands) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  constexpr uint32_t kSeq = 12, kHeads = 3, kHead = 8, kHidden = kHeads * kHead;
  // Scores: batch = heads; A = q (offset 0), B = k (offset kHidden) stored
  // [seq, head] per head, read transposed; both rows 3 * kHidden apart.
  Matmul scores;
  scores.m = kSeq, scores.n = kSeq, scores.k = kHead, scores.batch_count = kHeads;
  scores.transpose_b = true;
  scores.a = 0, scores.b = 0, scores.d = 1;
  scores.lda = scores.ldb = 3 * kHidden;
  scores.offset_b = kHidden;
  scores.stride_a = scores.stride_b = kHead;
  scores.stride_d = kSeq * kSeq;
  const std::vector<std::vector<float>> in = {Values(kSeq * 3 * kHidden, 41),
                                              std::vector<float>(kHeads * kSeq * kSeq, 0.0f)};
  ExpectNear(Run(*device, {true, false}, &scores, nullptr, in, 1), ReferenceMatmul(scores, in));
  // AV with a residual: A = probabilities [heads, seq, seq], B = v (offset
  // 2 * kHidden), D and C heads side by side in [seq, hidden] rows at an
  // offset of one row (the first row and the elements after the last
  // stay).
  Matmul heads;
  heads.m = kSeq, heads.n = kHead, heads.k = kSeq, heads.batch_count = kHeads;
  heads.a = 1, heads.b = 0, heads.c = 2, heads.d = 3;
  heads.ldb = 3 * kHidden, heads.offset_b = 2 * kHidden, heads.stride_b = kHead;
  heads.stride_a = kSeq * kSeq;
  heads.ldc = heads.ldd = kHidden;
  heads.offset_c = heads.offset_d = kHidden;
  heads.stride_c = heads.stride_d = kHead;
  heads.activation = lib::LibraryActivation::Relu;
  const size_t rows = (kSeq + 2) * kHidden;
  const std::vector<std::vector<float>> in2 = {in[0], Values(kHeads * kSeq * kSeq, 42),
                                               Values(rows, 43), std::vector<float>(rows, 5.0f)};
  const std::vector<float> expected = ReferenceMatmul(heads, in2);
  EXPECT_EQ(expected[0], 5.0f);
  EXPECT_EQ(expected[rows - 1], 5.0f);
  ExpectNear(Run(*device, {true, true, true, false}, &heads, nullptr, in2, 3), expected);
}

TEST_P(CpuLibraryCallTest, ConvolutionStrideDilationBiasAddendRelu) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  Convolution cv;
  cv.n = 2, cv.c = 3, cv.h = 11, cv.w = 10, cv.k = 4, cv.r = 3, cv.s = 2;
  cv.stride_h = 2, cv.stride_w = 1, cv.dilation_h = 1, cv.dilation_w = 2;
  cv.x = 0, cv.filter = 1, cv.bias = 2, cv.z = 3, cv.y = 4;
  cv.activation = lib::LibraryActivation::Relu;
  const uint32_t p = (11 - 3) / 2 + 1, q = (10 - 2 - 1) / 1 + 1;
  const std::vector<std::vector<float>> in = {
      Values(2 * 3 * 11 * 10, 16), Values(4 * 3 * 3 * 2, 17), Values(4, 18),
      Values(2 * 4 * p * q, 19), std::vector<float>(2 * 4 * p * q, 0.0f)};
  ExpectNear(Run(*device, {true, true, true, true, false}, nullptr, &cv, in, 4),
             ReferenceConvolution(cv, in));
  // Grouped, no bias, no addend.
  Convolution grouped = cv;
  grouped.groups = 3, grouped.c = 3, grouped.k = 6;
  grouped.bias = -1, grouped.z = -1, grouped.y = 2;
  grouped.activation = lib::LibraryActivation::None;
  const std::vector<std::vector<float>> in2 = {Values(2 * 3 * 11 * 10, 20),
                                               Values(6 * 1 * 3 * 2, 21),
                                               std::vector<float>(2 * 6 * p * q, 0.0f)};
  ExpectNear(Run(*device, {true, true, false}, nullptr, &grouped, in2, 2),
             ReferenceConvolution(grouped, in2));
}

// A constant filter lets oneDNN choose its own (blocked) layouts: the image
// and an addend are reordered in and the result out at every dispatch, and
// the filter once per address. One executable, dispatched with a filter,
// again with new images and addends, with a second filter (another copy),
// and with the first again (its copy reused), each result exact; the
// addend as its own binding and as the result itself.
TEST_P(CpuLibraryCallTest, ConvolutionWithAConstantFilterInOneDnnLayouts) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  for (const bool in_place : {false, true}) {
    Convolution cv;
    cv.n = 1, cv.c = 32, cv.h = 9, cv.w = 9, cv.k = 48, cv.r = 3, cv.s = 3;
    cv.x = 0, cv.filter = 1, cv.bias = 2, cv.z = 3, cv.y = in_place ? 3 : 4;
    cv.activation = lib::LibraryActivation::Relu;
    cv.constant_filter = true;
    const std::vector<bool> read_only = in_place ? std::vector<bool>{true, true, true, false}
                                                 : std::vector<bool>{true, true, true, true, false};
    Ref<Executable> executable = Unwrap(device->CreateExecutable(
        cpu::HostElfFormat(), BuildCallExecutable(library_, read_only, nullptr, &cv)));
    const size_t y_count = 48 * 7 * 7;
    const std::vector<float> filters[] = {Values(48 * 32 * 9, 31), Values(48 * 32 * 9, 32)};
    Ref<Buffer> filter_buffers[] = {MakeBuffer(*device, filters[0]),
                                    MakeBuffer(*device, filters[1])};
    const int order[] = {0, 0, 1, 0};
    for (int call = 0; call < 4; ++call) {
      std::vector<std::vector<float>> in = {Values(32 * 9 * 9, 40 + call), filters[order[call]],
                                            Values(48, 50 + call), Values(y_count, 60 + call)};
      if (!in_place) in.push_back(std::vector<float>(y_count, 0.0f));
      std::vector<Ref<Buffer>> buffers;
      std::vector<BufferRef> bindings;
      for (size_t i = 0; i < in.size(); ++i) {
        buffers.push_back(i == 1 ? filter_buffers[order[call]] : MakeBuffer(*device, in[i]));
        bindings.push_back(BufferRef::Of(buffers.back()));
      }
      Ref<CommandBuffer> cb = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
      const uint32_t constants[] = {static_cast<uint32_t>(cv.y)};
      KILN_ASSERT_OK(cb->Begin());
      KILN_ASSERT_OK(cb->Dispatch(executable, 0, {1, 1, 1}, constants, bindings));
      KILN_ASSERT_OK(cb->End());
      KILN_ASSERT_OK(testing::SubmitAndWait(*device, cb));
      SCOPED_TRACE("call " + std::to_string(call) + (in_place ? " in place" : ""));
      ExpectNear(ReadBuffer<float>(*buffers[cv.y]), ReferenceConvolution(cv, in));
    }
  }
}

#if defined(KILN_HAVE_ONEDNN)
// NCHW `plain` ([n, c, h, w]) in the blocked activation layout nChw{block}c.
std::vector<float> ToBlocked(const std::vector<float>& plain, uint32_t n, uint32_t c, uint32_t h,
                             uint32_t w, uint32_t block) {
  std::vector<float> out(plain.size());
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < c; ++j) {
      for (uint32_t p = 0; p < h * w; ++p) {
        out[((static_cast<size_t>(i) * (c / block) + j / block) * h * w + p) * block + j % block] =
            plain[(static_cast<size_t>(i) * c + j) * h * w + p];
      }
    }
  }
  return out;
}

// Convolutions whose image, result and addend stay in the blocked layout
// between calls (x_blocked, y_blocked, z_blocked): a 3x3 convolution writes
// its result blocked, a 1x1 one reads it as both its image and its residual
// (two bindings of one buffer), and writes its result NCHW, or blocked (the
// addend then read by a binary post-op) for a third call to read; an NCHW
// addend starts a blocked result; a blocked addend updated in place. Each
// blocked buffer holds exactly the reference in nChw{B}c (B: 16 on AVX-512,
// else 8), and each NCHW result the reference.
TEST_P(CpuLibraryCallTest, ConvolutionsChainedInTheBlockedLayout) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  const uint32_t block =
      static_cast<uint32_t>(Unwrap(cpu::OnednnLibrary::Load(1))->channel_block());
  ASSERT_TRUE(block == 8 || block == 16) << block;
  // Dispatches `cv` on `buffers` (by binding) and waits.
  auto dispatch = [&](const Convolution& cv, const std::vector<bool>& read_only,
                      const std::vector<Ref<Buffer>>& buffers) {
    Ref<Executable> executable = Unwrap(device->CreateExecutable(
        cpu::HostElfFormat(), BuildCallExecutable(library_, read_only, nullptr, &cv)));
    std::vector<BufferRef> bindings;
    for (const Ref<Buffer>& buffer : buffers) bindings.push_back(BufferRef::Of(buffer));
    Ref<CommandBuffer> cb = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
    const uint32_t constants[] = {static_cast<uint32_t>(cv.y)};
    KILN_ASSERT_OK(cb->Begin());
    KILN_ASSERT_OK(cb->Dispatch(executable, 0, {1, 1, 1}, constants, bindings));
    KILN_ASSERT_OK(cb->End());
    KILN_ASSERT_OK(testing::SubmitAndWait(*device, cb));
  };
  const uint32_t k = 32, p = 7;
  const size_t y_count = k * p * p;

  // 1: x [1, 16, 9, 9] NCHW -> 3x3 -> y1 [1, 32, 7, 7] blocked.
  Convolution first;
  first.c = 16, first.h = 9, first.w = 9, first.k = k, first.r = 3, first.s = 3;
  first.x = 0, first.filter = 1, first.bias = 2, first.y = 3;
  first.activation = lib::LibraryActivation::Relu;
  first.constant_filter = true;
  first.y_blocked = true;
  const std::vector<std::vector<float>> in1 = {Values(16 * 9 * 9, 70), Values(k * 16 * 9, 71),
                                               Values(k, 72), std::vector<float>(y_count, 0.0f)};
  const std::vector<float> y1 = ReferenceConvolution(first, in1);
  std::vector<Ref<Buffer>> b1;
  for (const std::vector<float>& values : in1) b1.push_back(MakeBuffer(*device, values));
  dispatch(first, {true, true, true, false}, b1);
  const Ref<Buffer> y1_buffer = b1[3];
  ExpectNear(ReadBuffer<float>(*y1_buffer), ToBlocked(y1, 1, k, p, p, block));

  // 2: y2 = relu(conv1x1(y1) + bias + y1), y1 read blocked as x and as z.
  Convolution second;
  second.c = k, second.h = p, second.w = p, second.k = k, second.r = 1, second.s = 1;
  second.x = 0, second.filter = 1, second.bias = 2, second.z = 3, second.y = 4;
  second.activation = lib::LibraryActivation::Relu;
  second.constant_filter = true;
  second.x_blocked = second.z_blocked = true;
  const std::vector<std::vector<float>> in2 = {y1, Values(k * k, 73), Values(k, 74), y1,
                                               std::vector<float>(y_count, 0.0f)};
  const std::vector<float> y2 = ReferenceConvolution(second, in2);
  const Ref<Buffer> filter2 = MakeBuffer(*device, in2[1]), bias2 = MakeBuffer(*device, in2[2]);
  {
    SCOPED_TRACE("blocked x and z, NCHW y");
    Ref<Buffer> out = MakeBuffer(*device, in2[4]);
    dispatch(second, {true, true, true, true, false}, {y1_buffer, filter2, bias2, y1_buffer, out});
    ExpectNear(ReadBuffer<float>(*out), y2);
  }
  {
    SCOPED_TRACE("blocked x, z and y; then a third call reads y blocked");
    Convolution blocked = second;
    blocked.y_blocked = true;
    Ref<Buffer> out = MakeBuffer(*device, in2[4]);
    dispatch(blocked, {true, true, true, true, false}, {y1_buffer, filter2, bias2, y1_buffer, out});
    ExpectNear(ReadBuffer<float>(*out), ToBlocked(y2, 1, k, p, p, block));
    Convolution third;
    third.c = k, third.h = p, third.w = p, third.k = 16, third.r = 3, third.s = 3;
    third.x = 0, third.filter = 1, third.y = 2;
    third.x_blocked = true;
    const std::vector<std::vector<float>> in3 = {y2, Values(16 * k * 9, 75),
                                                 std::vector<float>(16 * 5 * 5, 0.0f)};
    Ref<Buffer> filter3 = MakeBuffer(*device, in3[1]), out3 = MakeBuffer(*device, in3[2]);
    dispatch(third, {true, true, false}, {out, filter3, out3});
    ExpectNear(ReadBuffer<float>(*out3), ReferenceConvolution(third, in3));
  }
  {
    SCOPED_TRACE("NCHW z starts a blocked y");
    Convolution mixed = second;
    mixed.z_blocked = false;
    mixed.y_blocked = true;
    const std::vector<float> z = Values(y_count, 76);
    std::vector<std::vector<float>> in = in2;
    in[3] = z;
    Ref<Buffer> z_buffer = MakeBuffer(*device, z), out = MakeBuffer(*device, in2[4]);
    dispatch(mixed, {true, true, true, true, false}, {y1_buffer, filter2, bias2, z_buffer, out});
    ExpectNear(ReadBuffer<float>(*out),
               ToBlocked(ReferenceConvolution(second, in), 1, k, p, p, block));
  }
  {
    SCOPED_TRACE("blocked z updated in place");
    Convolution in_place = second;
    in_place.z = in_place.y = 3;
    in_place.y_blocked = true;
    const std::vector<float> z = Values(y_count, 77);
    std::vector<std::vector<float>> in = {y1, in2[1], in2[2], z};
    Ref<Buffer> zy = MakeBuffer(*device, ToBlocked(z, 1, k, p, p, block));
    dispatch(in_place, {true, true, true, false}, {y1_buffer, filter2, bias2, zy});
    ExpectNear(ReadBuffer<float>(*zy),
               ToBlocked(ReferenceConvolution(in_place, in), 1, k, p, p, block));
  }
}

// A call with a blocked operand never runs its kernel alone: where oneDNN
// is loaded but does not make it (f16), the load fails; where no call runs
// in oneDNN (calls off, the library absent), the kernel runs as every
// other export's does.
TEST_P(CpuLibraryCallTest, BlockedConvolutionNeverFallsBackAlone) {
  KILN_REQUIRE_ONEDNN();
  Convolution cv;
  cv.element_type = lib::LibraryElementType::F16;
  cv.c = 16, cv.h = 5, cv.w = 5, cv.k = 16, cv.r = 3, cv.s = 3;
  cv.x = 0, cv.filter = 1, cv.y = 2;
  cv.y_blocked = true;
  Ref<Device> device = CreateDevice();
  Status status = Load(*device, {true, true, false}, nullptr, &cv);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_NE(status.message().find("its export's kernel cannot stand in for it"), std::string::npos)
      << status.message();
  const std::vector<std::vector<float>> in = {std::vector<float>(16 * 25, 1.0f),
                                              std::vector<float>(16 * 16 * 9, 1.0f),
                                              std::vector<float>(16 * 9, 0.0f)};
  const std::vector<float> sentinel(16 * 9, kSentinel);
  Ref<Device> off = CreateDevice(/*library_calls=*/false);
  EXPECT_EQ(Run(*off, {true, true, false}, nullptr, &cv, in, 2), sentinel);
  Ref<Device> absent = CreateDevice(true, "libabsent.so");
  EXPECT_EQ(Run(*absent, {true, true, false}, nullptr, &cv, in, 2), sentinel);
}
#endif  // KILN_HAVE_ONEDNN

// The kernel runs where calls are off, the library is absent, or oneDNN
// does not make the call (f16).
TEST_P(CpuLibraryCallTest, KernelRunsWithoutTheLibrary) {
  Matmul mm;
  mm.m = 4, mm.n = 4, mm.k = 4;
  mm.a = 0, mm.b = 1, mm.d = 2;
  const std::vector<std::vector<float>> in = {Values(16, 1), Values(16, 2),
                                              std::vector<float>(16, 0.0f)};
  const std::vector<float> sentinel(16, kSentinel);
  Ref<Device> off = CreateDevice(/*library_calls=*/false);
  EXPECT_EQ(Run(*off, {true, true, false}, &mm, nullptr, in, 2), sentinel);
  Ref<Device> absent = CreateDevice(true, "libabsent.so");
  EXPECT_EQ(Run(*absent, {true, true, false}, &mm, nullptr, in, 2), sentinel);
  Matmul f16 = mm;
  f16.element_type = lib::LibraryElementType::F16;
  Ref<Device> device = CreateDevice();
  EXPECT_EQ(Run(*device, {true, true, false}, &f16, nullptr, in, 2), sentinel);
}

TEST_P(CpuLibraryCallTest, MalformedCallsFailTheLoad) {
  // Whether or not calls are on: a module loads the same way everywhere.
  for (bool library_calls : {true, false}) {
    Ref<Device> device = CreateDevice(library_calls);
    auto expect_invalid = [&](const Matmul* mm, const Convolution* cv,
                              const std::vector<bool>& read_only, const std::string& fragment) {
      Status status = Load(*device, read_only, mm, cv);
      EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
      EXPECT_NE(status.message().find(fragment), std::string::npos) << status.message();
      EXPECT_NE(status.message().find("export 0 'call' library_call"), std::string::npos)
          << status.message();
    };
    Matmul mm;
    mm.m = 4, mm.n = 4, mm.k = 4;
    mm.a = 0, mm.b = 1, mm.d = 2;
    Matmul bad = mm;
    bad.b = 5;
    expect_invalid(&bad, nullptr, {true, true, false}, "matmul: b names binding 5");
    expect_invalid(&mm, nullptr, {true, true, true},
                   "the result d is binding 2, which is read-only");
    bad = mm;
    bad.k = 0;
    expect_invalid(&bad, nullptr, {true, true, false}, "must be >= 1");
    bad = mm;
    bad.a = 2;
    expect_invalid(&bad, nullptr, {true, true, false}, "the result d and a are both binding 2");
    bad = mm;
    bad.batch_count = 2;  // D's batch stride 0: the batches overlap.
    expect_invalid(&bad, nullptr, {true, true, false}, "batch_stride_d 0");
    bad = mm;
    bad.batch_count = 4, bad.stride_d = 16, bad.stride_a = uint64_t{1} << 62;
    expect_invalid(&bad, nullptr, {true, true, false}, "operand a spans more than 2^63 bytes");
    // Strided operands: an ld shorter than the stored rows, an offset past
    // 2^63 bytes, the result's batches or rows overlapping, C in place of D
    // in another layout.
    bad = mm;
    bad.lda = 3;
    expect_invalid(&bad, nullptr, {true, true, false},
                   "lda 3 is less than the 4 elements of each row a is stored with");
    bad = mm;
    bad.transpose_b = true, bad.k = 6, bad.ldb = 5;
    expect_invalid(&bad, nullptr, {true, true, false},
                   "ldb 5 is less than the 6 elements of each row b is stored with");
    bad = mm;
    bad.offset_b = uint64_t{1} << 62;
    expect_invalid(&bad, nullptr, {true, true, false}, "operand b spans more than 2^63 bytes");
    bad = mm;
    bad.ldd = uint64_t{1} << 62;
    expect_invalid(&bad, nullptr, {true, true, false}, "operand d spans more than 2^63 bytes");
    bad = mm;
    bad.m = 1, bad.lda = uint64_t{1} << 63;  // One row: the extent never multiplies it.
    expect_invalid(&bad, nullptr, {true, true, false}, "lda 9223372036854775808 is more than 2^62");
    bad = mm;
    bad.batch_count = 2, bad.ldd = 6, bad.stride_d = 3;  // Heads of 4 columns, 3 apart.
    expect_invalid(&bad, nullptr, {true, true, false}, "batch_stride_d 3 makes the result's");
    bad = mm;
    bad.c = 2, bad.ldc = 8;
    expect_invalid(&bad, nullptr, {true, true, false},
                   "the addend c is the result d in place (binding 2) with another layout");
    expect_invalid(nullptr, nullptr, {true, true, false}, "it has neither");
    Convolution cv;
    cv.n = 1, cv.c = 4, cv.h = 5, cv.w = 5, cv.k = 6, cv.r = 3, cv.s = 3;
    cv.x = 0, cv.filter = 1, cv.y = 2;
    expect_invalid(&mm, &cv, {true, true, false}, "it has both");
    Convolution bad_cv = cv;
    bad_cv.groups = 3;
    expect_invalid(nullptr, &bad_cv, {true, true, false}, "groups 3 must divide c (4)");
    bad_cv = cv;
    bad_cv.dilation_h = 3;
    expect_invalid(nullptr, &bad_cv, {true, true, false}, "larger than the input");
    bad_cv = cv;
    bad_cv.stride_w = 0;
    expect_invalid(nullptr, &bad_cv, {true, true, false}, "convolution: stride_w must be >= 1");
    bad_cv = cv;
    bad_cv.z = 3;
    expect_invalid(nullptr, &bad_cv, {true, true, false}, "z names binding 3");
    // Blocked layouts: whole blocks of 16 channels, an operand that exists,
    // one layout per binding.
    bad_cv = cv;
    bad_cv.x_blocked = true;
    expect_invalid(nullptr, &bad_cv, {true, true, false},
                   "x_blocked needs a multiple of 16 channels, but c = 4");
    bad_cv = cv;
    bad_cv.k = 8, bad_cv.y_blocked = true;
    expect_invalid(nullptr, &bad_cv, {true, true, false},
                   "y_blocked needs a multiple of 16 channels, but k = 8");
    bad_cv = cv;
    bad_cv.k = 16, bad_cv.z_blocked = true;
    expect_invalid(nullptr, &bad_cv, {true, true, false},
                   "z_blocked is set, but the call has no z");
    Convolution in_place;
    in_place.c = 16, in_place.h = 5, in_place.w = 5, in_place.k = 16, in_place.r = 3,
    in_place.s = 3;
    in_place.x = 0, in_place.filter = 1, in_place.y = 2, in_place.z = 2;
    in_place.y_blocked = true;
    expect_invalid(nullptr, &in_place, {true, true, false},
                   "y and z are both binding 2, but only y is in the blocked layout");
  }
}

TEST_P(CpuLibraryCallTest, TooSmallBindingIsADispatchError) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  Matmul mm;
  mm.m = 4, mm.n = 4, mm.k = 4;
  mm.a = 0, mm.b = 1, mm.d = 2;
  Ref<Executable> executable = Unwrap(device->CreateExecutable(
      cpu::HostElfFormat(), BuildCallExecutable(library_, {true, true, false}, &mm, nullptr)));
  Ref<Buffer> full = MakeBuffer(*device, std::vector<float>(16, 1.0f));
  Ref<Buffer> small = MakeBuffer(*device, std::vector<float>(15, 1.0f));
  Ref<CommandBuffer> cb = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_ASSERT_OK(cb->Begin());
  const uint32_t constants[] = {2};
  const BufferRef bindings[] = {BufferRef::Of(full), BufferRef::Of(small), BufferRef::Of(full)};
  Status status = cb->Dispatch(executable, 0, {1, 1, 1}, constants, bindings);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find("needs 64 bytes from the binding's offset; the range has 60"),
            std::string::npos)
      << status.message();
}

// A strided operand's last element (offset, ld, batch stride) must lie
// inside its binding's range: 2 batches of A, 24 elements apart, with ld 6
// at offset 3 end at element 3 + 24 + 3 * 6 + 4 = 49 (196 bytes), one past
// a 48-element range.
TEST_P(CpuLibraryCallTest, StridedOperandPastTheBindingIsADispatchError) {
  KILN_REQUIRE_ONEDNN();
  Ref<Device> device = CreateDevice();
  Matmul mm;
  mm.m = 4, mm.n = 4, mm.k = 4, mm.batch_count = 2;
  mm.a = 0, mm.b = 1, mm.d = 2;
  mm.lda = 6, mm.offset_a = 3, mm.stride_a = 24, mm.stride_d = 16;
  Ref<Executable> executable = Unwrap(device->CreateExecutable(
      cpu::HostElfFormat(), BuildCallExecutable(library_, {true, true, false}, &mm, nullptr)));
  for (const size_t a_elements : {size_t{48}, size_t{49}}) {
    Ref<Buffer> a = MakeBuffer(*device, Values(a_elements, 44));
    Ref<Buffer> b = MakeBuffer(*device, Values(32, 45));
    Ref<Buffer> d = MakeBuffer(*device, std::vector<float>(32, 0.0f));
    Ref<CommandBuffer> cb = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
    KILN_ASSERT_OK(cb->Begin());
    const uint32_t constants[] = {2};
    const BufferRef bindings[] = {BufferRef::Of(a), BufferRef::Of(b), BufferRef::Of(d)};
    Status status = cb->Dispatch(executable, 0, {1, 1, 1}, constants, bindings);
    if (a_elements == 49) {
      EXPECT_TRUE(status.ok()) << status.ToString();
      continue;
    }
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
    EXPECT_NE(status.message().find("needs 196 bytes from the binding's offset; the range has 192"),
              std::string::npos)
        << status.message();
  }
}

TEST(CpuLibraryCallProbeTest, ListDevicesNamesTheLibrary) {
  cpu::CpuDriver off("cpu", cpu::CpuDeviceOptions{.library_calls = false});
  std::vector<DeviceInfo> devices = Unwrap(off.ListDevices());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].details, "library calls disabled (--cpu_library_calls=false)");
  cpu::CpuDriver on("cpu", cpu::CpuDeviceOptions{});
  devices = Unwrap(on.ListDevices());
  ASSERT_EQ(devices.size(), 1u);
#if defined(KILN_HAVE_ONEDNN)
  if (cpu::OnednnSymbols::Load().ok()) {
    EXPECT_EQ(devices[0].details.rfind("libraries: oneDNN 2.", 0), 0u) << devices[0].details;
  } else {
    EXPECT_NE(devices[0].details.find("oneDNN: not found"), std::string::npos);
  }
#endif
}

#if defined(KILN_HAVE_ONEDNN)
TEST(CpuLibraryCallProbeTest, AbsentLibraryIsUnavailable) {
  Status status = cpu::OnednnSymbols::Load("libabsent.so").status();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("libabsent.so"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("libdnnl2"), std::string::npos) << status.message();
}
#endif

#if defined(KILN_HAVE_ONEDNN)
// oneDNN's OpenMP threads: the device's count while a call is made, the
// thread's own setting again afterwards.
TEST(CpuLibraryCallProbeTest, ThreadScopeSetsAndRestoresOpenMpThreads) {
  KILN_REQUIRE_ONEDNN();
  Ref<cpu::OnednnLibrary> library = Unwrap(cpu::OnednnLibrary::Load(3));
  const cpu::OnednnSymbols& s = library->symbols();
  ASSERT_NE(s.omp_get_max_threads, nullptr) << "Debian's oneDNN runs on OpenMP";
  s.omp_set_num_threads(5);
  {
    cpu::OnednnLibrary::ThreadScope scope(*library);
    EXPECT_EQ(s.omp_get_max_threads(), 3);
  }
  EXPECT_EQ(s.omp_get_max_threads(), 5);
}
#endif

#if defined(KILN_HAVE_ONEDNN)
// Whether the process chose an OpenMP wait policy itself, read before any
// test loads oneDNN.
const bool kWaitPolicyChosen =
    std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr;

// oneDNN's OpenMP threads spin briefly between parallel regions, neither
// libgomp's millisecond nor not at all (onednn_symbols.cc says why), unless
// the process chose otherwise.
TEST(CpuLibraryCallProbeTest, OpenMpThreadsSpinBriefly) {
  if (kWaitPolicyChosen) GTEST_SKIP() << "the environment sets an OpenMP wait policy";
  KILN_REQUIRE_ONEDNN();
  EXPECT_EQ(std::getenv("OMP_WAIT_POLICY"), nullptr);
  const char* spin_count = std::getenv("GOMP_SPINCOUNT");
  ASSERT_NE(spin_count, nullptr);
  EXPECT_STREQ(spin_count, "30000");
}
// Debian's oneDNN runs on libgomp, whose parallel-region entry point the
// device's pool then runs its jobs on: every index once, on several
// threads at a time (each of four indices waits until all four started).
TEST(CpuLibraryCallProbeTest, GeneratedKernelsCanRunOnOneDnnOpenMpThreads) {
  KILN_REQUIRE_ONEDNN();
  Result<Ref<cpu::OnednnSymbols>> symbols = cpu::OnednnSymbols::Load();
  ASSERT_TRUE(symbols.ok()) << symbols.status().ToString();
  ASSERT_NE((*symbols)->gomp_parallel, nullptr) << "oneDNN without OpenMP";
  cpu::ThreadPool pool(4);
  pool.ShareOpenMpThreads((*symbols)->gomp_parallel);
  std::vector<std::atomic<int>> hits(5000);
  pool.ParallelFor(hits.size(), [&](uint64_t i) {
    hits[i].fetch_add(1);
    return true;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  std::atomic<int> arrived{0};
  std::mutex mutex;
  std::set<std::thread::id> ids;
  pool.ParallelFor(4, [&](uint64_t) {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (arrived.load() < 4 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
    return true;
  });
  EXPECT_EQ(arrived.load(), 4);
  EXPECT_EQ(ids.size(), 4u);
}

#endif

INSTANTIATE_TEST_SUITE_P(Devices, CpuLibraryCallTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("cpu") : std::string("cpu_sync");
                         });

}  // namespace
}  // namespace kiln::hal
