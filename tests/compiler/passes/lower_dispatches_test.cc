// Hand-authored executables and dispatches: the custom syntax (both layout
// spellings, both count-region forms, tied and multiple results) through the
// parser and printer, the verifier's checks of a dispatch against its export,
// LowerDispatches (affine.apply against AffineMap::Evaluate on the VM, the
// hal import calls, command-buffer batching and barriers) and code
// generation of the lowered module (import table, executables debug table,
// VM verification).
#include <algorithm>
#include <map>

#include "compiler/ir/printer.h"
#include "compiler/parser/affine_map.h"
#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

constexpr std::string_view kExecutable = R"mlir(
#target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
module {
  hal.executable.source private @ex attributes {
    objects = #hal.executable.objects<{#target = [#hal.executable.object<{path = "k.ptx"}>]}>
  } {
    hal.executable.export public @mul ordinal(0)
        layout(#hal.pipeline.layout<push_constants = 1, sets = [<0, bindings = [
            <0, storage_buffer, ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>]>)
        attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
    hal.executable.export public @inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
            #hal.pipeline.binding<storage_buffer, ReadOnly>,
            #hal.pipeline.binding<storage_buffer>]>)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 floordiv 32 + 1)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [32, 1, 1]}
    hal.executable.export public @split ordinal(2)
        layout(#hal.pipeline.layout<constants = 0, bindings = [
            #hal.pipeline.binding<storage_buffer, ReadOnly>,
            #hal.pipeline.binding<storage_buffer>,
            #hal.pipeline.binding<storage_buffer>]>)
  }
)mlir";

std::string Program(std::string_view functions) {
  return std::string(kExecutable) + std::string(functions) + "}\n";
}

constexpr std::string_view kMixed = R"mlir(
  func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %n = arith.index_cast %d : index to i32
    %0 = flow.dispatch @ex::@mul[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}
    %1 = flow.dispatch @ex::@inplace[%d](%n, %a, %0) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> %0{%d}
    return %1 : tensor<?xf32>
  }
  func.func @g(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
    %0:2 = flow.dispatch @ex::@split(%a) : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
    return %0#0, %0#1 : tensor<4xi32>, tensor<4xi32>
  }
)mlir";

class DispatchTest : public PassTest {
 protected:
  // Parses `text`, expecting a parse error whose first line contains `message`.
  void ExpectParseError(const std::string& text, std::string_view message) {
    auto parsed = ParseModule(sources_, sources_.AddFile("test.mlir", text), diagnostics_);
    EXPECT_FALSE(parsed.ok());
    EXPECT_NE(FirstLine().find(message), std::string::npos) << diagnostics_.Render();
  }

  // Verifies `text`, expecting a failure whose first line contains `message`.
  void ExpectInvalid(const std::string& text, std::string_view message) {
    Operation* module = Parse(text);
    ASSERT_NE(module, nullptr);
    EXPECT_FALSE(VerifyModule(module, diagnostics_).ok());
    EXPECT_NE(FirstLine().find(message), std::string::npos) << diagnostics_.Render();
  }

  // The options of a lowering whose serializer embeds one CUDA variant (or
  // none when `variants` is false), recording the specs it was given.
  DispatchLoweringOptions Options(bool variants = true) {
    DispatchLoweringOptions options;
    options.serialize =
        [this, variants](const ExecutableSpec& spec) -> Result<std::vector<SerializedExecutable>> {
      specs_.push_back(spec);
      if (!variants) return std::vector<SerializedExecutable>{};
      return std::vector<SerializedExecutable>{
          {"cuda", "cuda-nvptx-fb", "sm_80", std::vector<uint8_t>{1, 2, 3, 4}}};
    };
    return options;
  }

  std::vector<ExecutableSpec> specs_;
};

TEST_F(DispatchTest, ParsesBothLayoutAndCountForms) {
  Operation* module = ParseValid(Program(kMixed));
  ASSERT_NE(module, nullptr);
  Operation* source = LookupSymbol(module, "ex");
  ASSERT_NE(source, nullptr);
  ASSERT_EQ(source->kind(), OpKind::kExecutableSource);
  const auto& exports = source->region(0)->front()->operations();
  ASSERT_EQ(exports.size(), 3u);
  Result<PipelineLayout> old_form = ParsePipelineLayout(*exports[0]->attribute("layout"));
  Result<PipelineLayout> new_form = ParsePipelineLayout(*exports[1]->attribute("layout"));
  ASSERT_TRUE(old_form.ok() && new_form.ok());
  EXPECT_EQ(old_form->constants, 1);
  EXPECT_EQ(old_form->bindings.size(), 3u);
  EXPECT_EQ(new_form->bindings.size(), 2u);
  // Both count forms give a region whose entry block takes (device, workload).
  for (size_t i = 0; i < 2; ++i) {
    Block* count = exports[i]->region(0)->front();
    ASSERT_EQ(count->num_arguments(), 2u);
    EXPECT_EQ(count->argument(0)->type, Type::Dialect("hal.device"));
    EXPECT_TRUE(count->argument(1)->type.is_index());
    EXPECT_EQ(count->terminator()->kind(), OpKind::kHalReturn);
  }
  EXPECT_TRUE(exports[2]->region(0)->empty());
  const Attribute* size = exports[1]->attribute("workgroup_size");
  ASSERT_EQ(size->elements.size(), 3u);
  EXPECT_EQ(size->elements[0].integer_value, 32);

  Operation* f = Func("f");
  Operation* tied = nullptr;
  Walk(f, [&](Operation* op) {
    if (op->kind() == OpKind::kDispatch && op->attribute("tied_operands")) tied = op;
  });
  ASSERT_NE(tied, nullptr);
  const Attribute* ties = tied->attribute("tied_operands");
  ASSERT_EQ(ties->elements.size(), 1u);
  EXPECT_EQ(ties->elements[0].integer_value, 2);  // %0 is operand #2 of the dispatch.
}

TEST_F(DispatchTest, PrintsAndParsesBack) {
  Operation* module = ParseValid(Program(kMixed));
  ASSERT_NE(module, nullptr);
  const std::string printed = PrintOperation(*module);
  EXPECT_NE(printed.find("flow.dispatch @ex::@mul[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, "
                         "tensor<?xf32>{%d}) -> tensor<?xf32>{%d}"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("-> %0{%d}"), std::string::npos) << printed;
  EXPECT_NE(printed.find("-> (tensor<4xi32>, tensor<4xi32>)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("hal.executable.export @mul ordinal(0) layout("), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("tensor.dim %a, %c0 : tensor<?xf32>"), std::string::npos) << printed;

  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto reparsed = ParseModule(sources, sources.AddFile("printed.mlir", printed), diagnostics);
  ASSERT_TRUE(reparsed.ok()) << diagnostics.Render() << printed;
  ASSERT_TRUE(VerifyModule(reparsed->get(), diagnostics).ok()) << diagnostics.Render();
  EXPECT_EQ(PrintOperation(**reparsed), printed);
}

// `hal.device.targets` holds typed device attributes; printed inline (not
// through an alias) they keep their `: !hal.device` and parse back.
TEST_F(DispatchTest, TypedDeviceTargetsRoundTrip) {
  Operation* module = ParseValid(R"mlir(
    #cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
    #device = #hal.device.target<"local", [#cpu]> : !hal.device
    module attributes {hal.device.targets = [#device]} {
    })mlir");
  ASSERT_NE(module, nullptr);
  const Attribute* targets = module->attribute("hal.device.targets");
  ASSERT_NE(targets, nullptr);
  ASSERT_EQ(targets->elements.size(), 1u);
  EXPECT_EQ(targets->elements[0].type, Type::Dialect("hal.device"));
  const std::string printed = PrintOperation(*module);
  EXPECT_NE(printed.find("]> : !hal.device]"), std::string::npos) << printed;
  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto reparsed = ParseModule(sources, sources.AddFile("p.mlir", printed), diagnostics);
  ASSERT_TRUE(reparsed.ok()) << diagnostics.Render();
  EXPECT_EQ(*(*reparsed)->attribute("hal.device.targets"), *targets);
}

TEST_F(DispatchTest, TensorEmptyAndGenericFormRoundTrip) {
  Operation* module = ParseValid(R"mlir(
    func.func @e(%n: index) -> tensor<?x4xf32> {
      %0 = tensor.empty(%n) : tensor<?x4xf32>
      return %0 : tensor<?x4xf32>
    })mlir");
  ASSERT_NE(module, nullptr);
  PrintOptions generic;
  generic.generic = true;
  const std::string text = PrintOperation(*module, generic);
  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto reparsed = ParseModule(sources, sources.AddFile("g.mlir", text), diagnostics);
  ASSERT_TRUE(reparsed.ok()) << diagnostics.Render() << text;
  EXPECT_EQ(PrintOperation(**reparsed), PrintOperation(*module));
  EXPECT_NE(PrintOperation(*module).find("tensor.empty(%n) : tensor<?x4xf32>"), std::string::npos);
}

TEST_F(DispatchTest, RejectsMalformedLayout) {
  std::string text = Program(kMixed);
  text.replace(text.find("push_constants = 1, sets"), 24, "push_constants = 1, bogus");
  ExpectInvalid(text, "attribute 'layout'");
}

TEST_F(DispatchTest, RejectsOrdinalOutOfRange) {
  std::string text = Program("");
  text.replace(text.find("ordinal(2)"), 10, "ordinal(5)");
  ExpectInvalid(text, "has ordinal 5, but the ordinals of the 3 exports of '@ex' must be 0..2");
}

TEST_F(DispatchTest, RejectsDuplicateOrdinal) {
  std::string text = Program("");
  text.replace(text.find("ordinal(2)"), 10, "ordinal(0)");
  ExpectInvalid(text, "reuses ordinal 0");
}

TEST_F(DispatchTest, RejectsCountRegionNotReturningThreeIndices) {
  std::string text = Program("");
  const size_t at = text.find("hal.return %x, %c1, %c1 : index, index, index");
  text.replace(at, 45, "hal.return %x, %c1 : index, index");
  ExpectInvalid(text, "must return the workgroup count as 3 'index' values");
}

TEST_F(DispatchTest, RejectsCallsInTheCountRegion) {
  std::string text = Program(R"mlir(
    func.func private @side.effect(%n: index) -> index
  )mlir");
  const size_t at = text.find("%x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>");
  text.replace(at, 2, "%unused = call @side.effect(%workload) : (index) -> index\n      %x");
  ExpectInvalid(text, "'func.call' is not allowed in a workgroup count region");
}

TEST_F(DispatchTest, RejectsCountFormWithWrongResultTypes) {
  std::string text = Program("");
  text.replace(text.find("-> (index, index, index) {"), 24, "-> (index, index)");
  ExpectParseError(text, "the workgroup count function must return (index, index, index)");
}

TEST_F(DispatchTest, RejectsUnknownExport) {
  ExpectInvalid(Program(R"mlir(
    func.func @f(%a: tensor<4xf32>) {
      %0 = flow.dispatch @ex::@nope(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return
    })mlir"),
                "executable '@ex' has no export '@nope'");
}

TEST_F(DispatchTest, RejectsUnknownExecutable) {
  ExpectInvalid(Program(R"mlir(
    func.func @f(%a: tensor<4xf32>) {
      %0 = flow.dispatch @other::@mul(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return
    })mlir"),
                "unknown executable '@other'");
}

TEST_F(DispatchTest, RejectsOperandsThatDoNotMatchTheLayout) {
  // @mul takes 1 constant and 3 bindings: here 0 constants and 2 bindings.
  ExpectInvalid(Program(R"mlir(
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %c4 = arith.constant 4 : index
      %0 = flow.dispatch @ex::@mul[%c4](%a) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    })mlir"),
                "passes 0 constants and 2 bindings (1 tensor operand, 1 result not tied to an "
                "operand), but the layout of @ex::@mul has 1 constant and 3 bindings");
}

TEST_F(DispatchTest, RejectsTiedResultOfAnotherType) {
  Operation* module = Parse(Program(R"mlir(
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %c4 = arith.constant 4 : index
      %n = arith.constant 4 : i32
      %0 = flow.dispatch @ex::@inplace[%c4](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> %b
      return %0 : tensor<4xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  // The parser gives a tied result its operand's type; a pass or the generic
  // form could still disagree, which the verifier reports.
  Operation* dispatch = nullptr;
  Walk(module, [&](Operation* op) {
    if (op->kind() == OpKind::kDispatch) dispatch = op;
  });
  ASSERT_NE(dispatch, nullptr);
  dispatch->result(0)->type = Type::Tensor({8}, Type::F32());
  EXPECT_FALSE(VerifyModule(module, diagnostics_).ok());
  EXPECT_NE(FirstLine().find("result #0 of type 'tensor<8xf32>' is tied to operand #2 of type "
                             "'tensor<4xf32>'"),
            std::string::npos)
      << diagnostics_.Render();
}

TEST_F(DispatchTest, RejectsWorkloadCountMismatch) {
  ExpectInvalid(Program(R"mlir(
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %n = arith.constant 4 : i32
      %0 = flow.dispatch @ex::@mul(%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    })mlir"),
                "passes 0 workload values to @ex::@mul, whose workgroup count region takes 1");
}

TEST_F(DispatchTest, RejectsMissingDims) {
  ExpectParseError(Program(R"mlir(
    func.func @f(%a: tensor<?xf32>) {
      %0 = flow.dispatch @ex::@split(%a) : (tensor<?xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      return
    })mlir"),
                   "expected '{' with the 1 dynamic dimension of 'tensor<?xf32>'");
}

// Lowers `text` with the fake serializer; fails the test on errors.
Operation* Lower(PassTest& test, Operation* module, DiagnosticEngine& diagnostics,
                 const DispatchLoweringOptions& options,
                 std::vector<LoweredExecutable>* executables = nullptr) {
  Status status = LowerDispatches(module, diagnostics, options, executables);
  EXPECT_TRUE(status.ok()) << diagnostics.Render();
  (void)test;
  return module;
}

// Names of the functions `func` calls, in order.
std::vector<std::string> Callees(Operation* func) {
  std::vector<std::string> out;
  Walk(func, [&](Operation* op) {
    if (op->kind() == OpKind::kCall) out.push_back(op->attribute("callee")->symbols[0]);
  });
  return out;
}

size_t CountOf(const std::vector<std::string>& names, std::string_view prefix) {
  return static_cast<size_t>(std::count_if(
      names.begin(), names.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; }));
}

TEST_F(DispatchTest, LowersToHalCalls) {
  Operation* module = ParseValid(Program(kMixed));
  ASSERT_NE(module, nullptr);
  std::vector<LoweredExecutable> executables;
  Lower(*this, module, diagnostics_, Options(), &executables);
  ASSERT_TRUE(VerifyModule(module, diagnostics_).ok())
      << diagnostics_.Render() << PrintOperation(*module);
  EXPECT_EQ(CountOps(module, OpKind::kDispatch), 0u);
  EXPECT_EQ(CountOps(module, OpKind::kExecutableSource), 0u);
  EXPECT_EQ(CountOps(module, OpKind::kAffineApply), 0u);
  EXPECT_EQ(CountOps(module, OpKind::kTensorDim), 0u);

  // The serializer saw the exports in ordinal order with their layouts.
  ASSERT_EQ(specs_.size(), 1u);
  ASSERT_EQ(specs_[0].exports.size(), 3u);
  EXPECT_EQ(specs_[0].exports[1].name, "inplace");
  EXPECT_EQ(specs_[0].exports[1].workgroup_size[0], 32u);
  EXPECT_EQ(specs_[0].exports[0].layout.constants, 1);

  // Tensor signatures became buffer views.
  EXPECT_EQ(FunctionTypeOf(Func("f")).ToString(),
            "(!hal.buffer_view, !hal.buffer_view) -> !hal.buffer_view");
  const std::vector<std::string> calls = Callees(Func("f"));
  EXPECT_EQ(CountOf(calls, "hal.buffer_view.assert$rriI_"), 2u);
  EXPECT_EQ(CountOf(calls, "hal.command_buffer.create"), 1u);  // One per block.
  EXPECT_EQ(CountOf(calls, "hal.command_buffer.dispatch$"), 2u);
  // The in-place dispatch writes what the first one wrote: a barrier.
  EXPECT_EQ(CountOf(calls, "hal.command_buffer.execution_barrier"), 1u);
  EXPECT_EQ(CountOf(calls, "hal.allocator.allocate"), 1u);  // The tied result allocates nothing.
  EXPECT_EQ(CountOf(calls, "hal.fence.await"), 1u);
  EXPECT_EQ(CountOf(calls, "hal.buffer_view.create$riI_r"), 1u);
  // Order: the submission comes before the result's view.
  auto position = [&](std::string_view name) {
    return std::find_if(calls.begin(), calls.end(),
                        [&](const std::string& c) { return c.rfind(name, 0) == 0; }) -
           calls.begin();
  };
  EXPECT_LT(position("hal.command_buffer.end"), position("hal.device.queue.execute"));
  EXPECT_LT(position("hal.fence.await"), position("hal.buffer_view.create"));

  // @g: two untied results, two allocations, no barrier.
  const std::vector<std::string> g_calls = Callees(Func("g"));
  EXPECT_EQ(CountOf(g_calls, "hal.allocator.allocate"), 2u);
  EXPECT_EQ(CountOf(g_calls, "hal.command_buffer.execution_barrier"), 0u);
  EXPECT_EQ(CountOf(g_calls, "hal.buffer_view.create$riI_r"), 2u);

  // Variadic imports: one declaration per signature, all naming the import.
  std::map<std::string, size_t> dispatch_declarations;
  for (const auto& op : module->region(0)->front()->operations()) {
    if (const Attribute* name = op->attribute("import_name")) ++dispatch_declarations[name->text];
  }
  EXPECT_EQ(dispatch_declarations["hal.command_buffer.dispatch"], 3u);  // 3 binding counts.

  ASSERT_EQ(executables.size(), 1u);
  EXPECT_EQ(executables[0].description.name, "ex");
  ASSERT_EQ(executables[0].description.variants.size(), 1u);
  EXPECT_EQ(executables[0].description.variants[0].format, "cuda-nvptx-fb");
  EXPECT_EQ(executables[0].description.exports.size(), 3u);
}

TEST_F(DispatchTest, DispatchWithoutVariantIsAnErrorAtTheDispatch) {
  Operation* module = ParseValid(Program(kMixed));
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(LowerDispatches(module, diagnostics_, Options(/*variants=*/false)).ok());
  const std::string text = Program(kMixed);
  const size_t line = 1 + static_cast<size_t>(std::count(
                              text.begin(), text.begin() + text.find("@ex::@mul[%d]"), '\n'));
  EXPECT_EQ(FirstLine().rfind("test.mlir:" + std::to_string(line) + ":", 0), 0u)
      << diagnostics_.Render();
  EXPECT_NE(FirstLine().find("dispatch to executable '@ex', which has no variant for the "
                             "selected targets"),
            std::string::npos)
      << diagnostics_.Render();
}

TEST_F(DispatchTest, SerializerErrorsAreReportedOnceAtTheExecutable) {
  Operation* module = ParseValid(Program(kMixed));
  ASSERT_NE(module, nullptr);
  DispatchLoweringOptions options;
  options.serialize = [](const ExecutableSpec&) -> Result<std::vector<SerializedExecutable>> {
    return NotFoundError("executable 'ex': executable object 'k.ptx' not found; searched: ., /x");
  };
  EXPECT_FALSE(LowerDispatches(module, diagnostics_, options).ok());
  EXPECT_EQ(FirstLine(),
            "test.mlir:4:3: error: executable 'ex': executable object 'k.ptx' not found; "
            "searched: ., /x");
  // The dispatches and the uses of their results add no errors of their own.
  EXPECT_EQ(diagnostics_.error_count(), 1u) << diagnostics_.Render();
}

// Runs the whole pipeline and code generation; the module must pass the VM's
// verifier.
struct Generated {
  std::vector<uint8_t> bytes;
  std::string error;
  const schema::Module& flat() const { return *schema::GetModule(bytes.data()); }
};

Generated Generate(const std::string& text, const DispatchLoweringOptions& options) {
  Generated out;
  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto parsed = ParseModule(sources, sources.AddFile("test.mlir", text), diagnostics);
  if (!parsed.ok()) return {{}, diagnostics.Render()};
  Operation* module = parsed->get();
  CodegenOptions codegen;
  Status status = VerifyModule(module, diagnostics);
  if (status.ok()) status = LowerDispatches(module, diagnostics, options, &codegen.executables);
  if (status.ok()) {
    FoldConstants(module);
    status = LowerStructuredControlFlow(module, diagnostics);
  }
  if (status.ok()) {
    SimplifyControlFlow(module);
    FoldConstants(module);
    EliminateDeadCode(module);
    status = VerifyModule(module, diagnostics);
  }
  if (!status.ok()) return {{}, diagnostics.Render()};
  auto bytes = GenerateModule(module, sources, diagnostics, codegen);
  if (!bytes.ok()) return {{}, diagnostics.Render() + bytes.status().ToString()};
  out.bytes = std::move(*bytes);
  Ref<vm::Instance> instance = vm::Instance::Create();
  auto loaded = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(out.bytes));
  if (!loaded.ok()) out.error = "load: " + loaded.status().ToString();
  return out;
}

TEST_F(DispatchTest, GeneratesAVerifiedModule) {
  Generated g = Generate(Program(kMixed), Options());
  ASSERT_TRUE(g.error.empty()) << g.error;
  const schema::Module& m = g.flat();
  std::multimap<std::string, std::string> imports;
  for (const schema::Import* i : *m.imports()) {
    imports.emplace(i->name()->str(), i->signature()->str());
  }
  auto signatures = [&](const std::string& name) {
    std::vector<std::string> out;
    auto [begin, end] = imports.equal_range(name);
    for (auto it = begin; it != end; ++it) out.push_back(it->second);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(signatures("hal.devices.get"), std::vector<std::string>{"i_r"});
  EXPECT_EQ(signatures("hal.buffer_view.dim"), std::vector<std::string>{"ri_I"});
  // Every tensor argument (all rank 1) asserts with one signature: one import entry.
  EXPECT_EQ(signatures("hal.buffer_view.assert"), std::vector<std::string>{"rriI_"});
  EXPECT_EQ(
      signatures("hal.command_buffer.dispatch"),
      (std::vector<std::string>{"rriiiiiirIIrII_", "rriiiiiirIIrIIrII_", "rriiiiirIIrIIrII_"}));
  EXPECT_EQ(signatures("hal.executable.load"), std::vector<std::string>{"rrrr_r"});
  EXPECT_EQ(signatures("hal.fence.await"), std::vector<std::string>{"rI_"});
  EXPECT_EQ(signatures("hal.device.queue.execute"), std::vector<std::string>{"rrrr_"});

  ASSERT_NE(m.executables(), nullptr);
  ASSERT_EQ(m.executables()->size(), 1u);
  const schema::ExecutableDescriptor* e = m.executables()->Get(0);
  EXPECT_EQ(e->name()->str(), "ex");
  ASSERT_EQ(e->variants()->size(), 1u);
  const uint32_t rodata = e->variants()->Get(0)->rodata();
  ASSERT_LT(rodata, m.rodata()->size());
  EXPECT_EQ(m.rodata()->Get(rodata)->data()->size(), 4u);
  ASSERT_EQ(e->dispatch_sites()->size(), 3u);
  // Each site is the offset of a call.import of hal.command_buffer.dispatch.
  for (const auto* site : *e->dispatch_sites()) {
    const schema::Function* f = m.functions()->Get(site->function());
    const uint8_t* code = m.bytecode()->data() + f->bytecode_offset();
    ASSERT_LT(site->bytecode_offset(), f->bytecode_length());
    EXPECT_EQ(code[site->bytecode_offset()], static_cast<uint8_t>(vm::Opcode::kCallImport));
    uint32_t import = 0;
    std::memcpy(&import, code + site->bytecode_offset() + 1, 4);
    EXPECT_EQ(m.imports()->Get(import)->name()->str(), "hal.command_buffer.dispatch");
  }
  // The initializer loads the device and the executable.
  ASSERT_GE(m.initializer(), 0);
  EXPECT_EQ(m.global_refs(), 2u);
}

// Dispatches in a loop body, around a call, into a tensor.empty and across
// functions: each block records its own command buffer, submitted before the
// terminator and before a call; the whole module verifies on the VM.
TEST_F(DispatchTest, BatchesPerBlockAndFlushesBeforeCalls) {
  const std::string text = Program(R"mlir(
    func.func private @fill(%n: index) -> tensor<?xi32> {
      %e = tensor.empty(%n) : tensor<?xi32>
      %c = arith.constant 7 : i32
      %0 = flow.dispatch @ex::@inplace[%n](%c, %e, %e) : (i32, tensor<?xi32>{%n}, tensor<?xi32>{%n}) -> %e{%n}
      return %0 : tensor<?xi32>
    }
    func.func @loop(%a: tensor<4xi32>, %steps: index) -> tensor<4xi32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %k = arith.constant 3 : i32
      scf.for %i = %c0 to %steps step %c1 {
        %0 = flow.dispatch @ex::@inplace[%c4](%k, %a, %a) : (i32, tensor<4xi32>, tensor<4xi32>) -> %a
        scf.yield
      }
      %f = call @fill(%c4) : (index) -> tensor<?xi32>
      %1 = flow.dispatch @ex::@inplace[%c4](%k, %a, %a) : (i32, tensor<4xi32>, tensor<4xi32>) -> %a
      %d = tensor.dim %f, %c0 : tensor<?xi32>
      %2 = flow.dispatch @ex::@inplace[%d](%k, %f, %a) : (i32, tensor<?xi32>{%d}, tensor<4xi32>) -> %a
      return %2 : tensor<4xi32>
    })mlir");
  Operation* module = ParseValid(text);
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(LowerDispatches(module, diagnostics_, Options()).ok()) << diagnostics_.Render();
  ASSERT_TRUE(VerifyModule(module, diagnostics_).ok())
      << diagnostics_.Render() << PrintOperation(*module);
  const std::vector<std::string> loop = Callees(Func("loop"));
  // The loop body's own command buffer, and one for the two dispatches after the call.
  EXPECT_EQ(CountOf(loop, "hal.command_buffer.create"), 2u);
  EXPECT_EQ(CountOf(loop, "hal.fence.await"), 2u);
  // The second and third dispatch both write %a: a barrier between them.
  EXPECT_EQ(CountOf(loop, "hal.command_buffer.execution_barrier"), 1u);
  // @fill returns its tensor as a view; @loop takes it apart again.
  EXPECT_EQ(FunctionTypeOf(Func("fill")).ToString(), "(index) -> !hal.buffer_view");
  EXPECT_EQ(CountOf(Callees(Func("fill")), "hal.allocator.allocate"), 1u);
  auto call_position = std::find(loop.begin(), loop.end(), "fill") - loop.begin();
  auto first_await = std::find(loop.begin(), loop.end(), "hal.fence.await") - loop.begin();
  EXPECT_LT(first_await, call_position);

  Generated g = Generate(text, Options());
  EXPECT_TRUE(g.error.empty()) << g.error;
}

TEST_F(DispatchTest, StaticShapesFoldToConstants) {
  Generated g = Generate(Program(R"mlir(
    func.func @g(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
      %0:2 = flow.dispatch @ex::@split(%a) : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
      return %0#0, %0#1 : tensor<4xi32>, tensor<4xi32>
    })mlir"),
                         Options());
  ASSERT_TRUE(g.error.empty()) << g.error;
  // No multiplication is left: every byte length (16) is a constant.
  const schema::Module& m = g.flat();
  for (const schema::Function* f : *m.functions()) {
    for (const Instruction& i :
         Decode(m.bytecode()->data() + f->bytecode_offset(), f->bytecode_length())) {
      EXPECT_NE(i.opcode, vm::Opcode::kMulI64) << f->name()->str();
    }
  }
}

// A module with both initial values and executables: the generated `__init`
// stores the values, then calls the dispatch lowering's initializer.
TEST_F(DispatchTest, InitializerRunsAfterInitialValues) {
  Generated g = Generate(Program(R"mlir(
    util.global private mutable @count : i32 = 5
    func.func @g(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, i32) {
      %0:2 = flow.dispatch @ex::@split(%a) : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
      %c = util.global.load @count : i32
      return %0#0, %0#1, %c : tensor<4xi32>, tensor<4xi32>, i32
    })mlir"),
                         Options());
  ASSERT_TRUE(g.error.empty()) << g.error;
  const schema::Module& m = g.flat();
  ASSERT_GE(m.initializer(), 0);
  const schema::Function* init = m.functions()->Get(static_cast<uint32_t>(m.initializer()));
  EXPECT_EQ(init->name()->str(), "__init");
  std::vector<vm::Opcode> opcodes;
  for (const Instruction& i :
       Decode(m.bytecode()->data() + init->bytecode_offset(), init->bytecode_length())) {
    opcodes.push_back(i.opcode);
  }
  const auto store = std::find(opcodes.begin(), opcodes.end(), vm::Opcode::kGlobalStoreI32);
  const auto call = std::find(opcodes.begin(), opcodes.end(), vm::Opcode::kCall);
  ASSERT_NE(store, opcodes.end());
  ASSERT_NE(call, opcodes.end());
  EXPECT_LT(store, call);
}

// affine.apply lowered to index arithmetic computes what AffineMap::Evaluate
// does, negative values included (MLIR's floordiv, ceildiv and mod).
TEST_F(DispatchTest, AffineApplyMatchesEvaluation) {
  const std::vector<std::string> maps = {
      "(d0)[s0] -> (d0 floordiv 7 + s0 mod 5 - (d0 ceildiv 3) * 2)",
      "(d0, d1)[s0] -> (d0 * 3 - d1 + s0 * s0, -(d0 mod 4))",
      "()[s0, s1] -> (s0 ceildiv 64, s0 floordiv s1, s0 mod s1, (s0 + s1) ceildiv s1)",
      "(d0)[s0] -> (((d0 + 5) floordiv 2) mod 3 - 11)",
  };
  for (const std::string& body : maps) {
    Result<AffineMap> map = ParseAffineMap(body);
    ASSERT_TRUE(map.ok()) << body;
    std::string args, dims, symbols, results, result_types;
    for (uint32_t i = 0; i < map->num_dims + map->num_symbols; ++i) {
      args += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": index";
      std::string& list = i < map->num_dims ? dims : symbols;
      list += (list.empty() ? "" : ", ") + std::string("%a") + std::to_string(i);
    }
    std::string text;
    for (size_t r = 0; r < map->results.size(); ++r) {
      const std::string one = "affine_map<" + std::string(body.substr(0, body.find("->"))) +
                              "-> (" + map->ExprToString(map->results[r]) + ")>";
      text += "  %r" + std::to_string(r) + " = affine.apply " + one + "(" + dims + ")[" + symbols +
              "]\n";
      results += (r ? ", " : "") + std::string("%r") + std::to_string(r);
      result_types += (r ? ", " : "") + std::string("index");
    }
    const std::string program = "func.func @f(" + args + ") -> (" + result_types + ") {\n" + text +
                                "  return " + results + " : " + result_types + "\n}\n";
    SourceManager sources;
    DiagnosticEngine diagnostics(sources);
    auto parsed = ParseModule(sources, sources.AddFile("test.mlir", program), diagnostics);
    ASSERT_TRUE(parsed.ok()) << diagnostics.Render() << program;
    ASSERT_TRUE(VerifyModule(parsed->get(), diagnostics).ok()) << diagnostics.Render();
    ASSERT_TRUE(LowerDispatches(parsed->get(), diagnostics, Options()).ok())
        << diagnostics.Render();
    EXPECT_EQ(CountOps(parsed->get(), OpKind::kAffineApply), 0u);
    Compiled c = Compiled::FromModule(parsed->get(), sources);
    ASSERT_TRUE(c.ok()) << c.error();
    const int64_t samples[] = {-130, -65, -64, -63, -8, -7, -1, 0, 1, 3, 7, 63, 64, 65, 129};
    const int64_t divisors[] = {1, 3, 7, 64};
    size_t checked = 0;
    for (int64_t x : samples) {
      for (int64_t y : samples) {
        for (int64_t s : divisors) {
          std::vector<int64_t> values = {x, y, s};
          std::vector<int64_t> dim_values(values.begin(), values.begin() + map->num_dims);
          std::vector<int64_t> symbol_values;
          for (uint32_t i = 0; i < map->num_symbols; ++i) {
            // The last symbol is a divisor in the maps above: keep it positive.
            symbol_values.push_back(i + 1 == map->num_symbols ? s : values[map->num_dims + i]);
          }
          Result<std::vector<int64_t>> expected = map->Evaluate(dim_values, symbol_values);
          if (!expected.ok()) continue;
          ++checked;
          std::vector<vm::Variant> call_args;
          for (int64_t v : dim_values) call_args.push_back(vm::Variant::I64(v));
          for (int64_t v : symbol_values) call_args.push_back(vm::Variant::I64(v));
          auto got = c.Call("f", call_args);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          ASSERT_EQ(got->size(), expected->size());
          for (size_t r = 0; r < expected->size(); ++r) {
            EXPECT_EQ((*got)[r].i64(), (*expected)[r])
                << body << " result " << r << " at dims/symbols " << x << ", " << y << ", " << s;
          }
        }
      }
    }
    EXPECT_EQ(checked, std::size(samples) * std::size(samples) * std::size(divisors)) << body;
  }
}

TEST_F(DispatchTest, RejectsTensorsWhereTheyCannotBeLowered) {
  Operation* module = ParseValid(Program(R"mlir(
    func.func @f(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %0 = arith.select %c, %a, %b : tensor<4xf32>
      return %0 : tensor<4xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(LowerDispatches(module, diagnostics_, Options()).ok());
  EXPECT_NE(FirstLine().find("'arith.select' cannot take or produce tensors"), std::string::npos)
      << diagnostics_.Render();
}

}  // namespace
}  // namespace kiln::compiler::testing
