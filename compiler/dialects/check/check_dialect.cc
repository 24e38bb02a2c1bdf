#include "compiler/dialects/check/check_dialect.h"

#include "compiler/dialects/check/check_dialect.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/check/check_ops.cpp.inc"

namespace kiln::compiler::Check {

void CheckDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/check/check_ops.cpp.inc"
      >();
}

}  // namespace kiln::compiler::Check
