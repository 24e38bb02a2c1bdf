// The vm dialect has exactly one op per opcode of the instruction set
// (KILN_FOR_EACH_OPCODE, vm/opcodes.h), named "vm." + the mnemonic, and
// GetOpcode maps each back to its opcode.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "compiler/dialects/vm/vm_dialect.h"
#include "mlir/IR/MLIRContext.h"

namespace kiln::compiler::VM {
namespace {

TEST(VMDialectTest, OneOpPerOpcode) {
  mlir::MLIRContext context;
  context.loadDialect<VMDialect>();
  mlir::OpBuilder builder(&context);
  const mlir::Location loc = builder.getUnknownLoc();
  for (int i = 0; i < kiln::vm::kOpcodeCount; ++i) {
    const auto opcode = static_cast<kiln::vm::Opcode>(i);
    const std::string name = OpNameOfOpcode(opcode);
    std::optional<mlir::RegisteredOperationName> registered =
        mlir::RegisteredOperationName::lookup(name, &context);
    ASSERT_TRUE(registered.has_value()) << name << " is not an op of the vm dialect";
    // An op of that name (operands and attributes aside) maps back.
    mlir::OperationState state(loc, name);
    mlir::Operation* op = mlir::Operation::create(state);
    EXPECT_EQ(GetOpcode(op), opcode) << name;
    op->destroy();
  }
}

TEST(VMDialectTest, NoOpWithoutOpcode) {
  mlir::MLIRContext context;
  context.loadDialect<VMDialect>();
  // Everything the dialect registers is an opcode op or one of the
  // structural ops.
  const std::set<std::string> structural = {
      "vm.module",     "vm.func",       "vm.import",     "vm.global.i32", "vm.global.i64",
      "vm.global.f32", "vm.global.f64", "vm.global.ref", "vm.rodata"};
  std::set<std::string> opcodes;
  for (int i = 0; i < kiln::vm::kOpcodeCount; ++i) {
    opcodes.insert(OpNameOfOpcode(static_cast<kiln::vm::Opcode>(i)));
  }
  EXPECT_EQ(opcodes.size(), static_cast<size_t>(kiln::vm::kOpcodeCount)) << "duplicate mnemonic";
  size_t vm_ops = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "vm") continue;
    ++vm_ops;
    const std::string text = name.getStringRef().str();
    EXPECT_TRUE(opcodes.count(text) || structural.count(text)) << text << " has no opcode";
  }
  EXPECT_EQ(vm_ops, opcodes.size() + structural.size());
}

}  // namespace
}  // namespace kiln::compiler::VM
