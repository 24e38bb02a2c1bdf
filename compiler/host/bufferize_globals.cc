// The Bufferizer's globals (bufferizer.h): the device and executables,
// tensor globals and host tensor constants, and the module initializer.
//
// Tensor globals (util.global of a static tensor type) become !hal.buffer
// globals: a load is the global's buffer, a store makes the stored tensor's
// buffer the global's (a dispatch result's, without a copy). An arith.constant
// of distinct elements that stays on the host (form-dispatches leaves it
// there) becomes an immutable global too, so that it is uploaded once per
// module instance and not on every call:
//
//   util.global private @w = dense<[1.0, 2.0]> : tensor<2xf32>
//   %w = util.global.load @w : tensor<2xf32>
//   %c = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
// becomes
//   util.global private @w : !hal.buffer
//   util.global private @__constant : !hal.buffer
//   %w = util.global.load immutable @w : !hal.buffer
//   %c = util.global.load immutable @__constant : !hal.buffer
//   (the module initializer: hal.allocator.allocate.initialized of each value
//   and util.global.store; splats of 1, 2 or 4 bytes, and the zeros of a
//   mutable global without a value, are fills on the device instead)
//
// A global whose value is a named parameter kept outside the program
//
//   util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<2xf32>
//
// gets its buffer from the runtime's parameters in the module initializer
// (hal.allocator.allocate.parameter: a device buffer holding the parameter's
// bytes, checked against the global's type), once per context.
//
// The buffer of an immutable global is never written: a dispatch that may
// write it (a result tied to it, a binding its layout lets it write) binds a
// copy made on the device first, and where it escapes (returned, passed to a
// call, stored into a mutable global) a copy escapes. A mutable global's
// buffer is written in place by a tied dispatch, as an argument's is.
//
#include <deque>
#include <string>

#include "compiler/dialects/check/check_dialect.h"
#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/source_location.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/bufferizer.h"
#include "compiler/host/host_utils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler::bufferize {

llvm::StringRef Bufferizer::DeviceGlobal() {
  if (device_global_.empty()) {
    device_global_ = host::UniqueSymbolName(symbols_, "__hal_device");
    OpBuilder b = OpBuilder::atBlockEnd(module_.getBody());
    auto global =
        Util::GlobalOp::create(b, module_.getLoc(), device_global_, b.getStringAttr("private"),
                               HAL::DeviceType::get(b.getContext()), false, nullptr);
    symbols_.insert(global);
  }
  return device_global_;
}

mlir::FailureOr<llvm::StringRef> Bufferizer::ExecutableGlobal(Location loc,
                                                              mlir::SymbolRefAttr entry) {
  mlir::StringAttr name = entry.getRootReference();
  auto it = executable_globals_.find(name);
  if (it != executable_globals_.end()) return llvm::StringRef(it->second);
  Operation* executable = symbols_.lookup(name);
  if (!executable) {
    Error(loc) << "unknown executable '@" << name.getValue() << "'";
    return mlir::failure();
  }
  if (auto source = llvm::dyn_cast<HAL::ExecutableSourceOp>(executable)) {
    Error(loc) << "dispatch to executable '@" << name.getValue()
               << "', which is not serialized yet (run --kiln-serialize-executables first)";
    return mlir::failure();
  }
  auto serialized = llvm::dyn_cast<HAL::ExecutableOp>(executable);
  if (!serialized) {
    Error(loc) << "'@" << name.getValue() << "' is not a hal.executable";
    return mlir::failure();
  }
  if (serialized.getBinaryOps().empty()) {
    Error(loc) << "dispatch to executable '@" << name.getValue()
               << "', which has no variant for the selected targets";
    return mlir::failure();
  }
  std::string global =
      host::UniqueSymbolName(symbols_, ("__hal_executable_" + name.getValue()).str());
  OpBuilder b = OpBuilder::atBlockEnd(module_.getBody());
  symbols_.insert(Util::GlobalOp::create(b, executable->getLoc(), global,
                                         b.getStringAttr("private"),
                                         HAL::ExecutableType::get(b.getContext()), false, nullptr));
  return llvm::StringRef(executable_globals_[name] = global);
}

// Tensor globals become !hal.buffer globals (static shapes: the type is
// the buffer's layout); the module initializer fills those with an initial
// value, and mutable ones without it with zeros (IREE's zero-initialized
// state). Their loads and stores are lowered with the functions.
void Bufferizer::RetypeTensorGlobals() {
  for (auto global : module_.getOps<Util::GlobalOp>()) {
    auto type = llvm::dyn_cast<mlir::TensorType>(global.getType());
    if (!type) continue;
    auto ranked = llvm::dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape()) {
      Error(global.getLoc()) << "tensor global @" << global.getSymName() << " of type " << type
                             << " must have a static shape (its buffer is allocated once)";
      continue;
    }
    if (!host::ElementTypeCode(ranked.getElementType())) {
      Error(global.getLoc()) << "tensor global @" << global.getSymName() << ": element type "
                             << ranked.getElementType() << " is not supported";
      continue;
    }
    mlir::Attribute initial = global.getInitialValueAttr();
    if (auto parameter = llvm::dyn_cast_or_null<Flow::ParameterNamedAttr>(initial)) {
      // The parameter's tensor is exactly the global's: the runtime checks
      // the stored one against this type, and the buffer is its bytes as is.
      if (parameter.getType() != ranked) {
        Error(global.getLoc()) << "tensor global @" << global.getSymName() << " of type " << ranked
                               << " is initialized from a parameter of type "
                               << parameter.getType();
        continue;
      }
      initial_buffers_.push_back({global.getSymName().str(), parameter});
      tensor_globals_[global.getSymNameAttr()] = {ranked, global.getIsMutable()};
      global.setType(HAL::BufferType::get(global.getContext()));
      global.removeInitialValueAttr();
      continue;
    }
    auto elements = llvm::dyn_cast_or_null<mlir::ElementsAttr>(initial);
    if (initial && (!elements || elements.getShapedType().getShape() != ranked.getShape() ||
                    elements.getElementType() != ranked.getElementType())) {
      Error(global.getLoc()) << "tensor global @" << global.getSymName() << " of type " << ranked
                             << " needs a dense initial value of that type or a "
                                "#flow.parameter.named, got "
                             << initial;
      continue;
    }
    if (!elements && global.getIsMutable()) {
      OpBuilder b(global);
      elements = mlir::DenseElementsAttr::get(
          ranked, llvm::cast<mlir::TypedAttr>(b.getZeroAttr(ranked.getElementType())));
    }
    // An immutable global without a value gets it from a util.initializer.
    if (elements) initial_buffers_.push_back({global.getSymName().str(), elements});
    tensor_globals_[global.getSymNameAttr()] = {ranked, global.getIsMutable()};
    global.setType(HAL::BufferType::get(global.getContext()));
    global.removeInitialValueAttr();
  }
}

// A host tensor constant is uploaded once per module instance: an
// immutable global that the module initializer fills (equal constants share
// one).
std::string Bufferizer::ConstantGlobal(mlir::ElementsAttr value, Location loc) {
  auto it = constant_globals_.find(value);
  if (it != constant_globals_.end()) return it->second;
  std::string name = host::UniqueSymbolName(symbols_, "__constant");
  OpBuilder b = OpBuilder::atBlockEnd(module_.getBody());
  symbols_.insert(Util::GlobalOp::create(b, loc, name, b.getStringAttr("private"),
                                         HAL::BufferType::get(b.getContext()), false, nullptr));
  initial_buffers_.push_back({name, value});
  tensor_globals_[b.getStringAttr(name)] = {llvm::cast<RankedTensorType>(value.getShapedType()),
                                            false};
  return constant_globals_[value] = name;
}

// The module initializer's share: the device, every executable, the default
// channels, the instrumentation ring, then the buffers of tensor globals and
// constants. It runs
// before the program's own initializers (which may use them).
void Bufferizer::BuildInitializer() {
  if (!initial_buffers_.empty() || !channel_globals_.empty() || !ring_global_.empty()) {
    DeviceGlobal();
  }
  if (device_global_.empty()) return;
  OpBuilder b = OpBuilder::atBlockEnd(module_.getBody());
  auto initializers = module_.getOps<Util::InitializerOp>();
  if (!initializers.empty()) b.setInsertionPoint(*initializers.begin());
  const Location loc = module_.getLoc();
  auto initializer = Util::InitializerOp::create(b, loc);
  b.setInsertionPointToStart(&initializer.getBody().emplaceBlock());
  Value device = HAL::DevicesGetOp::create(b, loc, HAL::DeviceType::get(b.getContext()),
                                           host::IndexConstant(b, loc, 0));
  Util::GlobalStoreOp::create(b, loc, device, device_global_);
  for (auto& [name, global] : executable_globals_) {
    Operation* executable = symbols_.lookup(name);
    Value loaded = HAL::ExecutableCreateOp::create(b, executable->getLoc(),
                                                   HAL::ExecutableType::get(b.getContext()), device,
                                                   mlir::FlatSymbolRefAttr::get(name));
    Util::GlobalStoreOp::create(b, executable->getLoc(), loaded, global);
  }
  InitializeChannels(b, device);
  InitializeInstrumentationRing(b, device);
  if (!initial_buffers_.empty()) {
    Value allocator =
        HAL::DeviceAllocatorOp::create(b, loc, HAL::AllocatorType::get(b.getContext()), device);
    for (auto& [global, value] : initial_buffers_) {
      InitializeBuffer(b, symbols_.lookup(global)->getLoc(), device, allocator, global, value);
    }
  }
  Util::ReturnOp::create(b, loc);
}

// A global's buffer: a parameter's comes from the runtime's parameter files;
// a splat of 1, 2 or 4 bytes is a fill on the device (no module data); other
// values come from the module's data.
void Bufferizer::InitializeBuffer(OpBuilder& b, Location loc, Value device, Value allocator,
                                  llvm::StringRef global, mlir::Attribute initial) {
  if (auto parameter = llvm::dyn_cast<Flow::ParameterNamedAttr>(initial)) {
    Value buffer = HAL::AllocatorAllocateParameterOp::create(
        b, loc, HAL::BufferType::get(b.getContext()), allocator, parameter.getScope(),
        parameter.getKey(), mlir::TypeAttr::get(parameter.getType()));
    Util::GlobalStoreOp::create(b, loc, buffer, global);
    return;
  }
  auto value = llvm::cast<mlir::ElementsAttr>(initial);
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value);
  const Type element_type = value.getElementType();
  const int64_t element_bytes = host::ElementByteSize(element_type);
  Value buffer;
  if (dense && dense.isSplat() &&
      (element_bytes == 1 || element_bytes == 2 || element_bytes == 4)) {
    llvm::APInt bits = llvm::isa<mlir::FloatType>(element_type)
                           ? dense.getSplatValue<llvm::APFloat>().bitcastToAPInt()
                           : dense.getSplatValue<llvm::APInt>();
    bits = bits.zextOrTrunc(element_bytes * 8);
    Value pattern = mlir::arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(b.getIntegerType(element_bytes * 8), bits));
    Value length = host::IndexConstant(b, loc, element_bytes * value.getNumElements());
    Value none = host::I32Constant(b, loc, 0);
    buffer = HAL::AllocatorAllocateOp::create(b, loc, HAL::BufferType::get(b.getContext()),
                                              allocator, none, none, length);
    Submit(b, loc, device, [&](Value cmd) {
      HAL::CommandBufferFillBufferOp::create(b, loc, cmd, buffer, host::IndexConstant(b, loc, 0),
                                             length, pattern);
    });
  } else {
    buffer = HAL::AllocatorAllocateInitializedOp::create(
        b, loc, HAL::BufferType::get(b.getContext()), allocator, value);
  }
  Util::GlobalStoreOp::create(b, loc, buffer, global);
}

TensorState Bufferizer::WritableCopy(OpBuilder& b, Location loc, const TensorState& state) {
  TensorState copy = state;
  Value length = ByteLength(b, loc, state.type.getElementType(), state.dims);
  copy.buffer = Allocate(b, loc, length);
  copy.view = nullptr;
  copy.read_only = false;
  Submit(b, loc, device_, [&](Value cmd) {
    Value zero = host::IndexConstant(b, loc, 0);
    HAL::CommandBufferCopyBufferOp::create(b, loc, cmd, state.buffer, zero, copy.buffer, zero,
                                           length);
  });
  return copy;
}

// util.global.load of a tensor global: its buffer (read-only when the
// global is immutable). util.global.store: the stored tensor's buffer is the
// global's from now on (a read-only one copied first: the global is
// mutable, a dispatch may write it in place later).
void Bufferizer::LowerGlobalAccess(Operation* op) {
  const Location loc = op->getLoc();
  OpBuilder before(op);
  auto load = llvm::dyn_cast<Util::GlobalLoadOp>(op);
  auto store = llvm::dyn_cast<Util::GlobalStoreOp>(op);
  mlir::FlatSymbolRefAttr symbol = load ? load.getGlobalAttr() : store.getGlobalAttr();
  auto it = tensor_globals_.find(symbol.getAttr());
  if (it == tensor_globals_.end()) {
    // A scalar or ref global; or a tensor global already reported.
    const Type type = load ? load.getType() : store.getValue().getType();
    if (!llvm::isa<mlir::TensorType>(type)) return;
    if (load) poisoned_.insert(load.getResult());
    erased_.push_back(op);
    if (!symbols_.lookup(symbol.getAttr())) Error(loc) << "unknown global " << symbol;
    return;
  }
  auto [type, is_mutable] = it->second;
  const Type buffer_type = HAL::BufferType::get(op->getContext());
  if (load) {
    TensorState state;
    state.type = type;
    state.buffer = Util::GlobalLoadOp::create(before, loc, buffer_type, symbol.getValue(),
                                              /*is_immutable=*/!is_mutable);
    for (int64_t d : type.getShape()) state.dims.push_back(host::IndexConstant(before, loc, d));
    state.read_only = !is_mutable;
    tensors_[load.getResult()] = std::move(state);
    erased_.push_back(op);
    return;
  }
  TensorState* state = StateOf(op, store.getValue());
  if (!state) return;
  Value buffer = state->buffer;
  if (state->read_only && is_mutable) buffer = WritableCopy(before, loc, *state).buffer;
  Util::GlobalStoreOp::create(before, loc, buffer, symbol.getValue());
  erased_.push_back(op);
}

// A constant tensor on the host (util.unfoldable_constant,
// flow.tensor.dynamic_constant, an arith.constant of distinct elements): a
// new buffer filled from the module's
// rodata each time it runs (a dispatch may write the buffer in place). The
// dims the result type leaves dynamic are the constant's, through a
// util.optimization_barrier: the compiler must not see them.
void Bufferizer::LowerConstant(Operation* op, mlir::Attribute value) {
  const Location loc = op->getLoc();
  OpBuilder before(op);
  Value result = op->getResult(0);
  poisoned_.insert(result);
  auto elements = llvm::dyn_cast<mlir::ElementsAttr>(value);
  auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
  auto value_type = elements ? llvm::dyn_cast<RankedTensorType>(elements.getType()) : nullptr;
  if (!type || !value_type || !value_type.hasStaticShape()) {
    Error(loc) << "a tensor constant on the host needs a ranked result and a dense value of static "
                  "shape, got "
               << value << " -> " << result.getType();
    return;
  }
  if (!host::ElementTypeCode(type.getElementType())) {
    Error(loc) << "tensor element type " << type.getElementType() << " is not supported";
    return;
  }
  TensorState state;
  state.type = type;
  state.buffer = HAL::AllocatorAllocateInitializedOp::create(
      before, loc, HAL::BufferType::get(before.getContext()), allocator_, elements);
  llvm::SmallVector<Value> hidden;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    state.dims.push_back(host::IndexConstant(before, loc, value_type.getDimSize(i)));
    if (type.isDynamicDim(i)) hidden.push_back(state.dims.back());
  }
  if (!hidden.empty()) {
    auto barrier = Util::OptimizationBarrierOp::create(before, loc,
                                                       mlir::ValueRange(hidden).getTypes(), hidden);
    size_t next = 0;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (type.isDynamicDim(i)) state.dims[i] = barrier.getResult(next++);
    }
  }
  poisoned_.erase(result);
  tensors_[result] = std::move(state);
  erased_.push_back(op);
}

}  // namespace kiln::compiler::bufferize
