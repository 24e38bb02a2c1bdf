// ImportBuilder: the calls of one op into a native module, through that
// module's contract table (hal/module/hal_imports.h, check_imports.h): values
// fitted to the table's types, strings and constant data as vm.rodata, the
// vm.import declared from the table entry on first use, in the enclosing
// vm.module (the op must already be inside it).
#pragma once

#include <string>
#include <string_view>

#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/vm/conversion/selection_builder.h"
#include "hal/module/hal_imports.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {

// One import of a contract table: "<module>.<name>", its fixed arguments and
// results as "name:type" lists (types: i32, i64, f32, vm.buffer, hal.X).
struct NativeImport {
  std::string_view module;
  std::string_view name;
  std::string_view arguments;
  std::string_view results;
  bool variadic = false;

  // The entry `import` of a table whose entries have hal_imports.h's fields.
  template <typename ImportInfo>
  static NativeImport Of(std::string_view module, const ImportInfo& import) {
    return {module, import.name, import.arguments, import.results, hal::IsVariadic(import)};
  }
};

class ImportBuilder {
 public:
  ImportBuilder(mlir::ConversionPatternRewriter& rewriter, mlir::Operation* op)
      : rewriter_(rewriter), op_(op), sb_(rewriter, op->getLoc()) {}

  mlir::MLIRContext* context() { return op_->getContext(); }
  mlir::ConversionPatternRewriter& rewriter() { return rewriter_; }
  SelectionBuilder& sb() { return sb_; }
  VM::ModuleOp module() { return op_->getParentOfType<VM::ModuleOp>(); }

  mlir::Value I32(int64_t value);
  mlir::Value I64(int64_t value);
  mlir::Value F32(float value);
  mlir::Value Null(mlir::Type object);

  // `value` (a converted operand or an import result) as `type`: i64 <-> i32.
  mlir::Value Fit(mlir::Value value, mlir::Type type);
  mlir::Value AsI32(mlir::Value value) { return Fit(value, rewriter_.getI32Type()); }
  mlir::Value AsI64(mlir::Value value) { return Fit(value, rewriter_.getI64Type()); }

  // A vm.buffer of `text`: a module rodata, shared by equal strings.
  mlir::Value Text(llvm::StringRef text);
  // A vm.buffer of the bytes of `value` (vm.rodata's layout: little-endian,
  // splats expanded, i1 one byte per element), shared by equal attributes.
  mlir::Value Data(mlir::ElementsAttr value);
  // vm.const.ref.rodata of the rodata `symbol`.
  mlir::Value Rodata(llvm::StringRef symbol);

  static std::string UniqueName(VM::ModuleOp m, llvm::StringRef base);

  // The declaration of `import` in the enclosing vm.module; its name.
  mlir::FailureOr<std::string> Declare(const NativeImport& import);

  // vm.call.import of `import` with `arguments` (fixed ones fitted to the
  // table's types; a variadic tail as given). A dispatch's call carries its
  // entry point (`dispatch`) and, when instrumented, its site id
  // (kiln.dispatch_site_id) for the module's dispatch-site table.
  mlir::FailureOr<mlir::Operation*> Call(const NativeImport& import,
                                         llvm::SmallVector<mlir::Value> arguments,
                                         mlir::SymbolRefAttr dispatch = {},
                                         mlir::IntegerAttr dispatch_site_id = {});

 private:
  // A rodata holding `value` whose name starts with `prefix`: an existing
  // one with that value, else a new one.
  std::string RodataOf(mlir::Attribute value, llvm::StringRef prefix);

  mlir::ConversionPatternRewriter& rewriter_;
  mlir::Operation* op_;
  SelectionBuilder sb_;
};

}  // namespace kiln::compiler
