// check -> vm: the expectations of test programs into calls of the runtime's
// `check` module, through its import contract (hal/module/check_imports.h).
// Each call passes the op's source location ("file:line:col", a rodata
// string; empty when the op has none), which the module reports with a
// failure.
//
//   check.expect_true(%flag) : i32
//     -> vm.call.import @check.expect_true(%flag, %location)
//   check.expect_eq<%device>(%a, %b) : !hal.buffer_view
//     -> vm.call.import @check.expect_eq(%device, %a, %b, %location)
//   check.expect_almost_eq<%device>(%a, %b, atol 1.0e-02) : !hal.buffer_view
//     -> vm.call.import @check.expect_almost_eq(%device, %a, %b, %atol, %rtol, %location)
//
// Integers narrower than 32 bits are already i32 registers (canonical, so
// non-zero exactly when the value is); an i64 is compared with 0. A
// comparison without a device uses device 0 (hal.devices.get). Comparisons of
// tensors (and the `_const` forms) must have been bufferized before: they
// are not legal here.
#include <string>

#include "compiler/dialects/check/check_dialect.h"
#include "compiler/dialects/source_location.h"
#include "compiler/vm/conversion/import_builder.h"
#include "compiler/vm/conversion/passes.h"
#include "compiler/vm/conversion/vm_type_converter.h"
#include "hal/module/check_imports.h"

namespace kiln::compiler {
namespace {

using hal::CheckImport;
using kiln::vm::Bank;
using kiln::vm::Opcode;
using mlir::Value;

NativeImport CheckImportOf(CheckImport id) {
  return NativeImport::Of(hal::kCheckModuleName, hal::GetCheckImport(id));
}

Value Location(ImportBuilder& ib, mlir::Operation* op) {
  return ib.Text(SourceLocationText(op->getLoc()));
}

// The device a comparison reads its views back on.
mlir::FailureOr<Value> Device(ImportBuilder& ib, Value device) {
  if (device) return device;
  mlir::FailureOr<mlir::Operation*> get =
      ib.Call(NativeImport::Of(hal::kHalModuleName, hal::GetHalImport(hal::HalImport::kDevicesGet)),
              {ib.I32(0)});
  if (mlir::failed(get)) return mlir::failure();
  return (*get)->getResult(0);
}

bool IsView(Value value) { return llvm::isa<HAL::BufferViewType>(value.getType()); }

template <typename OpT>
class CheckPattern : public mlir::OpConversionPattern<OpT> {
 public:
  using mlir::OpConversionPattern<OpT>::OpConversionPattern;
  using Adaptor = typename OpT::Adaptor;

  mlir::LogicalResult matchAndRewrite(OpT op, Adaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    ImportBuilder ib(rewriter, op);
    mlir::FailureOr<mlir::Operation*> call = Build(op, adaptor, ib);
    if (mlir::failed(call)) return mlir::failure();
    rewriter.eraseOp(op);
    return mlir::success();
  }

 private:
  static mlir::FailureOr<mlir::Operation*> Build(OpT op, Adaptor a, ImportBuilder& ib) {
    if constexpr (std::is_same_v<OpT, Check::ExpectTrueOp> ||
                  std::is_same_v<OpT, Check::ExpectFalseOp>) {
      Value operand = a.getOperand();
      if (operand.getType().isInteger(64)) {
        operand = ib.sb().Def(Opcode::kCmpNeI64, ib.rewriter().getI32Type(), {operand, ib.I64(0)});
      }
      if (!operand.getType().isInteger(32)) {
        return ib.rewriter().notifyMatchFailure(op, "operand is not an i32 or i64 register");
      }
      const CheckImport id = std::is_same_v<OpT, Check::ExpectTrueOp> ? CheckImport::kExpectTrue
                                                                      : CheckImport::kExpectFalse;
      return ib.Call(CheckImportOf(id), {operand, Location(ib, op)});
    } else if constexpr (std::is_same_v<OpT, Check::ExpectAllTrueOp>) {
      if (!IsView(op.getOperand())) {
        return ib.rewriter().notifyMatchFailure(op, "tensors must be bufferized first");
      }
      mlir::FailureOr<Value> device = Device(ib, a.getDevice());
      if (mlir::failed(device)) return mlir::failure();
      return ib.Call(CheckImportOf(CheckImport::kExpectAllTrue),
                     {*device, a.getOperand(), Location(ib, op)});
    } else {
      if (!IsView(op.getLhs())) {
        return ib.rewriter().notifyMatchFailure(op, "tensors must be bufferized first");
      }
      mlir::FailureOr<Value> device = Device(ib, a.getDevice());
      if (mlir::failed(device)) return mlir::failure();
      if constexpr (std::is_same_v<OpT, Check::ExpectEqOp>) {
        return ib.Call(CheckImportOf(CheckImport::kExpectEq),
                       {*device, a.getLhs(), a.getRhs(), Location(ib, op)});
      } else {
        return ib.Call(CheckImportOf(CheckImport::kExpectAlmostEq),
                       {*device, a.getLhs(), a.getRhs(), ib.F32(op.getAtol().convertToFloat()),
                        ib.F32(op.getRtol().convertToFloat()), Location(ib, op)});
      }
    }
  }
};

}  // namespace

void RegisterCheckToVMConversion() {
  static const bool registered = [] {
    RegisterVMConversionExtension([](VMTypeConverter& converter, mlir::RewritePatternSet& patterns,
                                     mlir::ConversionTarget& target) {
      patterns.add<CheckPattern<Check::ExpectTrueOp>, CheckPattern<Check::ExpectFalseOp>,
                   CheckPattern<Check::ExpectAllTrueOp>, CheckPattern<Check::ExpectEqOp>,
                   CheckPattern<Check::ExpectAlmostEqOp>>(converter, patterns.getContext());
      target.addIllegalDialect<Check::CheckDialect>();
    });
    return true;
  }();
  (void)registered;
}

}  // namespace kiln::compiler
