// util → vm. util.global becomes vm.global.<bank> (primitive banks: the
// initial value in its register's canonical form; zero values are dropped,
// the global bytes start zeroed) or vm.global.ref (starts null);
// util.global.load/store become vm.global.load/store.<bank>. A
// util.initializer becomes a vm.func marked `vm.initializer`, util.return a
// vm.return, util.null a vm.const.ref.null, util.cmp.eq a vm.ref.eq (refs) or
// vm.cmp.eq/oeq, util.unfoldable_constant a
// vm.const.* (nothing folds after selection), and util.optimization_barrier
// disappears (its results are its operands).
#include <bit>

#include "compiler/dialects/util/util_dialect.h"
#include "compiler/vm/conversion/patterns.h"
#include "compiler/vm/conversion/select_pattern.h"

namespace kiln::compiler {
namespace {

using kiln::vm::Bank;
using kiln::vm::Opcode;

class GlobalLowering : public mlir::OpConversionPattern<Util::GlobalOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(Util::GlobalOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    const mlir::Type type = op.getType();
    const mlir::Type vm_type = getTypeConverter()->convertType(type);
    const std::optional<Bank> bank = vm_type ? VM::BankOfType(vm_type) : std::nullopt;
    if (!bank) return rewriter.notifyMatchFailure(op, "type has no VM bank");
    const mlir::UnitAttr is_mutable = op.getIsMutable() ? rewriter.getUnitAttr() : nullptr;
    if (*bank == Bank::kRef) {
      if (op.getInitialValueAttr()) return rewriter.notifyMatchFailure(op, "ref initial value");
      rewriter.replaceOpWithNewOp<VM::GlobalRefOp>(op, op.getSymNameAttr(), is_mutable,
                                                   mlir::TypeAttr::get(vm_type),
                                                   op.getSymVisibilityAttr());
      return mlir::success();
    }
    uint64_t bits = 0;
    if (mlir::Attribute init = op.getInitialValueAttr()) {
      if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(init)) {
        bits = CanonicalIntegerBits(integer.getValue().getSExtValue(), type);
      } else if (auto real = llvm::dyn_cast<mlir::FloatAttr>(init)) {
        bits = real.getValue().bitcastToAPInt().getZExtValue();
      }
    }
    mlir::Attribute initial_value;
    if (bits != 0) {
      switch (*bank) {
        case Bank::kI32:
          initial_value = rewriter.getI32IntegerAttr(static_cast<int32_t>(bits));
          break;
        case Bank::kI64:
          initial_value = rewriter.getI64IntegerAttr(static_cast<int64_t>(bits));
          break;
        case Bank::kF32:
          initial_value =
              rewriter.getF32FloatAttr(std::bit_cast<float>(static_cast<uint32_t>(bits)));
          break;
        default:
          initial_value = rewriter.getF64FloatAttr(std::bit_cast<double>(bits));
          break;
      }
    }
    const llvm::StringRef name = *bank == Bank::kI32   ? "vm.global.i32"
                                 : *bank == Bank::kI64 ? "vm.global.i64"
                                 : *bank == Bank::kF32 ? "vm.global.f32"
                                                       : "vm.global.f64";
    mlir::OperationState state(op.getLoc(), name);
    state.addAttribute("sym_name", op.getSymNameAttr());
    if (is_mutable) state.addAttribute("is_mutable", is_mutable);
    if (initial_value) state.addAttribute("initial_value", initial_value);
    if (op.getSymVisibilityAttr()) state.addAttribute("sym_visibility", op.getSymVisibilityAttr());
    rewriter.create(state);
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

mlir::Value SelectGlobalLoad(Util::GlobalLoadOp op, Util::GlobalLoadOp::Adaptor,
                             SelectionBuilder& s) {
  const mlir::Type type = ConvertToVMType(op.getType());
  return s.Def(vm::OpcodeOfBank(Opcode::kGlobalLoadI32, *VM::BankOfType(type)), type, {},
               {s.builder().getNamedAttr("global", op.getGlobalAttr())});
}

class GlobalStoreLowering : public mlir::OpConversionPattern<Util::GlobalStoreOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(Util::GlobalStoreOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    const std::optional<Bank> bank = BankOf(op.getValue().getType());
    if (!bank) return rewriter.notifyMatchFailure(op, "type has no VM bank");
    SelectionBuilder s(rewriter, op.getLoc());
    s.Create(vm::OpcodeOfBank(Opcode::kGlobalStoreI32, *bank), nullptr, adaptor.getValue(),
             {rewriter.getNamedAttr("global", op.getGlobalAttr())});
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

class InitializerLowering : public mlir::OpConversionPattern<Util::InitializerOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(Util::InitializerOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    // A name no other symbol of the module has (the module's symbol table
    // renames on insertion would be simpler, but patterns must not touch
    // ops outside the one they convert).
    mlir::Operation* module = op->getParentOp();
    std::string name = "__initializer";
    for (int i = 0; mlir::SymbolTable::lookupSymbolIn(module, name); ++i) {
      name = "__initializer_" + std::to_string(i);
    }
    auto func = VM::FuncOp::create(rewriter, op.getLoc(), name, rewriter.getFunctionType({}, {}));
    func.setSymVisibilityAttr(rewriter.getStringAttr("private"));
    func->setAttr("vm.initializer", rewriter.getUnitAttr());
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.getBody().end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), *getTypeConverter()))) {
      return mlir::failure();
    }
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

class ReturnLowering : public mlir::OpConversionPattern<Util::ReturnOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(Util::ReturnOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<VM::ReturnOp>(op, adaptor.getOperands());
    return mlir::success();
  }
};

mlir::Value SelectNull(Util::NullOp op, Util::NullOp::Adaptor, SelectionBuilder& s) {
  return s.Def(Opcode::kConstRefNull, ConvertToVMType(op.getType()), {});
}

// util.cmp.eq: ref.eq for refs, cmp.eq for integers, cmp.oeq for floats.
mlir::Value SelectCmpEQ(Util::CmpEQOp op, Util::CmpEQOp::Adaptor adaptor, SelectionBuilder& s) {
  Opcode opcode;
  switch (*BankOf(op.getLhs().getType())) {
    case Bank::kI32:
      opcode = Opcode::kCmpEqI32;
      break;
    case Bank::kI64:
      opcode = Opcode::kCmpEqI64;
      break;
    case Bank::kF32:
      opcode = Opcode::kCmpOeqF32;
      break;
    case Bank::kF64:
      opcode = Opcode::kCmpOeqF64;
      break;
    default:
      opcode = Opcode::kRefEq;
      break;
  }
  return s.Binary(opcode, Bank::kI32, adaptor.getLhs(), adaptor.getRhs());
}

mlir::Value SelectUnfoldableConstant(Util::UnfoldableConstantOp op,
                                     Util::UnfoldableConstantOp::Adaptor, SelectionBuilder& s) {
  const Bank bank = *BankOf(op.getType());
  uint64_t bits = 0;
  if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(op.getValue())) {
    bits = CanonicalIntegerBits(integer.getValue().getSExtValue(), op.getType());
  } else if (auto real = llvm::dyn_cast<mlir::FloatAttr>(op.getValue())) {
    bits = real.getValue().bitcastToAPInt().getZExtValue();
  }
  return s.Constant(bank, bits);
}

class OptimizationBarrierLowering : public mlir::OpConversionPattern<Util::OptimizationBarrierOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(Util::OptimizationBarrierOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperands());
    return mlir::success();
  }
};

}  // namespace

void PopulateUtilToVMPatterns(const mlir::TypeConverter& converter,
                              mlir::RewritePatternSet& patterns) {
  mlir::MLIRContext* context = patterns.getContext();
  patterns.add<GlobalLowering, GlobalStoreLowering, InitializerLowering, ReturnLowering,
               OptimizationBarrierLowering>(converter, context);
  patterns.add<SelectPattern<Util::GlobalLoadOp>>(converter, context, SelectGlobalLoad);
  patterns.add<SelectPattern<Util::NullOp>>(converter, context, SelectNull);
  patterns.add<SelectPattern<Util::CmpEQOp>>(converter, context, SelectCmpEQ);
  patterns.add<SelectPattern<Util::UnfoldableConstantOp>>(converter, context,
                                                          SelectUnfoldableConstant);
}

}  // namespace kiln::compiler
