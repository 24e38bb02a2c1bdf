// The passes of instruction selection (compiler/vm/conversion) and of the
// fused instruction forms (compiler/vm/transforms), in pipeline order:
//
//   --kiln-scf-to-cf        scf into cf, with scf.for rotated (guard, then a
//                           latch that steps and tests) so the latch can
//                           become vm.for.step: scf_to_cf.cc
//   --kiln-convert-to-vm    func/arith/math/cf/util into the vm dialect inside
//                           a vm.module: convert_to_vm.cc
//   --kiln-vm-fuse          br.lt, for.step, add.imm and br.lt.imm; constants
//                           only used as immediates disappear:
//                           ../transforms/fuse_instructions.cc
#pragma once

#include <functional>
#include <memory>

#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {

class VMTypeConverter;

std::unique_ptr<mlir::Pass> CreateSCFToCFPass();
std::unique_ptr<mlir::Pass> CreateConvertToVMPass();
std::unique_ptr<mlir::Pass> CreateFuseVMInstructionsPass();

// Other layers convert their dialects in the same conversion as
// --kiln-convert-to-vm (hal → vm): each registered extension adds its type
// conversions, patterns and legality before the conversion runs.
using VMConversionExtension = std::function<void(
    VMTypeConverter& converter, mlir::RewritePatternSet& patterns, mlir::ConversionTarget& target)>;
void RegisterVMConversionExtension(VMConversionExtension extension);

// Registers the three passes for kiln-opt (--kiln-scf-to-cf, ...).
void RegisterVMConversionPasses();

}  // namespace kiln::compiler
