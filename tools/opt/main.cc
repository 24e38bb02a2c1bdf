// kiln-opt: MLIR's opt driver over kiln's dialects and passes.
//
//   kiln-opt in.mlir --some-kiln-pass --canonicalize
//
// Every flag of mlir-opt works (--split-input-file, --verify-diagnostics,
// --mlir-print-ir-after-all, ...); `--help` lists kiln's passes beside
// upstream MLIR's; `--version` prints LLVM's version, then kiln's.
#include "compiler/dialects/registration.h"
#include "compiler/pipeline/pass_registration.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tools/common/version.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  kiln::compiler::RegisterDialects(registry);
  kiln::compiler::RegisterPasses();
  // MlirOptMain installs no version printer of its own: LLVM's prints, then
  // this.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream& os) { os << kiln::tools::VersionLine("kiln-opt") << "\n"; });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln-opt: kiln's compiler passes, one at a time\n", registry));
}
