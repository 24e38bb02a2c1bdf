// Instruction selection patterns: func/arith/math/cf/util (scalars) into the
// vm dialect, one Populate function per source dialect. The conversion pass
// (convert_to_vm.cc) runs them together with one VMTypeConverter.
#pragma once

#include "compiler/vm/conversion/vm_type_converter.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {

// arith.* (constants, integer and float arithmetic, compares, select,
// casts): arith_to_vm.cc.
void PopulateArithToVMPatterns(const mlir::TypeConverter& converter,
                               mlir::RewritePatternSet& patterns);

// math.*: math_to_vm.cc.
void PopulateMathToVMPatterns(const mlir::TypeConverter& converter,
                              mlir::RewritePatternSet& patterns);

// cf.br/cond_br/switch/assert: cf_to_vm.cc.
void PopulateControlFlowToVMPatterns(const mlir::TypeConverter& converter,
                                     mlir::RewritePatternSet& patterns);

// What the func patterns need to know about the module's functions.
struct FunctionSymbols {
  // Declarations (func.func without a body): the import name each call uses.
  llvm::StringMap<std::string> imports;
};

// func.func/call/return: func_to_vm.cc. Public functions are exported
// (vm.export) with their source signature (vm.abi_type); declarations become
// vm.import.
void PopulateFuncToVMPatterns(const mlir::TypeConverter& converter,
                              const FunctionSymbols& symbols, mlir::RewritePatternSet& patterns);

// util.global/global.load/global.store/initializer/return/null/
// unfoldable_constant/optimization_barrier: util_to_vm.cc.
void PopulateUtilToVMPatterns(const mlir::TypeConverter& converter,
                              mlir::RewritePatternSet& patterns);

}  // namespace kiln::compiler
