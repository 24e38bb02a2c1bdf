// The CUDA backend of generated kernels (compiler/targets/cuda): contract
// kernels parsed from text, compiled by CompileCudaKernels into PTX, then
// checked two ways: the `.entry` of each kernel with kiln's CUDA dispatch
// ABI (the layout's bindings as .u64 pointers, then its constants as .u32,
// and the block size as .reqntid), and ptxas for sm_90 (the lent H100's
// architecture, which the driver JITs the sm_75 PTX for), run as a
// subprocess; the ptxas half skips with a message where the CUDA toolkit is
// not installed. No GPU is needed.
#include "compiler/targets/cuda/cuda_target.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "compiler/dialects/registration.h"
#include "compiler/targets/cuda/libdevice.h"
#include "gtest/gtest.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "tests/compiler/targets/external_tool.h"

namespace kiln::compiler::cuda {
namespace {

// The `.entry name(...)` header of a kernel: its parameter types in order
// (".u64", ".u32", ...) and the directives after them; `found` is false
// when there is no such entry.
struct Entry {
  bool found = false;
  std::vector<std::string> parameter_types;
  std::string directives;  // What follows the parameter list up to the body.
};

Entry FindEntry(const std::string& ptx, const std::string& name) {
  Entry entry;
  const std::string header = ".entry " + name + "(";
  const size_t at = ptx.find(header);
  if (at == std::string::npos) return entry;
  entry.found = true;
  const size_t close = ptx.find(')', at);
  const std::string list = ptx.substr(at + header.size(), close - at - header.size());
  for (size_t param = list.find(".param"); param != std::string::npos;
       param = list.find(".param", param + 1)) {
    const size_t type = list.find('.', param + 1);
    const size_t type_end = list.find_first_of(" \t", type);
    entry.parameter_types.push_back(list.substr(type, type_end - type));
  }
  entry.directives = ptx.substr(close + 1, ptx.find('{', close) - close - 1);
  return entry;
}

std::vector<std::string> Abi(int bindings, int constants) {
  std::vector<std::string> types(bindings, ".u64");
  types.insert(types.end(), constants, ".u32");
  return types;
}

class CudaTargetTest : public ::testing::Test {
 protected:
  CudaTargetTest() {
    mlir::DialectRegistry registry;
    RegisterDialects(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
  }

  Result<std::string> Compile(const char* source, const CudaTargetOptions& options = {}) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context_);
    if (!module) return InvalidArgumentError("the test's kernel source does not parse");
    return CompileCudaKernels(*module, options);
  }

  // Compiles `source` and checks the PTX: for sm_75, one `.entry name` whose
  // parameters are `bindings` pointers then `constants` 32-bit values, with
  // `.reqntid 128, 1, 1`, calling nothing external. Returns the PTX for
  // further checks (and CheckWithPtxas).
  std::string CompileAndCheck(const char* source, const std::string& name, int bindings,
                              int constants) {
    Result<std::string> ptx = Compile(source);
    EXPECT_TRUE(ptx.ok()) << ptx.status().ToString();
    if (!ptx.ok()) return "";
    EXPECT_NE(ptx->find(".target sm_75"), std::string::npos) << *ptx;
    EXPECT_NE(ptx->find(".version 7.8"), std::string::npos) << *ptx;
    EXPECT_NE(ptx->find(".address_size 64"), std::string::npos) << *ptx;
    Entry entry = FindEntry(*ptx, name);
    EXPECT_TRUE(entry.found) << *ptx;
    EXPECT_EQ(entry.parameter_types, Abi(bindings, constants)) << *ptx;
    EXPECT_NE(entry.directives.find(".reqntid 128, 1, 1"), std::string::npos) << *ptx;
    // No libdevice or libm at run time: nothing external may be called.
    EXPECT_EQ(ptx->find(".extern"), std::string::npos) << *ptx;
    return *ptx;
  }

  // ptxas for sm_90; skips the test when the toolkit is not installed.
  void CheckWithPtxas(const std::string& ptx) {
    if (ptx.empty()) return;
    const std::string ptxas = testing::FindTool("ptxas", "/usr/local/cuda/bin");
    if (ptxas.empty()) GTEST_SKIP() << "ptxas is not installed (the CUDA toolkit)";
    testing::ToolRun run = testing::RunToolOnFile(ptxas, "-arch=sm_90 -o /dev/null", ptx);
    EXPECT_EQ(run.status, 0) << run.output << "\n" << ptx;
  }

  mlir::MLIRContext context_;
};

// The contract form: a 1-D elementwise add tiled by 1024, the last tile
// partial (affine.min).
TEST_F(CudaTargetTest, ElementwiseAddWithPartialLastTile) {
  const std::string ptx = CompileAndCheck(R"mlir(
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
                                          "add_dispatch_0", 3, 1);
  // The block id, the thread id and the float add.
  EXPECT_NE(ptx.find("%ctaid.x"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%tid.x"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("add.rn.f32"), std::string::npos) << ptx;
  CheckWithPtxas(ptx);
}

// math.exp (libdevice's __nv_expf inlined, or without libdevice a
// polynomial), with no kiln.workgroup_size (128x1x1).
TEST_F(CudaTargetTest, Exp) {
  const std::string ptx = CompileAndCheck(R"mlir(
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
                                          "exp_dispatch_0", 2, 1);
  EXPECT_NE(ptx.find("fma.rn.f32"), std::string::npos) << ptx;
  CheckWithPtxas(ptx);
}

// Two dynamic dims, 16x16 tiles on a 2-D grid and a transposed read:
// out[i][j] = 2 * in[j][i] + 1, with descriptors whose strides are the
// dynamic sizes.
TEST_F(CudaTargetTest, TwoDimensionalTransposedRead) {
  const std::string ptx = CompileAndCheck(R"mlir(
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
                                          "transpose_dispatch_0", 2, 2);
  EXPECT_NE(ptx.find("%ctaid.y"), std::string::npos) << ptx;
  CheckWithPtxas(ptx);
}

// A row sum, one row per workgroup: the accumulator's fill, a barrier
// (bar.sync), the reduction loop.
TEST_F(CudaTargetTest, RowSum) {
  const std::string ptx = CompileAndCheck(R"mlir(
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
                                          "rowsum_dispatch_0", 2, 2);
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << ptx;
  CheckWithPtxas(ptx);
}

// An intermediate buffer between two ops, in shared memory (a .shared
// array sized by the tile), with a barrier between producer and consumer.
TEST_F(CudaTargetTest, IntermediateInSharedMemory) {
  const std::string ptx = CompileAndCheck(R"mlir(
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
                                          "softish_dispatch_0", 2, 1);
  EXPECT_NE(ptx.find(".shared .align 16 .b8"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("[4096]"), std::string::npos) << ptx;  // 1024 x f32.
  EXPECT_NE(ptx.find("st.shared."), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ld.shared."), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << ptx;
  CheckWithPtxas(ptx);
}

// Every binding and constant of the layout is a parameter, used or not (the
// driver passes them all), and two kernels of one module are two entries.
TEST_F(CudaTargetTest, UnusedBindingsAndConstantsStayParameters) {
  Result<std::string> ptx = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 3, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
module {
  func.func @first() attributes {kiln.workgroup_size = array<i64: 64, 2, 1>} {
    %c0 = arith.constant 0 : index
    %k = hal.interface.constant.load layout(#layout) ordinal(1) : f32
    %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<4xf32>
    memref.store %k, %out[%c0] : memref<4xf32>
    return
  }
  func.func @second() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %k = hal.interface.constant.load layout(#layout) ordinal(2) : i32
    %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<4xi32>
    memref.store %k, %out[%c1] : memref<4xi32>
    return
  }
}
)mlir");
  ASSERT_TRUE(ptx.ok()) << ptx.status().ToString();
  Entry first = FindEntry(*ptx, "first");
  ASSERT_TRUE(first.found) << *ptx;
  EXPECT_EQ(first.parameter_types, Abi(3, 3)) << *ptx;
  EXPECT_NE(first.directives.find(".reqntid 64, 2, 1"), std::string::npos) << *ptx;
  Entry second = FindEntry(*ptx, "second");
  ASSERT_TRUE(second.found) << *ptx;
  EXPECT_EQ(second.parameter_types, Abi(3, 3)) << *ptx;
  CheckWithPtxas(*ptx);
}

// An elementwise kernel `out = op(a[, b])` on tensors of `type` (binary
// ops take both inputs).
std::string MathKernel(const std::string& op, const std::string& type, bool binary) {
  std::string source = R"mlir(
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
module {
  func.func @math_dispatch_0() {
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %a = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xTYPE>{%n}
    %b = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xTYPE>{%n}
    %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xTYPE>{%n}
    %id = hal.interface.workgroup.id[0] : index
    %begin = arith.muli %id, %c1024 : index
    %size = affine.min #min()[%n, %begin]
    %sa = memref.subview %a[%begin] [%size] [1] : memref<?xTYPE> to memref<?xTYPE, strided<[1], offset: ?>>
    %sb = memref.subview %b[%begin] [%size] [1] : memref<?xTYPE> to memref<?xTYPE, strided<[1], offset: ?>>
    %so = memref.subview %out[%begin] [%size] [1] : memref<?xTYPE> to memref<?xTYPE, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%sa, %sb : memref<?xTYPE, strided<[1], offset: ?>>, memref<?xTYPE, strided<[1], offset: ?>>)
        outs(%so : memref<?xTYPE, strided<[1], offset: ?>>) {
    ^bb0(%x: TYPE, %y: TYPE, %z: TYPE):
      %r = OP : TYPE
      linalg.yield %r : TYPE
    }
    return
  }
}
)mlir";
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at = source.find(from); at != std::string::npos;
         at = source.find(from, at + to.size())) {
      source.replace(at, from.size(), to);
    }
  };
  replace("OP", op + (binary ? " %x, %y" : " %x"));
  replace("TYPE", type);
  return source;
}

// Math through libdevice: the functions are linked into the PTX (no
// __nv_ or __nvvm_reflect name or .extern left) and ptxas takes it, for
// the ops IREE's math suite failed with the polynomial approximations, in
// f32, f16 (through f32) and f64.
TEST_F(CudaTargetTest, MathThroughLibdevice) {
  if (!HaveLibdevice()) GTEST_SKIP() << "this build found no libdevice.10.bc (the CUDA toolkit)";
  struct Case {
    const char* op;
    bool binary;
  };
  const Case cases[] = {{"math.sin", false},   {"math.log10", false}, {"math.exp2", false},
                        {"math.atan2", true},  {"math.powf", true},   {"math.cbrt", false},
                        {"math.asinh", false}, {"math.tan", false}};
  std::string all_ptx;
  for (const Case& c : cases) {
    for (const char* type : {"f32", "f16", "f64"}) {
      SCOPED_TRACE(std::string(c.op) + " on " + type);
      const std::string source = MathKernel(c.op, type, c.binary);
      const std::string ptx = CompileAndCheck(source.c_str(), "math_dispatch_0", 3, 1);
      if (ptx.empty()) continue;
      // (Calls may remain to libdevice's noinline helpers, e.g. the f64
      // trigonometric slow path, as .func in the same PTX: no .extern.)
      EXPECT_EQ(ptx.find("__nv"), std::string::npos) << ptx;
      EXPECT_EQ(ptx.find("reflect"), std::string::npos) << ptx;
      if (std::string(type) == "f16") {
        // Computed in f32 between conversions.
        EXPECT_NE(ptx.find("cvt.f32.f16"), std::string::npos) << ptx;
        EXPECT_NE(ptx.find("cvt.rn.f16.f32"), std::string::npos) << ptx;
      }
      CheckWithPtxas(ptx);
      if (IsSkipped()) return;
    }
  }
}

// Without libdevice (CudaTargetOptions::libdevice = false, as in a build
// that found no CUDA toolkit), math whose polynomial is not accurate enough
// is an error at the op that says why, not inaccurate PTX.
TEST_F(CudaTargetTest, MathWithoutLibdeviceIsAnError) {
  CudaTargetOptions options;
  options.libdevice = false;
  auto ptx = Compile(MathKernel("math.sin", "f32", false).c_str(), options);
  ASSERT_FALSE(ptx.ok());
  EXPECT_NE(ptx.status().message().find(":26:12: 'math.sin' op on 'f32' needs libdevice in the "
                                        "CUDA backend, which was not found when kiln was built"),
            std::string::npos)
      << ptx.status().ToString();
  // exp's polynomial is accurate: it compiles without libdevice.
  EXPECT_TRUE(Compile(MathKernel("math.exp", "f32", false).c_str(), options).ok());
}

// A math op with no lowering (libdevice has no f128 functions) is an error
// that names the op and its location, not a crash or a call to __nv_sin.
TEST_F(CudaTargetTest, UnsupportedMathIsAnError) {
  auto ptx = Compile(R"mlir(
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
module {
  func.func @sin_f128() {
    %c0 = arith.constant 0 : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf128>
    %x = memref.load %out[%c0] : memref<4xf128>
    %y = math.sin %x : f128
    memref.store %y, %out[%c0] : memref<4xf128>
    return
  }
}
)mlir");
  ASSERT_FALSE(ptx.ok());
  EXPECT_NE(ptx.status().message().find(":8:10: 'math.sin' op on 'f128' has no lowering"),
            std::string::npos)
      << ptx.status().ToString();
}

// An unknown architecture is an error, not PTX for LLVM's default.
TEST_F(CudaTargetTest, UnknownArchitectureIsAnError) {
  CudaTargetOptions options;
  options.sm = "sm_7";
  auto ptx = Compile(R"mlir(
module {
  func.func @empty() {
    return
  }
}
)mlir",
                     options);
  ASSERT_FALSE(ptx.ok());
  EXPECT_NE(ptx.status().message().find("unknown CUDA architecture 'sm_7'"), std::string::npos)
      << ptx.status().ToString();
}

}  // namespace
}  // namespace kiln::compiler::cuda
