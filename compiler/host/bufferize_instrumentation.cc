// The Bufferizer's share of dispatch instrumentation (bufferizer.h;
// compiler/host/instrumentation.h): site ids, the ring global, and what an
// instrumented dispatch binds besides its operands.
//
// A dispatch of an export whose layout is instrumented (its last binding is
// the Instrumentation binding) passes its site id as one more, last,
// constant and binds the context's ring, whole, as one more, last, binding:
//
//   %0 = flow.dispatch @ex::@f[%n](%a) {kiln.dispatch_site_id = 0 : i32} : ...
// becomes
//   %ring = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
//   hal.command_buffer.dispatch<%cmd> ... constants([%c0_i32])
//       bindings([(%a)[...], (%r)[...], (%ring)[%c0, %c1048576]])
//       {dispatch = @ex::@f, kiln.dispatch_site_id = 0 : i32}
//
// The ring's global exists only in a module that dispatches an instrumented
// export; the module initializer makes the ring (once per context, the
// runtime's hal.device.instrumentation_ring). Its size is the module's
// `kiln.instrument_ring_bytes` (kiln-instrument-dispatches' ring), else
// 1 MiB (hand-written instrumented kernels compiled without the option).
//
// Site ids: kiln-instrument-dispatches numbers the flow.dispatch ops of
// instrumented exports 0, 1, 2... in program order; dispatches that reach
// this pass without one (hand-written instrumented kernels, compiled without
// --instrument-dispatches) are numbered here, in program order, after the
// largest id the module already has.
#include <string>

#include "compiler/dialects/hal/instrumented_layout.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/bufferizer.h"
#include "compiler/host/host_utils.h"
#include "compiler/host/instrumentation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

namespace kiln::compiler::bufferize {

namespace {

// The smallest ring (the 32-byte header and one 32-byte record) and its
// granule (whole records), as hal/instrumentation.h checks at run time.
constexpr int64_t kRecordBytes = 32;
constexpr int64_t kMinRingBytes = 2 * kRecordBytes;

bool IsInstrumented(Flow::DispatchOp op) {
  HAL::ExecutableExportOp exported = op.lookupExport();
  return exported && HAL::IsInstrumentedLayout(exported.getLayout());
}

}  // namespace

void Bufferizer::NumberDispatchSites() {
  llvm::SmallVector<Flow::DispatchOp> unnumbered;
  int64_t next = 0;
  bool any = false;
  module_.walk([&](Flow::DispatchOp op) {
    if (!IsInstrumented(op)) return;
    any = true;
    auto id = op->getAttrOfType<mlir::IntegerAttr>(host::kDispatchSiteIdAttrName);
    if (!id) {
      unnumbered.push_back(op);
      return;
    }
    if (!id.getType().isInteger(32) || id.getInt() < 0) {
      Error(op.getLoc()) << "'" << host::kDispatchSiteIdAttrName
                         << "' must be a non-negative i32, got " << id;
      return;
    }
    next = std::max(next, id.getInt() + 1);
  });
  auto i32 = mlir::IntegerType::get(module_.getContext(), 32);
  for (Flow::DispatchOp op : unnumbered) {
    op->setAttr(host::kDispatchSiteIdAttrName, mlir::IntegerAttr::get(i32, next++));
  }
  if (!any) return;

  ring_bytes_ = static_cast<int64_t>(host::kDefaultInstrumentRingBytes);
  if (mlir::Attribute attr = module_->getAttr(host::kInstrumentRingBytesAttrName)) {
    auto bytes = llvm::dyn_cast<mlir::IntegerAttr>(attr);
    if (!bytes || bytes.getInt() < kMinRingBytes || bytes.getInt() % kRecordBytes != 0) {
      Error(module_.getLoc()) << "'" << host::kInstrumentRingBytesAttrName
                              << "' must be an integer of at least " << kMinRingBytes
                              << " bytes and a multiple of " << kRecordBytes << ", got " << attr;
      return;
    }
    ring_bytes_ = bytes.getInt();
  }
  ring_global_ = host::UniqueSymbolName(symbols_, host::kInstrumentationRingGlobal);
  OpBuilder b = OpBuilder::atBlockEnd(module_.getBody());
  symbols_.insert(Util::GlobalOp::create(b, module_.getLoc(), ring_global_,
                                         b.getStringAttr("private"),
                                         HAL::BufferType::get(b.getContext()), false, nullptr));
}

bool Bufferizer::AppendInstrumentation(OpBuilder& b, Flow::DispatchOp op,
                                       HAL::PipelineLayoutAttr layout,
                                       llvm::SmallVectorImpl<Value>& constants,
                                       llvm::SmallVectorImpl<Value>& binding_buffers,
                                       llvm::SmallVectorImpl<Value>& binding_lengths) {
  if (!HAL::IsInstrumentedLayout(layout)) return true;
  auto id = op->getAttrOfType<mlir::IntegerAttr>(host::kDispatchSiteIdAttrName);
  // Numbered (or reported) by NumberDispatchSites.
  if (!id || ring_global_.empty()) return false;
  const Location loc = op.getLoc();
  constants.push_back(host::I32Constant(b, loc, id.getInt()));
  binding_buffers.push_back(Util::GlobalLoadOp::create(b, loc, HAL::BufferType::get(b.getContext()),
                                                       ring_global_, /*is_immutable=*/true));
  binding_lengths.push_back(host::IndexConstant(b, loc, ring_bytes_));
  return true;
}

void Bufferizer::InitializeInstrumentationRing(OpBuilder& b, Value device) {
  if (ring_global_.empty()) return;
  const Location loc = symbols_.lookup(ring_global_)->getLoc();
  Value ring =
      HAL::DeviceInstrumentationRingOp::create(b, loc, HAL::BufferType::get(b.getContext()), device,
                                               host::IndexConstant(b, loc, ring_bytes_));
  Util::GlobalStoreOp::create(b, loc, ring, ring_global_);
}

}  // namespace kiln::compiler::bufferize
