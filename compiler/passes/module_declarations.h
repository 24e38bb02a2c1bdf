// The module-level declarations the dispatch passes (LowerDispatches,
// MemoizeCommandBuffers) append: import declarations (private bodiless
// functions, `import_name` naming the import when the symbol differs, as for
// variadic imports declared per signature; import_signature.h) and private
// mutable globals (executables, command buffers).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "compiler/ir/ir.h"

namespace kiln::compiler {

inline Operation* AppendImportDeclaration(Block* module_block, Location loc,
                                          const std::string& symbol, const std::string& import_name,
                                          Type type) {
  std::unique_ptr<Operation> op = Operation::Create(OpKind::kFunc, loc);
  op->SetAttribute("sym_name", Attribute::String(symbol));
  op->SetAttribute("function_type", Attribute::TypeAttr(std::move(type)));
  op->SetAttribute("sym_visibility", Attribute::String("private"));
  if (symbol != import_name) op->SetAttribute("import_name", Attribute::String(import_name));
  op->AddRegion();
  return module_block->Append(std::move(op));
}

inline Operation* AppendPrivateGlobal(Block* module_block, Location loc, const std::string& name,
                                      Type type) {
  std::unique_ptr<Operation> op = Operation::Create(OpKind::kGlobal, loc);
  op->SetAttribute("sym_name", Attribute::String(name));
  op->SetAttribute("type", Attribute::TypeAttr(std::move(type)));
  op->SetAttribute("is_mutable", Attribute::Unit());
  op->SetAttribute("sym_visibility", Attribute::String("private"));
  return module_block->Append(std::move(op));
}

}  // namespace kiln::compiler
