// Unit tests of the compiler IR: types, attributes, and the op/block/region
// structure with its editing utilities.
#include "compiler/ir/ir.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln::compiler {
namespace {

TEST(TypeTest, SpellingsAndEquality) {
  EXPECT_EQ(Type::I32().ToString(), "i32");
  EXPECT_EQ(Type::Integer(1).ToString(), "i1");
  EXPECT_EQ(Type::Index().ToString(), "index");
  EXPECT_EQ(Type::Float(16).ToString(), "f16");
  EXPECT_EQ(Type::BF16().ToString(), "bf16");
  EXPECT_EQ(Type::Tensor({4, Type::kDynamic}, Type::F32()).ToString(), "tensor<4x?xf32>");
  EXPECT_EQ(Type::Tensor({}, Type::F32()).ToString(), "tensor<f32>");
  EXPECT_EQ(Type::Function({Type::I32(), Type::F32()}, {Type::I32()}).ToString(),
            "(i32, f32) -> i32");
  EXPECT_EQ(Type::Function({}, {Type::I32(), Type::I64()}).ToString(), "() -> (i32, i64)");
  EXPECT_EQ(Type::Dialect("hal.buffer_view").ToString(), "!hal.buffer_view");
  EXPECT_EQ(Type::Dialect("foo.bar", "4, x").ToString(), "!foo.bar<4, x>");

  EXPECT_EQ(Type::I32(), Type::Integer(32));
  EXPECT_NE(Type::I32(), Type::I64());
  EXPECT_NE(Type::Index(), Type::I64());  // Same width, different kind.
  EXPECT_NE(Type::Float(16), Type::BF16());
  EXPECT_EQ(Type::Tensor({4}, Type::F32()), Type::Tensor({4}, Type::F32()));
  EXPECT_NE(Type::Tensor({4}, Type::F32()), Type::Tensor({5}, Type::F32()));
  EXPECT_NE(Type::Tensor({4}, Type::F32()), Type::Tensor({4}, Type::F64()));
  EXPECT_EQ(Type::Dialect("hal.device"), Type::Dialect("hal.device"));
  EXPECT_NE(Type::Dialect("hal.device"), Type::Dialect("hal.buffer"));
  EXPECT_TRUE(Type().is_null());
}

TEST(TypeTest, Predicates) {
  EXPECT_TRUE(Type::Index().is_integer_or_index());
  EXPECT_FALSE(Type::Index().is_integer());
  EXPECT_EQ(Type::Index().integer_width(), 64u);
  EXPECT_TRUE(Type::BF16().is_float());
  EXPECT_TRUE(Type::I32().is_scalar());
  EXPECT_FALSE(Type::Tensor({1}, Type::I32()).is_scalar());
  EXPECT_EQ(Type::Tensor({2, 3}, Type::I32()).shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Type::Tensor({2, 3}, Type::I32()).element_type(), Type::I32());
  EXPECT_TRUE(Type::I32().shape().empty());  // Not a tensor: empty, not a crash.
}

TEST(AttributeTest, IntegersAreCanonicalAtTheirWidth) {
  EXPECT_EQ(Attribute::Integer(255, Type::Integer(8)).integer_value, -1);
  EXPECT_EQ(Attribute::Integer(128, Type::Integer(8)).integer_value, -128);
  EXPECT_EQ(Attribute::Integer(3, Type::Integer(1)).integer_value, 1);
  EXPECT_EQ(Attribute::Integer(INT64_MIN, Type::Index()).integer_value, INT64_MIN);
  EXPECT_EQ(SignExtend(0xFFFF, 16), -1);
  EXPECT_EQ(ZeroExtend(-1, 16), 0xFFFFu);
  EXPECT_EQ(ZeroExtend(-1, 64), UINT64_MAX);
}

TEST(AttributeTest, Spellings) {
  EXPECT_EQ(Attribute::Integer(42, Type::I32()).ToString(), "42 : i32");
  EXPECT_EQ(Attribute::Integer(1, Type::I1()).ToString(), "true");
  EXPECT_EQ(Attribute::Bool(false).ToString(), "false");
  EXPECT_EQ(Attribute::Float(1.5, Type::F32()).ToString(), "1.5 : f32");
  EXPECT_EQ(Attribute::Float(2, Type::F64()).ToString(), "2.0 : f64");
  EXPECT_EQ(Attribute::Float(1e300, Type::F64()).ToString(), "1.0e+300 : f64");
  EXPECT_EQ(Attribute::String("a\"b\n").ToString(), "\"a\\\"b\\n\"");
  EXPECT_EQ(Attribute::SymbolRef({"exe", "entry"}).ToString(), "@exe::@entry");
  EXPECT_EQ(Attribute::Array({Attribute::Integer(1, Type::I64()), Attribute::Unit()}).ToString(),
            "[1 : i64, unit]");
  EXPECT_EQ(Attribute::Dictionary({{"a", Attribute::Integer(1, Type::I32())}, {"b", Attribute::Unit()}})
                .ToString(),
            "{a = 1 : i32, b}");
  EXPECT_EQ(Attribute::Dialect("hal.pipeline.layout", "constants = 1").ToString(),
            "#hal.pipeline.layout<constants = 1>");
  EXPECT_EQ(Attribute::Dialect("affine_map", "()[s0] -> (s0)").ToString(),
            "affine_map<()[s0] -> (s0)>");
}

TEST(AttributeTest, EqualityAndLookup) {
  Attribute dict = Attribute::Dictionary({{"x", Attribute::String("s")}});
  ASSERT_NE(dict.Find("x"), nullptr);
  EXPECT_EQ(*dict.Find("x"), Attribute::String("s"));
  EXPECT_EQ(dict.Find("y"), nullptr);
  EXPECT_EQ(Attribute::String("s").Find("x"), nullptr);
  EXPECT_NE(Attribute::Integer(1, Type::I32()), Attribute::Integer(1, Type::I64()));
  EXPECT_EQ(Attribute::Float(NAN, Type::F32()), Attribute::Float(NAN, Type::F32()));
}

TEST(OpTableTest, LookupAndTraits) {
  OpKind kind;
  ASSERT_TRUE(LookupOpKind("arith.addi", &kind));
  EXPECT_EQ(kind, OpKind::kAddI);
  EXPECT_TRUE(GetOpInfo(kind).traits & kOpPure);
  ASSERT_TRUE(LookupOpKind("return", &kind));
  EXPECT_EQ(kind, OpKind::kReturn);
  EXPECT_TRUE(GetOpInfo(kind).traits & kOpTerminator);
  ASSERT_TRUE(LookupOpKind("module", &kind));
  EXPECT_EQ(kind, OpKind::kModule);
  EXPECT_FALSE(LookupOpKind("arith.frobnicate", &kind));
  // Division traps on zero, so it must never be removed as dead code.
  EXPECT_FALSE(GetOpInfo(OpKind::kDivSI).traits & kOpPure);
  for (int i = 0; i < static_cast<int>(OpKind::kCount); ++i) {
    OpKind k = static_cast<OpKind>(i), found;
    ASSERT_TRUE(LookupOpKind(GetOpInfo(k).name, &found)) << GetOpInfo(k).name;
    EXPECT_EQ(found, k);
  }
}

TEST(OpTableTest, Predicates) {
  CmpIPredicate ip;
  ASSERT_TRUE(ParseCmpIPredicate("slt", &ip));
  EXPECT_EQ(static_cast<int>(ip), 2);
  EXPECT_EQ(CmpIPredicateName(CmpIPredicate::kUge), "uge");
  EXPECT_FALSE(ParseCmpIPredicate("olt", &ip));
  CmpFPredicate fp;
  ASSERT_TRUE(ParseCmpFPredicate("uno", &fp));
  EXPECT_EQ(static_cast<int>(fp), 14);
  EXPECT_EQ(CmpFPredicateName(CmpFPredicate::kTrue), "true");
  EXPECT_EQ(CmpFPredicateName(static_cast<CmpFPredicate>(99)), "");
}

// A module with one function `f(a, b) = a + b` built with OpBuilder.
struct SmallModule {
  std::unique_ptr<Operation> module = Operation::Create(OpKind::kModule, {});
  Operation* func = nullptr;
  Block* entry = nullptr;
  Operation* add = nullptr;

  SmallModule() {
    Block* top = module->AddRegion()->AddBlock();
    OpBuilder b(top);
    Type fn = Type::Function({Type::I32(), Type::I32()}, {Type::I32()});
    func = b.Create(OpKind::kFunc, {}, {}, {},
                    {{"sym_name", Attribute::String("f")},
                     {"function_type", Attribute::TypeAttr(fn)}});
    entry = func->AddRegion()->AddBlock();
    Value* x = entry->AddArgument(Type::I32(), {}, "x");
    Value* y = entry->AddArgument(Type::I32(), {}, "y");
    OpBuilder body(entry);
    add = body.Create(OpKind::kAddI, {}, {x, y}, {Type::I32()});
    body.Create(OpKind::kReturn, {}, {add->result(0)});
  }
};

TEST(IrTest, StructureAndParents) {
  SmallModule m;
  EXPECT_EQ(m.add->parent_block(), m.entry);
  EXPECT_EQ(m.add->parent_op(), m.func);
  EXPECT_EQ(m.func->parent_op(), m.module.get());
  EXPECT_EQ(m.entry->terminator()->kind(), OpKind::kReturn);
  EXPECT_EQ(m.add->result(0)->defining_op(), m.add);
  EXPECT_FALSE(m.add->result(0)->is_block_argument());
  EXPECT_EQ(m.entry->argument(1)->owner_block(), m.entry);
  EXPECT_EQ(m.entry->argument(1)->index(), 1u);
  EXPECT_EQ(m.entry->argument(1)->parent_block(), m.entry);
  EXPECT_EQ(m.add->result(0)->parent_block(), m.entry);
  EXPECT_EQ(LookupSymbol(m.module.get(), "f"), m.func);
  EXPECT_EQ(LookupSymbol(m.module.get(), "g"), nullptr);
  EXPECT_EQ(FunctionTypeOf(m.func).ToString(), "(i32, i32) -> i32");
  EXPECT_EQ(m.func->symbol_name(), "f");
}

TEST(IrTest, AttributesSetReplaceRemove) {
  SmallModule m;
  m.add->SetAttribute("tag", Attribute::Unit());
  m.add->SetAttribute("tag", Attribute::String("v"));
  ASSERT_NE(m.add->attribute("tag"), nullptr);
  EXPECT_EQ(m.add->attribute("tag")->text, "v");
  EXPECT_EQ(m.add->attributes.size(), 1u);
  m.add->RemoveAttribute("tag");
  EXPECT_EQ(m.add->attribute("tag"), nullptr);
}

TEST(IrTest, WalkOrders) {
  SmallModule m;
  std::vector<OpKind> pre, post;
  Walk(m.module.get(), [&](Operation* op) { pre.push_back(op->kind()); });
  WalkPostOrder(m.module.get(), [&](Operation* op) { post.push_back(op->kind()); });
  EXPECT_EQ(pre, (std::vector<OpKind>{OpKind::kModule, OpKind::kFunc, OpKind::kAddI,
                                      OpKind::kReturn}));
  EXPECT_EQ(post, (std::vector<OpKind>{OpKind::kAddI, OpKind::kReturn, OpKind::kFunc,
                                       OpKind::kModule}));
}

TEST(IrTest, ReplaceUsesAndCountUses) {
  SmallModule m;
  Value* x = m.entry->argument(0);
  Value* y = m.entry->argument(1);
  auto uses = CountUses(m.module.get());
  EXPECT_EQ(uses[x], 1u);
  EXPECT_EQ(uses[m.add->result(0)], 1u);
  // Chains are followed: y → x, and the sum → y → x.
  ReplaceUses(m.module.get(), {{y, x}, {m.add->result(0), y}});
  EXPECT_EQ(m.add->operands[1], x);
  EXPECT_EQ(m.entry->terminator()->operands[0], x);
  // A cycle (a pass bug) terminates instead of hanging.
  ReplaceUses(m.module.get(), {{x, y}, {y, x}});
}

TEST(IrTest, BlockEditing) {
  SmallModule m;
  Region* body = m.func->region(0);
  Block* second = body->AddBlock();
  // Move the return into a new block and branch there.
  m.entry->MoveTail(1, second);
  EXPECT_EQ(m.entry->operations().size(), 1u);
  EXPECT_EQ(second->operations().size(), 1u);
  EXPECT_EQ(second->operations()[0]->parent_block(), second);
  OpBuilder b(m.entry);
  Operation* br = b.Create(OpKind::kBr, {});
  br->successors.push_back({second, {}});
  EXPECT_EQ(m.entry->terminator(), br);
  EXPECT_EQ(body->IndexOf(second), 1u);
  EXPECT_EQ(m.entry->IndexOf(br), 1u);

  // Insert before the branch, then take it out again.
  OpBuilder before(m.entry, 1);
  Value* c = before.CreateConstant({}, Attribute::Integer(7, Type::I32()));
  EXPECT_EQ(m.entry->operations()[1]->result(0), c);
  std::unique_ptr<Operation> taken = m.entry->Take(1);
  EXPECT_EQ(taken->parent_block(), nullptr);
  EXPECT_EQ(m.entry->operations().size(), 2u);

  m.entry->EraseIf([](Operation* op) { return op->kind() == OpKind::kBr; });
  EXPECT_EQ(m.entry->terminator(), nullptr);
  body->EraseBlocksIf([&](Block* block) { return block == second; });
  EXPECT_EQ(body->num_blocks(), 1u);
}

TEST(IrTest, TakeRegion) {
  SmallModule m;
  std::unique_ptr<Region> region = m.func->TakeRegion(0);
  EXPECT_EQ(m.func->num_regions(), 0u);
  EXPECT_EQ(region->parent_op(), nullptr);
  EXPECT_EQ(region->num_blocks(), 1u);
}

}  // namespace
}  // namespace kiln::compiler
