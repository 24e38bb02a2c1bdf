// Tests of the fuzz harness's static work bound: loops and call cycles are
// unbounded, call trees multiply, and the value-dependent instructions are
// counted per call site.
#include "tests/fuzz/work_bound.h"

#include "tests/vm/test_util.h"

namespace kiln::fuzz {
namespace {

using vm::FunctionBuilder;
using vm::ImmI32;
using vm::ImmI64;
using vm::Index;
using vm::Label;
using vm::ModuleBuilder;
using vm::Opcode;
using vm::Reg;
using vm::Target;

Ref<vm::BytecodeModule> Load(ModuleBuilder& builder) {
  static const Ref<vm::Instance> instance = vm::Instance::Create();
  auto module = vm::testing::LoadBytes(*instance, vm::testing::BuildBytes(builder));
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return module.ok() ? *module : Ref<vm::BytecodeModule>();
}

TEST(WorkBoundTest, StraightLineCodeIsBoundedByItsLength) {
  ModuleBuilder builder("m");
  FunctionBuilder& f = builder.AddFunction("f", "i_i");
  Label done = f.NewLabel();
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(3)});                 // 7 bytes
  f.Emit(Opcode::kCondBr, {Reg(0), Target(done), Target(done)});  // 11 bytes
  f.Bind(done);
  f.EmitReturn({1});  // 4 bytes
  auto module = Load(builder);
  ASSERT_TRUE(module);
  WorkBounds bounds(*module);
  const WorkBound& bound = bounds.Of(0);
  EXPECT_TRUE(bound.bounded);
  EXPECT_EQ(bound.bytecode_bytes, 22u);
  EXPECT_EQ(bound.allocations, 0u);
  EXPECT_EQ(bound.bulk_operations, 0u);
  EXPECT_FALSE(bound.stores_refs_in_lists);
}

TEST(WorkBoundTest, BackwardBranchAndSelfBranchAreUnbounded) {
  ModuleBuilder builder("m");
  FunctionBuilder& loop = builder.AddFunction("loop", "i_");
  Label head = loop.NewLabel(), exit = loop.NewLabel();
  loop.Emit(Opcode::kBr, {Target(head)});
  loop.Bind(head);
  loop.Emit(Opcode::kCondBr, {Reg(0), Target(head), Target(exit)});
  loop.Bind(exit);
  loop.EmitReturn({});
  // A switch whose default is its own offset spins forever too.
  FunctionBuilder& spin = builder.AddFunction("spin", "i_");
  Label self = spin.NewLabel(), out = spin.NewLabel();
  spin.Emit(Opcode::kBr, {Target(self)});
  spin.Bind(self);
  const Label cases[] = {out};
  spin.EmitSwitch(0, self, cases);
  spin.Bind(out);
  spin.EmitReturn({});
  auto module = Load(builder);
  ASSERT_TRUE(module);
  WorkBounds bounds(*module);
  EXPECT_FALSE(bounds.Of(0).bounded);
  EXPECT_FALSE(bounds.Of(1).bounded);
}

TEST(WorkBoundTest, CallTreesMultiplyAndCyclesAreUnbounded) {
  ModuleBuilder builder("m");
  // leaf: buffer.alloc + buffer.fill + return.
  FunctionBuilder& leaf = builder.AddFunction("leaf", "_");
  leaf.Emit(Opcode::kConstI64, {Reg(0), ImmI64(8)});
  leaf.Emit(Opcode::kBufferAlloc, {Reg(0), Reg(0)});
  leaf.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  leaf.Emit(Opcode::kBufferFill, {Reg(0), Reg(0), Reg(0), Reg(0)});
  leaf.EmitReturn({});
  // twice: calls leaf at two call sites.
  FunctionBuilder& twice = builder.AddFunction("twice", "_");
  twice.EmitCall(leaf.ordinal(), {}, {});
  twice.EmitCall(leaf.ordinal(), {}, {});
  twice.EmitReturn({});
  // top: calls twice twice, so leaf runs four times.
  FunctionBuilder& top = builder.AddFunction("top", "_");
  top.EmitCall(twice.ordinal(), {}, {});
  top.EmitCall(twice.ordinal(), {}, {});
  top.EmitReturn({});
  // a <-> b recursion, and c which calls into it.
  FunctionBuilder& a = builder.AddFunction("a", "_");
  FunctionBuilder& b = builder.AddFunction("b", "_");
  FunctionBuilder& c = builder.AddFunction("c", "_");
  a.EmitCall(b.ordinal(), {}, {});
  a.EmitReturn({});
  b.EmitCall(a.ordinal(), {}, {});
  b.EmitReturn({});
  c.EmitCall(leaf.ordinal(), {}, {});
  c.EmitCall(a.ordinal(), {}, {});
  c.EmitReturn({});
  auto module = Load(builder);
  ASSERT_TRUE(module);
  WorkBounds bounds(*module);

  const uint64_t leaf_bytes = module->function(leaf.ordinal()).code_length;
  const uint64_t twice_bytes = module->function(twice.ordinal()).code_length;
  const uint64_t top_bytes = module->function(top.ordinal()).code_length;
  const WorkBound& top_bound = bounds.Of(top.ordinal());
  EXPECT_TRUE(top_bound.bounded);
  EXPECT_EQ(top_bound.bytecode_bytes, top_bytes + 2 * twice_bytes + 4 * leaf_bytes);
  EXPECT_EQ(top_bound.allocations, 4u);
  EXPECT_EQ(top_bound.bulk_operations, 4u);

  EXPECT_FALSE(bounds.Of(c.ordinal()).bounded);
  EXPECT_FALSE(bounds.Of(a.ordinal()).bounded);
  EXPECT_FALSE(bounds.Of(b.ordinal()).bounded);
  // The leaf stays bounded after being reached from the cyclic part.
  EXPECT_TRUE(bounds.Of(leaf.ordinal()).bounded);
  EXPECT_EQ(bounds.Of(leaf.ordinal()).allocations, 1u);
}

TEST(WorkBoundTest, ListSetRefIsFlaggedThroughCalls) {
  ModuleBuilder builder("m");
  FunctionBuilder& store = builder.AddFunction("store", "r_");
  store.Emit(Opcode::kConstI32, {Reg(0), ImmI32(0)});
  store.Emit(Opcode::kListSetRef, {Reg(0), Reg(0), Reg(0)});
  store.EmitReturn({});
  FunctionBuilder& caller = builder.AddFunction("caller", "r_");
  const uint16_t args[] = {0};
  caller.EmitCall(store.ordinal(), args, {});
  caller.EmitReturn({});
  auto module = Load(builder);
  ASSERT_TRUE(module);
  WorkBounds bounds(*module);
  EXPECT_TRUE(bounds.Of(caller.ordinal()).bounded);
  EXPECT_TRUE(bounds.Of(caller.ordinal()).stores_refs_in_lists);
}

}  // namespace
}  // namespace kiln::fuzz
