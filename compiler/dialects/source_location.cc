#include "compiler/dialects/source_location.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

namespace kiln::compiler {

std::string SourceLocationText(mlir::Location loc) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) + ":" +
            llvm::Twine(file.getColumn()))
        .str();
  }
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location inner : fused.getLocations()) {
      std::string text = SourceLocationText(inner);
      if (!text.empty()) return text;
    }
  }
  if (auto named = llvm::dyn_cast<mlir::NameLoc>(loc))
    return SourceLocationText(named.getChildLoc());
  if (auto callsite = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
    return SourceLocationText(callsite.getCallee());
  }
  return "";
}

}  // namespace kiln::compiler
