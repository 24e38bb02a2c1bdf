// The CPU backend of generated kernels end to end (compiler/targets/cpu):
// contract kernels parsed from text, compiled by CompileCpuKernels into a
// shared object, dlopened and called for every workgroup with a real
// kiln_hal_dispatch_state_t, as the CPU driver calls them. Results are
// checked exactly, and the bytes around each output stay untouched.
#include "compiler/targets/cpu/cpu_target.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "compiler/dialects/registration.h"
#include "compiler/dispatch/passes.h"
#include "gtest/gtest.h"
#include "hal/cpu/kernel_abi.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

namespace kiln::compiler::cpu {
namespace {

// A dlopened shared object, closed (and its file removed) on destruction.
class SharedObject {
 public:
  explicit SharedObject(const std::vector<uint8_t>& bytes) {
    std::string path = ::testing::TempDir() + "kiln_cpu_target_test_XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd < 0) return;
    const bool written =
        ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    ::close(fd);
    if (written) handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) error_ = ::dlerror() ? ::dlerror() : "cannot write " + path;
    ::unlink(path.c_str());
  }
  ~SharedObject() {
    if (handle_) ::dlclose(handle_);
  }
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  kiln_hal_kernel_fn Kernel(const char* name) const {
    return reinterpret_cast<kiln_hal_kernel_fn>(::dlsym(handle_, name));
  }

 private:
  void* handle_ = nullptr;
  std::string error_;
};

// Calls `kernel` once per workgroup of a `count` grid, as the CPU driver
// does; with `threads` > 1 the workgroups are spread over threads, in no
// particular order. Returns the number of calls that did not return 0.
int Dispatch(kiln_hal_kernel_fn kernel, std::array<uint32_t, 3> count, std::array<uint32_t, 3> size,
             const std::vector<uint32_t>& constants, const std::vector<void*>& bindings,
             const std::vector<size_t>& lengths, int threads = 1) {
  std::vector<int> failures(threads, 0);
  auto run = [&](int thread) {
    kiln_hal_dispatch_state_t state = {};
    for (int d = 0; d < 3; ++d) {
      state.workgroup_count[d] = count[d];
      state.workgroup_size[d] = size[d];
    }
    state.constant_count = static_cast<uint32_t>(constants.size());
    state.constants = constants.data();
    state.binding_count = static_cast<uint32_t>(bindings.size());
    state.bindings = bindings.data();
    state.binding_lengths = lengths.data();
    uint64_t linear = 0;
    for (uint32_t z = 0; z < count[2]; ++z) {
      for (uint32_t y = 0; y < count[1]; ++y) {
        for (uint32_t x = 0; x < count[0]; ++x, ++linear) {
          if (static_cast<int>(linear % threads) != thread) continue;
          state.workgroup_id[0] = x;
          state.workgroup_id[1] = y;
          state.workgroup_id[2] = z;
          if (kernel(&state) != 0) ++failures[thread];
        }
      }
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run, t);
  run(0);
  for (auto& worker : workers) worker.join();
  int total = 0;
  for (int f : failures) total += f;
  return total;
}

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// A recognizable pattern that no kernel here computes.
constexpr float kGuard = -12345.5f;

class CpuTargetTest : public ::testing::Test {
 protected:
  CpuTargetTest() {
    mlir::DialectRegistry registry;
    RegisterDialects(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
  }

  Result<std::vector<uint8_t>> Compile(const std::string& source) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context_);
    if (!module) return InvalidArgumentError("the test's kernel source does not parse");
    return CompileCpuKernels(*module, {});
  }

  mlir::MLIRContext context_;
};

// The contract form exactly: a 1-D elementwise add tiled by 1024, over a
// size that leaves the last workgroup partial.
constexpr char kAddKernel[] = R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
module {
  func.func @add_dispatch_0() {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %a = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %b = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c1024 : index
    %left = arith.subi %n, %begin : index
    %size = arith.minsi %left, %c1024 : index
    %sa = memref.subview %a[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %sb = memref.subview %b[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %so = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%sa, %sb : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>)
        outs(%so : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %z: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
    return
  }
}
)mlir";

TEST_F(CpuTargetTest, ElementwiseAddWithPartialLastWorkgroup) {
  auto bytes = Compile(kAddKernel);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  SharedObject library(*bytes);
  ASSERT_TRUE(library.ok()) << library.error();
  kiln_hal_kernel_fn kernel = library.Kernel("add_dispatch_0");
  ASSERT_NE(kernel, nullptr);

  constexpr uint32_t n = 1000003;
  constexpr uint32_t kGuardElements = 64;
  std::vector<float> a(n), b(n), out(n + kGuardElements, kGuard);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = 1.0f / static_cast<float>(i + 1);
  }
  const uint32_t workgroups = (n + 1023) / 1024;
  ASSERT_EQ(
      0, Dispatch(kernel, {workgroups, 1, 1}, {1024, 1, 1}, {n}, {a.data(), b.data(), out.data()},
                  {n * sizeof(float), n * sizeof(float), n * sizeof(float)},
                  /*threads=*/2));
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(FloatBits(out[i]), FloatBits(a[i] + b[i])) << "element " << i;
  }
  for (uint32_t i = n; i < n + kGuardElements; ++i) {
    ASSERT_EQ(FloatBits(out[i]), FloatBits(kGuard)) << "guard element " << i - n;
  }
}

// math.exp (an LLVM intrinsic that becomes a libm call) in explicit scf
// loops rather than linalg.
TEST_F(CpuTargetTest, ExpInScfLoops) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
module {
  func.func @exp_kernel() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c256 : index
    %end0 = arith.addi %begin, %c256 : index
    %end = arith.minui %end0, %n : index
    scf.for %i = %begin to %end step %c1 {
      %x = memref.load %in[%i] : memref<?xf32>
      %y = math.exp %x : f32
      memref.store %y, %out[%i] : memref<?xf32>
    }
    return
  }
}
)mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  SharedObject library(*bytes);
  ASSERT_TRUE(library.ok()) << library.error();
  kiln_hal_kernel_fn kernel = library.Kernel("exp_kernel");
  ASSERT_NE(kernel, nullptr);

  constexpr uint32_t n = 1000;
  std::vector<float> in(n), out(n + 16, kGuard);
  for (uint32_t i = 0; i < n; ++i) in[i] = -10.0f + 20.0f * static_cast<float>(i) / n;
  ASSERT_EQ(0, Dispatch(kernel, {(n + 255) / 256, 1, 1}, {256, 1, 1}, {n}, {in.data(), out.data()},
                        {n * sizeof(float), n * sizeof(float)}));
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(FloatBits(out[i]), FloatBits(std::exp(in[i]))) << "element " << i;
  }
  for (uint32_t i = n; i < n + 16; ++i) ASSERT_EQ(FloatBits(out[i]), FloatBits(kGuard));
}

// Two dynamic dims, 16x16 tiles on a 2-D grid (affine.min for the partial
// edges) and a transposed read: out[i][j] = 2 * in[j][i] + 1 with in N x M
// and out M x N.
TEST_F(CpuTargetTest, TwoDimensionalTransposedRead) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#transposed = affine_map<(d0, d1) -> (d1, d0)>
#identity = affine_map<(d0, d1) -> (d0, d1)>
#tile = affine_map<(d0)[s0] -> (16, s0 - d0)>
module {
  func.func @transpose_kernel() {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %m = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %n = hal.interface.constant.load layout(#layout) ordinal(1) : index
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?x?xf32>{%n, %m}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?x?xf32>{%m, %n}
    %col_tile = hal.interface.workgroup.id[0] : index
    %row_tile = hal.interface.workgroup.id[1] : index
    %r0 = arith.muli %row_tile, %c16 : index
    %c0_ = arith.muli %col_tile, %c16 : index
    %rows = affine.min #tile(%r0)[%m]
    %cols = affine.min #tile(%c0_)[%n]
    %sin = memref.subview %in[%c0_, %r0] [%cols, %rows] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
    %sout = memref.subview %out[%r0, %c0_] [%rows, %cols] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
    linalg.generic {indexing_maps = [#transposed, #identity], iterator_types = ["parallel", "parallel"]}
        ins(%sin : memref<?x?xf32, strided<[?, 1], offset: ?>>)
        outs(%sout : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32):
      %d = arith.mulf %x, %two : f32
      %s = arith.addf %d, %one : f32
      linalg.yield %s : f32
    }
    return
  }
}
)mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  SharedObject library(*bytes);
  ASSERT_TRUE(library.ok()) << library.error();
  kiln_hal_kernel_fn kernel = library.Kernel("transpose_kernel");
  ASSERT_NE(kernel, nullptr);

  constexpr uint32_t m = 37, n = 53;
  std::vector<float> in(n * m), out(m * n + 16, kGuard);
  for (uint32_t i = 0; i < n * m; ++i) in[i] = static_cast<float>(i) * 0.25f - 100.0f;
  ASSERT_EQ(0,
            Dispatch(kernel, {(n + 15) / 16, (m + 15) / 16, 1}, {16, 16, 1}, {m, n},
                     {in.data(), out.data()}, {in.size() * sizeof(float), m * n * sizeof(float)}));
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      ASSERT_EQ(FloatBits(out[i * n + j]), FloatBits(2.0f * in[j * m + i] + 1.0f))
          << "element [" << i << "][" << j << "]";
    }
  }
  for (uint32_t i = m * n; i < out.size(); ++i) ASSERT_EQ(FloatBits(out[i]), FloatBits(kGuard));
}

// A binding read from a byte offset given as a constant, and constants read
// as index, f32 and i32: out[i] = in[offset / 4 + i] * scale + bias.
TEST_F(CpuTargetTest, BindingOffsetAndConstantKinds) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 4, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
module {
  func.func @offset_kernel() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %offset = hal.interface.constant.load layout(#layout) ordinal(1) : index
    %scale = hal.interface.constant.load layout(#layout) ordinal(2) : f32
    %bias_i = hal.interface.constant.load layout(#layout) ordinal(3) : i32
    %bias = arith.sitofp %bias_i : i32 to f32
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(4) offset(%offset) flags(ReadOnly) : memref<?xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %in[%i] : memref<?xf32>
      %y = arith.mulf %x, %scale : f32
      %z = arith.addf %y, %bias : f32
      memref.store %z, %out[%i] : memref<?xf32>
    }
    return
  }
}
)mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  SharedObject library(*bytes);
  ASSERT_TRUE(library.ok()) << library.error();
  kiln_hal_kernel_fn kernel = library.Kernel("offset_kernel");
  ASSERT_NE(kernel, nullptr);

  constexpr uint32_t n = 100, skip = 12;
  std::vector<float> in(skip + n), out(n + 16, kGuard);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i < skip ? 1e30f : static_cast<float>(i);
  const float scale = 0.75f;
  const int32_t bias = -3;
  ASSERT_EQ(0, Dispatch(kernel, {1, 1, 1}, {1, 1, 1},
                        {n, skip * sizeof(float), FloatBits(scale), static_cast<uint32_t>(bias)},
                        {in.data(), out.data()}, {in.size() * sizeof(float), n * sizeof(float)}));
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(FloatBits(out[i]), FloatBits(in[skip + i] * scale + static_cast<float>(bias)))
        << "element " << i;
  }
  for (uint32_t i = n; i < out.size(); ++i) ASSERT_EQ(FloatBits(out[i]), FloatBits(kGuard));
}

// An op the backend cannot lower is an error naming the op and its
// location, not a crash.
TEST_F(CpuTargetTest, UnloweredOpIsAnError) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func @tensor_kernel() {
    %c0 = arith.constant 0 : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
    %t = tensor.empty() : tensor<4xf32>
    %x = tensor.extract %t[%c0] : tensor<4xf32>
    memref.store %x, %out[%c0] : memref<4xf32>
    return
  }
}
)mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("tensor."), std::string::npos)
      << bytes.status().ToString();
  // The location of the tensor.empty in the source text (line 7, column 10).
  EXPECT_NE(bytes.status().message().find(":7:10: failed to legalize operation 'tensor.empty'"),
            std::string::npos)
      << bytes.status().ToString();
}

// A call to a function that neither the module nor libm/libc defines is an
// error naming the symbol, before anything is linked.
TEST_F(CpuTargetTest, UnknownExternalFunctionIsAnError) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func private @mystery(f32) -> f32
  func.func @call_kernel() {
    %c0 = arith.constant 0 : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
    %x = memref.load %out[%c0] : memref<4xf32>
    %y = func.call @mystery(%x) : (f32) -> f32
    memref.store %y, %out[%c0] : memref<4xf32>
    return
  }
}
)mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("undefined symbols"), std::string::npos)
      << bytes.status().ToString();
  EXPECT_NE(bytes.status().message().find("mystery"), std::string::npos)
      << bytes.status().ToString();
}

// A layout the ABI cannot honour (strides a bare pointer cannot supply) is
// an error on the subspan.
TEST_F(CpuTargetTest, DynamicStridesAreAnError) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func @strided_kernel() {
    %c0 = arith.constant 0 : index
    %m = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4x4xf32, strided<[?, 1]>>
    return
  }
}
)mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("dynamic strides"), std::string::npos)
      << bytes.status().ToString();
}

// --kiln-instrument-dispatches then the CPU backend: a dispatch of N
// workgroups, spread over threads, leaves exactly N records in the ring,
// one per workgroup id, each with the site id (the last constant) and
// start <= end on CLOCK_MONOTONIC; the kernel still computes its result.
TEST_F(CpuTargetTest, InstrumentedKernelRecordsEachWorkgroupOnce) {
  // kAddKernel's aliases, then its module as the executable's kernels.
  const std::string add = kAddKernel;
  const size_t module_at = add.find("module {");
  const std::string source = add.substr(0, module_at) +
                             "hal.executable.source private @add_dispatch_0 {\n"
                             "  hal.executable.export public @add_dispatch_0 ordinal(0) "
                             "layout(#layout)\n" +
                             "builtin." + add.substr(module_at) + "}\n";
  mlir::OwningOpRef<mlir::ModuleOp> program =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context_);
  ASSERT_TRUE(program);
  constexpr uint64_t kRingBytes = 32 + 64 * 32;
  mlir::PassManager pm(&context_);
  pm.addPass(createInstrumentDispatchesPass(kRingBytes));
  ASSERT_TRUE(mlir::succeeded(pm.run(*program)));
  mlir::ModuleOp kernels;
  program->walk([&](mlir::ModuleOp nested) {
    if (nested != *program) kernels = nested;
  });
  ASSERT_TRUE(kernels);
  auto bytes = CompileCpuKernels(kernels, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  SharedObject library(*bytes);
  ASSERT_TRUE(library.ok()) << library.error();
  kiln_hal_kernel_fn kernel = library.Kernel("add_dispatch_0");
  ASSERT_NE(kernel, nullptr);

  constexpr uint32_t n = 40000;  // 40 workgroups of 1024, the last partial.
  constexpr uint32_t workgroups = (n + 1023) / 1024;
  constexpr uint32_t kSiteId = 7;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), out(n, kGuard);
  std::vector<uint64_t> ring(kRingBytes / sizeof(uint64_t), 0);
  auto* header = reinterpret_cast<kiln_hal_instrument_ring_header_t*>(ring.data());
  header->capacity = 64;
  header->magic = KILN_HAL_INSTRUMENT_RING_MAGIC;
  header->record_size = sizeof(kiln_hal_instrument_record_t);
  auto* records = reinterpret_cast<kiln_hal_instrument_record_t*>(header + 1);
  const uint64_t before = kiln_hal_instrument_now_ns();
  ASSERT_EQ(0, Dispatch(kernel, {workgroups, 1, 1}, {1024, 1, 1}, {n, kSiteId},
                        {a.data(), b.data(), out.data(), ring.data()},
                        {n * sizeof(float), n * sizeof(float), n * sizeof(float), kRingBytes},
                        /*threads=*/2));
  const uint64_t after = kiln_hal_instrument_now_ns();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 3.0f) << "element " << i;

  EXPECT_EQ(header->next, workgroups);
  std::vector<int> seen(workgroups, 0);
  for (uint32_t r = 0; r < workgroups; ++r) {
    const kiln_hal_instrument_record_t& record = records[r];
    EXPECT_EQ(record.site_id, kSiteId) << "record " << r;
    ASSERT_LT(record.workgroup_id[0], workgroups) << "record " << r;
    EXPECT_EQ(record.workgroup_id[1], 0u) << "record " << r;
    EXPECT_EQ(record.workgroup_id[2], 0u) << "record " << r;
    ++seen[record.workgroup_id[0]];
    EXPECT_LE(before, record.start) << "record " << r;
    EXPECT_LE(record.start, record.end) << "record " << r;
    EXPECT_LE(record.end, after) << "record " << r;
  }
  for (uint32_t w = 0; w < workgroups; ++w) EXPECT_EQ(seen[w], 1) << "workgroup " << w;
  for (uint32_t r = workgroups; r < header->capacity; ++r) {
    EXPECT_EQ(records[r].end, 0u) << "unclaimed record " << r;
  }
}

}  // namespace
}  // namespace kiln::compiler::cpu
