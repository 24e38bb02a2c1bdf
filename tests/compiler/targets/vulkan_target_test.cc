// The Vulkan backend of generated kernels (compiler/targets/vulkan):
// contract kernels parsed from text, compiled by CompileVulkanKernels into
// one SPIR-V module, then checked two ways: by spirv-val for Vulkan 1.2 (the
// Khronos validator, run as a subprocess; the tests skip with a message
// where it is not installed) and by kiln's own reader (spirv_module_info.h:
// the entry points and their LocalSize, which the driver checks at load)
// plus the descriptor decorations of the bindings.
#include "compiler/targets/vulkan/vulkan_target.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/dialects/registration.h"
#include "compiler/dispatch/passes.h"
#include "compiler/targets/spirv_module_info.h"
#include "gtest/gtest.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "tests/compiler/targets/external_tool.h"

namespace kiln::compiler::vulkan {
namespace {

// (descriptor set, binding) of every decorated variable id, from the
// OpDecorate instructions (opcode 71; DescriptorSet is decoration 34,
// Binding 33).
std::set<std::pair<uint32_t, uint32_t>> DescriptorBindings(const std::vector<uint32_t>& words) {
  std::map<uint32_t, uint32_t> sets, bindings;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) break;
    if (opcode == 71 && count == 4) {
      if (words[i + 2] == 34) sets[words[i + 1]] = words[i + 3];
      if (words[i + 2] == 33) bindings[words[i + 1]] = words[i + 3];
    }
    i += count;
  }
  std::set<std::pair<uint32_t, uint32_t>> result;
  for (auto [id, binding] : bindings) result.insert({sets.count(id) ? sets[id] : ~0u, binding});
  return result;
}

class VulkanTargetTest : public ::testing::Test {
 protected:
  VulkanTargetTest() {
    mlir::DialectRegistry registry;
    RegisterDialects(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
  }

  Result<std::vector<uint8_t>> Compile(const char* source) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context_);
    if (!module) return InvalidArgumentError("the test's kernel source does not parse");
    return CompileVulkanKernels(*module, {});
  }

  // Compiles `source` and checks the module: valid for Vulkan 1.2, one
  // GLCompute entry point `name` of LocalSize 128x1x1, storage buffers at
  // set 0, bindings 0..bindings-1.
  void CompileAndCheck(const char* source, const std::string& name, uint32_t bindings) {
    auto bytes = Compile(source);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    Result<SpirvModuleInfo> info = ReadSpirvModuleInfo(*bytes, "'" + name + "'");
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    ASSERT_EQ(info->entry_points.size(), 1u);
    EXPECT_EQ(info->entry_points[0].name, name);
    EXPECT_EQ(info->entry_points[0].size_error, "");
    EXPECT_EQ(info->entry_points[0].local_size, (std::array<uint32_t, 3>{128, 1, 1}));
    EXPECT_TRUE(info->other_entry_points.empty());
    std::set<std::pair<uint32_t, uint32_t>> expected;
    for (uint32_t b = 0; b < bindings; ++b) expected.insert({0, b});
    EXPECT_EQ(DescriptorBindings(info->words), expected);

    const std::string spirv_val = testing::FindTool("spirv-val");
    if (spirv_val.empty()) GTEST_SKIP() << "spirv-val is not installed (spirv-tools)";
    testing::ToolRun run = testing::RunToolOnFile(
        spirv_val, "--target-env vulkan1.2",
        std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
    EXPECT_EQ(run.status, 0) << run.output;
  }

  mlir::MLIRContext context_;
};

// The contract form: a 1-D elementwise add tiled by 1024, the last tile
// partial (affine.min).
TEST_F(VulkanTargetTest, ElementwiseAddWithPartialLastTile) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
module {
  func.func @add_dispatch_0() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %a = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %b = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c1024 : index
    %size = affine.min #min()[%n, %begin]
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
)mlir",
                  "add_dispatch_0", 3);
}

// math.exp through GLSL.std.450, with no kiln.workgroup_size (128x1x1).
TEST_F(VulkanTargetTest, Exp) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
module {
  func.func @exp_dispatch_0() {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c1024 : index
    %size = affine.min #min()[%n, %begin]
    %si = memref.subview %in[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %so = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%si : memref<?xf32, strided<[1], offset: ?>>) outs(%so : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
    return
  }
}
)mlir",
                  "exp_dispatch_0", 2);
}

// Two dynamic dims, 16x16 tiles on a 2-D grid and a transposed read:
// out[i][j] = 2 * in[j][i] + 1 (the N-D bindings are flattened).
TEST_F(VulkanTargetTest, TwoDimensionalTransposedRead) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#transposed = affine_map<(d0, d1) -> (d1, d0)>
#identity = affine_map<(d0, d1) -> (d0, d1)>
#tile = affine_map<(d0)[s0] -> (16, s0 - d0)>
module {
  func.func @transpose_dispatch_0() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
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
)mlir",
                  "transpose_dispatch_0", 2);
}

// A row sum, one row per workgroup: the accumulator's fill, a barrier, the
// reduction loop.
TEST_F(VulkanTargetTest, RowSum) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#row = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
module {
  func.func @rowsum_dispatch_0() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %rows = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %cols = hal.interface.constant.load layout(#layout) ordinal(1) : index
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?x?xf32>{%rows, %cols}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%rows}
    %id = hal.interface.workgroup.id[0] : index
    %row = memref.subview %in[%id, 0] [1, %cols] [1, 1] : memref<?x?xf32> to memref<1x?xf32, strided<[?, 1], offset: ?>>
    %acc = memref.subview %out[%id] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%acc : memref<1xf32, strided<[1], offset: ?>>)
    linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
        ins(%row : memref<1x?xf32, strided<[?, 1], offset: ?>>) outs(%acc : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %a: f32):
      %y = arith.addf %x, %a : f32
      linalg.yield %y : f32
    }
    return
  }
}
)mlir",
                  "rowsum_dispatch_0", 2);
}

// An intermediate buffer between two ops, in workgroup memory.
TEST_F(VulkanTargetTest, IntermediateInWorkgroupMemory) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#first = affine_map<(d0) -> (0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
module {
  func.func @softish_dispatch_0() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c1024 : index
    %size = affine.min #min()[%n, %begin]
    %sin = memref.subview %in[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %sout = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %tmp = memref.alloc(%size) : memref<?xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%sin : memref<?xf32, strided<[1], offset: ?>>) outs(%tmp : memref<?xf32>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#map, #first, #map], iterator_types = ["parallel"]}
        ins(%tmp, %tmp : memref<?xf32>, memref<?xf32>) outs(%sout : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %f: f32, %y: f32):
      %d = arith.divf %x, %f : f32
      linalg.yield %d : f32
    }
    memref.dealloc %tmp : memref<?xf32>
    return
  }
}
)mlir",
                  "softish_dispatch_0", 2);
}

// Element types SPIR-V cannot keep in storage buffers: bf16 (computed in
// f32, held as 16 bits) and i1 (held as one byte, 0 or 1).
TEST_F(VulkanTargetTest, Bf16AndI1AreEmulated) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
module {
  func.func @narrow_dispatch_0() {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xbf16>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xbf16>{%n}
    %positive = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xi1>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c1024 : index
    %size = affine.min #min()[%n, %begin]
    %si = memref.subview %in[%begin] [%size] [1] : memref<?xbf16> to memref<?xbf16, strided<[1], offset: ?>>
    %so = memref.subview %out[%begin] [%size] [1] : memref<?xbf16> to memref<?xbf16, strided<[1], offset: ?>>
    %sp = memref.subview %positive[%begin] [%size] [1] : memref<?xi1> to memref<?xi1, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%si : memref<?xbf16, strided<[1], offset: ?>>)
        outs(%so, %sp : memref<?xbf16, strided<[1], offset: ?>>, memref<?xi1, strided<[1], offset: ?>>) {
    ^bb0(%x: bf16, %y: bf16, %p: i1):
      %e = math.exp %x : bf16
      %s = arith.addf %e, %x : bf16
      %zero = arith.constant 0.0 : bf16
      %gt = arith.cmpf ogt, %s, %zero : bf16
      linalg.yield %s, %gt : bf16, i1
    }
    return
  }
}
)mlir",
                  "narrow_dispatch_0", 3);
}

// The math functions the SPIR-V conversion lacks (erf for a GELU, cbrt,
// atan2, also on f16, trunc) are approximated or expanded: the module is
// valid.
TEST_F(VulkanTargetTest, MissingMathIsApproximated) {
  CompileAndCheck(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func @gelu_kernel() {
    %c0 = arith.constant 0 : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
    %x = memref.load %out[%c0] : memref<4xf32>
    %e = math.erf %x : f32
    %c = math.cbrt %e : f32
    %a = math.atan2 %c, %x : f32
    %h = arith.constant 0.5 : f16
    %n = math.cbrt %h : f16
    %w = arith.extf %n : f16 to f32
    %s = arith.addf %a, %w : f32
    %y = math.trunc %s : f32
    memref.store %y, %out[%c0] : memref<4xf32>
    return
  }
}
)mlir",
                  "gelu_kernel", 1);
}

// An op the backend cannot lower (integer powers have no SPIR-V form) is an
// error that names the op and its location, not a crash.
TEST_F(VulkanTargetTest, UnsupportedOpIsAnError) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func @ipowi_kernel() {
    %c0 = arith.constant 0 : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xi32>
    %x = memref.load %out[%c0] : memref<4xi32>
    %y = math.ipowi %x, %x : i32
    memref.store %y, %out[%c0] : memref<4xi32>
    return
  }
}
)mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find(":8:10: failed to legalize operation 'math.ipowi'"),
            std::string::npos)
      << bytes.status().ToString();
}

// A type the target does not allow (f64 with float64 off) is an error too.
TEST_F(VulkanTargetTest, DisallowedTypeIsAnError) {
  auto bytes = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func @f64_kernel() {
    %c0 = arith.constant 0 : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf64>
    %x = memref.load %out[%c0] : memref<4xf64>
    %y = arith.addf %x, %x : f64
    memref.store %y, %out[%c0] : memref<4xf64>
    return
  }
}
)mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("failed to legalize"), std::string::npos)
      << bytes.status().ToString();
}

// --kiln-instrument-dispatches then the Vulkan backend: the device clock is
// OpReadClockKHR (opcode 5056) with Device scope, patched in after
// serialization with OpCapability ShaderClockKHR (5055) and its extension;
// the module stays valid for Vulkan 1.2 and keeps its bindings, the ring
// last.
TEST_F(VulkanTargetTest, InstrumentedKernelReadsTheDeviceClock) {
  mlir::OwningOpRef<mlir::ModuleOp> program = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @copy_dispatch_0 {
  hal.executable.export public @copy_dispatch_0 ordinal(0) layout(#layout)
  builtin.module {
    func.func @copy_dispatch_0() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
      %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
      %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
      linalg.copy ins(%in : memref<?xf32>) outs(%out : memref<?xf32>)
      return
    }
  }
}
)mlir",
                                                                                      &context_);
  ASSERT_TRUE(program);
  mlir::PassManager pm(&context_);
  pm.addPass(createInstrumentDispatchesPass(4096));
  ASSERT_TRUE(mlir::succeeded(pm.run(*program)));
  mlir::ModuleOp kernels;
  program->walk([&](mlir::ModuleOp nested) {
    if (nested != *program) kernels = nested;
  });
  ASSERT_TRUE(kernels);
  auto bytes = CompileVulkanKernels(kernels, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<SpirvModuleInfo> info = ReadSpirvModuleInfo(*bytes, "'copy_dispatch_0'");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(DescriptorBindings(info->words),
            (std::set<std::pair<uint32_t, uint32_t>>{{0, 0}, {0, 1}, {0, 2}}));
  int clock_reads = 0;
  bool capability = false;
  const std::vector<uint32_t>& words = info->words;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) break;
    if (opcode == 5056) ++clock_reads;
    if (opcode == 17 && words[i + 1] == 5055) capability = true;
    i += count;
  }
  EXPECT_EQ(clock_reads, 2);  // At entry, and by the leader at the end.
  EXPECT_TRUE(capability);

  const std::string spirv_val = testing::FindTool("spirv-val");
  if (spirv_val.empty()) GTEST_SKIP() << "spirv-val is not installed (spirv-tools)";
  testing::ToolRun run = testing::RunToolOnFile(
      spirv_val, "--target-env vulkan1.2",
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  EXPECT_EQ(run.status, 0) << run.output;
}

}  // namespace
}  // namespace kiln::compiler::vulkan
