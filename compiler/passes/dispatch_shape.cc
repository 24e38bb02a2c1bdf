#include "compiler/passes/dispatch_shape.h"

namespace kiln::compiler {

size_t DynamicDimCount(const Type& type) {
  size_t n = 0;
  for (int64_t d : type.shape()) n += d == Type::kDynamic;
  return n;
}

bool DecodeDispatch(const Operation& op, DispatchShape* shape, std::string* error) {
  *shape = DispatchShape();
  const Attribute* segments = op.attribute("operandSegmentSizes");
  if (!segments ||
      (segments->kind != Attribute::Kind::kDenseArray &&
       segments->kind != Attribute::Kind::kArray) ||
      segments->elements.size() != 4) {
    *error =
        "requires attribute 'operandSegmentSizes' with 4 counts (workload, arguments, "
        "argument dims, result dims)";
    return false;
  }
  size_t counts[4];
  size_t total = 0;
  for (size_t i = 0; i < 4; ++i) {
    const Attribute& e = segments->elements[i];
    if (e.kind != Attribute::Kind::kInteger || e.integer_value < 0 ||
        e.integer_value > int64_t{1} << 32) {
      *error = "attribute 'operandSegmentSizes' must hold non-negative integers";
      return false;
    }
    counts[i] = static_cast<size_t>(e.integer_value);
    total += counts[i];
  }
  if (total != op.operands.size()) {
    *error = "'operandSegmentSizes' counts " + std::to_string(total) + " operands, but it has " +
             std::to_string(op.operands.size());
    return false;
  }
  std::vector<Value*>* groups[4] = {&shape->workload, &shape->arguments, &shape->argument_dims,
                                    &shape->result_dims};
  size_t next = 0;
  for (size_t i = 0; i < 4; ++i) {
    groups[i]->assign(op.operands.begin() + static_cast<std::ptrdiff_t>(next),
                      op.operands.begin() + static_cast<std::ptrdiff_t>(next + counts[i]));
    next += counts[i];
  }
  shape->tied.assign(op.num_results(), -1);
  if (const Attribute* tied = op.attribute("tied_operands")) {
    if ((tied->kind != Attribute::Kind::kArray && tied->kind != Attribute::Kind::kDenseArray) ||
        tied->elements.size() != op.num_results()) {
      *error = "attribute 'tied_operands' must hold one integer per result";
      return false;
    }
    for (size_t i = 0; i < op.num_results(); ++i) {
      const Attribute& e = tied->elements[i];
      if (e.kind != Attribute::Kind::kInteger || e.integer_value < -1 ||
          e.integer_value >= static_cast<int64_t>(counts[1])) {
        *error = "tied operand of result #" + std::to_string(i) + " is not an argument index";
        return false;
      }
      shape->tied[i] = e.integer_value;
    }
  }
  return true;
}

}  // namespace kiln::compiler
