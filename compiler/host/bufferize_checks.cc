// The Bufferizer's check ops (bufferizer.h).
//
// Constants and checks (IREE's test harness): util.unfoldable_constant and
// flow.tensor.dynamic_constant on tensors become buffers filled from the
// module's data (hal.allocator.allocate.initialized, each time they run; the
// dims a dynamic constant hides pass through util.optimization_barrier), and
// the check dialect's comparisons of tensors compare their buffer views on
// the function's device (the `_const` forms with a constant buffer):
//
//   %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
//   check.expect_eq(%x, %c) : tensor<2xi32>
// becomes
//   %buffer = hal.allocator.allocate.initialized<%allocator : !hal.allocator>
//       value(dense<[1, 2]> : tensor<2xi32>) : !hal.buffer
//   %c = hal.buffer_view.create buffer(%buffer : !hal.buffer) shape([%c2]) type(...)
//   check.expect_eq<%device>(%x_view, %c) : !hal.buffer_view
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

// A comparison operand as a buffer view: a tensor's view, a view as it is.
mlir::FailureOr<Value> Bufferizer::CheckedView(OpBuilder& b, Operation* op, Value value) {
  if (!llvm::isa<mlir::TensorType>(value.getType())) return value;
  TensorState* state = StateOf(op, value);
  if (!state) return mlir::failure();
  return ViewOf(b, op->getLoc(), *state);
}

// Comparisons of tensors compare their buffer views, read back on the
// function's device (unless the op names one); the `_const` forms' values
// become constant buffers first (canonicalization usually did that already).
void Bufferizer::LowerCheck(Operation* op) {
  const Location loc = op->getLoc();
  OpBuilder b(op);
  auto device = [&](Value given) { return given ? given : device_; };
  auto constant = [&](mlir::ElementsAttr value, Type type) -> mlir::FailureOr<Value> {
    auto tensor_type = llvm::dyn_cast<RankedTensorType>(type);
    std::optional<uint32_t> code =
        tensor_type ? host::ElementTypeCode(tensor_type.getElementType()) : std::nullopt;
    if (!code || !tensor_type.hasStaticShape()) {
      Error(loc) << "cannot compare with a constant of type " << type;
      return mlir::failure();
    }
    TensorState state;
    state.type = tensor_type;
    state.buffer = HAL::AllocatorAllocateInitializedOp::create(
        b, loc, HAL::BufferType::get(b.getContext()), allocator_, value);
    for (int64_t d : tensor_type.getShape()) state.dims.push_back(host::IndexConstant(b, loc, d));
    return ViewOf(b, loc, state);
  };
  if (auto check = llvm::dyn_cast<Check::ExpectAllTrueOp>(op)) {
    mlir::FailureOr<Value> operand = CheckedView(b, op, check.getOperand());
    if (mlir::failed(operand)) return;
    Check::ExpectAllTrueOp::create(b, loc, device(check.getDevice()), *operand);
  } else if (auto check = llvm::dyn_cast<Check::ExpectEqOp>(op)) {
    mlir::FailureOr<Value> lhs = CheckedView(b, op, check.getLhs());
    mlir::FailureOr<Value> rhs = CheckedView(b, op, check.getRhs());
    if (mlir::failed(lhs) || mlir::failed(rhs)) return;
    Check::ExpectEqOp::create(b, loc, device(check.getDevice()), *lhs, *rhs);
  } else if (auto check = llvm::dyn_cast<Check::ExpectAlmostEqOp>(op)) {
    mlir::FailureOr<Value> lhs = CheckedView(b, op, check.getLhs());
    mlir::FailureOr<Value> rhs = CheckedView(b, op, check.getRhs());
    if (mlir::failed(lhs) || mlir::failed(rhs)) return;
    Check::ExpectAlmostEqOp::create(b, loc, device(check.getDevice()), *lhs, *rhs,
                                    check.getAtolAttr(), check.getRtolAttr());
  } else if (auto check = llvm::dyn_cast<Check::ExpectEqConstOp>(op)) {
    mlir::FailureOr<Value> lhs = CheckedView(b, op, check.getLhs());
    mlir::FailureOr<Value> rhs = constant(check.getValue(), check.getLhs().getType());
    if (mlir::failed(lhs) || mlir::failed(rhs)) return;
    Check::ExpectEqOp::create(b, loc, device(check.getDevice()), *lhs, *rhs);
  } else if (auto check = llvm::dyn_cast<Check::ExpectAlmostEqConstOp>(op)) {
    mlir::FailureOr<Value> lhs = CheckedView(b, op, check.getLhs());
    mlir::FailureOr<Value> rhs = constant(check.getValue(), check.getLhs().getType());
    if (mlir::failed(lhs) || mlir::failed(rhs)) return;
    Check::ExpectAlmostEqOp::create(b, loc, device(check.getDevice()), *lhs, *rhs,
                                    check.getAtolAttr(), check.getRtolAttr());
  } else {
    return;  // expect_true/expect_false: scalars only.
  }
  erased_.push_back(op);
}

}  // namespace kiln::compiler::bufferize
