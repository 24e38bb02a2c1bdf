// The custom form of each op in ir/ops.h parses into the op's generic shape.
#include <cmath>

#include "tests/compiler/parser/test_util.h"

namespace kiln::compiler::testing {
namespace {

using Kind = Attribute::Kind;

// Parses `body` as the body of `func.func @f(<params>) -> <results>` and
// returns the parsed program; the test fails on a parse error.
std::unique_ptr<Parsed> ParseBody(std::string_view params, std::string_view body,
                                  std::string_view results = "") {
  std::string text = "func.func @f(" + std::string(params) + ")";
  if (!results.empty()) text += " -> " + std::string(results);
  text += " {\n" + std::string(body) + "\n}\n";
  return ParseOk(text);
}

Block* EntryOf(const Parsed& p) { return p.Func("f")->region(0)->front(); }
Operation* OpAt(const Parsed& p, size_t i) { return EntryOf(p)->operations()[i].get(); }

TEST(ParserOpsTest, FuncWithBody) {
  auto p = ParseOk(R"(
func.func @f(%a: i32, %b: f32 {kiln.noalias}) -> (i32, f32) attributes {kiln.inline} {
  return %a, %b : i32, f32
})");
  ASSERT_TRUE(p->ok);
  Operation* f = p->Func("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind(), OpKind::kFunc);
  EXPECT_EQ(f->symbol_name(), "f");
  EXPECT_EQ(FunctionTypeOf(f).ToString(), "(i32, f32) -> (i32, f32)");
  EXPECT_EQ(f->attribute("sym_visibility"), nullptr);
  ASSERT_NE(f->attribute("arg_attrs"), nullptr);
  EXPECT_EQ(f->attribute("arg_attrs")->ToString(), "[{}, {kiln.noalias}]");
  EXPECT_EQ(f->attribute("res_attrs"), nullptr);
  ASSERT_NE(f->attribute("kiln.inline"), nullptr);
  EXPECT_EQ(f->attribute("kiln.inline")->kind, Kind::kUnit);
  ASSERT_EQ(f->num_regions(), 1u);
  Block* entry = f->region(0)->front();
  ASSERT_EQ(entry->num_arguments(), 2u);
  EXPECT_EQ(entry->argument(0)->name, "a");
  EXPECT_EQ(entry->argument(0)->type, Type::I32());
  EXPECT_EQ(entry->argument(1)->type, Type::F32());
  EXPECT_EQ(entry->argument(0)->loc, (Location{0, 2, 14}));
  Operation* ret = entry->operations()[0].get();
  EXPECT_EQ(ret->kind(), OpKind::kReturn);
  ASSERT_EQ(ret->operands.size(), 2u);
  EXPECT_EQ(ret->operands[0], entry->argument(0));
  EXPECT_EQ(ret->operands[1], entry->argument(1));
}

TEST(ParserOpsTest, FuncDeclarations) {
  auto p = ParseOk(R"(
func.func private @mod.fn(i32, !hal.buffer_view) -> i32
func.func public @g()
func.func nested @h(%x: i32) -> (f32 {kiln.result})
)");
  ASSERT_TRUE(p->ok);
  Operation* fn = p->Func("mod.fn");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->attribute("sym_visibility")->text, "private");
  EXPECT_EQ(FunctionTypeOf(fn).ToString(), "(i32, !hal.buffer_view) -> i32");
  EXPECT_TRUE(fn->region(0)->empty());
  Operation* g = p->Func("g");
  EXPECT_EQ(g->attribute("sym_visibility"), nullptr);  // public is the default
  EXPECT_EQ(FunctionTypeOf(g).ToString(), "() -> ()");
  Operation* h = p->Func("h");
  EXPECT_EQ(h->attribute("sym_visibility")->text, "nested");
  EXPECT_EQ(h->attribute("res_attrs")->ToString(), "[{kiln.result}]");
  EXPECT_TRUE(h->region(0)->empty());
}

TEST(ParserOpsTest, ReturnAndCall) {
  auto p = ParseBody("%a: i32", R"(
  %r = func.call @g(%a) : (i32) -> i32
  %s:2 = call @h::@k(%r, %a) {kiln.tail} : (i32, i32) -> (i32, f32)
  call @v() : () -> ()
  return)");
  ASSERT_TRUE(p->ok);
  Operation* call = OpAt(*p, 0);
  EXPECT_EQ(call->kind(), OpKind::kCall);
  EXPECT_EQ(call->attribute("callee")->ToString(), "@g");
  ASSERT_EQ(call->operands.size(), 1u);
  EXPECT_EQ(call->operands[0], EntryOf(*p)->argument(0));
  EXPECT_EQ(call->result_types(), std::vector<Type>{Type::I32()});
  Operation* call2 = OpAt(*p, 1);
  EXPECT_EQ(call2->attribute("callee")->symbols, (std::vector<std::string>{"h", "k"}));
  EXPECT_NE(call2->attribute("kiln.tail"), nullptr);
  EXPECT_EQ(call2->num_results(), 2u);
  EXPECT_EQ(call2->operands[0], call->result(0));
  EXPECT_EQ(OpAt(*p, 2)->num_results(), 0u);
  Operation* ret = OpAt(*p, 3);
  EXPECT_EQ(ret->kind(), OpKind::kReturn);
  EXPECT_TRUE(ret->operands.empty());
}

TEST(ParserOpsTest, Constants) {
  auto p = ParseBody("", R"(
  %a = arith.constant 42 : i32
  %b = arith.constant 1.5 : f32
  %c = arith.constant true
  %d = arith.constant -1 : index
  %e = arith.constant 255 : i8
  %f = arith.constant 0x7FC00000 : f32
  %g = arith.constant 7
  %h = arith.constant -2.0e-3 : f64
  %i = arith.constant {kiln.tag} 0x3C00 : f16
  %j = arith.constant dense<[1, 2]> : tensor<2xi32>
  %k = arith.constant 1 : i1
  return)");
  ASSERT_TRUE(p->ok);
  auto value = [&](size_t i) { return *OpAt(*p, i)->attribute("value"); };
  EXPECT_EQ(value(0).kind, Kind::kInteger);
  EXPECT_EQ(value(0).integer_value, 42);
  EXPECT_EQ(value(0).type, Type::I32());
  EXPECT_EQ(OpAt(*p, 0)->result(0)->type, Type::I32());
  EXPECT_EQ(value(1).kind, Kind::kFloat);
  EXPECT_EQ(value(1).float_value, 1.5);
  EXPECT_EQ(OpAt(*p, 1)->result(0)->type, Type::F32());
  EXPECT_EQ(value(2).kind, Kind::kBool);
  EXPECT_EQ(value(2).integer_value, 1);
  EXPECT_EQ(OpAt(*p, 2)->result(0)->type, Type::I1());
  EXPECT_EQ(value(3).integer_value, -1);
  EXPECT_EQ(value(3).type, Type::Index());
  EXPECT_EQ(value(4).integer_value, -1);  // 255 : i8 is -1 sign-extended
  EXPECT_TRUE(std::isnan(value(5).float_value));
  EXPECT_EQ(value(5).type, Type::F32());
  EXPECT_EQ(value(6).type, Type::I64());  // MLIR's default integer type
  EXPECT_DOUBLE_EQ(value(7).float_value, -2.0e-3);
  EXPECT_EQ(value(8).float_value, 1.0);
  EXPECT_EQ(value(8).type, Type::Float(16));
  EXPECT_NE(OpAt(*p, 8)->attribute("kiln.tag"), nullptr);
  EXPECT_EQ(value(9).kind, Kind::kDialect);
  EXPECT_EQ(value(9).text, "dense");
  EXPECT_EQ(value(9).body, "[1, 2]");
  EXPECT_EQ(OpAt(*p, 9)->result(0)->type.ToString(), "tensor<2xi32>");
  EXPECT_EQ(value(10).kind, Kind::kBool);  // `1 : i1` is `true`
}

TEST(ParserOpsTest, FloatConstantsKeepTheirTypePrecision) {
  auto p = ParseBody("", "%a = arith.constant 0.1 : f32\n%b = arith.constant 0.1 : f64\nreturn");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(OpAt(*p, 0)->attribute("value")->float_value, static_cast<double>(0.1f));
  EXPECT_EQ(OpAt(*p, 1)->attribute("value")->float_value, 0.1);
}

TEST(ParserOpsTest, BinaryOps) {
  auto p = ParseBody("%a: i32, %b: i32, %x: f32, %y: f32", R"(
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %a, %b overflow<nsw, nuw> : i32
  %2 = arith.mulf %x, %y fastmath<fast> : f32
  %3 = arith.maxsi %a, %b {kiln.note = "x"} : i32
  %4 = math.powf %x, %y : f32
  return)");
  ASSERT_TRUE(p->ok);
  Block* entry = EntryOf(*p);
  Operation* add = OpAt(*p, 0);
  EXPECT_EQ(add->kind(), OpKind::kAddI);
  EXPECT_EQ(add->operands, (std::vector<Value*>{entry->argument(0), entry->argument(1)}));
  EXPECT_EQ(add->result(0)->type, Type::I32());
  EXPECT_EQ(add->result(0)->name, "0");
  EXPECT_TRUE(add->attributes.empty());
  Operation* sub = OpAt(*p, 1);
  ASSERT_NE(sub->attribute("overflowFlags"), nullptr);
  EXPECT_EQ(sub->attribute("overflowFlags")->ToString(), "#arith.overflow<nsw, nuw>");
  Operation* mul = OpAt(*p, 2);
  EXPECT_EQ(mul->kind(), OpKind::kMulF);
  EXPECT_EQ(mul->attribute("fastmath")->ToString(), "#arith.fastmath<fast>");
  EXPECT_EQ(mul->result(0)->type, Type::F32());
  EXPECT_EQ(OpAt(*p, 3)->attribute("kiln.note")->text, "x");
  EXPECT_EQ(OpAt(*p, 4)->kind(), OpKind::kPowF);
}

TEST(ParserOpsTest, UnaryAndTernaryMath) {
  auto p = ParseBody("%x: f32, %i: i32", R"(
  %0 = arith.negf %x : f32
  %1 = math.sqrt %x fastmath<fast> : f32
  %2 = math.absi %i : i32
  %3 = math.fma %x, %0, %1 : f32
  %4 = math.tanh %x : f32
  %5 = math.round %x : f32
  return)");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(OpNames(EntryOf(*p)),
            "arith.negf,math.sqrt,math.absi,math.fma,math.tanh,math.round,func.return");
  EXPECT_EQ(OpAt(*p, 2)->result(0)->type, Type::I32());
  Operation* fma = OpAt(*p, 3);
  ASSERT_EQ(fma->operands.size(), 3u);
  EXPECT_EQ(fma->operands[1], OpAt(*p, 0)->result(0));
  EXPECT_EQ(fma->operands[2], OpAt(*p, 1)->result(0));
}

TEST(ParserOpsTest, Compares) {
  auto p = ParseBody("%a: i32, %b: i32, %x: f32, %y: f32", R"(
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.cmpi uge, %a, %b : i32
  %2 = arith.cmpf olt, %x, %y : f32
  %3 = arith.cmpf uno, %x, %y : f32
  return)");
  ASSERT_TRUE(p->ok);
  auto predicate = [&](size_t i) { return OpAt(*p, i)->attribute("predicate"); };
  EXPECT_EQ(predicate(0)->kind, Kind::kInteger);
  EXPECT_EQ(predicate(0)->integer_value, static_cast<int64_t>(CmpIPredicate::kSlt));
  EXPECT_EQ(predicate(0)->type, Type::I64());
  EXPECT_EQ(predicate(1)->integer_value, static_cast<int64_t>(CmpIPredicate::kUge));
  EXPECT_EQ(predicate(2)->integer_value, static_cast<int64_t>(CmpFPredicate::kOlt));
  EXPECT_EQ(predicate(3)->integer_value, static_cast<int64_t>(CmpFPredicate::kUno));
  EXPECT_EQ(OpAt(*p, 0)->result(0)->type, Type::I1());
  EXPECT_EQ(OpAt(*p, 2)->result(0)->type, Type::I1());
  EXPECT_EQ(OpAt(*p, 2)->operands[0]->type, Type::F32());
}

TEST(ParserOpsTest, Select) {
  auto p = ParseBody("%c: i1, %a: i32, %b: i32", R"(
  %0 = arith.select %c, %a, %b : i32
  %1 = arith.select %c, %a, %b : i1, i32
  return)");
  ASSERT_TRUE(p->ok);
  Block* entry = EntryOf(*p);
  for (size_t i = 0; i < 2; ++i) {
    Operation* select = OpAt(*p, i);
    EXPECT_EQ(select->kind(), OpKind::kSelect);
    EXPECT_EQ(select->operands, entry->arguments());
    EXPECT_EQ(select->result(0)->type, Type::I32());
  }
}

TEST(ParserOpsTest, Casts) {
  auto p = ParseBody("%a: i8, %i: index, %f: f32", R"(
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %a : i8 to i64
  %2 = arith.trunci %0 : i32 to i16
  %3 = arith.index_cast %i : index to i32
  %4 = arith.index_castui %3 : i32 to index
  %5 = arith.sitofp %0 : i32 to f32
  %6 = arith.uitofp %0 : i32 to f64
  %7 = arith.fptosi %f : f32 to i32
  %8 = arith.fptoui %f : f32 to i64
  %9 = arith.extf %f : f32 to f64
  %10 = arith.truncf %9 : f64 to f16
  %11 = arith.bitcast %f : f32 to i32
  return)");
  ASSERT_TRUE(p->ok);
  const char* expected[] = {"i32", "i64", "i16", "i32", "index", "f32",
                            "f64", "i32", "i64", "f64", "f16",   "i32"};
  for (size_t i = 0; i < 12; ++i) {
    Operation* cast = OpAt(*p, i);
    ASSERT_EQ(cast->operands.size(), 1u) << i;
    EXPECT_EQ(cast->result(0)->type.ToString(), expected[i]) << i;
  }
  EXPECT_EQ(OpAt(*p, 0)->operands[0]->type, Type::Integer(8));
  EXPECT_EQ(OpAt(*p, 11)->kind(), OpKind::kBitcast);
}

TEST(ParserOpsTest, IfWithResults) {
  auto p = ParseBody("%c: i1, %a: i32", R"(
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    %z = arith.constant 0 : i32
    scf.yield %z : i32
  }
  return %r : i32)",
                     "i32");
  ASSERT_TRUE(p->ok);
  Operation* op = OpAt(*p, 0);
  EXPECT_EQ(op->kind(), OpKind::kIf);
  EXPECT_EQ(op->operands, std::vector<Value*>{EntryOf(*p)->argument(0)});
  EXPECT_EQ(op->result_types(), std::vector<Type>{Type::I32()});
  ASSERT_EQ(op->num_regions(), 2u);
  EXPECT_EQ(OpNames(op->region(0)->front()), "scf.yield");
  EXPECT_EQ(OpNames(op->region(1)->front()), "arith.constant,scf.yield");
  EXPECT_EQ(op->region(0)->front()->operations()[0]->operands[0], EntryOf(*p)->argument(1));
}

TEST(ParserOpsTest, IfWithoutResultsGetsImplicitYields) {
  auto p = ParseBody("%c: i1, %a: i32", R"(
  scf.if %c {
    %x = arith.addi %a, %a : i32
  }
  scf.if %c {
  } else {
    cf.assert %c, "m"
  }
  scf.if %c -> i32 {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  return)");
  ASSERT_TRUE(p->ok);
  Operation* first = OpAt(*p, 0);
  EXPECT_EQ(OpNames(first->region(0)->front()), "arith.addi,scf.yield");
  EXPECT_TRUE(first->region(1)->empty());  // no else: an empty region
  Operation* second = OpAt(*p, 1);
  EXPECT_EQ(OpNames(second->region(0)->front()), "scf.yield");
  EXPECT_EQ(OpNames(second->region(1)->front()), "cf.assert,scf.yield");
  EXPECT_EQ(OpAt(*p, 2)->num_results(), 1u);  // `-> i32` without parentheses
}

TEST(ParserOpsTest, ForWithIterArgs) {
  auto p = ParseBody("%lb: index, %ub: index, %s: index, %x: i32, %y: f32", R"(
  %r:2 = scf.for %i = %lb to %ub step %s iter_args(%a = %x, %b = %y) -> (i32, f32) {
    scf.yield %a, %b : i32, f32
  }
  return)");
  ASSERT_TRUE(p->ok);
  Block* entry = EntryOf(*p);
  Operation* op = OpAt(*p, 0);
  EXPECT_EQ(op->kind(), OpKind::kFor);
  EXPECT_EQ(op->operands, entry->arguments());
  EXPECT_EQ(op->result_types(), (std::vector<Type>{Type::I32(), Type::F32()}));
  EXPECT_EQ(op->result(0)->name, "r#0");
  EXPECT_EQ(op->result(1)->name, "r#1");
  Block* body = op->region(0)->front();
  ASSERT_EQ(body->num_arguments(), 3u);
  EXPECT_EQ(body->argument(0)->type, Type::Index());
  EXPECT_EQ(body->argument(0)->name, "i");
  EXPECT_EQ(body->argument(1)->type, Type::I32());
  EXPECT_EQ(body->argument(2)->type, Type::F32());
  Operation* yield = body->operations()[0].get();
  EXPECT_EQ(yield->operands, (std::vector<Value*>{body->argument(1), body->argument(2)}));
}

TEST(ParserOpsTest, ForInductionVariableTypes) {
  auto p = ParseBody("%lb: i64, %ub: i64, %s: i64, %x: i32", R"(
  scf.for %i = %lb to %ub step %s : i64 {
  }
  %r = scf.for %j = %lb to %ub step %s iter_args(%a = %x) -> (i32) : i64 {
    scf.yield %a : i32
  }
  return)");
  ASSERT_TRUE(p->ok);
  Operation* first = OpAt(*p, 0);
  EXPECT_EQ(first->region(0)->front()->argument(0)->type, Type::I64());
  EXPECT_EQ(OpNames(first->region(0)->front()), "scf.yield");  // implicit
  EXPECT_EQ(first->num_results(), 0u);
  Operation* second = OpAt(*p, 1);
  EXPECT_EQ(second->region(0)->front()->argument(0)->type, Type::I64());
  EXPECT_EQ(second->operands.size(), 4u);
}

TEST(ParserOpsTest, While) {
  auto p = ParseBody("%init: i32, %limit: i32", R"(
  %r = scf.while (%arg1 = %init) : (i32) -> i32 {
    %cond = arith.cmpi slt, %arg1, %limit : i32
    scf.condition(%cond) %arg1 : i32
  } do {
  ^bb0(%arg2: i32):
    %one = arith.constant 1 : i32
    %next = arith.addi %arg2, %one : i32
    scf.yield %next : i32
  }
  return)");
  ASSERT_TRUE(p->ok);
  Operation* op = OpAt(*p, 0);
  EXPECT_EQ(op->kind(), OpKind::kWhile);
  EXPECT_EQ(op->operands, std::vector<Value*>{EntryOf(*p)->argument(0)});
  EXPECT_EQ(op->result_types(), std::vector<Type>{Type::I32()});
  ASSERT_EQ(op->num_regions(), 2u);
  Block* before = op->region(0)->front();
  ASSERT_EQ(before->num_arguments(), 1u);
  EXPECT_EQ(before->argument(0)->name, "arg1");
  Operation* condition = before->operations()[1].get();
  EXPECT_EQ(condition->kind(), OpKind::kCondition);
  EXPECT_EQ(condition->operands,
            (std::vector<Value*>{before->operations()[0]->result(0), before->argument(0)}));
  Block* after = op->region(1)->front();
  EXPECT_EQ(after->label, "bb0");
  ASSERT_EQ(after->num_arguments(), 1u);
  EXPECT_EQ(after->argument(0)->type, Type::I32());
  EXPECT_EQ(OpNames(after), "arith.constant,arith.addi,scf.yield");
}

TEST(ParserOpsTest, WhileWithoutArguments) {
  auto p = ParseBody("%c: i1", R"(
  scf.while : () -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }
  return)");
  ASSERT_TRUE(p->ok);
  Operation* op = OpAt(*p, 0);
  EXPECT_TRUE(op->operands.empty());
  EXPECT_EQ(op->region(0)->front()->num_arguments(), 0u);
  EXPECT_EQ(op->region(0)->front()->operations()[0]->operands.size(), 1u);
}

TEST(ParserOpsTest, Branches) {
  auto p = ParseBody("%c: i1, %a: i32, %b: f32", R"(
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
^bb1(%x: i32):
  cf.br ^bb2
^bb2:
  cf.br ^bb3(%a, %b : i32, f32)
^bb3(%p: i32, %q: f32):
  return)");
  ASSERT_TRUE(p->ok);
  Region* body = p->Func("f")->region(0);
  ASSERT_EQ(body->num_blocks(), 4u);
  Operation* cond_br = body->block(0)->operations()[0].get();
  EXPECT_EQ(cond_br->kind(), OpKind::kCondBr);
  EXPECT_EQ(cond_br->operands, std::vector<Value*>{body->block(0)->argument(0)});
  ASSERT_EQ(cond_br->successors.size(), 2u);
  EXPECT_EQ(cond_br->successors[0].block, body->block(1));
  EXPECT_EQ(cond_br->successors[0].arguments, std::vector<Value*>{body->block(0)->argument(1)});
  EXPECT_EQ(cond_br->successors[1].block, body->block(2));
  EXPECT_TRUE(cond_br->successors[1].arguments.empty());
  Operation* br = body->block(2)->operations()[0].get();
  EXPECT_EQ(br->kind(), OpKind::kBr);
  EXPECT_TRUE(br->operands.empty());
  EXPECT_EQ(br->successors[0].block, body->block(3));
  EXPECT_EQ(br->successors[0].arguments.size(), 2u);
  EXPECT_EQ(body->block(1)->label, "bb1");
  EXPECT_EQ(body->block(3)->argument_types(), (std::vector<Type>{Type::I32(), Type::F32()}));
}

TEST(ParserOpsTest, Switch) {
  auto p = ParseBody("%flag: i32, %a: i32, %b: i32", R"(
  cf.switch %flag : i32, [
    default: ^bb1(%a : i32),
    42: ^bb2,
    -3: ^bb1(%b : i32)
  ]
^bb1(%x: i32):
  return
^bb2:
  return)");
  ASSERT_TRUE(p->ok);
  Region* body = p->Func("f")->region(0);
  Operation* op = body->front()->operations()[0].get();
  EXPECT_EQ(op->kind(), OpKind::kSwitch);
  EXPECT_EQ(op->operands, std::vector<Value*>{body->front()->argument(0)});
  const Attribute* cases = op->attribute("case_values");
  ASSERT_NE(cases, nullptr);
  EXPECT_EQ(cases->kind, Kind::kDenseArray);
  EXPECT_EQ(cases->type, Type::I32());
  EXPECT_EQ(cases->ToString(), "array<i32: 42, -3>");
  ASSERT_EQ(op->successors.size(), 3u);
  EXPECT_EQ(op->successors[0].block, body->block(1));
  EXPECT_EQ(op->successors[0].arguments, std::vector<Value*>{body->front()->argument(1)});
  EXPECT_EQ(op->successors[1].block, body->block(2));
  EXPECT_EQ(op->successors[2].block, body->block(1));
  EXPECT_EQ(op->successors[2].arguments, std::vector<Value*>{body->front()->argument(2)});
}

TEST(ParserOpsTest, SwitchWithOnlyDefault) {
  auto p = ParseBody("%flag: i8", "cf.switch %flag : i8, [default: ^bb1]\n^bb1:\nreturn");
  ASSERT_TRUE(p->ok);
  Operation* op = OpAt(*p, 0);
  EXPECT_EQ(op->successors.size(), 1u);
  EXPECT_EQ(op->attribute("case_values")->elements.size(), 0u);
}

TEST(ParserOpsTest, Assert) {
  auto p = ParseBody("%c: i1", R"(cf.assert %c, "bad \"x\"\n\41"
return)");
  ASSERT_TRUE(p->ok);
  Operation* op = OpAt(*p, 0);
  EXPECT_EQ(op->kind(), OpKind::kAssert);
  EXPECT_EQ(op->attribute("msg")->text, "bad \"x\"\nA");
  EXPECT_EQ(op->operands.size(), 1u);
}

TEST(ParserOpsTest, Globals) {
  auto p = ParseOk(R"(
util.global private mutable @x : i32 = 0 : i32
util.global private @y = 5 : i32
util.global @z : f32
util.global @w : i64 = 7
util.global private @t {kiln.hint} : tensor<4xf32>
func.func @f() -> i32 {
  %v = util.global.load @x : i32
  util.global.store %v, @x : i32
  %i = util.global.load immutable @y : i32
  return %v : i32
})");
  ASSERT_TRUE(p->ok);
  Operation* x = p->Func("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->kind(), OpKind::kGlobal);
  EXPECT_EQ(x->attribute("type")->type, Type::I32());
  EXPECT_NE(x->attribute("is_mutable"), nullptr);
  EXPECT_EQ(x->attribute("initial_value")->ToString(), "0 : i32");
  EXPECT_EQ(x->attribute("sym_visibility")->text, "private");
  Operation* y = p->Func("y");
  EXPECT_EQ(y->attribute("type")->type, Type::I32());  // from the value
  EXPECT_EQ(y->attribute("is_mutable"), nullptr);
  EXPECT_EQ(y->attribute("initial_value")->integer_value, 5);
  Operation* z = p->Func("z");
  EXPECT_EQ(z->attribute("initial_value"), nullptr);
  EXPECT_EQ(z->attribute("sym_visibility"), nullptr);
  EXPECT_EQ(p->Func("w")->attribute("initial_value")->ToString(), "7 : i64");
  EXPECT_NE(p->Func("t")->attribute("kiln.hint"), nullptr);

  Block* entry = p->Func("f")->region(0)->front();
  Operation* load = entry->operations()[0].get();
  EXPECT_EQ(load->kind(), OpKind::kGlobalLoad);
  EXPECT_EQ(load->attribute("global")->ToString(), "@x");
  EXPECT_EQ(load->result(0)->type, Type::I32());
  Operation* store = entry->operations()[1].get();
  EXPECT_EQ(store->kind(), OpKind::kGlobalStore);
  EXPECT_EQ(store->operands, std::vector<Value*>{load->result(0)});
  EXPECT_EQ(store->attribute("global")->ToString(), "@x");
}

TEST(ParserOpsTest, Modules) {
  auto p = ParseOk("module @m attributes {kiln.x = 1 : i32} {\n}\n");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(p->module->kind(), OpKind::kModule);
  EXPECT_EQ(p->module->symbol_name(), "m");
  EXPECT_EQ(p->module->attribute("kiln.x")->integer_value, 1);
  ASSERT_EQ(p->module->region(0)->num_blocks(), 1u);
  EXPECT_TRUE(p->module->region(0)->front()->empty());

  auto q = ParseOk("builtin.module {\n  func.func private @f()\n}\n");
  ASSERT_TRUE(q->ok);
  EXPECT_EQ(q->module->symbol_name(), "");
  EXPECT_NE(q->Func("f"), nullptr);
}

}  // namespace
}  // namespace kiln::compiler::testing
