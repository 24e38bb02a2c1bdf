// --kiln-instrument-dispatches{ring-bytes=N}: every generated kernel records
// one entry per workgroup into the dispatch instrumentation ring
// (kiln-compile --instrument-dispatches; the ring's layout is
// kiln_hal_instrument_ring_header_t / kiln_hal_instrument_record_t in
// hal/cpu/kernel_abi.h).
//
// For each hal.executable.source holding generated kernels (a nested
// builtin.module; hand-written `objects` are left alone: they opt in by
// declaring the layout themselves), each export gets the instrumented layout
// (compiler/dialects/hal/instrumented_layout.h: one more constant, the site
// id, and the ring as last binding), and so does every hal.interface op of
// its kernel (the CUDA target takes a kernel's parameters from the one layout
// its interface ops name). The kernel then reads the device clock at entry
// and, before each return, records:
//
//   %t0 = hal.interface.timestamp : i64             // at entry
//   ...the kernel...
//   hal.interface.workgroup.barrier                 // every thread is done
//   %leader = hal.interface.workgroup.leader : i1   // one thread records
//   scf.if %leader {
//     %t1 = hal.interface.timestamp : i64
//     %slot = memref.atomic_rmw addi %c1, %ring[0]  // header.next
//     %capacity = memref.load %ring[1]              // header.capacity
//     scf.if %capacity != 0 {
//       record (8 words at word 8 + 8 * (%slot % %capacity)):
//       site id, workgroup id x y z, t0 low high, t1 low high
//     }
//   }
//
// The ops stay target-neutral: the cpu target lowers the barrier to nothing
// and the leader to true (a workgroup is one call), the GPU targets' thread
// distribution turns them into gpu.barrier and "local id is (0, 0, 0)"
// (compiler/targets/gpu/distribute_to_threads.cc), so that the record is
// written once per workgroup on every target. The clock's 64 bits are stored
// as two little-endian 32-bit words so that the ring is an i32 memref (and
// Vulkan, which reads the clock as those two words, needs no 64-bit
// integers: compiler/targets/vulkan/shader_clock.h).
//
// Exports with a library call (kiln.library_call) run the library, not their
// kernel, where the call is taken; recording only where the kernel runs would
// make the records depend on the target, so such exports stay as they are.
//
// Each flow.dispatch of an instrumented export gets its site id
// `kiln.dispatch_site_id : i32`, numbered 0, 1, 2... in program order; the
// host passes it as the dispatch's last constant.
#include <cstdint>

#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/hal/instrumented_layout.h"
#include "compiler/dispatch/passes.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::Value;

// kiln_hal_instrument_ring_header_t and kiln_hal_instrument_record_t in
// 32-bit words.
constexpr int64_t kHeaderNextWord = 0;
constexpr int64_t kHeaderCapacityWord = 1;
constexpr int64_t kHeaderWords = 8;
constexpr int64_t kRecordWords = 8;
constexpr int64_t kRecordBytes = kRecordWords * 4;
constexpr int64_t kMinRingBytes = kHeaderWords * 4 + kRecordBytes;

// The generated kernels of an executable source (compiler/targets'
// GeneratedKernelsOf, which this layer cannot link): its nested module.
mlir::ModuleOp GeneratedKernels(HAL::ExecutableSourceOp source) {
  auto modules = source.getBlock().getOps<mlir::ModuleOp>();
  return modules.empty() ? mlir::ModuleOp() : *modules.begin();
}

// Points every hal.interface op of `kernel` that names `from` at `to`.
void RewriteLayouts(mlir::func::FuncOp kernel, HAL::PipelineLayoutAttr from,
                    HAL::PipelineLayoutAttr to) {
  kernel.walk([&](mlir::Operation* op) {
    if (auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op)) {
      if (subspan.getLayout() == from) subspan.setLayoutAttr(to);
    } else if (auto load = llvm::dyn_cast<HAL::InterfaceConstantLoadOp>(op)) {
      if (load.getLayout() == from) load.setLayoutAttr(to);
    }
  });
}

// Stores the 32-bit `value` at word `base + offset` of `ring`.
void StoreWord(OpBuilder& builder, Location loc, Value value, Value ring, Value base,
               int64_t offset) {
  Value words = mlir::arith::ConstantIndexOp::create(builder, loc, offset);
  Value index = mlir::arith::AddIOp::create(builder, loc, base, words);
  mlir::memref::StoreOp::create(builder, loc, value, ring, index);
}

// Stores the 64-bit `value` as two words, low first (little-endian).
void StoreClock(OpBuilder& builder, Location loc, Value value, Value ring, Value base,
                int64_t offset) {
  auto i32 = builder.getI32Type();
  Value low = mlir::arith::TruncIOp::create(builder, loc, i32, value);
  Value shift = mlir::arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), 32);
  Value shifted = mlir::arith::ShRUIOp::create(builder, loc, value, shift);
  Value high = mlir::arith::TruncIOp::create(builder, loc, i32, shifted);
  StoreWord(builder, loc, low, ring, base, offset);
  StoreWord(builder, loc, high, ring, base, offset + 1);
}

// The record of one workgroup, in front of `ret`.
void InsertRecord(mlir::func::ReturnOp ret, HAL::PipelineLayoutAttr layout, Value start,
                  int64_t ring_words) {
  const Location loc = ret.getLoc();
  OpBuilder builder(ret);
  auto i32 = builder.getI32Type();
  HAL::InterfaceWorkgroupBarrierOp::create(builder, loc);
  Value leader = HAL::InterfaceWorkgroupLeaderOp::create(builder, loc, builder.getI1Type());
  auto if_leader = mlir::scf::IfOp::create(builder, loc, leader, /*withElseRegion=*/false);
  builder.setInsertionPointToStart(if_leader.thenBlock());

  Value end = HAL::InterfaceTimestampOp::create(builder, loc, builder.getI64Type());
  Value site = HAL::InterfaceConstantLoadOp::create(
      builder, loc, i32, layout, builder.getIndexAttr(HAL::InstrumentationSiteIdOrdinal(layout)),
      mlir::IntegerAttr());
  Value c0 = mlir::arith::ConstantIndexOp::create(builder, loc, 0);
  auto ring_type = mlir::MemRefType::get({ring_words}, i32);
  Value ring = HAL::InterfaceBindingSubspanOp::create(
      builder, loc, ring_type, layout,
      builder.getIndexAttr(HAL::InstrumentationRingBinding(layout)), c0, mlir::ValueRange(),
      builder.getIndexAttr(kRecordBytes), HAL::DescriptorFlagsAttr());
  Value one = mlir::arith::ConstantIntOp::create(builder, loc, i32, 1);
  Value zero = mlir::arith::ConstantIntOp::create(builder, loc, i32, 0);
  Value next_word = mlir::arith::ConstantIndexOp::create(builder, loc, kHeaderNextWord);
  Value slot = mlir::memref::AtomicRMWOp::create(builder, loc, mlir::arith::AtomicRMWKind::addi,
                                                 one, ring, mlir::ValueRange{next_word});
  Value capacity_word = mlir::arith::ConstantIndexOp::create(builder, loc, kHeaderCapacityWord);
  Value capacity =
      mlir::memref::LoadOp::create(builder, loc, ring, mlir::ValueRange{capacity_word});
  // capacity == 0 (a ring the runtime has not set up) records nothing rather
  // than dividing by zero.
  Value has_room =
      mlir::arith::CmpIOp::create(builder, loc, mlir::arith::CmpIPredicate::ne, capacity, zero);
  auto if_room = mlir::scf::IfOp::create(builder, loc, has_room, /*withElseRegion=*/false);
  builder.setInsertionPointToStart(if_room.thenBlock());

  // One statement per op: the IR's order must not depend on the order in
  // which C++ evaluates arguments.
  Value record = mlir::arith::RemUIOp::create(builder, loc, slot, capacity);
  Value record_index =
      mlir::arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), record);
  Value record_words = mlir::arith::ConstantIndexOp::create(builder, loc, kRecordWords);
  Value offset = mlir::arith::MulIOp::create(builder, loc, record_index, record_words);
  Value header_words = mlir::arith::ConstantIndexOp::create(builder, loc, kHeaderWords);
  Value base = mlir::arith::AddIOp::create(builder, loc, offset, header_words);
  StoreWord(builder, loc, site, ring, base, 0);
  for (int64_t d = 0; d < 3; ++d) {
    Value id = HAL::InterfaceWorkgroupIDOp::create(builder, loc, builder.getIndexType(),
                                                   builder.getIndexAttr(d), mlir::IntegerAttr());
    StoreWord(builder, loc, mlir::arith::IndexCastUIOp::create(builder, loc, i32, id), ring, base,
              1 + d);
  }
  StoreClock(builder, loc, start, ring, base, 4);
  StoreClock(builder, loc, end, ring, base, 6);
}

// Gives `kernel` the instrumented `layout` (its exports' was `from`) and its
// recording code.
void InstrumentKernel(mlir::func::FuncOp kernel, HAL::PipelineLayoutAttr from,
                      HAL::PipelineLayoutAttr layout, int64_t ring_words) {
  RewriteLayouts(kernel, from, layout);
  OpBuilder builder = OpBuilder::atBlockBegin(&kernel.getBody().front());
  Value start = HAL::InterfaceTimestampOp::create(builder, kernel.getLoc(), builder.getI64Type());
  llvm::SmallVector<mlir::func::ReturnOp> returns;
  kernel.walk([&](mlir::func::ReturnOp ret) { returns.push_back(ret); });
  for (mlir::func::ReturnOp ret : returns) InsertRecord(ret, layout, start, ring_words);
}

class InstrumentDispatchesPass
    : public mlir::PassWrapper<InstrumentDispatchesPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InstrumentDispatchesPass)

  InstrumentDispatchesPass() = default;
  explicit InstrumentDispatchesPass(uint64_t ring_bytes) { ring_bytes_ = ring_bytes; }
  InstrumentDispatchesPass(const InstrumentDispatchesPass& other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const final { return "kiln-instrument-dispatches"; }
  llvm::StringRef getDescription() const final {
    return "Makes every generated kernel record one entry per workgroup (site id, workgroup "
           "id, start and end clock) into the instrumentation ring, an extra last binding "
           "(hal/cpu/kernel_abi.h)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    registry
        .insert<mlir::arith::ArithDialect, mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
  }

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    const uint64_t bytes = ring_bytes_;
    if (bytes < kMinRingBytes || bytes % kRecordBytes != 0) {
      module.emitError() << "kiln-instrument-dispatches: ring-bytes must be at least "
                         << kMinRingBytes << " and a multiple of " << kRecordBytes << ", got "
                         << bytes;
      return signalPassFailure();
    }
    const auto ring_words = static_cast<int64_t>(bytes / 4);

    // Exports instrumented here or declared so by hand, as @source::@export.
    llvm::DenseSet<mlir::Attribute> instrumented;
    bool failed = false;
    for (auto source : module.getOps<HAL::ExecutableSourceOp>()) {
      mlir::ModuleOp kernels = GeneratedKernels(source);
      for (auto export_op : source.getBlock().getOps<HAL::ExecutableExportOp>()) {
        auto ref = mlir::SymbolRefAttr::get(
            source.getSymNameAttr(), {mlir::FlatSymbolRefAttr::get(export_op.getSymNameAttr())});
        HAL::PipelineLayoutAttr from = export_op.getLayout();
        if (HAL::IsInstrumentedLayout(from)) {
          instrumented.insert(ref);
          continue;
        }
        if (!kernels || export_op->hasAttr("kiln.library_call")) continue;
        auto kernel = kernels.lookupSymbol<mlir::func::FuncOp>(export_op.getSymName());
        if (!kernel || kernel.isExternal()) {
          export_op.emitOpError() << "has no kernel @" << export_op.getSymName()
                                  << " among the generated kernels to instrument";
          failed = true;
          continue;
        }
        HAL::PipelineLayoutAttr layout = HAL::MakeInstrumentedLayout(from);
        export_op.setLayoutAttr(layout);
        InstrumentKernel(kernel, from, layout, ring_words);
        instrumented.insert(ref);
      }
    }
    if (failed) return signalPassFailure();

    // The host makes the ring this size (compiler/host/instrumentation.h):
    // generated kernels view it with this static size.
    module->setAttr("kiln.instrument_ring_bytes",
                    mlir::IntegerAttr::get(mlir::IntegerType::get(module.getContext(), 64),
                                           static_cast<int64_t>(bytes)));

    // Site ids in program order.
    int32_t next_site = 0;
    auto i32 = mlir::IntegerType::get(module.getContext(), 32);
    module.walk([&](Flow::DispatchOp dispatch) {
      if (!instrumented.contains(dispatch.getEntryPoint())) return;
      dispatch->setAttr("kiln.dispatch_site_id", mlir::IntegerAttr::get(i32, next_site++));
    });
  }

 private:
  Option<uint64_t> ring_bytes_{
      *this, "ring-bytes",
      llvm::cl::desc("Bytes of the instrumentation ring (a 32-byte header, then 32-byte "
                     "records; at least 64 and a multiple of 32)"),
      llvm::cl::init(1 << 20)};
};

}  // namespace

std::unique_ptr<mlir::Pass> createInstrumentDispatchesPass(uint64_t ring_bytes) {
  return std::make_unique<InstrumentDispatchesPass>(ring_bytes);
}

}  // namespace kiln::compiler
