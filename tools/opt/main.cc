// kiln-opt: MLIR's opt driver over kiln's dialects and passes.
//
//   kiln-opt in.mlir --some-kiln-pass --canonicalize
//
// Every flag of mlir-opt works (--split-input-file, --verify-diagnostics,
// --mlir-print-ir-after-all, ...); `--help` lists kiln's passes beside
// upstream MLIR's.
#include "compiler/dialects/registration.h"
#include "compiler/pipeline/pass_registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  kiln::compiler::RegisterDialects(registry);
  kiln::compiler::RegisterPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln-opt: kiln's compiler passes, one at a time\n", registry));
}
