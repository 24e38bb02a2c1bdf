// End-to-end smoke test of the VM: a recursive function built with the module
// builder, verified, linked and invoked.
#include "tests/vm/test_util.h"

namespace kiln::vm {
namespace {

using testing::Call;
using testing::MakeContext;

TEST(VmSmokeTest, RecursiveFibonacci) {
  ModuleBuilder builder("smoke");
  FunctionBuilder& fib = builder.AddFunction("fib", "i_i");
  Label base = fib.NewLabel(), recurse = fib.NewLabel();
  fib.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
  fib.Emit(Opcode::kBrLtI32S, {Reg(0), Reg(1), Target(base), Target(recurse)});
  fib.Bind(base);
  fib.EmitReturn({0});
  fib.Bind(recurse);
  fib.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
  fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(2)});
  const uint16_t arg[] = {3}, first[] = {4}, second[] = {5};
  fib.EmitCall(fib.ordinal(), arg, first);
  fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(1)});
  fib.EmitCall(fib.ordinal(), arg, second);
  fib.Emit(Opcode::kAddI32, {Reg(4), Reg(4), Reg(5)});
  fib.EmitReturn({4});
  builder.AddExport("fib", fib.ordinal());

  auto context = MakeContext(builder);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto results = Call(**context, "fib", {Variant::I32(20)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].i32(), 6765);
}

}  // namespace
}  // namespace kiln::vm
