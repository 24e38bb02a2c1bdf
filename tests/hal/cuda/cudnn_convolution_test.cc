// cuDNN convolutions as library calls (hal/cuda/cudnn_convolution.h), label
// `gpu`: each call is created from a ConvolutionCall table, planned and
// enqueued on the context's stream directly through the LibraryCall
// interface, and compared with a reference convolution computed here. Every
// test skips, saying why, where there is no CUDA device or no libcudnn.so.9
// (the validation tests too: creating a call needs the library).
#include "hal/cuda/cudnn_convolution.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cuda_symbols.h"
#include "schemas/library_call_generated.h"

namespace kiln::hal::cuda {
namespace {

namespace lib = ::kiln::schema::library;

// A ConvolutionCall's fields; binding indices default to x 0, filter 1, y 2.
struct Conv {
  lib::LibraryElementType type = lib::LibraryElementType::F32;
  uint32_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1;
  uint32_t groups = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int32_t x = 0, filter = 1, y = 2, bias = -1, z = -1;
  lib::LibraryActivation activation = lib::LibraryActivation::None;
  bool allow_tf32 = false;

  uint32_t p() const { return (h - dilation_h * (r - 1) - 1) / stride_h + 1; }
  uint32_t q() const { return (w - dilation_w * (s - 1) - 1) / stride_w + 1; }
  size_t x_count() const { return size_t{n} * c * h * w; }
  size_t w_count() const { return size_t{k} * (c / groups) * r * s; }
  size_t y_count() const { return size_t{n} * k * p() * q(); }
};

// The serialized table (kept alive by the caller; GetRoot reads it).
std::vector<uint8_t> Serialize(const Conv& conv) {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(lib::CreateConvolutionCall(
      builder, conv.type, conv.n, conv.c, conv.h, conv.w, conv.k, conv.r, conv.s, conv.groups,
      conv.stride_h, conv.stride_w, conv.dilation_h, conv.dilation_w, conv.x, conv.filter, conv.y,
      conv.bias, conv.z, conv.activation, conv.allow_tf32));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// An export with `read_only.size()` bindings.
ExecutableExport Export(std::vector<bool> read_only) {
  ExecutableExport info;
  info.name = "conv";
  for (bool flag : read_only) {
    info.layout.bindings.push_back(PipelineBinding{DescriptorType::kStorageBuffer, flag});
  }
  return info;
}

// The reference: y = act(conv(x, w) + bias + z), accumulated in double.
std::vector<float> Reference(const Conv& conv, const std::vector<float>& x,
                             const std::vector<float>& w, const std::vector<float>* bias,
                             const std::vector<float>* z) {
  const uint32_t p = conv.p(), q = conv.q();
  const uint32_t cg = conv.c / conv.groups, kg = conv.k / conv.groups;
  std::vector<float> y(conv.y_count());
  for (uint32_t n = 0; n < conv.n; ++n) {
    for (uint32_t k = 0; k < conv.k; ++k) {
      const uint32_t group = k / kg;
      for (uint32_t i = 0; i < p; ++i) {
        for (uint32_t j = 0; j < q; ++j) {
          double sum = 0;
          for (uint32_t c = 0; c < cg; ++c) {
            for (uint32_t r = 0; r < conv.r; ++r) {
              for (uint32_t s = 0; s < conv.s; ++s) {
                const uint32_t hi = i * conv.stride_h + r * conv.dilation_h;
                const uint32_t wi = j * conv.stride_w + s * conv.dilation_w;
                const size_t xi =
                    ((size_t{n} * conv.c + group * cg + c) * conv.h + hi) * conv.w + wi;
                const size_t wi_ = ((size_t{k} * cg + c) * conv.r + r) * conv.s + s;
                sum += double{x[xi]} * double{w[wi_]};
              }
            }
          }
          const size_t yi = ((size_t{n} * conv.k + k) * p + i) * q + j;
          if (bias) sum += (*bias)[k];
          if (z) sum += (*z)[yi];
          if (conv.activation == lib::LibraryActivation::Relu) sum = std::max(sum, 0.0);
          y[yi] = static_cast<float>(sum);
        }
      }
    }
  }
  return y;
}

// IEEE half and bfloat16 conversions (round to nearest even), for the
// 16-bit tests.
uint16_t ToHalf(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  const uint32_t sign = (f >> 16) & 0x8000;
  const int32_t exponent = static_cast<int32_t>((f >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = f & 0x7fffff;
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00);  // Test values stay finite.
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float FromHalf(uint16_t bits) {
  const uint32_t sign = (bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t f = sign | ((exponent == 31 ? 255 : exponent - 15 + 127) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &f, 4);
  return value;
}

uint16_t ToBfloat16(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  f += 0x7fff + ((f >> 16) & 1);
  return static_cast<uint16_t>(f >> 16);
}

float FromBfloat16(uint16_t bits) {
  const uint32_t f = uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &f, 4);
  return value;
}

// Values as the element type stores them, and back.
std::vector<uint8_t> Encode(lib::LibraryElementType type, const std::vector<float>& values) {
  std::vector<uint8_t> bytes;
  if (type == lib::LibraryElementType::F32) {
    bytes.resize(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t bits =
        type == lib::LibraryElementType::F16 ? ToHalf(values[i]) : ToBfloat16(values[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
  return bytes;
}

std::vector<float> Decode(lib::LibraryElementType type, const std::vector<uint8_t>& bytes) {
  std::vector<float> values;
  if (type == lib::LibraryElementType::F32) {
    values.resize(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
  values.resize(bytes.size() / 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, bytes.data() + 2 * i, 2);
    values[i] = type == lib::LibraryElementType::F16 ? FromHalf(bits) : FromBfloat16(bits);
  }
  return values;
}

// Rounds through the element type, so the reference sees what the device
// reads.
std::vector<float> Quantize(lib::LibraryElementType type, const std::vector<float>& values) {
  return Decode(type, Encode(type, values));
}

// Deterministic values in [-1, 1) with a few exact zeros.
std::vector<float> Values(size_t count, uint32_t seed) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (float& value : values) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<float>(static_cast<int32_t>(state >> 8) % 2048 - 1024) / 1024.0f;
  }
  return values;
}

// Stream capture, which CudaSymbols does not resolve (the graph executor's
// own symbols may differ): looked up in the libcuda.so.1 already loaded.
struct CaptureSymbols {
  decltype(&::cuStreamBeginCapture) begin = nullptr;
  decltype(&::cuStreamEndCapture) end = nullptr;

  bool Load() {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!library) return false;
    auto get_proc =
        reinterpret_cast<decltype(&::cuGetProcAddress)>(dlsym(library, "cuGetProcAddress_v2"));
    if (!get_proc) return false;
    CUdriverProcAddressQueryResult found;
    return get_proc("cuStreamBeginCapture", reinterpret_cast<void**>(&begin), CUDA_VERSION,
                    CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
           begin != nullptr &&
           get_proc("cuStreamEndCapture", reinterpret_cast<void**>(&end), CUDA_VERSION,
                    CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
           end != nullptr;
  }
};

// How RunAndCompare enqueues the call.
enum class Mode {
  kStream,   // Twice on the context's stream.
  kCapture,  // Captured (first use of the call, global capture mode) into a
             // graph that is launched twice.
};

class CudnnConvolutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Ref<CudaSymbols>> symbols = CudaSymbols::Load();
    if (!symbols.ok()) GTEST_SKIP() << "no CUDA driver here: " << symbols.status().ToString();
    int count = 0;
    if ((*symbols)->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
      GTEST_SKIP() << "no CUDA device here";
    }
    Result<Ref<CudaContext>> context = CudaContext::Create(*symbols, 0);
    if (!context.ok()) GTEST_SKIP() << "no CUDA context: " << context.status().ToString();
    context_ = *context;
    Result<Ref<CudnnLibrary>> library = LoadCudnn(context_);
    if (!library.ok()) GTEST_SKIP() << "no cuDNN here: " << library.status().ToString();
    library_ = *library;
    std::printf("[ INFO     ] %s on cuda://0 (sm_%d)\n", library_->Describe().c_str(),
                context_->compute_capability());
  }

  Result<std::unique_ptr<LibraryCall>> Create(const Conv& conv, const ExecutableExport& info) {
    serialized_ = Serialize(conv);
    return CreateCudnnConvolution(library_,
                                  *flatbuffers::GetRoot<lib::ConvolutionCall>(serialized_.data()),
                                  info, "test export 'conv'");
  }

  CUdeviceptr Allocate(size_t bytes) {
    CUdeviceptr pointer = 0;
    EXPECT_EQ(context_->symbols().cuMemAlloc(&pointer, bytes), CUDA_SUCCESS);
    allocations_.push_back(pointer);
    return pointer;
  }

  void TearDown() override {
    if (!context_) return;
    for (CUdeviceptr pointer : allocations_) context_->symbols().cuMemFree(pointer);
  }

  // Runs `conv` with bindings x, filter, y (then bias and z where the call
  // has them, at the indices it names) and checks y against the reference
  // within `tolerance` (relative to the largest reference magnitude, at
  // least 1). y starts as NaNs unless z aliases it: an output the call
  // reads by mistake shows.
  void RunAndCompare(const Conv& conv, double tolerance, Mode mode = Mode::kStream) {
    const lib::LibraryElementType type = conv.type;
    const std::vector<float> x = Quantize(type, Values(conv.x_count(), 1));
    const std::vector<float> w = Quantize(type, Values(conv.w_count(), 2));
    const std::vector<float> bias = Quantize(type, Values(conv.k, 3));
    const std::vector<float> z = Quantize(type, Values(conv.y_count(), 4));
    const bool z_is_y = conv.z >= 0 && conv.z == conv.y;

    int32_t binding_count = std::max({conv.x, conv.filter, conv.y, conv.bias, conv.z}) + 1;
    std::vector<bool> read_only(binding_count, true);
    read_only[conv.y] = false;
    ExecutableExport info = Export(read_only);
    Result<std::unique_ptr<LibraryCall>> call = Create(conv, info);
    ASSERT_TRUE(call.ok()) << call.status().ToString();
    std::printf("[ INFO     ] %s\n", (*call)->description().c_str());

    const size_t element_bytes = type == lib::LibraryElementType::F32 ? 4 : 2;
    std::vector<std::vector<uint8_t>> host(binding_count);
    host[conv.x] = Encode(type, x);
    host[conv.filter] = Encode(type, w);
    host[conv.y] = Encode(type, std::vector<float>(conv.y_count(), NAN));
    if (conv.bias >= 0) host[conv.bias] = Encode(type, bias);
    if (conv.z >= 0) host[conv.z] = Encode(type, z);
    std::vector<CUdeviceptr> bindings(binding_count);
    const CudaSymbols& cu = context_->symbols();
    for (int32_t i = 0; i < binding_count; ++i) {
      EXPECT_EQ((*call)->RequiredBytes(i), host[i].size()) << "binding " << i;
      if (host[i].empty()) continue;
      bindings[i] = Allocate(host[i].size());
      ASSERT_EQ(cu.cuMemcpyHtoD(bindings[i], host[i].data(), host[i].size()), CUDA_SUCCESS);
    }
    EXPECT_EQ((*call)->RequiredBytes(conv.y), conv.y_count() * element_bytes);

    Result<std::unique_ptr<LibraryCallPlan>> plan = (*call)->Plan();
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const size_t workspace_bytes = (*plan)->workspace_bytes();
    CUdeviceptr workspace = workspace_bytes ? Allocate(workspace_bytes) : 0;
    // Twice: the second run replays the plan (or the graph).
    const int rounds = z_is_y ? 1 : 2;  // An in-place addend is consumed.
    if (mode == Mode::kStream) {
      for (int round = 0; round < rounds; ++round) {
        Status enqueued = (*call)->Enqueue(**plan, context_->stream(), bindings, workspace);
        ASSERT_TRUE(enqueued.ok()) << enqueued.ToString();
        ASSERT_EQ(cu.cuStreamSynchronize(context_->stream()), CUDA_SUCCESS);
      }
    } else {
      CaptureSymbols capture;
      ASSERT_TRUE(capture.Load()) << "cannot resolve cuStreamBeginCapture";
      CUstream stream = nullptr;
      ASSERT_EQ(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
      ASSERT_EQ(capture.begin(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
      Status enqueued = (*call)->Enqueue(**plan, stream, bindings, workspace);
      CUgraph graph = nullptr;
      const CUresult ended = capture.end(stream, &graph);
      ASSERT_TRUE(enqueued.ok()) << enqueued.ToString();
      ASSERT_EQ(ended, CUDA_SUCCESS) << context_->symbols().DescribeError(ended);
      CUgraphExec exec = nullptr;
      ASSERT_EQ(cu.cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
      for (int round = 0; round < rounds; ++round) {
        ASSERT_EQ(cu.cuGraphLaunch(exec, context_->stream()), CUDA_SUCCESS);
        ASSERT_EQ(cu.cuStreamSynchronize(context_->stream()), CUDA_SUCCESS);
      }
      cu.cuGraphExecDestroy(exec);
      cu.cuGraphDestroy(graph);
      cu.cuStreamDestroy(stream);
    }
    std::vector<uint8_t> result_bytes(conv.y_count() * element_bytes);
    ASSERT_EQ(cu.cuMemcpyDtoH(result_bytes.data(), bindings[conv.y], result_bytes.size()),
              CUDA_SUCCESS);
    const std::vector<float> result = Decode(type, result_bytes);
    const std::vector<float> expected =
        Reference(conv, x, w, conv.bias >= 0 ? &bias : nullptr, conv.z >= 0 ? &z : nullptr);
    double scale = 1;
    for (float value : expected) scale = std::max(scale, double{std::fabs(value)});
    size_t mismatches = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!(std::fabs(double{result[i]} - expected[i]) <= tolerance * scale)) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << "y[" << i << "] = " << result[i] << ", expected " << expected[i];
        }
      }
    }
    EXPECT_EQ(mismatches, 0u) << "of " << expected.size() << " outputs";
  }

  Ref<CudaContext> context_;
  Ref<CudnnLibrary> library_;
  std::vector<uint8_t> serialized_;
  std::vector<CUdeviceptr> allocations_;
};

Conv Basic() {
  Conv conv;
  conv.n = 1, conv.c = 3, conv.h = 9, conv.w = 9, conv.k = 4, conv.r = 3, conv.s = 3;
  return conv;
}

TEST_F(CudnnConvolutionTest, Plain) { RunAndCompare(Basic(), 1e-4); }

TEST_F(CudnnConvolutionTest, StrideAndDilation) {
  Conv conv = Basic();
  conv.n = 2, conv.h = 11, conv.w = 13;
  conv.stride_h = 2, conv.stride_w = 2, conv.dilation_h = 2, conv.dilation_w = 2;
  ASSERT_EQ(conv.p(), 4u);
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, AsymmetricStride) {
  Conv conv = Basic();
  conv.h = 12, conv.w = 10, conv.r = 2, conv.s = 3, conv.stride_h = 3, conv.stride_w = 1;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, Depthwise) {
  Conv conv = Basic();
  conv.c = 8, conv.k = 8, conv.groups = 8, conv.h = 10, conv.w = 10;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, Grouped) {
  Conv conv = Basic();
  conv.c = 6, conv.k = 4, conv.groups = 2;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, Bias) {
  // IDENTITY: the fused call takes IMPLICIT_PRECOMP_GEMM only.
  Conv conv = Basic();
  conv.bias = 3;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, BiasRelu) {
  Conv conv = Basic();
  conv.bias = 3;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, ReluWithoutBias) {
  // The fused call reads the call's zero bias.
  Conv conv = Basic();
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, BiasAddendRelu) {
  Conv conv = Basic();
  conv.n = 2;
  conv.bias = 3, conv.z = 4;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, AddendInPlace) {
  // z is y's binding: a residual added in place.
  Conv conv = Basic();
  conv.z = conv.y;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, GroupedBiasAddendRelu) {
  Conv conv = Basic();
  conv.c = 8, conv.k = 8, conv.groups = 8, conv.h = 10, conv.w = 10;
  conv.bias = 3, conv.z = 4;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, BindingOrder) {
  // Operands at other binding indices than the usual order.
  Conv conv = Basic();
  conv.y = 0, conv.x = 2, conv.filter = 4, conv.bias = 1, conv.z = 3;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
}

TEST_F(CudnnConvolutionTest, Tf32) {
  Conv conv = Basic();
  conv.c = 16, conv.k = 32, conv.h = 16, conv.w = 16;
  conv.bias = 3;
  conv.activation = lib::LibraryActivation::Relu;
  conv.allow_tf32 = true;
  RunAndCompare(conv, 5e-3);
}

TEST_F(CudnnConvolutionTest, Half) {
  Conv conv = Basic();
  conv.type = lib::LibraryElementType::F16;
  conv.n = 2, conv.c = 8, conv.k = 16, conv.h = 12, conv.w = 12;
  conv.bias = 3, conv.z = 4;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-2);
}

TEST_F(CudnnConvolutionTest, HalfPlain) {
  Conv conv = Basic();
  conv.type = lib::LibraryElementType::F16;
  conv.c = 8, conv.k = 8;
  RunAndCompare(conv, 1e-2);
}

TEST_F(CudnnConvolutionTest, Bfloat16) {
  Conv conv = Basic();
  conv.type = lib::LibraryElementType::BF16;
  conv.c = 8, conv.k = 16;
  conv.bias = 3;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 3e-2);
}

// The graph executor captures calls into graphs: the first enqueue of a
// call may happen inside a capture.
TEST_F(CudnnConvolutionTest, CapturedPlain) { RunAndCompare(Basic(), 1e-4, Mode::kCapture); }

TEST_F(CudnnConvolutionTest, CapturedBias) {
  Conv conv = Basic();
  conv.bias = 3;
  RunAndCompare(conv, 1e-4, Mode::kCapture);
}

TEST_F(CudnnConvolutionTest, CapturedGroupedBiasAddendRelu) {
  Conv conv = Basic();
  conv.c = 8, conv.k = 16, conv.groups = 2, conv.h = 10, conv.w = 10;
  conv.bias = 3, conv.z = 4;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4, Mode::kCapture);
}

TEST_F(CudnnConvolutionTest, CapturedHalf) {
  Conv conv = Basic();
  conv.type = lib::LibraryElementType::F16;
  conv.n = 2, conv.c = 16, conv.k = 32, conv.h = 14, conv.w = 14;
  conv.bias = 3;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-2, Mode::kCapture);
}

TEST_F(CudnnConvolutionTest, LargerLayer) {
  // A ResNet-like 3x3 layer, where the heuristic picks tensor-core or
  // Winograd algorithms that the tiny shapes above never reach.
  Conv conv;
  conv.n = 2, conv.c = 64, conv.h = 30, conv.w = 30, conv.k = 64, conv.r = 3, conv.s = 3;
  conv.bias = 3, conv.z = 4;
  conv.activation = lib::LibraryActivation::Relu;
  RunAndCompare(conv, 1e-4);
  conv.type = lib::LibraryElementType::F16;
  RunAndCompare(conv, 2e-2, Mode::kCapture);
}

TEST_F(CudnnConvolutionTest, Description) {
  Conv conv = Basic();
  conv.bias = 3;
  conv.activation = lib::LibraryActivation::Relu;
  Result<std::unique_ptr<LibraryCall>> call = Create(conv, Export({true, true, false, true}));
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ((*call)->description(), "cuDNN conv 1x3x9x9 * 4x3x3x3 stride 1 f32 bias relu");
  EXPECT_EQ((*call)->RequiredBytes(0), 1u * 3 * 9 * 9 * 4);
  EXPECT_EQ((*call)->RequiredBytes(1), 4u * 3 * 3 * 3 * 4);
  EXPECT_EQ((*call)->RequiredBytes(2), 1u * 4 * 7 * 7 * 4);
  EXPECT_EQ((*call)->RequiredBytes(3), 4u * 4);
  EXPECT_EQ((*call)->RequiredBytes(4), 0u);
}

// Creation errors: INVALID_ARGUMENT, prefixed with `where`, naming the field.
void ExpectInvalid(const Result<std::unique_ptr<LibraryCall>>& call, const std::string& needle) {
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().code(), StatusCode::kInvalidArgument) << call.status().ToString();
  EXPECT_NE(call.status().message().find("test export 'conv'"), std::string::npos)
      << call.status().ToString();
  EXPECT_NE(call.status().message().find(needle), std::string::npos) << call.status().ToString();
}

TEST_F(CudnnConvolutionTest, RejectsBindingOutOfRange) {
  Conv conv = Basic();
  conv.filter = 3;
  ExpectInvalid(Create(conv, Export({true, true, false})), "filter binding 3 is out of range");
  conv = Basic();
  conv.bias = 7;
  ExpectInvalid(Create(conv, Export({true, true, false})), "bias binding 7 is out of range");
  conv = Basic();
  conv.x = -1;
  ExpectInvalid(Create(conv, Export({true, true, false})), "x binding -1 is out of range");
  conv = Basic();
  conv.z = -2;
  ExpectInvalid(Create(conv, Export({true, true, false})), "z binding -2 is out of range");
}

TEST_F(CudnnConvolutionTest, RejectsReadOnlyOrAliasedOutput) {
  ExpectInvalid(Create(Basic(), Export({true, true, true})), "is read-only");
  Conv conv = Basic();
  conv.y = conv.x;
  ExpectInvalid(Create(conv, Export({false, true, false})), "is also the input x");
}

TEST_F(CudnnConvolutionTest, RejectsGroupsNotDividingChannels) {
  Conv conv = Basic();
  conv.c = 6, conv.k = 4, conv.groups = 3;
  ExpectInvalid(Create(conv, Export({true, true, false})), "groups 3 does not divide");
}

TEST_F(CudnnConvolutionTest, RejectsZeroDimensions) {
  for (int field = 0; field < 6; ++field) {
    Conv conv = Basic();
    const char* name = "";
    switch (field) {
      case 0:
        conv.n = 0, name = "n is 0";
        break;
      case 1:
        conv.c = 0, name = "c is 0";
        break;
      case 2:
        conv.k = 0, name = "k is 0";
        break;
      case 3:
        conv.r = 0, name = "r is 0";
        break;
      case 4:
        conv.groups = 0, name = "groups is 0";
        break;
      case 5:
        conv.stride_w = 0, name = "stride_w is 0";
        break;
    }
    ExpectInvalid(Create(conv, Export({true, true, false})), name);
  }
}

TEST_F(CudnnConvolutionTest, RejectsFilterLargerThanInput) {
  Conv conv = Basic();
  conv.dilation_h = 5;  // Spans 11 rows of 9.
  ExpectInvalid(Create(conv, Export({true, true, false})), "spans 11 h elements");
}

TEST_F(CudnnConvolutionTest, RejectsTensorsPastCudnnLimit) {
  Conv conv = Basic();
  conv.n = 65536, conv.c = 64, conv.h = 1024, conv.w = 1024, conv.k = 1;
  ExpectInvalid(Create(conv, Export({true, true, false})), "2^31 - 1 elements");
}

// A valid call cuDNN cannot make is UNIMPLEMENTED, not INVALID_ARGUMENT:
// the executable then runs the export's generated kernel.
TEST_F(CudnnConvolutionTest, GeluTanhIsUnimplemented) {
  Conv conv = Basic();
  conv.activation = lib::LibraryActivation::GeluTanh;
  Result<std::unique_ptr<LibraryCall>> call = Create(conv, Export({true, true, false}));
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().code(), StatusCode::kUnimplemented) << call.status().ToString();
  EXPECT_NE(call.status().message().find("GeluTanh"), std::string::npos)
      << call.status().ToString();
}

}  // namespace
}  // namespace kiln::hal::cuda
