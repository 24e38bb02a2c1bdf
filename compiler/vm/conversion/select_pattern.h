// SelectPattern: a conversion pattern that replaces a one-result op with the
// value a selection function builds from the op and its converted operands.
// Every pattern checks that the types it needs have VM registers before it
// creates anything, so a failed match leaves the IR untouched.
#pragma once

#include <optional>

#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/vm/conversion/selection_builder.h"
#include "compiler/vm/conversion/vm_type_converter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {

// The bank holding a value of the (unconverted) type, nullopt when none does.
inline std::optional<kiln::vm::Bank> BankOf(mlir::Type type) {
  mlir::Type converted = ConvertToVMType(type);
  if (!converted) return std::nullopt;
  return VM::BankOfType(converted);
}

template <typename OpTy>
using SelectFn = mlir::Value (*)(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s);

template <typename OpTy>
class SelectPattern : public mlir::OpConversionPattern<OpTy> {
 public:
  SelectPattern(const mlir::TypeConverter& converter, mlir::MLIRContext* context,
                SelectFn<OpTy> select)
      : mlir::OpConversionPattern<OpTy>(converter, context), select_(select) {}

  mlir::LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    for (mlir::Type type : op->getOperandTypes()) {
      if (!BankOf(type)) return rewriter.notifyMatchFailure(op, "operand type has no VM bank");
    }
    for (mlir::Type type : op->getResultTypes()) {
      if (!BankOf(type)) return rewriter.notifyMatchFailure(op, "result type has no VM bank");
    }
    SelectionBuilder s(rewriter, op.getLoc());
    rewriter.replaceOp(op, select_(op, adaptor, s));
    return mlir::success();
  }

 private:
  SelectFn<OpTy> select_;
};

}  // namespace kiln::compiler
