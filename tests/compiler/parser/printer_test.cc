// The printer: custom and generic forms that parse back into the same IR.
#include <cmath>

#include "tests/compiler/parser/test_util.h"

namespace kiln::compiler::testing {
namespace {

// A structural summary of everything under `op`: kinds, types, attributes,
// operand/successor wiring (by definition order), regions and blocks.
std::string Summarize(Operation* root) {
  std::unordered_map<const Value*, size_t> ids;
  std::unordered_map<const Block*, size_t> block_ids;
  std::string out;
  auto id = [&](const Value* v) {
    auto it = ids.find(v);
    return it == ids.end() ? std::string("?") : std::to_string(it->second);
  };
  // Number values and blocks first (uses may precede definitions).
  Walk(root, [&](Operation* op) {
    for (size_t r = 0; r < op->num_regions(); ++r) {
      for (const auto& block : op->region(r)->blocks()) {
        block_ids.emplace(block.get(), block_ids.size());
        for (Value* arg : block->arguments()) ids.emplace(arg, ids.size());
      }
    }
    for (Value* result : op->results()) ids.emplace(result, ids.size());
  });
  Walk(root, [&](Operation* op) {
    out += std::string(op->name()) + "(";
    for (Value* v : op->operands) out += id(v) + ":" + v->type.ToString() + ",";
    out += ")[";
    for (const Successor& s : op->successors) {
      out += std::to_string(block_ids[s.block]) + "(";
      for (Value* v : s.arguments) out += id(v) + ",";
      out += ")";
    }
    out += "]{";
    for (const NamedAttribute& a : op->attributes) out += a.name + "=" + a.value.ToString() + ",";
    out += "}->";
    for (Value* r : op->results()) out += id(r) + ":" + r->type.ToString() + ",";
    for (size_t r = 0; r < op->num_regions(); ++r) {
      out += " region" + std::to_string(op->region(r)->num_blocks());
      for (const auto& block : op->region(r)->blocks()) {
        out += " block(" + FormatTypes(block->argument_types()) + ")";
      }
    }
    out += "\n";
  });
  return out;
}

std::unique_ptr<Parsed> RoundTrip(const Parsed& parsed, const PrintOptions& options = {}) {
  std::string printed = PrintOperation(*parsed.module, options);
  auto reparsed = Parse(printed, "printed.mlir");
  EXPECT_TRUE(reparsed->ok) << reparsed->Render() << "\n" << printed;
  return reparsed;
}

TEST(PrinterTest, RealisticProgramRoundTrips) {
  auto original = ParseOk(kRealisticProgram);
  ASSERT_TRUE(original->ok);
  std::string printed = PrintOperation(*original->module);
  auto reparsed = RoundTrip(*original);
  ASSERT_TRUE(reparsed->ok);
  EXPECT_EQ(Summarize(reparsed->module.get()), Summarize(original->module.get()));
  // Printing is a fixed point after one round.
  EXPECT_EQ(PrintOperation(*reparsed->module), printed);
}

TEST(PrinterTest, GenericFormRoundTrips) {
  auto original = ParseOk(kRealisticProgram);
  ASSERT_TRUE(original->ok);
  PrintOptions generic;
  generic.generic = true;
  std::string printed = PrintOperation(*original->module, generic);
  EXPECT_EQ(printed.find("func.func @"), std::string::npos);  // every op generic
  EXPECT_NE(printed.find("\"cf.switch\"("), std::string::npos);
  auto reparsed = RoundTrip(*original, generic);
  ASSERT_TRUE(reparsed->ok);
  EXPECT_EQ(Summarize(reparsed->module.get()), Summarize(original->module.get()));
  EXPECT_EQ(PrintOperation(*reparsed->module), PrintOperation(*original->module));
}

TEST(PrinterTest, CustomForms) {
  auto p = ParseOk(R"(
module {
  util.global private mutable @x : i32 = 0 : i32
  func.func private @ext(i32 {kiln.a}) -> (i32 {kiln.b})
  func.func @f(%a: i32, %c: i1, %n: i64) -> i32 attributes {kiln.export} {
    %0 = arith.addi %a, %a overflow<nsw> : i32
    %1 = arith.cmpi ne, %0, %a : i32
    %2 = arith.select %c, %0, %a : i32
    %3 = arith.trunci %2 : i32 to i8
    scf.for %i = %n to %n step %n : i64 {
      util.global.store %a, @x : i32
    }
    scf.if %c {
      cf.assert %c, "m"
    }
    return %2 : i32
  }
}
)");
  ASSERT_TRUE(p->ok);
  EXPECT_EQ(PrintOperation(*p->module),
            R"(module {
  util.global private mutable @x : i32 = 0 : i32
  func.func private @ext(i32 {kiln.a}) -> (i32 {kiln.b})
  func.func @f(%a: i32, %c: i1, %n: i64) -> i32 attributes {kiln.export} {
    %0 = arith.addi %a, %a overflow<nsw> : i32
    %1 = arith.cmpi ne, %0, %a : i32
    %2 = arith.select %c, %0, %a : i32
    %3 = arith.trunci %2 : i32 to i8
    scf.for %i = %n to %n step %n : i64 {
      util.global.store %a, @x : i32
      scf.yield
    }
    scf.if %c {
      cf.assert %c, "m"
      scf.yield
    }
    return %2 : i32
  }
}
)");
}

TEST(PrinterTest, DuplicateNamesAreNumbered) {
  // %x is defined in two sibling regions: neither keeps the name. The
  // numbering skips names that are kept (%1 here).
  auto p = ParseOk(R"(
func.func @f(%c: i1) -> i32 {
  scf.if %c {
    %x = arith.constant 1 : i32
  }
  scf.if %c {
    %x = arith.constant 2 : i32
  }
  %1 = arith.constant 3 : i32
  %r:2 = scf.if %c -> (i32, i32) {
    scf.yield %1, %1 : i32, i32
  } else {
    scf.yield %1, %1 : i32, i32
  }
  %r2 = arith.addi %r#0, %r#1 : i32
  return %r2 : i32
}
func.func @g() -> i32 {
  %x = arith.constant 4 : i32
  return %x : i32
})");
  ASSERT_TRUE(p->ok);
  std::string printed = PrintOperation(*p->module);
  EXPECT_NE(printed.find("%0 = arith.constant 1 : i32"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%2 = arith.constant 2 : i32"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%1 = arith.constant 3 : i32"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%r:2 = scf.if %c -> (i32, i32)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%r2 = arith.addi %r#0, %r#1 : i32"), std::string::npos) << printed;
  // Another function is another scope: its %x is unique there.
  EXPECT_NE(printed.find("%x = arith.constant 4 : i32"), std::string::npos) << printed;
  auto reparsed = RoundTrip(*p);
  ASSERT_TRUE(reparsed->ok);
  EXPECT_EQ(Summarize(reparsed->module.get()), Summarize(p->module.get()));
}

TEST(PrinterTest, UnnamedValuesFromTheBuilder) {
  auto module = Operation::Create(OpKind::kModule, {});
  Block* module_block = module->AddRegion()->AddBlock();
  auto func = Operation::Create(OpKind::kFunc, {});
  func->SetAttribute("sym_name", Attribute::String("f"));
  func->SetAttribute("function_type",
                     Attribute::TypeAttr(Type::Function({Type::I32()}, {Type::I32()})));
  Block* entry = func->AddRegion()->AddBlock();
  Value* arg = entry->AddArgument(Type::I32());
  OpBuilder b(entry);
  Value* c = b.CreateConstant({}, Attribute::Integer(7, Type::I32()));
  Value* sum = b.Create(OpKind::kAddI, {}, {arg, c}, {Type::I32()})->result(0);
  b.Create(OpKind::kReturn, {}, {sum});
  module_block->Append(std::move(func));
  std::string printed = PrintOperation(*module);
  EXPECT_EQ(printed, R"(module {
  func.func @f(%0: i32) -> i32 {
    %1 = arith.constant 7 : i32
    %2 = arith.addi %0, %1 : i32
    return %2 : i32
  }
}
)");
}

TEST(PrinterTest, InvalidShapesFallBackToTheGenericForm) {
  auto module = Operation::Create(OpKind::kModule, {});
  Block* block = module->AddRegion()->AddBlock();
  OpBuilder b(block);
  Value* c = b.CreateConstant({}, Attribute::Integer(1, Type::I32()));
  // An addi with three operands and a mismatched result cannot be custom.
  b.Create(OpKind::kAddI, {}, {c, c, c}, {Type::I64()});
  // A constant whose type disagrees with its value.
  b.Create(OpKind::kConstant, {}, {}, {Type::F32()},
           {{"value", Attribute::Integer(1, Type::I32())}});
  std::string printed = PrintOperation(*module);
  EXPECT_NE(printed.find("%1 = \"arith.addi\"(%0, %0, %0) : (i32, i32, i32) -> i64"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("%2 = \"arith.constant\"() {value = 1 : i32} : () -> f32"),
            std::string::npos)
      << printed;
  auto reparsed = Parse(printed);
  EXPECT_TRUE(reparsed->ok) << reparsed->Render();
}

TEST(PrinterTest, UnspellableShapesPrintGenerically) {
  // A visibility that is not a keyword, and a branch back to a function's
  // entry block: both only have a generic spelling, which parses back.
  auto p = ParseOk(R"(
"func.func"() ({
^bb0(%a: i32):
  cf.br ^bb1
^bb1:
  cf.br ^bb0(%a : i32)
}) {sym_name = "loop", function_type = (i32) -> ()} : () -> ()
"util.global"() {sym_name = "g", type = i32, sym_visibility = "odd"} : () -> ()
)");
  ASSERT_TRUE(p->ok);
  std::string printed = PrintOperation(*p->module);
  EXPECT_NE(printed.find("  \"func.func\"() ({\n  ^bb0(%a: i32):\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("\"util.global\"() {sym_name = \"g\""), std::string::npos) << printed;
  auto reparsed = RoundTrip(*p);
  ASSERT_TRUE(reparsed->ok);
  EXPECT_EQ(Summarize(reparsed->module.get()), Summarize(p->module.get()));
}

TEST(PrinterTest, LocationTrailers) {
  auto p = ParseOk(R"(
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32 loc("model.py":3:4)
  return %0 : i32
})");
  ASSERT_TRUE(p->ok);
  PrintOptions options;
  options.locations = true;
  options.sources = &p->sources;
  std::string printed = PrintOperation(*p->module, options);
  EXPECT_NE(printed.find("%0 = arith.addi %a, %a : i32 loc(\"model.py\":3:4)"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("  return %0 : i32 loc(\"test.mlir\":4:3)"), std::string::npos) << printed;
  auto reparsed = RoundTrip(*p, options);
  ASSERT_TRUE(reparsed->ok);
  Block* entry = reparsed->Func("f")->region(0)->front();
  EXPECT_EQ(reparsed->sources.Format(entry->operations()[0]->debug_loc), "model.py:3:4");
  EXPECT_EQ(reparsed->sources.Format(entry->operations()[1]->debug_loc), "test.mlir:4:3");
}

TEST(PrinterTest, SpecialFloatsAndStringsRoundTrip) {
  auto p = ParseOk(R"(
func.func @f(%true: i1) {
  %0 = arith.constant 0x7FC00000 : f32
  %1 = arith.constant 0xFF800000 : f32
  %2 = arith.constant 0x7FF0000000000000 : f64
  %3 = arith.constant -0.0 : f64
  %4 = arith.constant 0x3555 : f16
  %5 = arith.constant 0x7E00 : f16
  %6 = arith.constant 3.4028234663852886e+38 : f32
  %7 = arith.constant 1.0e-300 : f64
  %8 = arith.constant 0x7FC0 : bf16
  cf.assert %true, "quote \" backslash \\ tab \t nl \n byte \01 \FF"
  return
}
"util.global"() {sym_name = "sym with space", type = i32, "key with space" = @"a b"::@c,
                 arr = array<f32: 1.5, 0x7FC00000>} : () -> ()
)");
  ASSERT_TRUE(p->ok);
  auto reparsed = RoundTrip(*p);
  ASSERT_TRUE(reparsed->ok);
  EXPECT_EQ(Summarize(reparsed->module.get()), Summarize(p->module.get()));
  Block* entry = reparsed->Func("f")->region(0)->front();
  auto value = [&](size_t i) { return entry->operations()[i]->attribute("value")->float_value; };
  EXPECT_TRUE(std::isnan(value(0)));
  EXPECT_TRUE(std::isinf(value(1)) && value(1) < 0);
  EXPECT_TRUE(std::isinf(value(2)));
  EXPECT_TRUE(std::signbit(value(3)));
  EXPECT_NEAR(value(4), 0.333251953125, 1e-12);
  EXPECT_TRUE(std::isnan(value(5)));
  EXPECT_EQ(value(6), 3.4028234663852886e+38);
  EXPECT_EQ(value(7), 1.0e-300);
  EXPECT_TRUE(std::isnan(value(8)));
  EXPECT_EQ(entry->operations()[9]->attribute("msg")->text,
            "quote \" backslash \\ tab \t nl \n byte \x01 \xFF");
  EXPECT_NE(reparsed->Func("sym with space"), nullptr);
}

TEST(PrinterTest, DialectAttributesAndTypesRoundTrip) {
  auto p = ParseOk(R"(
#map = affine_map<()[s0] -> (s0 ceildiv 64)>
"util.global"() {sym_name = "g", type = !hal.buffer<storage, "x>y">,
  layout = #hal.pipeline.layout<push_constants = 1, sets = [<0, bindings = [<0, storage_buffer, ReadOnly>]>]>,
  map = #map, d = dense<[1, 2]> : tensor<2xi32>, flag = #hal.flag} : () -> ()
func.func private @f(tensor<?x4xf32>, !hal.buffer_view) -> (() -> ())
)");
  ASSERT_TRUE(p->ok);
  std::string printed = PrintOperation(*p->module);
  EXPECT_NE(printed.find("map = affine_map<()[s0] -> (s0 ceildiv 64)>"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("d = dense<[1, 2]> : tensor<2xi32>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("func.func private @f(tensor<?x4xf32>, !hal.buffer_view) -> (() -> ())"),
            std::string::npos)
      << printed;
  auto reparsed = RoundTrip(*p);
  ASSERT_TRUE(reparsed->ok);
  EXPECT_EQ(Summarize(reparsed->module.get()), Summarize(p->module.get()));
}

TEST(PrinterTest, PrintsASingleFunction) {
  auto p = ParseOk(kRealisticProgram);
  ASSERT_TRUE(p->ok);
  std::string printed = PrintOperation(*p->Func("count"));
  EXPECT_EQ(printed.rfind("func.func @count(%init: i32, %limit: i32) -> i32 {\n", 0), 0u)
      << printed;
  EXPECT_NE(printed.find("  } do {\n  ^bb0(%arg2: i32):\n"), std::string::npos) << printed;
}

}  // namespace
}  // namespace kiln::compiler::testing
