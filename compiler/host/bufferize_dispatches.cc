// --kiln-hal-bufferize-dispatches: tensors and flow.dispatch into typed hal
// ops, each dispatch its own one-shot submission.
//
// Functions take and return tensors as !hal.buffer_view (the ABI; the
// tensor signature stays as `kiln.abi_type` for the module's reflection).
// A tensor argument is asserted on entry (element type, rank, static dims)
// and taken apart into its buffer and dims; from then on every tensor value
// is a (buffer, dims) pair:
//
//   func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
//     %0 = flow.dispatch @ex::@mul[%n](%n_i32, %a) : (i32, tensor<?xf32>{%n})
//         -> tensor<?xf32>{%n}
//     return %0 : tensor<?xf32>
//   }
// becomes
//   func.func @f(%a: !hal.buffer_view) -> !hal.buffer_view {
//     %device = util.global.load @__hal_device : !hal.device
//     %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
//     %exe = util.global.load @__hal_executable_ex : !hal.executable
//     hal.buffer_view.assert<%a : !hal.buffer_view> message("argument 0 of @f")
//         shape([%c-1]) type(%c553648160_i32)
//     %buffer = hal.buffer_view.buffer<%a : !hal.buffer_view> : !hal.buffer
//     %dim = hal.buffer_view.dim<%a : !hal.buffer_view>[0] : index
//     ... the export's workgroup count region, inlined ...
//     %len = arith.muli %c4, %n        (bytes of the declared tensor<?xf32>{%n})
//     hal.buffer.assert<%buffer : !hal.buffer> message("...") minimum_length(%len)
//     %result = hal.allocator.allocate<%allocator : !hal.allocator> : !hal.buffer{%len}
//     %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot)
//     hal.command_buffer.dispatch<%cmd> target(%exe)[%c0] workgroups([%x, %y, %z])
//         constants([%n_i32]) bindings([(%buffer)[%c0, %len], (%result)[%c0, %len]])
//         {dispatch = @ex::@mul}
//     hal.command_buffer.finalize<%cmd>
//     %fence = hal.fence.create device(%device)
//     hal.device.queue.execute<%device> signal(%fence) commands(%cmd)
//     hal.fence.await until([%fence]) timeout_millis(%c-1_i64)
//     %view = hal.buffer_view.create buffer(%result) shape([%n]) type(...)
//     return %view : !hal.buffer_view
//   }
//
// Operands: scalars become 32-bit constants (index and wider integers
// truncated, i1 and narrower ones extended, f32 bitcast), tensors bindings
// covering their declared size. Results written into an operand (tied,
// `-> %operand{%dim}`) share its buffer; the others are allocated and bound
// after the operands, in result order.
//
// The size check (issue item 6): each tensor operand's declared size
// (`tensor<?xf32>{%n}`) must fit the buffer bound to it, checked before the
// submission by hal.buffer.assert with a message naming the function, the
// dispatch (entry point and source location), the operand and its type; the
// runtime adds both sizes. The check is left out where it holds by
// construction: the declared dims are the very values the buffer was made or
// asserted with (static shapes, or `tensor.dim` of the operand itself).
//
// Channels and collectives (flow_collective_ops.td) are lowered by
// bufferize_collectives.cc: a collective is a collective command in its own
// one-shot submission, like a dispatch.
//
// tensor.extract on the host reads the element back once the work before it
// has completed (hal.buffer.load, through the device's queue where the host
// cannot map the buffer); elements the VM cannot hold (f16, bf16) are an
// error at the extract.
//
// The device and each executable the module dispatches to are immutable
// util.globals set by a util.initializer (hal.devices.get 0,
// hal.executable.create of hal.executable @x, whose binary the runtime picks),
// placed before the program's own initializers, which may use them: those
// that compute on tensors (constants, loads and stores of tensor globals;
// no dispatches) are lowered like functions.
//
// --kiln-hal-schedule-command-buffers then merges adjacent submissions; the
// count regions' affine.apply ops are left for upstream --lower-affine.
#include <deque>
#include <string>

#include "compiler/dialects/check/check_dialect.h"
#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/source_location.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/bufferizer.h"
#include "compiler/host/host_utils.h"
#include "compiler/host/instrumentation.h"
#include "compiler/host/passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler::bufferize {

// Whether an op in `root` (or `root` itself) has a tensor operand or result.
bool TakesOrMakesTensors(Operation* root) {
  return root
      ->walk([](Operation* op) {
        const bool tensors = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<mlir::TensorType>) ||
                             llvm::any_of(op->getResultTypes(), llvm::IsaPred<mlir::TensorType>);
        return tensors ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

std::string TypeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

void Bufferizer::Submit(OpBuilder& b, Location loc, Value device,
                        llvm::function_ref<void(Value command_buffer)> record) {
  mlir::MLIRContext* context = b.getContext();
  Value cmd = HAL::CommandBufferCreateOp::create(
      b, loc, HAL::CommandBufferType::get(context), device,
      HAL::CommandBufferModeBitfieldAttr::get(context, HAL::CommandBufferModeBitfield::OneShot),
      /*binding_capacity=*/nullptr);
  record(cmd);
  HAL::CommandBufferFinalizeOp::create(b, loc, cmd);
  Value fence = HAL::FenceCreateOp::create(b, loc, HAL::FenceType::get(context), device);
  HAL::DeviceQueueExecuteOp::create(b, loc, device, /*wait_fence=*/nullptr, fence, cmd);
  HAL::FenceAwaitOp::create(b, loc, mlir::ValueRange{fence},
                            mlir::arith::ConstantIntOp::create(b, loc, b.getI64Type(), -1));
}

Value Bufferizer::ByteLength(OpBuilder& b, Location loc, Type element_type,
                             llvm::ArrayRef<Value> dims) {
  Value length = host::IndexConstant(b, loc, host::ElementByteSize(element_type));
  for (Value dim : dims) length = mlir::arith::MulIOp::create(b, loc, length, dim);
  return length;
}

Value Bufferizer::Allocate(OpBuilder& b, Location loc, Value length) {
  // Memory types and usage 0: the runtime's defaults (device-local; transfer,
  // dispatch and mapping).
  Value none = host::I32Constant(b, loc, 0);
  return HAL::AllocatorAllocateOp::create(b, loc, HAL::BufferType::get(b.getContext()), allocator_,
                                          none, none, length);
}

Value Bufferizer::ViewOf(OpBuilder& b, Location loc, TensorState& state) {
  if (state.view) return state.view;
  const uint32_t code = *host::ElementTypeCode(state.type.getElementType());
  // Not cached: a view made in one block need not dominate the others.
  return HAL::BufferViewCreateOp::create(b, loc, HAL::BufferViewType::get(b.getContext()),
                                         state.buffer, /*source_offset=*/nullptr,
                                         /*source_length=*/nullptr, host::I32Constant(b, loc, code),
                                         /*encoding_type=*/nullptr, state.dims);
}

TensorState& Bufferizer::Adopt(OpBuilder& b, Location loc, Value key, Value view,
                               RankedTensorType type) {
  TensorState state;
  state.type = type;
  state.view = view;
  state.buffer =
      HAL::BufferViewBufferOp::create(b, loc, HAL::BufferType::get(b.getContext()), view);
  for (int64_t i = 0; i < type.getRank(); ++i) {
    state.dims.push_back(
        type.isDynamicDim(i)
            ? Value(HAL::BufferViewDimOp::create(b, loc, b.getIndexType(), view, b.getIndexAttr(i)))
            : host::IndexConstant(b, loc, type.getDimSize(i)));
  }
  return tensors_[key] = std::move(state);
}

TensorState* Bufferizer::StateOf(Operation* user, Value tensor) {
  auto it = tensors_.find(tensor);
  if (it != tensors_.end()) return &it->second;
  if (poisoned_.contains(tensor)) return nullptr;
  Error(user->getLoc()) << "tensor operand of '" << user->getName()
                        << "' comes from an operation kiln cannot bufferize (tensors come from "
                           "function arguments, calls, tensor.empty, flow.dispatch and constants)";
  return nullptr;
}

mlir::LogicalResult Bufferizer::Run() {
  llvm::SmallVector<mlir::func::FuncOp> functions;
  for (auto func : module_.getOps<mlir::func::FuncOp>()) {
    if (func.isExternal()) {
      for (Type type : func.getFunctionType().getInputs()) {
        if (llvm::isa<mlir::TensorType>(type)) {
          Error(func.getLoc()) << "external function '@" << func.getSymName()
                               << "' cannot take or return tensors";
        }
      }
      for (Type type : func.getFunctionType().getResults()) {
        if (llvm::isa<mlir::TensorType>(type)) {
          Error(func.getLoc()) << "external function '@" << func.getSymName()
                               << "' cannot take or return tensors";
        }
      }
      continue;
    }
    functions.push_back(func);
  }
  RetypeTensorGlobals();
  RetypeChannels();
  NumberDispatchSites();
  for (mlir::func::FuncOp func : functions) LowerFunction(func);
  // The program's initializers that compute on tensors (loads and stores of
  // tensor globals, constants) or use channels; the others have nothing to
  // lower.
  for (auto initializer : llvm::to_vector(module_.getOps<Util::InitializerOp>())) {
    if (TakesOrMakesTensors(initializer) || UsesChannels(initializer)) LowerFunction(initializer);
  }
  BuildInitializer();
  return mlir::failure(failed_);
}

// The device, allocator and executables a function uses are loaded once at
// the top of its entry block, then every op is lowered in order.
void Bufferizer::LowerFunction(Operation* owner) {
  auto func = llvm::dyn_cast<mlir::func::FuncOp>(owner);
  function_name_ = func ? ("@" + func.getSymName()).str() : "the initializer";
  device_ = allocator_ = nullptr;
  executables_.clear();
  tensors_.clear();
  poisoned_.clear();
  rejected_.clear();
  erased_.clear();
  retyped_.clear();
  mlir::Block& entry = owner->getRegion(0).front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  const Location loc = owner->getLoc();
  // The ops to lower, collected before the lowering adds its own.
  llvm::SmallVector<Operation*> ops;
  owner->walk<mlir::WalkOrder::PreOrder>([&](Operation* op) {
    if (op != owner) ops.push_back(op);
  });

  bool needs_device = false, needs_allocator = false;
  llvm::SmallVector<std::pair<mlir::SymbolRefAttr, Location>> entries;
  owner->walk([&](Operation* op) {
    if (llvm::isa<mlir::tensor::EmptyOp>(op)) needs_device = needs_allocator = true;
    // Host reads of elements; copies of read-only global buffers (unused
    // loads of the device and allocator go again at the end).
    if (llvm::isa<mlir::tensor::ExtractOp, Util::GlobalLoadOp, Util::GlobalStoreOp>(op) &&
        TakesOrMakesTensors(op)) {
      needs_device = needs_allocator = true;
    }
    if (llvm::isa<Util::UnfoldableConstantOp, Flow::TensorDynamicConstantOp,
                  mlir::arith::ConstantOp>(op) &&
        llvm::isa<mlir::TensorType>(op->getResult(0).getType())) {
      needs_device = needs_allocator = true;
    }
    if (llvm::isa<Check::ExpectEqConstOp, Check::ExpectAlmostEqConstOp>(op)) {
      needs_device = needs_allocator = true;
    }
    if (llvm::isa<Check::ExpectAllTrueOp, Check::ExpectEqOp, Check::ExpectAlmostEqOp>(op)) {
      needs_device = true;
    }
    // A collective records a command; its result may need a new buffer.
    if (Flow::GetCollective(op)) needs_device = needs_allocator = true;
    if (auto dispatch = llvm::dyn_cast<Flow::DispatchOp>(op)) {
      needs_device = true;
      for (unsigned r = 0; r < dispatch->getNumResults(); ++r) {
        needs_allocator |= !dispatch.getTiedOperandIndex(r).has_value();
      }
      entries.push_back({dispatch.getEntryPoint(), dispatch.getLoc()});
    }
    if (llvm::isa<mlir::func::CallOp, mlir::func::ReturnOp>(op)) {
      for (Value v : op->getOperands()) needs_device |= llvm::isa<mlir::TensorType>(v.getType());
    }
  });
  if (needs_device) {
    device_ = Util::GlobalLoadOp::create(b, loc, HAL::DeviceType::get(b.getContext()),
                                         DeviceGlobal(), /*is_immutable=*/true);
  }
  if (needs_allocator) {
    allocator_ =
        HAL::DeviceAllocatorOp::create(b, loc, HAL::AllocatorType::get(b.getContext()), device_);
  }
  for (auto [entry_point, dispatch_loc] : entries) {
    mlir::StringAttr name = entry_point.getRootReference();
    if (executables_.count(name)) continue;
    mlir::FailureOr<llvm::StringRef> global = ExecutableGlobal(dispatch_loc, entry_point);
    if (mlir::failed(global)) {
      executables_[name] = nullptr;
      continue;
    }
    executables_[name] = Util::GlobalLoadOp::create(
        b, loc, HAL::ExecutableType::get(b.getContext()), *global, /*is_immutable=*/true);
  }

  if (!func) {
    // An initializer: no signature.
    for (Operation* op : ops) LowerOp(op);
    if (failed_) return;
    for (Operation* op : llvm::reverse(erased_)) op->erase();
    if (allocator_ && allocator_.use_empty()) allocator_.getDefiningOp()->erase();
    if (device_ && device_.use_empty()) device_.getDefiningOp()->erase();
    return;
  }

  // Signature: tensors become buffer views, asserted and taken apart on entry.
  mlir::FunctionType type = func.getFunctionType();
  llvm::SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  bool changed = false;
  for (Type& t : inputs) {
    if (llvm::isa<mlir::TensorType>(t))
      t = HAL::BufferViewType::get(b.getContext()), changed = true;
  }
  for (Type& t : results) {
    if (llvm::isa<mlir::TensorType>(t))
      t = HAL::BufferViewType::get(b.getContext()), changed = true;
  }
  for (mlir::BlockArgument arg : entry.getArguments()) {
    auto tensor_type = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!tensor_type) {
      if (llvm::isa<mlir::TensorType>(arg.getType())) {
        Error(loc) << "argument " << arg.getArgNumber() << " of '@" << func.getSymName()
                   << "': unranked tensors are not supported";
      }
      continue;
    }
    std::optional<uint32_t> code = host::ElementTypeCode(tensor_type.getElementType());
    if (!code) {
      // At the argument; its uses are not reported again.
      Error(arg.getLoc()) << "tensor element type " << tensor_type.getElementType()
                          << " is not supported";
      poisoned_.insert(arg);
      continue;
    }
    retyped_.push_back(arg);
    llvm::SmallVector<Value> shape;
    for (int64_t d : tensor_type.getShape()) {
      shape.push_back(host::IndexConstant(b, loc, mlir::ShapedType::isDynamic(d) ? -1 : d));
    }
    HAL::BufferViewAssertOp::create(b, loc, arg,
                                    b.getStringAttr("argument " + llvm::Twine(arg.getArgNumber()) +
                                                    " of @" + func.getSymName()),
                                    host::I32Constant(b, loc, *code), /*encoding_type=*/nullptr,
                                    shape);
    Adopt(b, loc, arg, arg, tensor_type);
  }
  if (changed) {
    // The tensor signature stays as the ABI type: tools read it from the
    // export's reflection to check and describe arguments.
    if (!func->hasAttr("kiln.abi_type")) func->setAttr("kiln.abi_type", mlir::TypeAttr::get(type));
    func.setFunctionType(mlir::FunctionType::get(b.getContext(), inputs, results));
  }

  for (Operation* op : ops) LowerOp(op);
  // Replaced ops go last, users first (after an error some may still be
  // used: the pass fails and the IR stays as it is).
  if (failed_) return;
  for (Value value : retyped_) value.setType(HAL::BufferViewType::get(func.getContext()));
  for (Operation* op : llvm::reverse(erased_)) op->erase();
  // Loads nothing ended up using (a function that only passes views on).
  for (auto& [name, executable] : executables_) {
    if (executable && executable.use_empty()) executable.getDefiningOp()->erase();
  }
  if (allocator_ && allocator_.use_empty()) allocator_.getDefiningOp()->erase();
  if (device_ && device_.use_empty()) device_.getDefiningOp()->erase();
}

void Bufferizer::LowerOp(Operation* op) {
  const Location loc = op->getLoc();
  OpBuilder before(op);
  if (auto dispatch = llvm::dyn_cast<Flow::DispatchOp>(op)) {
    LowerDispatch(dispatch);
    return;
  }
  if (Flow::GetCollective(op)) {
    LowerCollective(op);
    return;
  }
  if (IsChannelOp(op)) {
    LowerChannelOp(op);
    return;
  }
  if (auto dim = llvm::dyn_cast<mlir::tensor::DimOp>(op)) {
    TensorState* state = StateOf(op, dim.getSource());
    if (!state) return;
    Value replacement;
    if (std::optional<int64_t> index = host::ConstantIntOf(dim.getIndex())) {
      if (*index < 0 || *index >= static_cast<int64_t>(state->dims.size())) {
        Error(loc) << "dimension " << *index << " is out of range for '" << state->type << "'";
        return;
      }
      replacement = state->dims[*index];
    } else {
      Error(loc) << "tensor.dim needs a constant dimension index here";
      return;
    }
    dim.getResult().replaceAllUsesWith(replacement);
    erased_.push_back(op);
    return;
  }
  if (auto barrier = llvm::dyn_cast<Util::OptimizationBarrierOp>(op)) {
    // A tensor passes through as the same buffer (the barrier has done its
    // work: nothing fused or folded across it); other values keep a barrier.
    llvm::SmallVector<Value> kept_operands;
    llvm::SmallVector<Value> kept_results;
    for (auto [operand, result] : llvm::zip(barrier.getOperands(), barrier.getResults())) {
      if (!llvm::isa<mlir::TensorType>(operand.getType())) {
        kept_operands.push_back(operand);
        kept_results.push_back(result);
        continue;
      }
      TensorState* state = StateOf(op, operand);
      if (!state) return;
      tensors_[result] = *state;
    }
    if (kept_operands.size() == barrier.getNumOperands()) return;
    if (!kept_operands.empty()) {
      auto kept = Util::OptimizationBarrierOp::create(
          before, loc, mlir::ValueRange(kept_operands).getTypes(), kept_operands);
      for (auto [old_result, new_result] : llvm::zip(kept_results, kept.getResults())) {
        old_result.replaceAllUsesWith(new_result);
      }
    }
    erased_.push_back(op);
    return;
  }
  if (auto cast = llvm::dyn_cast<mlir::tensor::CastOp>(op)) {
    // The same buffer under another type. A dim the cast makes static is
    // that constant from here on, checked at the next use.
    auto source = StateOf(op, cast.getSource());
    auto type = llvm::dyn_cast<RankedTensorType>(cast.getType());
    if (!source) return;
    if (!type) {
      Error(loc) << "a cast to the unranked " << cast.getType() << " is not supported";
      return;
    }
    TensorState state = *source;
    state.type = type;
    state.view = nullptr;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (type.isDynamicDim(i) || !source->type.isDynamicDim(i)) continue;
      state.dims[i] = host::IndexConstant(before, loc, type.getDimSize(i));
      state.sized = false;
    }
    tensors_[cast.getResult()] = std::move(state);
    erased_.push_back(op);
    return;
  }
  if (auto tie = llvm::dyn_cast<Flow::TensorTieShapeOp>(op)) {
    // The same buffer, known by the tied dims from here on. Where they are
    // not the dims the buffer was sized by, the next use checks them.
    TensorState* operand = StateOf(op, tie.getOperand());
    if (!operand) return;
    TensorState state = *operand;
    size_t next = 0;
    for (int64_t i = 0; i < tie.getType().getRank(); ++i) {
      if (!tie.getType().isDynamicDim(i)) continue;
      Value dim = tie.getDynamicDims()[next++];
      if (state.dims[i] == dim) continue;
      state.dims[i] = dim;
      state.sized = false;
      state.view = nullptr;
    }
    tensors_[tie.getResult()] = std::move(state);
    erased_.push_back(op);
    return;
  }
  if (auto empty = llvm::dyn_cast<mlir::tensor::EmptyOp>(op)) {
    RankedTensorType type = empty.getType();
    if (!host::ElementTypeCode(type.getElementType())) {
      Error(loc) << "tensor element type " << type.getElementType() << " is not supported";
      return;
    }
    TensorState state;
    state.type = type;
    size_t next = 0;
    for (int64_t d : type.getShape()) {
      state.dims.push_back(mlir::ShapedType::isDynamic(d) ? empty.getDynamicSizes()[next++]
                                                          : host::IndexConstant(before, loc, d));
    }
    state.buffer =
        Allocate(before, loc, ByteLength(before, loc, type.getElementType(), state.dims));
    tensors_[empty.getResult()] = std::move(state);
    erased_.push_back(op);
    return;
  }
  if (auto constant = llvm::dyn_cast<Util::UnfoldableConstantOp>(op)) {
    // Scalars stay: the conversion to the vm dialect makes them registers.
    if (llvm::isa<mlir::TensorType>(constant.getType())) LowerConstant(op, constant.getValue());
    return;
  }
  if (auto constant = llvm::dyn_cast<Flow::TensorDynamicConstantOp>(op)) {
    LowerConstant(op, constant.getValue());
    return;
  }
  if (auto constant = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
    // Tensor constants the dispatches read (form-dispatches leaves those of
    // distinct elements on the host): in functions, immutable globals
    // uploaded once; in an initializer (which runs once), uploaded there.
    // Scalars stay.
    if (!llvm::isa<mlir::TensorType>(constant.getType())) return;
    auto elements = llvm::dyn_cast<mlir::ElementsAttr>(constant.getValue());
    auto type = llvm::dyn_cast<RankedTensorType>(constant.getType());
    if (llvm::isa<Util::InitializerOp>(op->getParentOp()) || !elements || !type ||
        !type.hasStaticShape() || !host::ElementTypeCode(type.getElementType())) {
      LowerConstant(op, constant.getValue());  // (Or its error.)
      return;
    }
    std::string global = ConstantGlobal(elements, loc);
    TensorState state;
    state.type = type;
    state.buffer = Util::GlobalLoadOp::create(before, loc, HAL::BufferType::get(op->getContext()),
                                              global, /*is_immutable=*/true);
    for (int64_t d : type.getShape()) state.dims.push_back(host::IndexConstant(before, loc, d));
    state.read_only = true;
    tensors_[constant.getResult()] = std::move(state);
    erased_.push_back(op);
    return;
  }
  if (llvm::isa<Util::GlobalLoadOp, Util::GlobalStoreOp>(op)) {
    LowerGlobalAccess(op);
    return;
  }
  if (auto extract = llvm::dyn_cast<mlir::tensor::ExtractOp>(op)) {
    LowerExtract(extract);
    return;
  }
  if (llvm::isa_and_nonnull<Check::CheckDialect>(op->getDialect())) {
    LowerCheck(op);
    return;
  }
  if (llvm::isa<mlir::func::CallOp, mlir::func::ReturnOp>(op)) {
    for (mlir::OpOperand& operand : op->getOpOperands()) {
      if (!llvm::isa<mlir::TensorType>(operand.get().getType())) continue;
      TensorState* state = StateOf(op, operand.get());
      if (!state) continue;
      // A callee or caller may write what it is given in place.
      if (state->read_only) {
        TensorState copy = WritableCopy(before, loc, *state);
        operand.set(ViewOf(before, loc, copy));
        continue;
      }
      operand.set(ViewOf(before, loc, *state));
    }
    if (llvm::isa<mlir::func::CallOp>(op)) {
      OpBuilder after(op->getContext());
      after.setInsertionPointAfter(op);
      for (Value result : op->getResults()) {
        auto tensor_type = llvm::dyn_cast<RankedTensorType>(result.getType());
        if (!tensor_type) continue;
        retyped_.push_back(result);
        Adopt(after, loc, result, result, tensor_type);
      }
    }
    return;
  }
  // Everything else must not see tensors.
  auto any_tensor = [](mlir::TypeRange types) {
    return llvm::any_of(types, [](Type t) { return llvm::isa<mlir::TensorType>(t); });
  };
  bool bad = any_tensor(op->getOperandTypes()) || any_tensor(op->getResultTypes());
  for (mlir::Region& region : op->getRegions()) {
    for (mlir::Block& block : region) bad |= any_tensor(block.getArgumentTypes());
  }
  // Inside an op already reported, or not about tensors: nothing to say.
  for (Operation* parent = op->getParentOp(); bad && parent; parent = parent->getParentOp()) {
    bad = !rejected_.contains(parent);
  }
  if (bad) {
    rejected_.insert(op);
    for (Value result : op->getResults()) poisoned_.insert(result);
    Error(loc) << "'" << op->getName()
               << "' cannot take or produce tensors (tensors are used by flow.dispatch, "
                  "flow.collective.*, tensor.dim, tensor.empty, tensor.extract, "
                  "util.global.load/store, func.call, func.return and check ops)";
  }
}

// tensor.extract on the host: the element's bytes read back from its buffer
// once the work before has completed (every submission is awaited, and a
// read ends a merged recording: hal.buffer.load reads memory). The VM holds
// i1 to i64, index, f32 and f64; f16 and bf16 scalars have no registers.
void Bufferizer::LowerExtract(mlir::tensor::ExtractOp op) {
  const Location loc = op.getLoc();
  OpBuilder before(op);
  const Type type = op.getType();
  const bool held = type.isIndex() || type.isF32() || type.isF64() ||
                    (type.isSignlessInteger() &&
                     llvm::is_contained({1u, 8u, 16u, 32u, 64u}, type.getIntOrFloatBitWidth()));
  if (!held) {
    poisoned_.insert(op.getResult());
    Error(loc) << "tensor.extract of a " << type
               << " element on the host: the VM has no registers for it (host scalars are "
                  "i1, i8, i16, i32, i64, index, f32 and f64)";
    return;
  }
  TensorState* state = StateOf(op, op.getTensor());
  if (!state) return;
  // Row-major: ((i0 * d1 + i1) * d2 + i2) ... elements, times the element size.
  Value linear = host::IndexConstant(before, loc, 0);
  for (auto [index, dim] : llvm::zip(op.getIndices(), state->dims)) {
    linear = mlir::arith::AddIOp::create(
        before, loc, mlir::arith::MulIOp::create(before, loc, linear, dim), index);
  }
  Value offset = mlir::arith::MulIOp::create(
      before, loc, linear, host::IndexConstant(before, loc, host::ElementByteSize(type)));
  Value value = HAL::BufferLoadOp::create(before, loc, type, device_, state->buffer, offset);
  op.getResult().replaceAllUsesWith(value);
  erased_.push_back(op);
}

void Bufferizer::LowerDispatch(Flow::DispatchOp op) {
  const Location loc = op.getLoc();
  OpBuilder b(op);
  erased_.push_back(op);
  for (Value result : op.getResults()) poisoned_.insert(result);
  mlir::SymbolRefAttr entry_point = op.getEntryPoint();
  Value executable = executables_.lookup(entry_point.getRootReference());
  if (!executable) return;  // Reported when the executable was looked up.
  HAL::ExecutableExportOp exported = op.lookupExport();
  if (!exported) {
    Error(loc) << "unknown export " << entry_point;
    return;
  }
  HAL::PipelineLayoutAttr layout = exported.getLayout();
  const int64_t ordinal = exported.getOrdinal() ? exported.getOrdinal()->getSExtValue() : 0;

  // The workgroup count: the export's region inlined here (located at the
  // dispatch: that is where it runs), or the workload padded with 1s.
  llvm::SmallVector<Value, 3> count;
  if (mlir::Block* body = exported.getWorkgroupCountBody()) {
    mlir::IRMapping mapping;
    mapping.map(body->getArgument(0), device_);
    for (unsigned i = 1; i < body->getNumArguments() && i - 1 < op.getWorkload().size(); ++i) {
      mapping.map(body->getArgument(i), op.getWorkload()[i - 1]);
    }
    for (Operation& inner : *body) {
      if (auto ret = llvm::dyn_cast<HAL::ReturnOp>(inner)) {
        for (Value v : ret.getOperands()) count.push_back(mapping.lookupOrDefault(v));
        break;
      }
      Operation* copy = b.clone(inner, mapping);
      copy->setLoc(loc);
    }
  } else {
    count.append(op.getWorkload().begin(), op.getWorkload().end());
  }
  while (count.size() < 3) count.push_back(host::IndexConstant(b, loc, 1));

  // Operands: scalars become 32-bit constants, tensors bindings of their
  // declared size (checked against their buffer unless that holds already).
  llvm::SmallVector<Value> constants, binding_buffers, binding_lengths;
  // Each tensor operand's declared type and dims: a result tied to it whose
  // own declaration is no larger needs no check of its own.
  llvm::DenseMap<unsigned, std::pair<RankedTensorType, llvm::SmallVector<Value>>> operand_declared;
  const std::string& function = function_name_;
  // The operands results are tied to (written in place), the state each
  // tensor operand is bound as (a copy of a read-only one it writes).
  llvm::DenseSet<unsigned> written;
  for (unsigned r = 0; r < op->getNumResults(); ++r) {
    if (std::optional<unsigned> tied = op.getTiedOperandIndex(r)) written.insert(*tied);
  }
  std::deque<TensorState> copies;
  llvm::DenseMap<unsigned, TensorState*> operand_states;
  for (auto [index, arg] : llvm::enumerate(op.getArguments())) {
    auto tensor_type = llvm::dyn_cast<RankedTensorType>(op.getArguments()[index].getType());
    if (!tensor_type && !tensors_.count(arg)) {
      Value c = arg;
      Type t = arg.getType();
      if (t.isIndex()) {
        c = mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), arg);
      } else if (t.isF32()) {
        c = mlir::arith::BitcastOp::create(b, loc, b.getI32Type(), arg);
      } else if (t.isInteger(1)) {
        c = mlir::arith::ExtUIOp::create(b, loc, b.getI32Type(), arg);
      } else if (t.isInteger() && t.getIntOrFloatBitWidth() < 32) {
        c = mlir::arith::ExtSIOp::create(b, loc, b.getI32Type(), arg);
      } else if (t.isInteger() && t.getIntOrFloatBitWidth() > 32) {
        c = mlir::arith::TruncIOp::create(b, loc, b.getI32Type(), arg);
      } else if (!t.isInteger(32)) {
        Error(loc) << "dispatch operand " << index << " of type " << t
                   << " cannot be passed as a 32-bit constant";
        return;
      }
      constants.push_back(c);
      continue;
    }
    TensorState* state = StateOf(op, arg);
    if (!state) return;
    // A read-only buffer (an immutable global's) that this dispatch may
    // write (a result tied to it, or a binding the layout lets it write) is
    // copied first: the dispatch writes the copy, tied results share it.
    if (state->read_only) {
      HAL::PipelineBindingAttr binding =
          layout && binding_buffers.size() < layout.getBindings().size()
              ? layout.getBinding(binding_buffers.size())
              : nullptr;
      if (written.contains(index) || (binding && !binding.isReadOnly())) {
        copies.push_back(WritableCopy(b, loc, *state));
        state = &copies.back();
      }
    }
    operand_states[index] = state;
    if (!tensor_type) tensor_type = state->type;
    // The declared dims: static ones from the type, dynamic ones from {...}.
    mlir::ValueRange argument_dims = op.getArgumentDynamicDims(index);
    size_t next_dim = 0;
    llvm::SmallVector<Value> declared;
    bool same = state->sized;
    for (int64_t i = 0; i < tensor_type.getRank(); ++i) {
      Value dim = tensor_type.isDynamicDim(i)
                      ? argument_dims[next_dim++]
                      : host::IndexConstant(b, loc, tensor_type.getDimSize(i));
      declared.push_back(dim);
      if (i >= static_cast<int64_t>(state->dims.size())) {
        same = false;
        continue;
      }
      std::optional<int64_t> have = host::ConstantIntOf(state->dims[i]);
      std::optional<int64_t> want = host::ConstantIntOf(dim);
      same &= state->dims[i] == dim || (have && want && *have >= *want);
    }
    same &= tensor_type.getElementType() == state->type.getElementType();
    Value length = ByteLength(b, loc, tensor_type.getElementType(), declared);
    if (!same) {
      std::string site;
      llvm::raw_string_ostream os(site);
      entry_point.print(os);
      std::string message = function + ": operand " + std::to_string(index) + " (" +
                            TypeText(tensor_type) + ") of the dispatch of " + site;
      const std::string where = SourceLocationText(loc);
      if (!where.empty()) message += " at " + where;
      HAL::BufferAssertOp::create(b, loc, state->buffer, b.getStringAttr(message), length);
    }
    binding_buffers.push_back(state->buffer);
    binding_lengths.push_back(length);
    operand_declared[index] = {tensor_type, std::move(declared)};
  }

  // Results: tied ones share their operand's buffer, the others are new.
  for (auto [r, result] : llvm::enumerate(op.getResults())) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    mlir::ValueRange result_dims = op.getResultDynamicDims(r);
    size_t next_result_dim = 0;
    TensorState state;
    state.type = type;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      state.dims.push_back(type.isDynamicDim(i) ? result_dims[next_result_dim++]
                                                : host::IndexConstant(b, loc, type.getDimSize(i)));
    }
    if (std::optional<unsigned> tied = op.getTiedOperandIndex(r)) {
      TensorState* operand = operand_states.lookup(*tied);
      if (!operand) operand = StateOf(op, op.getArguments()[*tied]);
      if (!operand) return;
      state.buffer = operand->buffer;
      // The buffer covers the operand's declared size (checked above or true
      // by construction); the result is sized by it when it declares the same
      // element type and dims no larger, as `-> %arg{%n}` does.
      auto declared = operand_declared.find(*tied);
      state.sized = declared != operand_declared.end() &&
                    declared->second.first.getElementType() == type.getElementType() &&
                    declared->second.second.size() == state.dims.size();
      for (size_t i = 0; state.sized && i < state.dims.size(); ++i) {
        Value had = declared->second.second[i];
        std::optional<int64_t> have = host::ConstantIntOf(had);
        std::optional<int64_t> want = host::ConstantIntOf(state.dims[i]);
        state.sized = had == state.dims[i] || (have && want && *have >= *want);
      }
      tensors_[result] = std::move(state);
      continue;
    }
    if (!host::ElementTypeCode(type.getElementType())) {
      Error(loc) << "tensor element type " << type.getElementType() << " is not supported";
      return;
    }
    Value length = ByteLength(b, loc, type.getElementType(), state.dims);
    state.buffer = Allocate(b, loc, length);
    binding_buffers.push_back(state.buffer);
    binding_lengths.push_back(length);
    tensors_[result] = std::move(state);
  }
  // An instrumented export's site id and ring come last (after the
  // operands' constants and the results' bindings).
  if (!AppendInstrumentation(b, op, layout, constants, binding_buffers, binding_lengths)) return;
  if (layout && layout.getBindings().size() != binding_buffers.size()) {
    Error(loc) << "the dispatch binds " << binding_buffers.size() << " buffers but " << entry_point
               << " declares " << layout.getBindings().size() << " bindings";
    return;
  }

  // Its own one-shot submission; scheduling merges neighbours.
  Submit(b, loc, device_, [&](Value cmd) {
    Value zero = host::IndexConstant(b, loc, 0);
    llvm::SmallVector<Value> offsets(binding_buffers.size(), zero);
    auto dispatch = HAL::CommandBufferDispatchOp::create(
        b, loc, cmd, executable, host::IndexConstant(b, loc, ordinal), count[0], count[1], count[2],
        constants, binding_buffers, offsets, binding_lengths, entry_point);
    if (mlir::Attribute site_id = op->getAttr(host::kDispatchSiteIdAttrName)) {
      dispatch->setAttr(host::kDispatchSiteIdAttrName, site_id);
    }
  });
}

}  // namespace kiln::compiler::bufferize

namespace kiln::compiler {
namespace {

using bufferize::Bufferizer;

struct BufferizeDispatchesPass
    : mlir::PassWrapper<BufferizeDispatchesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BufferizeDispatchesPass)
  llvm::StringRef getArgument() const override { return "kiln-hal-bufferize-dispatches"; }
  llvm::StringRef getDescription() const override {
    return "Tensors and flow.dispatch into hal ops: buffer views at function boundaries, "
           "buffers inside, one one-shot submission per dispatch, operand sizes checked";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<HAL::HALDialect, Util::UtilDialect, mlir::arith::ArithDialect>();
  }
  void runOnOperation() override {
    if (mlir::failed(Bufferizer(getOperation()).Run())) signalPassFailure();
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createBufferizeDispatchesPass() {
  return std::make_unique<BufferizeDispatchesPass>();
}

}  // namespace kiln::compiler
