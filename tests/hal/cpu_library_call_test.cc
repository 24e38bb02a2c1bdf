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
};

// A ConvolutionCall's fields.
struct Convolution {
  lib::LibraryElementType element_type = lib::LibraryElementType::F32;
  uint32_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1, groups = 1;
  uint32_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int32_t x = -1, filter = -1, y = -1, bias = -1, z = -1;
  lib::LibraryActivation activation = lib::LibraryActivation::None;
  bool constant_filter = false;
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
std::vector<float> ReferenceMatmul(const Matmul& mm, const std::vector<std::vector<float>>& buf) {
  std::vector<float> d = buf[mm.d];
  for (uint32_t b = 0; b < mm.batch_count; ++b) {
    for (uint32_t i = 0; i < mm.m; ++i) {
      for (uint32_t j = 0; j < mm.n; ++j) {
        double sum = 0;
        for (uint32_t p = 0; p < mm.k; ++p) {
          const float a =
              buf[mm.a][b * mm.stride_a + (mm.transpose_a ? p * mm.m + i : i * mm.k + p)];
          const float w =
              buf[mm.b][b * mm.stride_b + (mm.transpose_b ? j * mm.k + p : p * mm.n + j)];
          sum += static_cast<double>(a) * w;
        }
        if (mm.bias >= 0) sum += buf[mm.bias][j];
        if (mm.c >= 0) sum += buf[mm.c][b * mm.stride_c + i * mm.n + j];
        d[b * mm.stride_d + i * mm.n + j] = Activate(static_cast<float>(sum), mm.activation);
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
