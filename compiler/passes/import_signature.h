// The VM calling-convention signature of an import as the dispatch passes
// declare it: one character per value ('i' i32-and-narrower, 'I' i64/index,
// 'f' f32, 'F' f64, 'r' ref), arguments, '_', results ("rriiiii_").
// A variadic import (hal/module/hal_module.h) gets one private declaration
// per concrete signature, named `<import>$<signature>` with `import_name`
// naming the import; LowerDispatches and MemoizeCommandBuffers both do so.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/types.h"

namespace kiln::compiler {

inline char SignatureChar(const Type& type) {
  if (type.is_dialect()) return 'r';
  if (type.is_integer(64) || type.is_index()) return 'I';
  if (type == Type::F32()) return 'f';
  if (type == Type::F64()) return 'F';
  return 'i';
}

inline std::string ImportSignature(const std::vector<Type>& inputs,
                                   const std::vector<Type>& results) {
  std::string signature;
  for (const Type& t : inputs) signature += SignatureChar(t);
  signature += '_';
  for (const Type& t : results) signature += SignatureChar(t);
  return signature;
}

}  // namespace kiln::compiler
