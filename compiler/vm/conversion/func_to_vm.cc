// func → vm. A func.func with a body becomes a vm.func of the converted
// signature; a public one is exported (`vm.export`) and keeps its source
// signature for the export's reflection (`vm.abi_type`: the function's
// `kiln.abi_type` when an earlier pass recorded one, e.g. tensors that became
// buffer views, else its own type) and its `kiln.reflection` dictionary
// (`vm.reflection`: key/value string pairs the export lists, e.g. the
// arena_size of --kiln-hal-plan-memory). A declaration becomes a vm.import
// named by its `import_name` attribute or its symbol. func.call of a defined
// function is vm.call; of a declaration, vm.call.import, whose narrow integer
// results are canonicalised (native code may return any i32 for an i8).
#include "compiler/vm/conversion/patterns.h"
#include "compiler/vm/conversion/select_pattern.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::compiler {
namespace {

namespace func = mlir::func;

class FuncLowering : public mlir::OpConversionPattern<func::FuncOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(func::FuncOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    if (op.isExternal()) return rewriter.notifyMatchFailure(op, "declarations become imports");
    const mlir::FunctionType type = op.getFunctionType();
    mlir::TypeConverter::SignatureConversion signature(type.getNumInputs());
    if (failed(getTypeConverter()->convertSignatureArgs(type.getInputs(), signature))) {
      return rewriter.notifyMatchFailure(op, "argument types have no VM bank");
    }
    llvm::SmallVector<mlir::Type> results;
    if (failed(getTypeConverter()->convertTypes(type.getResults(), results))) {
      return rewriter.notifyMatchFailure(op, "result types have no VM bank");
    }
    auto vm_type = rewriter.getFunctionType(signature.getConvertedTypes(), results);
    auto vm_func = VM::FuncOp::create(rewriter, op.getLoc(), op.getSymName(), vm_type);
    if (op.isPublic()) {
      vm_func->setAttr("vm.export", rewriter.getUnitAttr());
      mlir::Attribute abi = op->getAttr("kiln.abi_type");
      vm_func->setAttr("vm.abi_type", llvm::isa_and_present<mlir::TypeAttr>(abi)
                                          ? abi
                                          : mlir::TypeAttr::get(type));
      if (auto reflection = op->getAttrOfType<mlir::DictionaryAttr>("kiln.reflection")) {
        vm_func->setAttr("vm.reflection", reflection);
      }
    } else {
      vm_func.setSymVisibilityAttr(op.getSymVisibilityAttr());
    }
    if (op->hasAttr("kiln.initializer")) {
      vm_func->setAttr("vm.initializer", rewriter.getUnitAttr());
    }
    rewriter.inlineRegionBefore(op.getBody(), vm_func.getBody(), vm_func.getBody().end());
    if (failed(rewriter.convertRegionTypes(&vm_func.getBody(), *getTypeConverter(), &signature))) {
      return mlir::failure();
    }
    rewriter.eraseOp(op);
    return mlir::success();
  }
};

class DeclarationLowering : public mlir::OpConversionPattern<func::FuncOp> {
 public:
  DeclarationLowering(const mlir::TypeConverter& converter, mlir::MLIRContext* context,
                      const FunctionSymbols& symbols)
      : OpConversionPattern(converter, context), symbols_(symbols) {}
  mlir::LogicalResult matchAndRewrite(func::FuncOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    if (!op.isExternal()) return rewriter.notifyMatchFailure(op, "not a declaration");
    auto it = symbols_.imports.find(op.getSymName());
    if (it == symbols_.imports.end()) return rewriter.notifyMatchFailure(op, "not imported");
    llvm::SmallVector<mlir::Type> inputs, results;
    if (failed(getTypeConverter()->convertTypes(op.getFunctionType().getInputs(), inputs)) ||
        failed(getTypeConverter()->convertTypes(op.getFunctionType().getResults(), results))) {
      return rewriter.notifyMatchFailure(op, "types have no VM bank");
    }
    rewriter.replaceOpWithNewOp<VM::ImportOp>(
        op, rewriter.getStringAttr(it->second),
        mlir::TypeAttr::get(rewriter.getFunctionType(inputs, results)), mlir::UnitAttr(),
        mlir::UnitAttr(), mlir::StringAttr());
    return mlir::success();
  }

 private:
  const FunctionSymbols& symbols_;
};

class CallLowering : public mlir::OpConversionPattern<func::CallOp> {
 public:
  CallLowering(const mlir::TypeConverter& converter, mlir::MLIRContext* context,
               const FunctionSymbols& symbols)
      : OpConversionPattern(converter, context), symbols_(symbols) {}
  mlir::LogicalResult matchAndRewrite(func::CallOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    llvm::SmallVector<mlir::Type> results;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), results))) {
      return rewriter.notifyMatchFailure(op, "result types have no VM bank");
    }
    auto import = symbols_.imports.find(op.getCallee());
    const bool is_import = import != symbols_.imports.end();
    mlir::OperationState state(op.getLoc(), is_import ? "vm.call.import" : "vm.call");
    state.addOperands(adaptor.getOperands());
    state.addTypes(results);
    state.addAttribute("callee", is_import
                                     ? mlir::FlatSymbolRefAttr::get(
                                           rewriter.getStringAttr(import->second))
                                     : op.getCalleeAttr());
    if (mlir::Attribute dispatch = op->getAttr("dispatch"); is_import && dispatch) {
      state.addAttribute("dispatch", dispatch);
    }
    mlir::Operation* call = rewriter.create(state);
    llvm::SmallVector<mlir::Value> values(call->getResults());
    if (is_import) {
      SelectionBuilder s(rewriter, op.getLoc());
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = s.Canonicalize(values[i], IntegerWidth(op.getResult(i).getType()));
      }
    }
    rewriter.replaceOp(op, values);
    return mlir::success();
  }

 private:
  const FunctionSymbols& symbols_;
};

class ReturnLowering : public mlir::OpConversionPattern<func::ReturnOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<VM::ReturnOp>(op, adaptor.getOperands());
    return mlir::success();
  }
};

}  // namespace

void PopulateFuncToVMPatterns(const mlir::TypeConverter& converter,
                              const FunctionSymbols& symbols, mlir::RewritePatternSet& patterns) {
  mlir::MLIRContext* context = patterns.getContext();
  patterns.add<FuncLowering, ReturnLowering>(converter, context);
  patterns.add<DeclarationLowering, CallLowering>(converter, context, symbols);
}

}  // namespace kiln::compiler
