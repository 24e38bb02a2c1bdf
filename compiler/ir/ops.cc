#include "compiler/ir/ops.h"

#include <array>

namespace kiln::compiler {
namespace {

constexpr OpInfo kOpTable[] = {
#define KILN_IR_OP_INFO_(name, text, traits, op_class) OpInfo{text, traits, OpClass::op_class},
    KILN_FOR_EACH_IR_OP(KILN_IR_OP_INFO_)
#undef KILN_IR_OP_INFO_
};
static_assert(sizeof(kOpTable) / sizeof(kOpTable[0]) == static_cast<size_t>(OpKind::kCount));

constexpr std::string_view kCmpINames[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                           "sge", "ult", "ule", "ugt", "uge"};
constexpr std::string_view kCmpFNames[] = {"false", "oeq", "ogt", "oge", "olt", "ole",
                                           "one",   "ord", "ueq", "ugt", "uge", "ult",
                                           "ule",   "une", "uno", "true"};

}  // namespace

const OpInfo& GetOpInfo(OpKind kind) { return kOpTable[static_cast<size_t>(kind)]; }

int ElementwiseArity(OpKind kind) {
  switch (GetOpInfo(kind).op_class) {
    case OpClass::kIntegerUnary:
    case OpClass::kFloatUnary:
      return 1;
    case OpClass::kIntegerBinary:
    case OpClass::kFloatBinary:
      return 2;
    case OpClass::kFloatTernary:
      return 3;
    case OpClass::kOther:
    case OpClass::kCast:
      return 0;
  }
  return 0;
}

bool LookupOpKind(std::string_view name, OpKind* kind) {
  if (name == "return") name = "func.return";
  if (name == "call") name = "func.call";
  if (name == "module") name = "builtin.module";
  for (size_t i = 0; i < static_cast<size_t>(OpKind::kCount); ++i) {
    if (kOpTable[i].name == name) {
      *kind = static_cast<OpKind>(i);
      return true;
    }
  }
  return false;
}

bool ParseCmpIPredicate(std::string_view text, CmpIPredicate* predicate) {
  for (size_t i = 0; i < std::size(kCmpINames); ++i) {
    if (kCmpINames[i] == text) {
      *predicate = static_cast<CmpIPredicate>(i);
      return true;
    }
  }
  return false;
}

bool ParseCmpFPredicate(std::string_view text, CmpFPredicate* predicate) {
  for (size_t i = 0; i < std::size(kCmpFNames); ++i) {
    if (kCmpFNames[i] == text) {
      *predicate = static_cast<CmpFPredicate>(i);
      return true;
    }
  }
  return false;
}

std::string_view CmpIPredicateName(CmpIPredicate predicate) {
  auto i = static_cast<size_t>(predicate);
  return i < std::size(kCmpINames) ? kCmpINames[i] : std::string_view();
}

std::string_view CmpFPredicateName(CmpFPredicate predicate) {
  auto i = static_cast<size_t>(predicate);
  return i < std::size(kCmpFNames) ? kCmpFNames[i] : std::string_view();
}

}  // namespace kiln::compiler
