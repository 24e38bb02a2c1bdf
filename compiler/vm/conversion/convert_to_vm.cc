// --kiln-convert-to-vm: instruction selection. The module's body moves into a
// `vm.module` (named after the module, else "module"), then one full dialect
// conversion turns func/arith/math/cf/util, hal (hal_to_vm.h) and check
// (check_to_vm.h), the latter two through RegisterVMConversionExtension, into vm ops over the five
// register banks (vm_type_converter.h).
//
// Before converting, the pass drops unreachable blocks and declarations
// nothing calls, marks globals that are stored as mutable at the VM level
// (an initializer may store an immutable util.global), and reports at their
// source every value whose type has no VM registers ("type 'f16' is not
// supported by the VM (yet)"), every called declaration that cannot be
// imported, and calls/returns over the VM's 255-value limit.
//
// After converting: narrow integer arguments of exported functions are
// canonicalised on entry (the host may pass any i32 for an i8), and every
// constant moves to the top of the entry block, one per bank and value (the
// pool that the fused forms then turn into immediates, see
// ../transforms/fuse_instructions.cc).
#include <map>
#include <vector>

#include "compiler/dialects/util/util_dialect.h"
#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/vm/conversion/check_to_vm.h"
#include "compiler/vm/conversion/hal_to_vm.h"
#include "compiler/vm/conversion/passes.h"
#include "compiler/vm/conversion/patterns.h"
#include "compiler/vm/conversion/selection_builder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::compiler {
namespace {

namespace func = mlir::func;
using kiln::vm::Bank;
using kiln::vm::Opcode;

std::vector<VMConversionExtension>& Extensions() {
  static std::vector<VMConversionExtension> extensions;
  return extensions;
}

// Narrow integer arguments of an exported function: (index, width).
using NarrowArguments = std::vector<std::pair<unsigned, unsigned>>;

class ConvertToVMPass
    : public mlir::PassWrapper<ConvertToVMPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ConvertToVMPass)

  llvm::StringRef getArgument() const override { return "kiln-convert-to-vm"; }
  llvm::StringRef getDescription() const override {
    return "Instruction selection: func/arith/math/cf/util into the vm dialect";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<VM::VMDialect>();
  }

  void runOnOperation() override;

 private:
  bool Prepare(mlir::ModuleOp module, FunctionSymbols& symbols,
               std::map<std::string, NarrowArguments>& narrow);
};

bool IsImportable(llvm::StringRef name) {
  return name.contains('.') && !name.starts_with(".") && !name.ends_with(".");
}

bool ConvertToVMPass::Prepare(mlir::ModuleOp module, FunctionSymbols& symbols,
                              std::map<std::string, NarrowArguments>& narrow) {
  bool ok = true;
  mlir::IRRewriter rewriter(module.getContext());
  // Unreachable blocks are never selected (nor checked).
  llvm::SmallVector<mlir::Region*> bodies;
  for (mlir::Operation& op : module.getBody()->getOperations()) {
    if (auto f = llvm::dyn_cast<func::FuncOp>(op); f && !f.isExternal()) {
      bodies.push_back(&f.getBody());
    } else if (auto init = llvm::dyn_cast<Util::InitializerOp>(op)) {
      bodies.push_back(&init.getBody());
    }
  }
  for (mlir::Region* body : bodies) {
    (void)mlir::eraseUnreachableBlocks(rewriter, llvm::MutableArrayRef<mlir::Region>(*body));
  }

  auto check_value = [&](mlir::Value value) {
    if (ConvertToVMType(value.getType())) return;
    mlir::emitError(value.getLoc()) << UnsupportedTypeMessage(value.getType());
    ok = false;
  };
  auto check_body = [&](mlir::Region& body) {
    body.walk([&](mlir::Block* block) {
      for (mlir::BlockArgument arg : block->getArguments()) check_value(arg);
    });
    body.walk([&](mlir::Operation* op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "vm") return;
      for (mlir::Value result : op->getResults()) check_value(result);
      if (auto call = llvm::dyn_cast<func::CallOp>(op);
          call && (call.getNumOperands() > 255 || call.getNumResults() > 255)) {
        call.emitError("a call may pass at most 255 arguments and return at most 255 results");
        ok = false;
      }
      if (llvm::isa<func::ReturnOp, Util::ReturnOp>(op) && op->getNumOperands() > 255) {
        op->emitError("a function may return at most 255 values");
        ok = false;
      }
    });
  };

  llvm::SmallVector<mlir::Operation*> unused;
  for (mlir::Operation& op : module.getBody()->getOperations()) {
    if (auto f = llvm::dyn_cast<func::FuncOp>(op)) {
      const mlir::FunctionType type = f.getFunctionType();
      if (f.isExternal()) {
        if (mlir::SymbolTable::symbolKnownUseEmpty(f, module)) {
          unused.push_back(f);  // Never imported, never checked.
          continue;
        }
        std::string name = f.getSymName().str();
        if (auto import_name = f->getAttrOfType<mlir::StringAttr>("import_name")) {
          name = import_name.str();
        }
        bool importable = true;
        if (!IsImportable(name)) {
          f.emitError("external function '@")
              << name
              << "' cannot be imported: a VM import needs a qualified name such as "
                 "'@module.function'";
          importable = false;
        }
        for (mlir::TypeRange types :
             {mlir::TypeRange(type.getInputs()), mlir::TypeRange(type.getResults())}) {
          for (mlir::Type t : types) {
            if (!ConvertToVMType(t)) {
              f.emitError(UnsupportedTypeMessage(t));
              importable = false;
            }
          }
        }
        ok &= importable;
        symbols.imports[f.getSymName()] = name;
        continue;
      }
      for (auto [i, t] : llvm::enumerate(type.getResults())) {
        if (!ConvertToVMType(t)) {
          f.emitError("result #") << i << ": " << UnsupportedTypeMessage(t);
          ok = false;
        }
      }
      check_body(f.getBody());
      if (f.isPublic()) {
        NarrowArguments args;
        for (auto [i, t] : llvm::enumerate(type.getInputs())) {
          if (IsNarrowInteger(t)) args.push_back({static_cast<unsigned>(i), IntegerWidth(t)});
        }
        if (!args.empty()) narrow[f.getSymName().str()] = std::move(args);
      }
    } else if (auto global = llvm::dyn_cast<Util::GlobalOp>(op)) {
      const mlir::Type type = global.getType();
      const mlir::Type vm_type = ConvertToVMType(type);
      if (!vm_type) {
        global.emitError(UnsupportedTypeMessage(type));
        ok = false;
      } else if (llvm::isa<VM::RefType>(vm_type) && global.getInitialValueAttr()) {
        global.emitError("a global of type ") << type << " cannot have an initial value";
        ok = false;
      }
    } else if (auto init = llvm::dyn_cast<Util::InitializerOp>(op)) {
      check_body(init.getBody());
    }
  }
  for (mlir::Operation* op : unused) op->erase();

  // A global stored anywhere (an initializer may store an immutable one) is
  // mutable at the VM level.
  module.walk([&](Util::GlobalStoreOp store) {
    if (auto global = mlir::SymbolTable::lookupNearestSymbolFrom<Util::GlobalOp>(
            store, store.getGlobalAttr())) {
      global.setIsMutable(true);
    }
  });
  return ok;
}

// Every const.* of `func` moves to the top of the entry block, one per
// opcode and value.
void PoolConstants(VM::FuncOp func) {
  if (func.getBody().empty()) return;
  mlir::Block& entry = func.getBody().front();
  llvm::SmallVector<mlir::Operation*> pooled;
  llvm::DenseMap<std::pair<mlir::OperationName, mlir::Attribute>, mlir::Operation*> seen;
  func.walk([&](mlir::Operation* op) {
    std::optional<Opcode> opcode = VM::GetOpcode(op);
    if (!opcode || (*opcode != Opcode::kConstI32 && *opcode != Opcode::kConstI64 &&
                    *opcode != Opcode::kConstF32 && *opcode != Opcode::kConstF64)) {
      return;
    }
    auto [it, inserted] = seen.try_emplace({op->getName(), op->getAttr("value")}, op);
    if (inserted) {
      pooled.push_back(op);
    } else {
      op->getResult(0).replaceAllUsesWith(it->second->getResult(0));
      op->erase();
    }
  });
  for (auto it = pooled.rbegin(); it != pooled.rend(); ++it) {
    (*it)->moveBefore(&entry, entry.begin());
  }
}

void ConvertToVMPass::runOnOperation() {
  mlir::ModuleOp module = getOperation();
  mlir::MLIRContext* context = &getContext();
  FunctionSymbols symbols;
  std::map<std::string, NarrowArguments> narrow;
  if (!Prepare(module, symbols, narrow)) return signalPassFailure();

  // The whole body moves into the vm.module.
  mlir::OpBuilder builder(context);
  builder.setInsertionPointToEnd(module.getBody());
  auto vm_module =
      VM::ModuleOp::create(builder, module.getLoc(), module.getSymName().value_or("module"));
  mlir::Block& vm_body = vm_module.getBody().front();
  for (mlir::Operation& op : llvm::make_early_inc_range(module.getBody()->getOperations())) {
    if (&op == vm_module.getOperation()) continue;
    op.moveBefore(&vm_body, vm_body.end());
  }

  VMTypeConverter converter;
  mlir::RewritePatternSet patterns(context);
  PopulateArithToVMPatterns(converter, patterns);
  PopulateMathToVMPatterns(converter, patterns);
  PopulateControlFlowToVMPatterns(converter, patterns);
  PopulateFuncToVMPatterns(converter, symbols, patterns);
  PopulateUtilToVMPatterns(converter, patterns);
  mlir::ConversionTarget target(*context);
  target.addLegalDialect<VM::VMDialect>();
  target.addIllegalDialect<func::FuncDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                           mlir::cf::ControlFlowDialect, Util::UtilDialect>();
  for (const VMConversionExtension& extension : Extensions()) {
    extension(converter, patterns, target);
  }
  if (failed(mlir::applyFullConversion(vm_module, target, std::move(patterns)))) {
    return signalPassFailure();
  }

  for (VM::FuncOp func : vm_module.getOps<VM::FuncOp>()) {
    auto it = narrow.find(func.getSymName().str());
    if (it != narrow.end() && !func.getBody().empty()) {
      mlir::Block& entry = func.getBody().front();
      builder.setInsertionPointToStart(&entry);
      for (auto [index, width] : it->second) {
        mlir::BlockArgument arg = entry.getArgument(index);
        SelectionBuilder s(builder, arg.getLoc());
        mlir::Value canonical = s.Canonicalize(arg, width);
        arg.replaceAllUsesExcept(canonical, canonical.getDefiningOp());
      }
    }
    PoolConstants(func);
  }
}

}  // namespace

std::unique_ptr<mlir::Pass> CreateConvertToVMPass() {
  RegisterHALToVMConversion();    // Once; hal ops are converted in the same conversion.
  RegisterCheckToVMConversion();  // So are check ops.
  return std::make_unique<ConvertToVMPass>();
}

void RegisterVMConversionExtension(VMConversionExtension extension) {
  Extensions().push_back(std::move(extension));
}

}  // namespace kiln::compiler
