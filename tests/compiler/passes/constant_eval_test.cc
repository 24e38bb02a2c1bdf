// Constant folding against the VM: every op is compiled twice into one module,
// once on constants (folded at compile time; the test checks it was) and once
// on function arguments (computed by the interpreter at run time), over the
// edge cases of each type: wrap-around, INT_MIN / -1, shifts at and above the
// width, division by zero (never folded: both versions must trap), NaN and
// signed zeros, saturating float→int casts. Results must agree bit for bit.
#include "compiler/passes/constant_eval.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

// A scalar of some type: its MLIR literal and the VM argument carrying it.
struct Scalar {
  std::string type;
  std::string literal;
  vm::Variant variant;
};

bool IsWide(const std::string& type) { return type == "i64" || type == "index"; }

Scalar Int(const std::string& type, int64_t value) {
  if (type == "i1") return {type, value ? "true" : "false", vm::Variant::I32(value & 1)};
  const uint32_t width = IsWide(type) ? 64 : static_cast<uint32_t>(std::stoi(type.substr(1)));
  value = SignExtend(value, width);
  return {type, std::to_string(value) + " : " + type,
          IsWide(type) ? vm::Variant::I64(value) : vm::Variant::I32(static_cast<int32_t>(value))};
}

Scalar Float(const std::string& type, double value) {
  const bool f32 = type == "f32";
  char text[64];
  if (std::isnan(value) || std::isinf(value)) {
    // Hex literals: the bit pattern of the type.
    if (f32) {
      float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      std::snprintf(text, sizeof(text), "0x%08X", bits);
    } else {
      uint64_t bits;
      std::memcpy(&bits, &value, 8);
      std::snprintf(text, sizeof(text), "0x%016llX", static_cast<unsigned long long>(bits));
    }
  } else {
    std::snprintf(text, sizeof(text), "%.17e",
                  f32 ? static_cast<double>(static_cast<float>(value)) : value);
  }
  return {type, std::string(text) + " : " + type,
          f32 ? vm::Variant::F32(static_cast<float>(value)) : vm::Variant::F64(value)};
}

std::string Bits(const vm::Variant& v) {
  char text[64];
  switch (v.type()) {
    case vm::ValueType::kI32:
      return "i32 " + std::to_string(v.i32());
    case vm::ValueType::kI64:
      return "i64 " + std::to_string(v.i64());
    case vm::ValueType::kF32: {
      uint32_t bits;
      float f = v.f32();
      std::memcpy(&bits, &f, 4);
      std::snprintf(text, sizeof(text), "f32 %a (0x%08X)", static_cast<double>(f), bits);
      return text;
    }
    case vm::ValueType::kF64: {
      uint64_t bits;
      double d = v.f64();
      std::memcpy(&bits, &d, 8);
      std::snprintf(text, sizeof(text), "f64 %a (0x%016llX)", d,
                    static_cast<unsigned long long>(bits));
      return text;
    }
    default:
      return "other";
  }
}

// One op applied to several operand tuples.
struct Sweep {
  // The op with its operands written %a, %b, %c, e.g. "arith.addi %a, %b : i8".
  std::string op;
  std::string result_type;
  std::vector<std::vector<Scalar>> cases;  // Each: the operand values.
  // Division by zero: the run-time version traps and the folder leaves it.
  std::function<bool(const std::vector<Scalar>&)> traps = nullptr;
};

class FoldVsVmTest : public PassTest {
 protected:
  void Check(const Sweep& sweep) {
    ASSERT_FALSE(sweep.cases.empty());
    const std::vector<Scalar>& first = sweep.cases[0];
    static const char* kNames[] = {"%a", "%b", "%c"};
    std::string text = "func.func @run(";
    for (size_t i = 0; i < first.size(); ++i) {
      text += std::string(i ? ", " : "") + kNames[i] + ": " + first[i].type;
    }
    text += ") -> " + sweep.result_type + " {\n  %r = " + sweep.op +
            "\n  return %r : " + sweep.result_type + "\n}\n";
    for (size_t k = 0; k < sweep.cases.size(); ++k) {
      text += "func.func @f" + std::to_string(k) + "() -> " + sweep.result_type + " {\n";
      for (size_t i = 0; i < sweep.cases[k].size(); ++i) {
        text +=
            "  " + std::string(kNames[i]) + " = arith.constant " + sweep.cases[k][i].literal + "\n";
      }
      text += "  %r = " + sweep.op + "\n  return %r : " + sweep.result_type + "\n}\n";
    }

    // The folder alone: each @f<k> folds to a constant unless it must trap.
    Operation* module = ParseValid(text);
    ASSERT_NE(module, nullptr);
    FoldConstants(module);
    for (size_t k = 0; k < sweep.cases.size(); ++k) {
      Operation* f = Func("f" + std::to_string(k));
      const bool traps = sweep.traps && sweep.traps(sweep.cases[k]);
      std::string expected = traps ? "" : "arith.constant,func.return";
      if (!traps) {
        EXPECT_EQ(OpNames(Body(f)->front()), expected) << sweep.op << " case " << k;
      } else {
        size_t others = 0;
        for (const auto& op : Body(f)->front()->operations()) {
          others += op->kind() != OpKind::kConstant && op->kind() != OpKind::kReturn;
        }
        EXPECT_EQ(others, 1u) << sweep.op << " case " << k << " must not fold";
      }
    }

    // The whole compiler and the VM.
    Compiled compiled = Compiled::FromText(text);
    ASSERT_TRUE(compiled.ok()) << compiled.error() << "\n" << text;
    for (size_t k = 0; k < sweep.cases.size(); ++k) {
      std::vector<vm::Variant> args;
      std::string where = sweep.op + " with";
      for (const Scalar& s : sweep.cases[k]) {
        args.push_back(s.variant);
        where += " " + s.literal;
      }
      auto run = compiled.Call("run", args);
      auto folded = compiled.Call("f" + std::to_string(k), {});
      const bool traps = sweep.traps && sweep.traps(sweep.cases[k]);
      if (traps) {
        EXPECT_FALSE(run.ok()) << where;
        EXPECT_FALSE(folded.ok()) << where;
        continue;
      }
      ASSERT_TRUE(run.ok()) << where << ": " << run.status().ToString();
      ASSERT_TRUE(folded.ok()) << where << ": " << folded.status().ToString();
      ASSERT_EQ(run->size(), 1u);
      ASSERT_EQ(folded->size(), 1u);
      EXPECT_EQ(Bits((*folded)[0]), Bits((*run)[0])) << where << " (folded vs run time)";
    }
  }
};

std::vector<int64_t> IntEdges(const std::string& type) {
  if (type == "i1") return {0, 1};
  if (type == "i8") return {0, 1, -1, 2, 7, 8, 9, 31, 32, 33, 127, -128, -127, 100, -3};
  if (type == "i16") return {0, 1, -1, 2, 15, 16, 17, 32, 32767, -32768, -32767, 300, -3};
  if (type == "i32") {
    return {0, 1, -1, 2, 31, 32, 33, 63, 64, INT32_MAX, INT32_MIN, INT32_MIN + 1, -3, 100000};
  }
  return {
      0, 1, -1, 2, 31, 32, 63, 64, 65, INT64_MAX, INT64_MIN, INT64_MIN + 1, -3, int64_t{1} << 40};
}

const char* kIntTypes[] = {"i1", "i8", "i16", "i32", "i64", "index"};

std::vector<std::vector<Scalar>> IntPairs(const std::string& type) {
  std::vector<std::vector<Scalar>> out;
  for (int64_t a : IntEdges(type)) {
    for (int64_t b : IntEdges(type)) out.push_back({Int(type, a), Int(type, b)});
  }
  return out;
}

bool IsZero(const Scalar& s) { return s.literal == "false" || s.literal.rfind("0 :", 0) == 0; }

TEST_F(FoldVsVmTest, IntegerBinaryOps) {
  const char* ops[] = {"addi",      "subi",       "muli",  "divsi", "divui", "remsi", "remui",
                       "ceildivsi", "floordivsi", "andi",  "ori",   "xori",  "shli",  "shrsi",
                       "shrui",     "maxsi",      "minsi", "maxui", "minui"};
  for (const char* type : kIntTypes) {
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + " " + type);
      const std::string name = op;
      const bool divides =
          name.find("div") != std::string::npos || name.find("rem") != std::string::npos;
      Sweep sweep{"arith." + name + " %a, %b : " + type, type, IntPairs(type)};
      if (divides) sweep.traps = [](const std::vector<Scalar>& c) { return IsZero(c[1]); };
      Check(sweep);
    }
  }
}

TEST_F(FoldVsVmTest, IntegerCompares) {
  const char* predicates[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  for (const char* type : kIntTypes) {
    for (const char* p : predicates) {
      SCOPED_TRACE(std::string(p) + " " + type);
      Check({std::string("arith.cmpi ") + p + ", %a, %b : " + type, "i1", IntPairs(type)});
    }
  }
}

TEST_F(FoldVsVmTest, AbsAndSelect) {
  for (const char* type : kIntTypes) {
    SCOPED_TRACE(type);
    std::vector<std::vector<Scalar>> singles;
    for (int64_t a : IntEdges(type)) singles.push_back({Int(type, a)});
    Check({std::string("math.absi %a : ") + type, type, singles});
    std::vector<std::vector<Scalar>> triples;
    for (int c : {0, 1}) {
      triples.push_back({Int("i1", c), Int(type, 1), Int(type, -1)});
    }
    Check({std::string("arith.select %a, %b, %c : ") + type, type, triples});
  }
}

std::vector<double> FloatEdges() {
  return {0.0,
          -0.0,
          1.0,
          -1.0,
          0.1,
          2.5,
          -2.5,
          3.0,
          1e30,
          -7.75,
          std::numeric_limits<float>::max(),
          std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::quiet_NaN()};
}

TEST_F(FoldVsVmTest, FloatBinaryOps) {
  const char* ops[] = {"arith.addf", "arith.subf",     "arith.mulf",     "arith.divf",
                       "arith.remf", "arith.maximumf", "arith.minimumf", "math.powf"};
  for (const char* type : {"f32", "f64"}) {
    std::vector<std::vector<Scalar>> pairs;
    for (double a : FloatEdges()) {
      for (double b : FloatEdges()) pairs.push_back({Float(type, a), Float(type, b)});
    }
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + " " + type);
      Check({std::string(op) + " %a, %b : " + type, type, pairs});
    }
    SCOPED_TRACE(std::string("fma ") + type);
    std::vector<std::vector<Scalar>> triples;
    for (double a : {0.1, -3.0, 1e30}) {
      for (double c : {0.3, -0.0, 1e-30}) {
        triples.push_back({Float(type, a), Float(type, 0.7), Float(type, c)});
      }
    }
    Check({std::string("math.fma %a, %b, %c : ") + type, type, triples});
  }
}

TEST_F(FoldVsVmTest, FloatUnaryOps) {
  const char* ops[] = {"arith.negf", "math.sqrt",  "math.rsqrt", "math.exp",  "math.exp2",
                       "math.log",   "math.log2",  "math.sin",   "math.cos",  "math.tanh",
                       "math.absf",  "math.floor", "math.ceil",  "math.round"};
  for (const char* type : {"f32", "f64"}) {
    std::vector<std::vector<Scalar>> singles;
    for (double a : FloatEdges()) singles.push_back({Float(type, a)});
    for (double a : {0.5, -0.5, 1.5, 2.5, 8.0, 1024.0, 1e-3, 7.0}) {
      singles.push_back({Float(type, a)});
    }
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + " " + type);
      Check({std::string(op) + " %a : " + type, type, singles});
    }
  }
}

TEST_F(FoldVsVmTest, FloatCompares) {
  const char* predicates[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                              "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
  for (const char* type : {"f32", "f64"}) {
    std::vector<std::vector<Scalar>> pairs;
    for (double a : {0.0, -0.0, 1.0, -2.5, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
      for (double b : {0.0, -0.0, 1.0, -2.5, std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::quiet_NaN()}) {
        pairs.push_back({Float(type, a), Float(type, b)});
      }
    }
    for (const char* p : predicates) {
      SCOPED_TRACE(std::string(p) + " " + type);
      Check({std::string("arith.cmpf ") + p + ", %a, %b : " + type, "i1", pairs});
    }
  }
}

TEST_F(FoldVsVmTest, IntegerCasts) {
  struct Cast {
    const char* op;
    const char* from;
    const char* to;
  };
  const Cast casts[] = {
      {"extsi", "i1", "i32"},
      {"extsi", "i8", "i32"},
      {"extsi", "i16", "i64"},
      {"extsi", "i32", "i64"},
      {"extsi", "i1", "i8"},
      {"extui", "i1", "i32"},
      {"extui", "i8", "i32"},
      {"extui", "i16", "i32"},
      {"extui", "i32", "i64"},
      {"extui", "i8", "i64"},
      {"trunci", "i32", "i8"},
      {"trunci", "i32", "i1"},
      {"trunci", "i64", "i32"},
      {"trunci", "i64", "i16"},
      {"trunci", "i16", "i8"},
      {"index_cast", "index", "i32"},
      {"index_cast", "i32", "index"},
      {"index_cast", "i8", "index"},
      {"index_cast", "index", "i64"},
      {"index_castui", "i32", "index"},
      {"index_castui", "i16", "index"},
      {"index_castui", "index", "i8"},
  };
  for (const Cast& c : casts) {
    SCOPED_TRACE(std::string(c.op) + " " + c.from + " to " + c.to);
    std::vector<std::vector<Scalar>> singles;
    for (int64_t a : IntEdges(c.from)) singles.push_back({Int(c.from, a)});
    Check({std::string("arith.") + c.op + " %a : " + c.from + " to " + c.to, c.to, singles});
  }
}

TEST_F(FoldVsVmTest, IntToFloatCasts) {
  for (const char* op : {"sitofp", "uitofp"}) {
    for (const char* from : {"i1", "i8", "i16", "i32", "i64"}) {
      for (const char* to : {"f32", "f64"}) {
        SCOPED_TRACE(std::string(op) + " " + from + " to " + to);
        std::vector<std::vector<Scalar>> singles;
        for (int64_t a : IntEdges(from)) singles.push_back({Int(from, a)});
        // Values that round differently from i64 directly than through f64.
        if (std::string(from) == "i64") {
          singles.push_back({Int(from, (int64_t{1} << 53) + 1)});
          singles.push_back({Int(from, int64_t{0x20000020000001})});
          singles.push_back({Int(from, -int64_t{0x20000020000001})});
        }
        Check({std::string("arith.") + op + " %a : " + from + " to " + to, to, singles});
      }
    }
  }
}

TEST_F(FoldVsVmTest, FloatToIntCastsSaturate) {
  std::vector<double> values = FloatEdges();
  for (double v :
       {300.5, -300.5, 1e10, -1e10, 2147483648.0, -2147483649.0, 2147483520.0, 4294967296.0,
        4294967295.5, 9.3e18, 1.9e19, 0.99, -0.99, 128.0, 255.9, -129.0, 65535.0, 32768.0}) {
    values.push_back(v);
  }
  for (const char* op : {"fptosi", "fptoui"}) {
    for (const char* from : {"f32", "f64"}) {
      for (const char* to : {"i1", "i8", "i16", "i32", "i64"}) {
        SCOPED_TRACE(std::string(op) + " " + from + " to " + to);
        std::vector<std::vector<Scalar>> singles;
        for (double v : values) singles.push_back({Float(from, v)});
        Check({std::string("arith.") + op + " %a : " + from + " to " + to, to, singles});
      }
    }
  }
}

TEST_F(FoldVsVmTest, FloatWidthCastsAndBitcasts) {
  std::vector<std::vector<Scalar>> f64s, f32s, i32s, i64s;
  for (double v : FloatEdges()) {
    f64s.push_back({Float("f64", v)});
    f32s.push_back({Float("f32", v)});
  }
  f64s.push_back({Float("f64", 1e300)});
  f64s.push_back({Float("f64", 1e-300)});
  f64s.push_back({Float("f64", 0.1)});
  Check({"arith.truncf %a : f64 to f32", "f32", f64s});
  Check({"arith.extf %a : f32 to f64", "f64", f32s});
  for (int64_t v :
       {0, 1, 0x3F800000, 0x7F800000, static_cast<int32_t>(0x80000000), 0x00000001, 0x12345678}) {
    i32s.push_back({Int("i32", v)});
  }
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{0x3FF0000000000000}, INT64_MIN, INT64_MAX >> 2,
                    int64_t{0x7FF0000000000000}}) {
    i64s.push_back({Int("i64", v)});
  }
  Check({"arith.bitcast %a : i32 to f32", "f32", i32s});
  Check({"arith.bitcast %a : i64 to f64", "f64", i64s});
  // NaNs are excluded: their folding is refused (see below).
  f32s.pop_back();
  f64s.erase(f64s.begin() + 14);
  Check({"arith.bitcast %a : f32 to i32", "i32", f32s});
  Check({"arith.bitcast %a : f64 to i64", "i64", f64s});
}

// --- EvaluateConstantOp directly: what is deliberately not folded ---

class EvaluateTest : public PassTest {
 protected:
  // Evaluates the single op of `line` ("%r = ..." using %a, %b) with the
  // given constants, all of type `type`.
  Attribute Evaluate(const std::string& line, const std::vector<Attribute>& values) {
    std::string text = "func.func @f(";
    const char* names[] = {"%a", "%b"};
    for (size_t i = 0; i < values.size(); ++i) {
      text += std::string(i ? ", " : "") + names[i] + ": " + values[i].type.ToString();
    }
    text += ") {\n  " + line + "\n  return\n}\n";
    Operation* module = Parse(text);
    if (!module) return {};
    Operation* op = Body(Func("f"))->front()->operations()[0].get();
    std::vector<const Attribute*> pointers;
    for (const Attribute& v : values) pointers.push_back(&v);
    return EvaluateConstantOp(*op, pointers);
  }
};

TEST_F(EvaluateTest, DivisionByZeroIsNotFolded) {
  for (const char* op : {"divsi", "divui", "remsi", "remui", "ceildivsi", "floordivsi"}) {
    Attribute r =
        Evaluate(std::string("%r = arith.") + op + " %a, %b : i32",
                 {Attribute::Integer(7, Type::I32()), Attribute::Integer(0, Type::I32())});
    EXPECT_TRUE(r.is_null()) << op;
  }
}

TEST_F(EvaluateTest, IntMinByMinusOne) {
  const Attribute min = Attribute::Integer(INT64_MIN, Type::I64());
  const Attribute minus_one = Attribute::Integer(-1, Type::I64());
  EXPECT_EQ(Evaluate("%r = arith.divsi %a, %b : i64", {min, minus_one}).integer_value, INT64_MIN);
  EXPECT_EQ(Evaluate("%r = arith.remsi %a, %b : i64", {min, minus_one}).integer_value, 0);
  EXPECT_EQ(Evaluate("%r = arith.ceildivsi %a, %b : i64", {min, minus_one}).integer_value,
            INT64_MIN);
  EXPECT_EQ(Evaluate("%r = arith.floordivsi %a, %b : i64", {min, minus_one}).integer_value,
            INT64_MIN);
  const Type i8 = Type::Integer(8);
  EXPECT_EQ(Evaluate("%r = arith.divsi %a, %b : i8",
                     {Attribute::Integer(-128, i8), Attribute::Integer(-1, i8)})
                .integer_value,
            -128);
}

TEST_F(EvaluateTest, NarrowWrapAndShifts) {
  const Type i8 = Type::Integer(8);
  EXPECT_EQ(Evaluate("%r = arith.addi %a, %b : i8",
                     {Attribute::Integer(127, i8), Attribute::Integer(1, i8)})
                .integer_value,
            -128);
  // Shift amounts are taken modulo 32 for i8 (the register width).
  EXPECT_EQ(Evaluate("%r = arith.shli %a, %b : i8",
                     {Attribute::Integer(3, i8), Attribute::Integer(8, i8)})
                .integer_value,
            0);
  EXPECT_EQ(Evaluate("%r = arith.shli %a, %b : i8",
                     {Attribute::Integer(3, i8), Attribute::Integer(33, i8)})
                .integer_value,
            6);
  EXPECT_EQ(Evaluate("%r = arith.shli %a, %b : i32",
                     {Attribute::Integer(3, Type::I32()), Attribute::Integer(33, Type::I32())})
                .integer_value,
            6);
  EXPECT_EQ(Evaluate("%r = arith.shrui %a, %b : i64", {Attribute::Integer(-1, Type::I64()),
                                                       Attribute::Integer(64 + 60, Type::I64())})
                .integer_value,
            15);
}

TEST_F(EvaluateTest, I1ResultsAreBools) {
  Attribute r =
      Evaluate("%r = arith.cmpi slt, %a, %b : i1", {Attribute::Bool(true), Attribute::Bool(false)});
  EXPECT_EQ(r.kind, Attribute::Kind::kBool);
  EXPECT_EQ(r.integer_value, 1);  // true is -1 as a signed i1.
}

TEST_F(EvaluateTest, NanBitcastIsNotFolded) {
  Attribute r =
      Evaluate("%r = arith.bitcast %a : i32 to f32", {Attribute::Integer(0x7F800001, Type::I32())});
  EXPECT_TRUE(r.is_null());
  r = Evaluate("%r = arith.bitcast %a : f32 to i32",
               {Attribute::Float(std::numeric_limits<double>::quiet_NaN(), Type::F32())});
  EXPECT_TRUE(r.is_null());
}

TEST_F(EvaluateTest, F16IsNotFolded) {
  const Type f16 = Type::Float(16);
  Attribute r = Evaluate("%r = arith.addf %a, %b : f16",
                         {Attribute::Float(1.0, f16), Attribute::Float(2.0, f16)});
  EXPECT_TRUE(r.is_null());
}

TEST_F(EvaluateTest, F32ResultsAreRounded) {
  Attribute r = Evaluate("%r = arith.divf %a, %b : f32",
                         {Attribute::Float(1.0, Type::F32()), Attribute::Float(3.0, Type::F32())});
  EXPECT_EQ(r.float_value, static_cast<double>(1.0f / 3.0f));
  EXPECT_NE(r.float_value, 1.0 / 3.0);
}

TEST_F(EvaluateTest, SaturatingConversions) {
  const Attribute nan = Attribute::Float(std::numeric_limits<double>::quiet_NaN(), Type::F64());
  EXPECT_EQ(Evaluate("%r = arith.fptosi %a : f64 to i64", {nan}).integer_value, 0);
  EXPECT_EQ(Evaluate("%r = arith.fptosi %a : f64 to i64", {Attribute::Float(1e300, Type::F64())})
                .integer_value,
            INT64_MAX);
  EXPECT_EQ(Evaluate("%r = arith.fptosi %a : f64 to i32", {Attribute::Float(-1e300, Type::F64())})
                .integer_value,
            INT32_MIN);
  EXPECT_EQ(Evaluate("%r = arith.fptoui %a : f64 to i32", {Attribute::Float(-5.0, Type::F64())})
                .integer_value,
            0);
  // The unsigned maximum, held sign-extended.
  EXPECT_EQ(Evaluate("%r = arith.fptoui %a : f64 to i32", {Attribute::Float(1e10, Type::F64())})
                .integer_value,
            -1);
  // Narrow results saturate at 32 bits, then wrap: 300 → 44 as an i8.
  EXPECT_EQ(Evaluate("%r = arith.fptosi %a : f64 to i8", {Attribute::Float(300.5, Type::F64())})
                .integer_value,
            44);
}

}  // namespace
}  // namespace kiln::compiler::testing
