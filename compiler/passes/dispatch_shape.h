// The operand groups of a flow.dispatch (ir/ops.h): its flattened operand
// list split by `operandSegmentSizes` into workload, arguments, argument dims
// and result dims, and its `tied_operands` (which argument each result is
// written into). Shared by the verifier, which reports a malformed shape, and
// the dispatch lowering, which trusts the verified one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace kiln::compiler {

struct DispatchShape {
  std::vector<Value*> workload;
  std::vector<Value*> arguments;
  std::vector<Value*> argument_dims;
  std::vector<Value*> result_dims;
  std::vector<int64_t> tied;  // Per result: the argument index, or -1.
};

// Number of `?` dimensions of a tensor type (0 for other types).
size_t DynamicDimCount(const Type& type);

// Splits `op`'s operands; false with `*error` set when the attributes do not
// describe its operands (counts, kinds, tied indices out of range).
bool DecodeDispatch(const Operation& op, DispatchShape* shape, std::string* error);

}  // namespace kiln::compiler
