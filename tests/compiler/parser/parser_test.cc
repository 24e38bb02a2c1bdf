// The parser's shared grammar: top level, aliases, types, attributes, the
// generic form, locations, result lists, forward references and scoping.
#include <cmath>

#include "tests/compiler/parser/test_util.h"

namespace kiln::compiler::testing {
namespace {

using Kind = Attribute::Kind;

TEST(ParserTest, EmptyFileIsAnEmptyModule) {
  for (std::string_view text : {"", "  \n// only a comment\n", "\n\n"}) {
    auto p = ParseOk(text);
    ASSERT_TRUE(p->ok);
    EXPECT_EQ(p->module->kind(), OpKind::kModule);
    EXPECT_TRUE(p->module->region(0)->front()->empty());
  }
}

TEST(ParserTest, BareTopLevelOpsAreWrappedInAModule) {
  auto p = ParseOk("func.func private @a()\nutil.global @g : i32\n");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(p->module->kind(), OpKind::kModule);
  EXPECT_EQ(p->module->symbol_name(), "");
  EXPECT_EQ(OpNames(p->module->region(0)->front()), "func.func,util.global");
  EXPECT_EQ(p->module->loc, (Location{0, 1, 1}));
}

TEST(ParserTest, ASingleModuleIsTheResult) {
  auto p = ParseOk("// header\nmodule @m {\n  func.func private @a()\n}\n");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(p->module->symbol_name(), "m");
  EXPECT_EQ(p->module->loc, (Location{0, 2, 1}));
  EXPECT_EQ(OpNames(p->module->region(0)->front()), "func.func");
}

TEST(ParserTest, TwoModulesAreWrapped) {
  auto p = ParseOk("module @a {}\nmodule @b {}\n");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(p->module->symbol_name(), "");
  EXPECT_EQ(OpNames(p->module->region(0)->front()), "builtin.module,builtin.module");
}

TEST(ParserTest, Types) {
  auto p = ParseOk(R"(
func.func private @f(i1, i7, i64, index, f16, bf16, f32, f64, none, tensor<4x?xf32>, tensor<f32>,
                     tensor<0x1x2xi8>, (i32, f32) -> i32, () -> (i32, i32), !hal.buffer_view,
                     !hal.device, !foo.bar<a, <b>, "c>">, tensor<?x?x!hal.buffer_view>))");
  ASSERT_TRUE(p->ok);
  const std::vector<Type>& inputs = FunctionTypeOf(p->Func("f")).inputs();
  ASSERT_EQ(inputs.size(), 18u);
  EXPECT_EQ(inputs[0], Type::I1());
  EXPECT_EQ(inputs[1], Type::Integer(7));
  EXPECT_EQ(inputs[2], Type::I64());
  EXPECT_EQ(inputs[3], Type::Index());
  EXPECT_EQ(inputs[4], Type::Float(16));
  EXPECT_EQ(inputs[5], Type::BF16());
  EXPECT_EQ(inputs[6], Type::F32());
  EXPECT_EQ(inputs[7], Type::F64());
  EXPECT_EQ(inputs[8], Type::None());
  EXPECT_EQ(inputs[9], Type::Tensor({4, Type::kDynamic}, Type::F32()));
  EXPECT_EQ(inputs[10], Type::Tensor({}, Type::F32()));
  EXPECT_EQ(inputs[11], Type::Tensor({0, 1, 2}, Type::Integer(8)));
  EXPECT_EQ(inputs[12], Type::Function({Type::I32(), Type::F32()}, {Type::I32()}));
  EXPECT_EQ(inputs[13], Type::Function({}, {Type::I32(), Type::I32()}));
  EXPECT_EQ(inputs[14], Type::Dialect("hal.buffer_view"));
  EXPECT_EQ(inputs[15], Type::Dialect("hal.device"));
  EXPECT_EQ(inputs[16], Type::Dialect("foo.bar", "a, <b>, \"c>\""));
  EXPECT_EQ(inputs[17].ToString(), "tensor<?x?x!hal.buffer_view>");
}

TEST(ParserTest, TypeAliases) {
  auto p = ParseOk(R"(
!bv = !hal.buffer_view
!vec = tensor<4xf32>
!fn = (!bv) -> !vec
func.func private @f(!bv, !vec, !fn) -> !vec
)");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(FunctionTypeOf(p->Func("f")).ToString(),
            "(!hal.buffer_view, tensor<4xf32>, (!hal.buffer_view) -> tensor<4xf32>) -> "
            "tensor<4xf32>");
}

// The attributes of the single util.global of `text` other than sym_name/type.
std::unique_ptr<Parsed> ParseGlobalAttrs(std::string_view attrs) {
  return ParseOk("\"util.global\"() {sym_name = \"g\", type = i32, " + std::string(attrs) +
                 "} : () -> ()\n");
}

TEST(ParserTest, Attributes) {
  auto p = ParseGlobalAttrs(
      "a = 42, b = -7 : i8, c = 1.5 : f32, d = true, e = \"s\\tx\", f = unit, g = f32, "
      "h = @a::@b, i = [1 : i32, \"x\", [false]], j = array<i32: 1, -2>, "
      "k = {x = 1, y}, l = dense<[1.0, 2.0]> : tensor<2xf32>, m = 0x7F800000 : f32, "
      "n = array<f64>, o = (i32) -> i64, p = @\"quoted sym\", q = array<f32: 1.5, -2.0>, "
      "\"quoted key\" = 3 : index, r = -0x10 : i32");
  ASSERT_TRUE(p->ok);
  Operation* g = p->TopOps()[0].get();
  auto attr = [&](std::string_view name) { return *g->attribute(name); };
  EXPECT_EQ(attr("a").kind, Kind::kInteger);
  EXPECT_EQ(attr("a").type, Type::I64());
  EXPECT_EQ(attr("b").integer_value, -7);
  EXPECT_EQ(attr("b").type, Type::Integer(8));
  EXPECT_EQ(attr("c").float_value, 1.5);
  EXPECT_EQ(attr("d").kind, Kind::kBool);
  EXPECT_EQ(attr("e").text, "s\tx");
  EXPECT_EQ(attr("f").kind, Kind::kUnit);
  EXPECT_EQ(attr("g").kind, Kind::kType);
  EXPECT_EQ(attr("g").type, Type::F32());
  EXPECT_EQ(attr("h").symbols, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(attr("i").ToString(), "[1 : i32, \"x\", [false]]");
  EXPECT_EQ(attr("j").kind, Kind::kDenseArray);
  EXPECT_EQ(attr("j").ToString(), "array<i32: 1, -2>");
  EXPECT_EQ(attr("k").kind, Kind::kDictionary);
  EXPECT_EQ(attr("k").Find("y")->kind, Kind::kUnit);
  EXPECT_EQ(attr("l").text, "dense");
  EXPECT_EQ(attr("l").body, "[1.0, 2.0]");
  EXPECT_EQ(attr("l").type.ToString(), "tensor<2xf32>");
  EXPECT_TRUE(std::isinf(attr("m").float_value));
  EXPECT_TRUE(attr("n").elements.empty());
  EXPECT_EQ(attr("n").type, Type::F64());
  EXPECT_EQ(attr("o").type.ToString(), "(i32) -> i64");
  EXPECT_EQ(attr("p").symbols, std::vector<std::string>{"quoted sym"});
  EXPECT_EQ(attr("q").ToString(), "array<f32: 1.5, -2.0>");
  EXPECT_EQ(attr("quoted key").type, Type::Index());
  EXPECT_EQ(attr("r").integer_value, -16);
}

TEST(ParserTest, IntegerRanges) {
  auto p = ParseGlobalAttrs(
      "a = 255 : i8, b = -128 : i8, c = 18446744073709551615 : i64, "
      "d = -9223372036854775808 : i64, e = 1 : i1, f = 0xFFFFFFFF : i32");
  ASSERT_TRUE(p->ok);
  Operation* g = p->TopOps()[0].get();
  EXPECT_EQ(g->attribute("a")->integer_value, -1);
  EXPECT_EQ(g->attribute("b")->integer_value, -128);
  EXPECT_EQ(g->attribute("c")->integer_value, -1);
  EXPECT_EQ(g->attribute("d")->integer_value, INT64_MIN);
  EXPECT_EQ(g->attribute("e")->kind, Kind::kBool);
  EXPECT_EQ(g->attribute("f")->integer_value, -1);
}

TEST(ParserTest, HalDialectAttributesKeepTheirBody) {
  // The attribute bodies of seed 004's hal.executable.source, used in an op's
  // attribute dictionary (generic form of a known op).
  auto p = ParseOk(R"mlir(
#nvptx_sm_52_target = #hal.executable.target<"cuda", "cuda-nvptx-fb">
#map = affine_map<()[s0] -> (s0 ceildiv 64)>
"util.global"() {sym_name = "x", type = i32,
  layout = #hal.pipeline.layout<push_constants = 1, sets = [
    <0, bindings = [
      <0, storage_buffer, ReadOnly>,
      <1, storage_buffer, ReadOnly>,
      <2, storage_buffer>
    ]>
  ]>,
  count = affine_map<()[s0] -> (s0 ceildiv 64)>,
  aliased = #map,
  objects = #hal.executable.objects<{
    #nvptx_sm_52_target = [
      #hal.executable.object<{path = "kernels_sm_80.ptx"}>
    ]
  }>,
  workgroup_size = [64 : index, 1 : index, 1 : index],
  flag = #hal.flag,
  set = affine_set<(d0) : (d0 - 10 >= 0)>
} : () -> ()
)mlir");
  ASSERT_TRUE(p->ok);
  Operation* g = p->TopOps()[0].get();
  const Attribute* layout = g->attribute("layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(layout->kind, Kind::kDialect);
  EXPECT_EQ(layout->text, "hal.pipeline.layout");
  EXPECT_EQ(layout->body,
            "push_constants = 1, sets = [\n    <0, bindings = [\n      <0, storage_buffer, "
            "ReadOnly>,\n      <1, storage_buffer, ReadOnly>,\n      <2, storage_buffer>\n    "
            "]>\n  ]");
  const Attribute* count = g->attribute("count");
  EXPECT_EQ(count->text, "affine_map");
  EXPECT_EQ(count->body, "()[s0] -> (s0 ceildiv 64)");
  EXPECT_EQ(count->ToString(), "affine_map<()[s0] -> (s0 ceildiv 64)>");
  EXPECT_EQ(*g->attribute("aliased"), *count);
  // The alias inside the raw body is replaced by its definition.
  const Attribute* objects = g->attribute("objects");
  EXPECT_EQ(objects->text, "hal.executable.objects");
  EXPECT_EQ(objects->body,
            "{\n    #hal.executable.target<\"cuda\", \"cuda-nvptx-fb\"> = [\n      "
            "#hal.executable.object<{path = \"kernels_sm_80.ptx\"}>\n    ]\n  }");
  EXPECT_EQ(g->attribute("workgroup_size")->elements.size(), 3u);
  EXPECT_EQ(g->attribute("flag")->ToString(), "#hal.flag");
  EXPECT_EQ(g->attribute("set")->body, "(d0) : (d0 - 10 >= 0)");
}

TEST(ParserTest, AttributeAliases) {
  auto p = ParseOk(R"(
#zero = 0 : i32
#dict = {a = 1 : i32}
#layout = #hal.pipeline.layout<push_constants = 0, sets = []>
util.global @g : i32 = #zero
"util.global"() {sym_name = "h", type = i32, d = #dict, l = #layout} : () -> ()
func.func @f() -> i32 {
  %c = arith.constant #zero
  return %c : i32
}
)");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(p->Func("g")->attribute("initial_value")->ToString(), "0 : i32");
  EXPECT_EQ(p->Func("h")->attribute("d")->ToString(), "{a = 1 : i32}");
  EXPECT_EQ(p->Func("h")->attribute("l")->text, "hal.pipeline.layout");
  Operation* c = FirstOpOf(*p);
  EXPECT_EQ(c->result(0)->type, Type::I32());
}

// IREE gives device aliases a type: `#device = #hal.device.target<...> : !hal.device`.
TEST(ParserTest, TypedDialectAttributeAlias) {
  auto p = ParseOk(R"(
#device = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "system-elf-x86_64">]> : !hal.device
module attributes {hal.device.targets = [#device]} {
}
)");
  ASSERT_TRUE(p->ok);
  const Attribute* targets = p->module->attribute("hal.device.targets");
  ASSERT_NE(targets, nullptr);
  ASSERT_EQ(targets->elements.size(), 1u);
  EXPECT_EQ(targets->elements[0].text, "hal.device.target");
  EXPECT_EQ(targets->elements[0].type, Type::Dialect("hal.device"));
}

TEST(ParserTest, GenericFormShapes) {
  auto p = ParseOk(R"(
"func.func"() <{function_type = (i32, i1) -> i32, sym_name = "f"}> ({
^bb0(%a: i32, %c: i1):
  %0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
  %1 = "arith.cmpi"(%a, %0) {predicate = 2 : i64} : (i32, i32) -> i1
  "cf.cond_br"(%c, %a, %0)[^bb1, ^bb2] {operandSegmentSizes = array<i32: 1, 1, 1>} : (i1, i32, i32) -> ()
^bb1(%x: i32):
  "cf.br"(%x)[^bb2] : (i32) -> ()
^bb2(%y: i32):
  "cf.switch"(%y, %y, %a, %0)[^bb3, ^bb3, ^bb4] {case_values = array<i32: 1, 2>, case_operand_segments = array<i32: 1, 0>, operandSegmentSizes = array<i32: 1, 2, 1>} : (i32, i32, i32, i32) -> ()
^bb3(%p: i32, %q: i32):
  "func.return"(%p) : (i32) -> ()
^bb4:
  "func.return"(%y) : (i32) -> ()
}) : () -> ()
)");
  ASSERT_TRUE(p->ok);
  Operation* f = p->Func("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FunctionTypeOf(f).ToString(), "(i32, i1) -> i32");
  Region* body = f->region(0);
  ASSERT_EQ(body->num_blocks(), 5u);
  Block* entry = body->front();
  EXPECT_EQ(entry->num_arguments(), 2u);
  Operation* add = entry->operations()[0].get();
  EXPECT_EQ(add->kind(), OpKind::kAddI);
  EXPECT_EQ(add->attribute("overflowFlags")->ToString(), "#arith.overflow<none>");
  Operation* cond_br = entry->operations()[2].get();
  EXPECT_EQ(cond_br->operands, std::vector<Value*>{entry->argument(1)});
  EXPECT_EQ(cond_br->successors[0].arguments, std::vector<Value*>{entry->argument(0)});
  EXPECT_EQ(cond_br->successors[1].arguments, std::vector<Value*>{add->result(0)});
  EXPECT_EQ(cond_br->attribute("operandSegmentSizes"), nullptr);  // consumed
  Operation* br = body->block(1)->operations()[0].get();
  EXPECT_TRUE(br->operands.empty());
  EXPECT_EQ(br->successors[0].arguments, std::vector<Value*>{body->block(1)->argument(0)});
  Operation* sw = body->block(2)->operations()[0].get();
  Value* y = body->block(2)->argument(0);
  EXPECT_EQ(sw->operands, std::vector<Value*>{y});
  ASSERT_EQ(sw->successors.size(), 3u);
  EXPECT_EQ(sw->successors[0].arguments, (std::vector<Value*>{y, entry->argument(0)}));
  EXPECT_EQ(sw->successors[1].arguments, std::vector<Value*>{add->result(0)});
  EXPECT_TRUE(sw->successors[2].arguments.empty());
  EXPECT_EQ(sw->attribute("case_operand_segments"), nullptr);
  EXPECT_EQ(sw->attribute("case_values")->ToString(), "array<i32: 1, 2>");
}

// Custom and generic spellings of the same program print identically.
TEST(ParserTest, GenericAndCustomFormsAreEquivalent) {
  auto custom = ParseOk(R"(
func.func @f(%a: i32, %x: f32, %c: i1, %n: index) -> i32 {
  %k = arith.constant 3 : i32
  %s = arith.addi %a, %k : i32
  %m = arith.mulf %x, %x fastmath<fast> : f32
  %cmp = arith.cmpi sge, %s, %a : i32
  %sel = arith.select %cmp, %s, %a : i32
  %e = arith.extsi %sel : i32 to i64
  %r = scf.if %c -> (i32) {
    scf.yield %s : i32
  } else {
    scf.yield %a : i32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (i32) {
    %acc2 = arith.addi %acc, %k : i32
    scf.yield %acc2 : i32
  }
  %v = util.global.load @g : i32
  %call = func.call @f(%t, %x, %c, %n) : (i32, f32, i1, index) -> i32
  cf.assert %c, "ok"
  cf.cond_br %c, ^bb1(%call : i32), ^bb1(%v : i32)
^bb1(%z: i32):
  return %z : i32
}
util.global private mutable @g : i32 = 1 : i32
)");
  auto generic = ParseOk(R"(
"func.func"() <{function_type = (i32, f32, i1, index) -> i32, sym_name = "f"}> ({
^bb0(%a: i32, %x: f32, %c: i1, %n: index):
  %k = "arith.constant"() <{value = 3 : i32}> : () -> i32
  %s = "arith.addi"(%a, %k) : (i32, i32) -> i32
  %m = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
  %cmp = "arith.cmpi"(%s, %a) <{predicate = 5 : i64}> : (i32, i32) -> i1
  %sel = "arith.select"(%cmp, %s, %a) : (i1, i32, i32) -> i32
  %e = "arith.extsi"(%sel) : (i32) -> i64
  %r = "scf.if"(%c) ({
    "scf.yield"(%s) : (i32) -> ()
  }, {
    "scf.yield"(%a) : (i32) -> ()
  }) : (i1) -> i32
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %t = "scf.for"(%c0, %n, %c1, %r) ({
  ^bb0(%i: index, %acc: i32):
    %acc2 = "arith.addi"(%acc, %k) : (i32, i32) -> i32
    "scf.yield"(%acc2) : (i32) -> ()
  }) : (index, index, index, i32) -> i32
  %v = "util.global.load"() <{global = @g}> : () -> i32
  %call = "func.call"(%t, %x, %c, %n) <{callee = @f}> : (i32, f32, i1, index) -> i32
  "cf.assert"(%c) <{msg = "ok"}> : (i1) -> ()
  "cf.cond_br"(%c, %call, %v)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i32, i32) -> ()
^bb1(%z: i32):
  "func.return"(%z) : (i32) -> ()
}) : () -> ()
"util.global"() <{sym_name = "g", type = i32, is_mutable, initial_value = 1 : i32, sym_visibility = "private"}> : () -> ()
)");
  ASSERT_TRUE(custom->ok);
  ASSERT_TRUE(generic->ok);
  EXPECT_EQ(PrintOperation(*custom->module), PrintOperation(*generic->module));
}

TEST(ParserTest, MultiResultValues) {
  auto p = ParseOk(R"(
func.func private @two() -> (i32, i32)
func.func private @three() -> (i32, f32, i64)
func.func @f() -> i32 {
  %r:2 = func.call @two() : () -> (i32, i32)
  %a, %b:2 = func.call @three() : () -> (i32, f32, i64)
  %s = arith.addi %r#0, %r#1 : i32
  %t = arith.addi %r, %a : i32
  %u = arith.extsi %a : i32 to i64
  %v = arith.addi %u, %b#1 : i64
  return %s : i32
})");
  ASSERT_TRUE(p->ok);
  Block* entry = p->Func("f")->region(0)->front();
  Operation* two = entry->operations()[0].get();
  Operation* three = entry->operations()[1].get();
  EXPECT_EQ(two->result(0)->name, "r#0");
  EXPECT_EQ(two->result(1)->name, "r#1");
  EXPECT_EQ(three->result(0)->name, "a");
  EXPECT_EQ(three->result(1)->name, "b#0");
  EXPECT_EQ(three->result(2)->name, "b#1");
  Operation* s = entry->operations()[2].get();
  EXPECT_EQ(s->operands, two->results());
  Operation* t = entry->operations()[3].get();
  EXPECT_EQ(t->operands, (std::vector<Value*>{two->result(0), three->result(0)}));
  Operation* v = entry->operations()[5].get();
  EXPECT_EQ(v->operands[1], three->result(2));
  EXPECT_EQ(two->result(1)->loc, (Location{0, 5, 3}));
}

TEST(ParserTest, ForwardReferences) {
  auto p = ParseOk(R"(
func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^bb2, ^bb1
^bb1:
  cf.br ^bb3(%later : i32)
^bb2:
  %later = arith.constant 1 : i32
  %m:2 = func.call @g() : () -> (i32, i32)
  cf.br ^bb1
^bb3(%x: i32):
  %y = arith.addi %x, %m#1 : i32
  return %y : i32
}
func.func private @g() -> (i32, i32)
)");
  ASSERT_TRUE(p->ok);
  Region* body = p->Func("f")->region(0);
  ASSERT_EQ(body->num_blocks(), 4u);
  // Blocks are in definition order, whatever the order of their uses.
  EXPECT_EQ(body->block(1)->label, "bb1");
  EXPECT_EQ(body->block(2)->label, "bb2");
  EXPECT_EQ(body->block(3)->label, "bb3");
  Operation* cond_br = body->front()->operations()[0].get();
  EXPECT_EQ(cond_br->successors[0].block, body->block(2));
  EXPECT_EQ(cond_br->successors[1].block, body->block(1));
  Operation* br = body->block(1)->operations()[0].get();
  Operation* later = body->block(2)->operations()[0].get();
  EXPECT_EQ(br->successors[0].block, body->block(3));
  EXPECT_EQ(br->successors[0].arguments, std::vector<Value*>{later->result(0)});
  Operation* add = body->block(3)->operations()[0].get();
  EXPECT_EQ(add->operands[1], body->block(2)->operations()[1]->result(1));
}

TEST(ParserTest, ForwardReferenceInNestedRegion) {
  auto p = ParseOk(R"(
func.func @f(%c: i1) {
  cf.br ^bb1
^bb2:
  scf.if %c {
    %z = arith.addi %v, %v : i32
  }
  return
^bb1:
  %v = arith.constant 3 : i32
  cf.br ^bb2
})");
  ASSERT_TRUE(p->ok);
  Region* body = p->Func("f")->region(0);
  Operation* scf_if = body->block(1)->operations()[0].get();
  Operation* add = scf_if->region(0)->front()->operations()[0].get();
  EXPECT_EQ(add->operands[0], body->block(2)->operations()[0]->result(0));
}

TEST(ParserTest, NestedRegionNamesAreScoped) {
  // A name defined in a nested region is gone after it: redefining it is fine.
  auto p = ParseOk(R"(
func.func @f(%c: i1) -> i32 {
  scf.if %c {
    %x = arith.constant 1 : i32
  }
  %x = arith.constant 2 : i32
  return %x : i32
}
func.func @g(%c: i1) -> i32 {
  %x = arith.constant 5 : i32
  return %x : i32
})");
  ASSERT_TRUE(p->ok);
  Block* entry = p->Func("f")->region(0)->front();
  EXPECT_EQ(entry->operations()[2]->operands[0], entry->operations()[1]->result(0));
}

TEST(ParserTest, LocationTrailers) {
  auto p = ParseOk(R"(
func.func @f(%a: i32 loc("f.py":1:1)) -> i32 {
  %0 = arith.addi %a, %a : i32 loc("model.py":3:4)
  %1 = arith.addi %0, %a : i32 loc(#loc1)
  %2 = arith.addi %1, %a : i32 loc(unknown)
  %3 = arith.addi %2, %a : i32 loc(callsite("callee.py":7:8 at "caller.py":9:10))
  %4 = arith.addi %3, %a : i32 loc(fused["a.py":11:12, "b.py":1:2])
  %5 = arith.addi %4, %a : i32 loc("name"("named.py":13:14))
  %6 = arith.addi %5, %a : i32 loc(#loc2)
  %7 = arith.addi %6, %a : i32 loc(callsite(#loc3 at "outer.py":15:16))
  return %7 : i32 loc("range.py":1:2 to 3:4)
} loc(#loc1)
#loc1 = loc("alias.py":5:6)
#loc2 = loc(#loc1)
#loc3 = loc(unknown)
)");
  ASSERT_TRUE(p->ok);
  const SourceManager& sources = p->sources;
  Block* entry = p->Func("f")->region(0)->front();
  auto debug = [&](size_t i) { return sources.Format(entry->operations()[i]->debug_loc); };
  EXPECT_EQ(debug(0), "model.py:3:4");
  EXPECT_EQ(debug(1), "alias.py:5:6");
  EXPECT_EQ(debug(2), "test.mlir:5:3");  // unknown: stays where the op is written
  EXPECT_EQ(debug(3), "callee.py:7:8");
  EXPECT_EQ(debug(4), "a.py:11:12");
  EXPECT_EQ(debug(5), "named.py:13:14");
  EXPECT_EQ(debug(6), "alias.py:5:6");
  EXPECT_EQ(debug(7), "outer.py:15:16");
  EXPECT_EQ(debug(8), "range.py:1:2");
  EXPECT_EQ(sources.Format(p->Func("f")->debug_loc), "alias.py:5:6");
  // `loc` is always where the op is written.
  EXPECT_EQ(sources.Format(entry->operations()[0]->loc), "test.mlir:3:3");
  EXPECT_EQ(sources.Format(entry->operations()[8]->loc), "test.mlir:11:3");
  EXPECT_FALSE(sources.has_text(entry->operations()[0]->debug_loc.file));
}

TEST(ParserTest, LocationsOfOpsValuesAndBlocks) {
  auto p = ParseOk(
      "func.func @f(%a: i32) {\n  %x = arith.addi %a, %a : i32\n"
      "  cf.br ^bb1\n^bb1:\n  return\n}\n");
  ASSERT_TRUE(p->ok);
  Region* body = p->Func("f")->region(0);
  Operation* add = body->front()->operations()[0].get();
  EXPECT_EQ(add->loc, (Location{0, 2, 3}));
  EXPECT_EQ(add->debug_loc, add->loc);
  EXPECT_EQ(add->result(0)->loc, (Location{0, 2, 3}));
  EXPECT_EQ(add->result(0)->name, "x");
  EXPECT_EQ(body->front()->operations()[1]->loc, (Location{0, 3, 3}));
  EXPECT_EQ(body->block(1)->loc, (Location{0, 4, 1}));
  EXPECT_EQ(p->Func("f")->loc, (Location{0, 1, 1}));
}

TEST(ParserTest, QuotedSymbolsAndOperationNames) {
  auto p = ParseOk(R"(
func.func private @"weird name"(i32)
"func.return"() : () -> ()
)");
  ASSERT_TRUE(p->ok);
  EXPECT_NE(p->Func("weird name"), nullptr);
}

TEST(ParserTest, UnqualifiedReturnAndCall) {
  auto p = ParseOk("func.func @f() {\n  call @f() : () -> ()\n  return\n}\n");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(OpNames(p->Func("f")->region(0)->front()), "func.call,func.return");
}

}  // namespace
}  // namespace kiln::compiler::testing
