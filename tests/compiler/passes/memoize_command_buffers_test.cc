// MemoizeCommandBuffers: static one-shot recordings become a reusable
// command buffer recorded once by a private function, kept in a ref global
// and submitted with a binding table (the exact shapes of
// memoize_command_buffers.cc); dynamic or unusual segments stay as they
// are; the driver's option turns the pass off; the result verifies, runs
// the rest of the pipeline and generates a VM-verified module whose
// executables debug table still lists every dispatch site. Also the
// vm.ref.is_null op the pass emits: syntax, verifier, code generation.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/driver/compiler.h"
#include "compiler/ir/printer.h"
#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

// @mul: out = lhs * rhs (1 constant, 3 bindings); @inplace: rhs *= lhs.
constexpr std::string_view kExecutable = R"mlir(
#target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
module {
  hal.executable.source private @ex attributes {
    objects = #hal.executable.objects<{#target = [#hal.executable.object<{path = "k.ptx"}>]}>
  } {
    hal.executable.export public @mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
            #hal.pipeline.binding<storage_buffer, ReadOnly>,
            #hal.pipeline.binding<storage_buffer, ReadOnly>,
            #hal.pipeline.binding<storage_buffer>]>)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
    hal.executable.export public @inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
            #hal.pipeline.binding<storage_buffer, ReadOnly>,
            #hal.pipeline.binding<storage_buffer>]>)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %workload, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [1, 1, 1]}
  }
)mlir";

std::string Program(std::string_view functions) {
  return std::string(kExecutable) + std::string(functions) + "}\n";
}

DispatchLoweringOptions FakeSerializer() {
  DispatchLoweringOptions options;
  options.serialize = [](const ExecutableSpec&) -> Result<std::vector<SerializedExecutable>> {
    return std::vector<SerializedExecutable>{
        {"cuda", "cuda-nvptx-fb", "sm_80", std::vector<uint8_t>{1, 2, 3, 4}}};
  };
  return options;
}

// The callee names of the calls in `op` (nested ones included), in order.
std::vector<std::string> Callees(Operation* op) {
  std::vector<std::string> out;
  Walk(op, [&](Operation* o) {
    if (o->kind() == OpKind::kCall) out.push_back(o->attribute("callee")->symbols[0]);
  });
  return out;
}

// The calls in `op` whose callee starts with `prefix`.
std::vector<Operation*> CallsOf(Operation* op, std::string_view prefix) {
  std::vector<Operation*> out;
  Walk(op, [&](Operation* o) {
    if (o->kind() == OpKind::kCall && o->attribute("callee")->symbols[0].rfind(prefix, 0) == 0) {
      out.push_back(o);
    }
  });
  return out;
}

size_t CountPrefix(const std::vector<std::string>& names, std::string_view prefix) {
  return static_cast<size_t>(std::count_if(
      names.begin(), names.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; }));
}

int64_t IntegerOf(const Value* v) {
  const Attribute* value = ConstantOf(v);
  EXPECT_NE(value, nullptr) << "not a constant: %" << v->name;
  return value ? value->integer_value : -999;
}

// The binding-table slots a dispatch.indirect call binds (its constant count
// is operand 6).
std::vector<int64_t> Slots(const Operation* dispatch) {
  std::vector<int64_t> slots;
  const size_t first = 7 + static_cast<size_t>(IntegerOf(dispatch->operands[6]));
  for (size_t i = first; i < dispatch->operands.size(); i += 3) {
    slots.push_back(IntegerOf(dispatch->operands[i]));
  }
  return slots;
}

class MemoizeTest : public PassTest {
 protected:
  // Verifies, lowers the dispatches, folds and memoizes `text`; the result
  // must verify.
  Operation* Memoize(const std::string& text) {
    Operation* module = ParseValid(text);
    if (!module) return nullptr;
    Status lowered = LowerDispatches(module, diagnostics_, FakeSerializer(), &executables_);
    EXPECT_TRUE(lowered.ok()) << diagnostics_.Render();
    if (!lowered.ok()) return nullptr;
    FoldConstants(module);
    before_ = PrintOperation(*module);
    MemoizeCommandBuffers(module);
    Status valid = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(valid.ok()) << diagnostics_.Render() << PrintOperation(*module);
    return valid.ok() ? module : nullptr;
  }

  // The rest of kiln-compile's pipeline and code generation; the module must
  // load (the VM verifies it; no hal module is linked, so nothing runs).
  std::vector<uint8_t> Finish(Operation* module) {
    EXPECT_TRUE(LowerStructuredControlFlow(module, diagnostics_).ok()) << diagnostics_.Render();
    SimplifyControlFlow(module);
    FoldConstants(module);
    SimplifyControlFlow(module);
    EliminateDeadCode(module);
    EXPECT_TRUE(VerifyModule(module, diagnostics_).ok())
        << diagnostics_.Render() << PrintOperation(*module);
    CodegenOptions codegen;
    codegen.executables = executables_;
    auto bytes = GenerateModule(module, sources_, diagnostics_, codegen);
    EXPECT_TRUE(bytes.ok()) << diagnostics_.Render() << bytes.status().ToString();
    if (!bytes.ok()) return {};
    Ref<vm::Instance> instance = vm::Instance::Create();
    auto loaded = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(*bytes));
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return loaded.ok() ? std::move(*bytes) : std::vector<uint8_t>{};
  }

  // The decoded bytecode of function `name` of a generated module.
  static std::vector<Instruction> Code(const std::vector<uint8_t>& bytes, std::string_view name) {
    const schema::Module& m = *schema::GetModule(bytes.data());
    for (const schema::Function* f : *m.functions()) {
      if (f->name()->string_view() == name) {
        return Decode(m.bytecode()->data() + f->bytecode_offset(), f->bytecode_length());
      }
    }
    return {};
  }

  std::vector<LoweredExecutable> executables_;
  std::string before_;  // The IR the pass was given.
};

constexpr std::string_view kIndependent = R"mlir(
  func.func @f(%a: tensor<100xf32>, %b: tensor<100xf32>) -> (tensor<100xf32>, tensor<100xf32>) {
    %c100 = arith.constant 100 : index
    %n = arith.constant 100 : i32
    %0 = flow.dispatch @ex::@mul[%c100](%n, %a, %b) : (i32, tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
    %1 = flow.dispatch @ex::@mul[%c100](%n, %b, %a) : (i32, tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
    return %0, %1 : tensor<100xf32>, tensor<100xf32>
  }
)mlir";

TEST_F(MemoizeTest, StaticSegmentIsRecordedOnceAndSubmittedWithSlots) {
  Operation* module = Memoize(Program(kIndependent));
  ASSERT_NE(module, nullptr);
  Operation* f = Func("f");

  // @f keeps the allocations, the fence and the wait; the recording is gone.
  const std::vector<std::string> calls = Callees(f);
  EXPECT_EQ(CountPrefix(calls, "hal.command_buffer."), 0u) << PrintOperation(*f);
  EXPECT_EQ(CountPrefix(calls, "hal.allocator.allocate"), 2u);
  EXPECT_EQ(CountPrefix(calls, "hal.fence.create"), 1u);
  EXPECT_EQ(CountPrefix(calls, "hal.fence.await"), 1u);
  EXPECT_EQ(CountPrefix(calls, "hal.device.queue.execute("), 0u);
  EXPECT_EQ(CountOps(f, OpKind::kGlobalLoad), 2u);  // The device and the memoized buffer.

  // The global: a private mutable command-buffer ref, null until recorded.
  Operation* global = Func("__hal_command_buffer_0");
  ASSERT_NE(global, nullptr);
  ASSERT_EQ(global->kind(), OpKind::kGlobal);
  EXPECT_EQ(global->attribute("type")->type, Type::Dialect("hal.command_buffer"));
  EXPECT_NE(global->attribute("is_mutable"), nullptr);
  EXPECT_EQ(global->attribute("sym_visibility")->text, "private");
  EXPECT_EQ(global->attribute("initial_value"), nullptr);

  // The submit point: load, is_null, scf.if recording and storing, then
  // queue.execute.indirect with the table (a's buffer, b's, then the two
  // results' allocations, in first-use order).
  std::vector<Operation*> submits = CallsOf(f, "hal.device.queue.execute.indirect");
  ASSERT_EQ(submits.size(), 1u);
  Operation* submit = submits[0];
  EXPECT_EQ(submit->attribute("callee")->symbols[0], "hal.device.queue.execute.indirect$rrrrrrrr_");
  ASSERT_EQ(submit->operands.size(), 8u);
  Operation* decl = LookupSymbol(module, "hal.device.queue.execute.indirect$rrrrrrrr_");
  ASSERT_NE(decl, nullptr);
  EXPECT_EQ(decl->attribute("import_name")->text, "hal.device.queue.execute.indirect");
  const Block* entry = Body(f)->front();
  auto defined_by_call = [](const Value* v, std::string_view callee) {
    const Operation* def = v->defining_op();
    return def && def->kind() == OpKind::kCall &&
           def->attribute("callee")->symbols[0].rfind(callee, 0) == 0;
  };
  EXPECT_TRUE(defined_by_call(submit->operands[4], "hal.buffer_view.buffer"));
  EXPECT_EQ(submit->operands[4]->defining_op()->operands[0], entry->argument(0));
  EXPECT_EQ(submit->operands[5]->defining_op()->operands[0], entry->argument(1));
  EXPECT_TRUE(defined_by_call(submit->operands[6], "hal.allocator.allocate"));
  EXPECT_TRUE(defined_by_call(submit->operands[7], "hal.allocator.allocate"));
  EXPECT_NE(submit->operands[6], submit->operands[7]);
  EXPECT_TRUE(defined_by_call(submit->operands[2], "hal.fence.create"));
  EXPECT_EQ(submit->operands[1]->defining_op()->kind(), OpKind::kConstRefNull);

  Operation* if_op = submit->operands[3]->defining_op();
  ASSERT_NE(if_op, nullptr);
  ASSERT_EQ(if_op->kind(), OpKind::kIf);
  Operation* is_null = if_op->operands[0]->defining_op();
  ASSERT_EQ(is_null->kind(), OpKind::kRefIsNull);
  Operation* load = is_null->operands[0]->defining_op();
  ASSERT_EQ(load->kind(), OpKind::kGlobalLoad);
  EXPECT_EQ(load->attribute("global")->symbols[0], "__hal_command_buffer_0");
  // then: record, store, yield the new one; else: yield the loaded one. The
  // store comes after the call, so a failing recording stores nothing.
  Block* then_block = if_op->region(0)->front();
  EXPECT_EQ(OpNames(then_block), "func.call,util.global.store,scf.yield");
  EXPECT_EQ(then_block->operations()[0]->attribute("callee")->symbols[0],
            "__hal_record_command_buffer_0");
  EXPECT_EQ(then_block->operations()[1]->attribute("global")->symbols[0], "__hal_command_buffer_0");
  EXPECT_EQ(then_block->operations()[2]->operands[0], then_block->operations()[0]->result(0));
  Block* else_block = if_op->region(1)->front();
  EXPECT_EQ(OpNames(else_block), "scf.yield");
  EXPECT_EQ(else_block->operations()[0]->operands[0], load->result(0));
  // Submitted where the one-shot command buffer was: after the allocations,
  // before the wait.
  const std::vector<std::string> order = Callees(f);
  const auto at = [&](std::string_view name) {
    return std::find_if(order.begin(), order.end(),
                        [&](const std::string& c) { return c.rfind(name, 0) == 0; }) -
           order.begin();
  };
  EXPECT_LT(at("hal.fence.create"), at("hal.device.queue.execute.indirect"));
  EXPECT_LT(at("hal.device.queue.execute.indirect"), at("hal.fence.await"));

  // The recording function: load the device and executable, create a
  // reusable command buffer, the dispatches with slots, end, return.
  Operation* record = Func("__hal_record_command_buffer_0");
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(FunctionTypeOf(record).ToString(), "() -> !hal.command_buffer");
  EXPECT_EQ(record->attribute("sym_visibility")->text, "private");
  EXPECT_EQ(
      Callees(record),
      (std::vector<std::string>{
          "hal.command_buffer.create", "hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_",
          "hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_", "hal.command_buffer.end"}));
  Operation* create = CallsOf(record, "hal.command_buffer.create")[0];
  EXPECT_EQ(IntegerOf(create->operands[1]), 1);  // Reusable.
  EXPECT_EQ(create->operands[0]->defining_op()->attribute("global")->symbols[0], "__hal_device");
  std::vector<Operation*> dispatches = CallsOf(record, "hal.command_buffer.dispatch.indirect");
  ASSERT_EQ(dispatches.size(), 2u);
  EXPECT_EQ(Slots(dispatches[0]), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Slots(dispatches[1]), (std::vector<int64_t>{1, 0, 3}));
  for (Operation* d : dispatches) {
    EXPECT_EQ(d->operands[0], create->result(0));
    EXPECT_EQ(d->operands[1]->defining_op()->attribute("global")->symbols[0],
              "__hal_executable_ex");
    // ordinal 0, ceil(100 / 64) = 2 x 1 x 1 workgroups, one constant: 100,
    // each binding the whole 400 bytes.
    EXPECT_EQ(IntegerOf(d->operands[2]), 0);
    EXPECT_EQ(IntegerOf(d->operands[3]), 2);
    EXPECT_EQ(IntegerOf(d->operands[4]), 1);
    EXPECT_EQ(IntegerOf(d->operands[7]), 100);
    EXPECT_EQ(IntegerOf(d->operands[9]), 0);
    EXPECT_EQ(IntegerOf(d->operands[10]), 400);
    // The dispatch site and its source location stay.
    const Attribute* site = d->attribute("dispatch");
    ASSERT_NE(site, nullptr);
    EXPECT_EQ(site->symbols, (std::vector<std::string>{"ex", "mul"}));
  }
  const std::string text = Program(kIndependent);
  const uint32_t line = static_cast<uint32_t>(
      1 + std::count(text.begin(), text.begin() + text.find("flow.dispatch @ex::@mul"), '\n'));
  EXPECT_EQ(dispatches[0]->loc.line, line);
  EXPECT_EQ(dispatches[1]->loc.line, line + 1);
  Operation* decl_indirect =
      LookupSymbol(module, "hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_");
  ASSERT_NE(decl_indirect, nullptr);
  EXPECT_EQ(decl_indirect->attribute("import_name")->text, "hal.command_buffer.dispatch.indirect");

  // The printed IR parses back into the same module.
  const std::string printed = PrintOperation(*module);
  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto reparsed = ParseModule(sources, sources.AddFile("printed.mlir", printed), diagnostics);
  ASSERT_TRUE(reparsed.ok()) << diagnostics.Render() << printed;
  ASSERT_TRUE(VerifyModule(reparsed->get(), diagnostics).ok()) << diagnostics.Render();
  EXPECT_EQ(PrintOperation(**reparsed), printed);
  // Memoizing again changes nothing: the segment is already reusable.
  MemoizeCommandBuffers(reparsed->get());
  EXPECT_EQ(PrintOperation(**reparsed), printed);
}

// The counts come from tensor.dim of arguments: recorded on every call, as
// before.
TEST_F(MemoizeTest, DynamicSegmentStaysOneShot) {
  Operation* module = Memoize(Program(R"mlir(
    func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
      %c0 = arith.constant 0 : index
      %d = tensor.dim %a, %c0 : tensor<?xf32>
      %n = arith.index_cast %d : index to i32
      %0 = flow.dispatch @ex::@mul[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}
      return %0 : tensor<?xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintOperation(*module), before_);
  std::vector<Operation*> creates = CallsOf(Func("f"), "hal.command_buffer.create");
  ASSERT_EQ(creates.size(), 1u);
  EXPECT_EQ(IntegerOf(creates[0]->operands[1]), 0);  // One-shot.
  EXPECT_EQ(Func("__hal_command_buffer_0"), nullptr);
}

// A push constant from an argument is not static either, whatever the shapes.
TEST_F(MemoizeTest, DynamicConstantStaysOneShot) {
  Operation* module = Memoize(Program(R"mlir(
    func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>, %n: i32) -> tensor<8xf32> {
      %c8 = arith.constant 8 : index
      %0 = flow.dispatch @ex::@mul[%c8](%n, %a, %b) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintOperation(*module), before_);
}

TEST_F(MemoizeTest, BarriersAreRecordedInOrder) {
  Operation* module = Memoize(Program(R"mlir(
    func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
      %c8 = arith.constant 8 : index
      %n = arith.constant 8 : i32
      %0 = flow.dispatch @ex::@mul[%c8](%n, %a, %b) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %1 = flow.dispatch @ex::@mul[%c8](%n, %0, %b) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %2 = flow.dispatch @ex::@inplace[%c8](%n, %a, %1) : (i32, tensor<8xf32>, tensor<8xf32>) -> %1
      return %2 : tensor<8xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  Operation* record = Func("__hal_record_command_buffer_0");
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(
      Callees(record),
      (std::vector<std::string>{
          "hal.command_buffer.create", "hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_",
          "hal.command_buffer.execution_barrier",
          "hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_",
          "hal.command_buffer.execution_barrier",
          "hal.command_buffer.dispatch.indirect$rriiiiiiiIIiII_", "hal.command_buffer.end"}));
  std::vector<Operation*> dispatches = CallsOf(record, "hal.command_buffer.dispatch.indirect");
  ASSERT_EQ(dispatches.size(), 3u);
  // a = 0, b = 1, %0 = 2, %1 = 3; the in-place dispatch reads a, writes %1.
  EXPECT_EQ(Slots(dispatches[0]), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Slots(dispatches[1]), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(Slots(dispatches[2]), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(IntegerOf(dispatches[2]->operands[2]), 1);  // @inplace's ordinal.
  EXPECT_EQ(dispatches[2]->attribute("dispatch")->symbols[1], "inplace");
  ASSERT_EQ(CallsOf(Func("f"), "hal.device.queue.execute.indirect")[0]->operands.size(), 8u);
  EXPECT_FALSE(Finish(module).empty());
}

// A call ends a block's recording: the dispatches before and after it are
// two segments, each with its own global and recording function.
TEST_F(MemoizeTest, TwoSegmentsAroundACallGetTwoGlobals) {
  Operation* module = Memoize(Program(R"mlir(
    func.func private @other() {
      return
    }
    func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
      %c8 = arith.constant 8 : index
      %n = arith.constant 8 : i32
      %0 = flow.dispatch @ex::@mul[%c8](%n, %a, %b) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      call @other() : () -> ()
      %1 = flow.dispatch @ex::@mul[%c8](%n, %0, %a) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      return %1 : tensor<8xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  Operation* f = Func("f");
  for (const char* name : {"__hal_command_buffer_0", "__hal_command_buffer_1",
                           "__hal_record_command_buffer_0", "__hal_record_command_buffer_1"}) {
    EXPECT_NE(Func(name), nullptr) << name;
  }
  EXPECT_EQ(CountOps(f, OpKind::kIf), 2u);
  const std::vector<std::string> calls = Callees(f);
  const auto at = [&](std::string_view name) {
    return std::find(calls.begin(), calls.end(), name) - calls.begin();
  };
  // First segment, the call, second segment.
  EXPECT_LT(at("__hal_record_command_buffer_0"), at("other"));
  EXPECT_LT(at("other"), at("__hal_record_command_buffer_1"));
  std::vector<Operation*> submits = CallsOf(f, "hal.device.queue.execute.indirect");
  ASSERT_EQ(submits.size(), 2u);
  EXPECT_EQ(submits[0]->operands.size(), 7u);  // a, b, %0.
  EXPECT_EQ(submits[1]->operands.size(), 7u);  // %0, a (it was read after the call), %1.
  EXPECT_EQ(submits[1]->operands[4], submits[0]->operands[6]);
  for (const char* record : {"__hal_record_command_buffer_0", "__hal_record_command_buffer_1"}) {
    EXPECT_EQ(CallsOf(Func(record), "hal.command_buffer.dispatch.indirect").size(), 1u) << record;
  }
  EXPECT_FALSE(Finish(module).empty());
}

// A segment in a loop body is memoized where it is: the check and the
// recording run inside the loop, once recorded the loop only submits.
TEST_F(MemoizeTest, SegmentInALoopBody) {
  Operation* module = Memoize(Program(R"mlir(
    func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>, %steps: index) -> tensor<8xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %n = arith.constant 8 : i32
      scf.for %i = %c0 to %steps step %c1 {
        %0 = flow.dispatch @ex::@inplace[%c8](%n, %a, %b) : (i32, tensor<8xf32>, tensor<8xf32>) -> %b
        scf.yield
      }
      return %b : tensor<8xf32>
    })mlir"));
  ASSERT_NE(module, nullptr);
  std::vector<Operation*> submits = CallsOf(Func("f"), "hal.device.queue.execute.indirect");
  ASSERT_EQ(submits.size(), 1u);
  EXPECT_EQ(submits[0]->parent_op()->kind(), OpKind::kFor);
  EXPECT_EQ(submits[0]->operands[3]->defining_op()->parent_op()->kind(), OpKind::kFor);
  const std::vector<uint8_t> bytes = Finish(module);
  ASSERT_FALSE(bytes.empty());
  // Lowered to blocks, the loop reaches the recording only through the null
  // check.
  size_t checks = 0, calls = 0;
  for (const Instruction& i : Code(bytes, "f")) {
    checks += i.opcode == vm::Opcode::kRefIsNull;
    calls += i.opcode == vm::Opcode::kCall;
  }
  EXPECT_EQ(checks, 1u);
  EXPECT_EQ(calls, 1u);
}

// Code generation: the executables debug table lists every dispatch site, in
// the recording function, at a call.import of dispatch.indirect.
TEST_F(MemoizeTest, DispatchSitesMoveToTheRecordingFunction) {
  Operation* module = Memoize(Program(kIndependent));
  ASSERT_NE(module, nullptr);
  const std::vector<uint8_t> bytes = Finish(module);
  ASSERT_FALSE(bytes.empty());
  const schema::Module& m = *schema::GetModule(bytes.data());
  ASSERT_EQ(m.executables()->size(), 1u);
  const schema::ExecutableDescriptor* e = m.executables()->Get(0);
  ASSERT_EQ(e->dispatch_sites()->size(), 2u);
  for (const auto* site : *e->dispatch_sites()) {
    const schema::Function* f = m.functions()->Get(site->function());
    EXPECT_EQ(f->name()->str(), "__hal_record_command_buffer_0");
    const uint8_t* code = m.bytecode()->data() + f->bytecode_offset();
    ASSERT_LT(site->bytecode_offset(), f->bytecode_length());
    EXPECT_EQ(code[site->bytecode_offset()], static_cast<uint8_t>(vm::Opcode::kCallImport));
    uint32_t import = 0;
    std::memcpy(&import, code + site->bytecode_offset() + 1, 4);
    EXPECT_EQ(m.imports()->Get(import)->name()->str(), "hal.command_buffer.dispatch.indirect");
    EXPECT_EQ(site->export_ordinal(), 0u);
  }
  // Three ref globals: the device, the executable and the command buffer.
  EXPECT_EQ(m.global_refs(), 3u);
}

// Lowered IR written by hand: the pass leaves a segment alone when anything
// but create/dispatch/barrier/end/queue.execute touches the command buffer,
// when the executable global may change after initialization, when the
// command buffer is already reusable, or when the order is unusual.
constexpr std::string_view kLowered = R"mlir(
module {
  util.global private mutable @__hal_device : !hal.device
  util.global private mutable @__hal_executable_ex : !hal.executable
  func.func private @hal.command_buffer.create(!hal.device, i32) -> !hal.command_buffer
  func.func private @hal.command_buffer.dispatch$rriiiiiirII_(!hal.command_buffer, !hal.executable, i32, i32, i32, i32, i32, i32, !hal.buffer, i64, i64) attributes {import_name = "hal.command_buffer.dispatch"}
  func.func private @hal.command_buffer.fill_buffer(!hal.command_buffer, !hal.buffer, i64, i64, i32, i32)
  func.func private @hal.command_buffer.end(!hal.command_buffer)
  func.func private @hal.fence.create(!hal.device) -> !hal.fence
  func.func private @hal.device.queue.execute(!hal.device, !hal.fence, !hal.fence, !hal.command_buffer)
  func.func private @hal.fence.await(!hal.fence, i64)
  func.func private @keep(!hal.command_buffer)
  func.func @f(%buffer: !hal.buffer, %k: i32) {
    %mode = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant 0 : i64
    %len = arith.constant 16 : i64
    %forever = arith.constant -1 : i64
    %device = util.global.load @__hal_device : !hal.device
    %exe = util.global.load @__hal_executable_ex : !hal.executable
    %cb = call @hal.command_buffer.create(%device, %mode) : (!hal.device, i32) -> !hal.command_buffer
    call @hal.command_buffer.dispatch$rriiiiiirII_(%cb, %exe, %c1, %c1, %c1, %c1, %c1, %CONSTANT, %buffer, %zero, %len) {dispatch = @ex::@f} : (!hal.command_buffer, !hal.executable, i32, i32, i32, i32, i32, i32, !hal.buffer, i64, i64) -> ()
    EXTRA
    call @hal.command_buffer.end(%cb) : (!hal.command_buffer) -> ()
    %fence = call @hal.fence.create(%device) : (!hal.device) -> !hal.fence
    %null = "vm.const.ref.null"() : () -> !hal.fence
    call @hal.device.queue.execute(%device, %null, %fence, %cb) : (!hal.device, !hal.fence, !hal.fence, !hal.command_buffer) -> ()
    call @hal.fence.await(%fence, %forever) : (!hal.fence, i64) -> ()
    return
  }
  OTHER
}
)mlir";

std::string Lowered(std::string_view extra, std::string_view other = "",
                    std::string_view constant = "%c1", std::string_view mode = "0") {
  std::string text(kLowered);
  auto replace = [&](std::string_view what, std::string_view with) {
    text.replace(text.find(what), what.size(), with);
  };
  replace("EXTRA", extra);
  replace("OTHER", other);
  replace("%CONSTANT", constant);
  replace("%mode = arith.constant 0", "%mode = arith.constant " + std::string(mode));
  return text;
}

TEST_F(MemoizeTest, HandWrittenSegmentIsMemoized) {
  Operation* module = ParseValid(Lowered(""));
  ASSERT_NE(module, nullptr);
  MemoizeCommandBuffers(module);
  ASSERT_TRUE(VerifyModule(module, diagnostics_).ok()) << diagnostics_.Render();
  EXPECT_NE(Func("__hal_record_command_buffer_0"), nullptr);
  EXPECT_EQ(CallsOf(Func("f"), "hal.device.queue.execute.indirect$rrrrr_").size(), 1u)
      << PrintOperation(*module);
  // The executable load left with the dispatch; the device stays (fence, submit).
  EXPECT_EQ(CountOps(Func("f"), OpKind::kGlobalLoad), 2u);
}

TEST_F(MemoizeTest, UnusualSegmentsAreLeftAlone) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"passed to a call", Lowered("call @keep(%cb) : (!hal.command_buffer) -> ()")},
      {"a fill", Lowered("call @hal.command_buffer.fill_buffer(%cb, %buffer, %zero, %len, %c1, "
                         "%c1) : (!hal.command_buffer, !hal.buffer, i64, i64, i32, i32) -> ()")},
      {"an executable stored outside initializers",
       Lowered("", R"mlir(func.func @swap(%e: !hal.executable) {
         util.global.store %e, @__hal_executable_ex : !hal.executable
         return
       })mlir")},
      {"a dynamic constant", Lowered("", "", "%k")},
      {"already reusable", Lowered("", "", "%c1", "1")},
      {"a dispatch after end",
       [] {
         std::string text = Lowered("");
         const std::string end =
             "    call @hal.command_buffer.end(%cb) : (!hal.command_buffer) -> ()\n";
         text.erase(text.find(end), end.size());
         const size_t dispatch = text.find("    call @hal.command_buffer.dispatch$");
         text.insert(dispatch, end);
         return text;
       }()},
      {"create declared with an i64 mode",
       [] {
         std::string text = Lowered("");
         auto replace = [&](std::string_view what, std::string_view with) {
           text.replace(text.find(what), what.size(), with);
         };
         replace("create(!hal.device, i32)", "create(!hal.device, i64)");
         replace("%mode = arith.constant 0 : i32", "%mode = arith.constant 0 : i64");
         replace("(%device, %mode) : (!hal.device, i32)", "(%device, %mode) : (!hal.device, i64)");
         return text;
       }()},
      {"used in a nested region",
       Lowered("%t = arith.constant true\n scf.if %t {\n call @hal.command_buffer.end(%cb) : "
               "(!hal.command_buffer) -> ()\n }")},
  };
  for (const auto& [what, text] : cases) {
    SourceManager sources;
    DiagnosticEngine diagnostics(sources);
    auto parsed = ParseModule(sources, sources.AddFile("case.mlir", text), diagnostics);
    ASSERT_TRUE(parsed.ok()) << what << "\n" << diagnostics.Render();
    ASSERT_TRUE(VerifyModule(parsed->get(), diagnostics).ok()) << what << diagnostics.Render();
    const std::string before = PrintOperation(**parsed);
    MemoizeCommandBuffers(parsed->get());
    EXPECT_EQ(PrintOperation(**parsed), before) << what;
  }
}

// Every dispatch program of the e2e suite and the fuzz corpus (with a stand-in
// serializer): the pass keeps the IR valid, and the whole pipeline still
// generates a module the VM verifies.
TEST_F(MemoizeTest, EveryDispatchSeedStaysValid) {
  size_t programs = 0, memoized = 0;
  for (const char* dir : {"tests/e2e", "tests/fuzz/compiler_corpus", "samples"}) {
    const std::filesystem::path root = std::filesystem::path(KILN_SOURCE_DIR) / dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".mlir") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("flow.dispatch") == std::string::npos) continue;
      SourceManager sources;
      DiagnosticEngine diagnostics(sources);
      auto parsed =
          ParseModule(sources, sources.AddFile(entry.path().string(), text.str()), diagnostics);
      if (!parsed.ok() || !VerifyModule(parsed->get(), diagnostics).ok()) continue;
      Operation* module = parsed->get();
      CodegenOptions codegen;
      if (!LowerDispatches(module, diagnostics, FakeSerializer(), &codegen.executables).ok()) {
        continue;  // Programs that test lowering errors.
      }
      ++programs;
      FoldConstants(module);
      MemoizeCommandBuffers(module);
      memoized += LookupSymbol(module, "__hal_command_buffer_0") != nullptr;
      ASSERT_TRUE(VerifyModule(module, diagnostics).ok())
          << entry.path() << "\n"
          << diagnostics.Render() << PrintOperation(*module);
      ASSERT_TRUE(LowerStructuredControlFlow(module, diagnostics).ok()) << entry.path();
      SimplifyControlFlow(module);
      FoldConstants(module);
      SimplifyControlFlow(module);
      EliminateDeadCode(module);
      ASSERT_TRUE(VerifyModule(module, diagnostics).ok()) << entry.path() << diagnostics.Render();
      auto bytes = GenerateModule(module, sources, diagnostics, codegen);
      ASSERT_TRUE(bytes.ok()) << entry.path() << diagnostics.Render();
      Ref<vm::Instance> instance = vm::Instance::Create();
      auto loaded = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(*bytes));
      EXPECT_TRUE(loaded.ok()) << entry.path() << ": " << loaded.status().ToString();
    }
  }
  EXPECT_GT(programs, 5u);
  EXPECT_GT(memoized, 2u);
  std::printf("dispatch programs: %zu, with memoized command buffers: %zu\n", programs, memoized);
}

// The driver: on by default, off with CompileOptions::memoize_command_buffers
// (kiln-compile --memoize-command-buffers=false), on a real PTX object.
TEST(MemoizeDriverTest, OptionTurnsThePassOff) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kiln_memoize_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream ptx(dir / "k.ptx");
    ptx << ".version 7.0\n.target sm_80\n.address_size 64\n"
           ".visible .entry mul(.param .u64 a)\n{\n ret;\n}\n"
           ".visible .entry inplace(.param .u64 a)\n{\n ret;\n}\n";
  }
  const std::string text = Program(kIndependent);
  const std::string path = (dir / "program.mlir").string();
  CompileOptions options;
  options.print_ir_after_lowering = true;
  auto on = CompileSource(path, text, options);
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_FALSE(on->module.empty());
  EXPECT_NE(on->lowered_ir.find("call @hal.device.queue.execute.indirect$"), std::string::npos)
      << on->lowered_ir;
  EXPECT_NE(on->lowered_ir.find("func.func private @__hal_record_command_buffer_0()"),
            std::string::npos);
  EXPECT_NE(on->lowered_ir.find("\"vm.ref.is_null\""), std::string::npos);

  options.memoize_command_buffers = false;
  auto off = CompileSource(path, text, options);
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->module.empty());
  EXPECT_EQ(off->lowered_ir.find("indirect"), std::string::npos) << off->lowered_ir;
  EXPECT_EQ(off->lowered_ir.find("__hal_command_buffer"), std::string::npos);
  EXPECT_NE(off->lowered_ir.find("call @hal.command_buffer.create("), std::string::npos);
  EXPECT_NE(off->lowered_ir.find("call @hal.device.queue.execute("), std::string::npos);
  std::filesystem::remove_all(dir);
}

// vm.ref.is_null: generic syntax, verifier rules, and code generation.
class RefIsNullTest : public PassTest {};

TEST_F(RefIsNullTest, ParsesPrintsAndRuns) {
  const std::string text = R"mlir(module @m {
  "vm.rodata"() {sym_name = "data", value = "xyz"} : () -> ()
  func.func @probe() -> (i1, i1) {
    %null = "vm.const.ref.null"() : () -> !vm.buffer
    %data = "vm.const.ref.rodata"() {rodata = @data} : () -> !vm.buffer
    %0 = "vm.ref.is_null"(%null) : (!vm.buffer) -> i1
    %1 = "vm.ref.is_null"(%data) : (!vm.buffer) -> i1
    return %0, %1 : i1, i1
  }
  func.func @select(%r: !vm.buffer, %a: i32, %b: i32) -> i32 {
    %n = "vm.ref.is_null"(%r) : (!vm.buffer) -> i1
    %0 = arith.select %n, %a, %b : i32
    return %0 : i32
  }
})mlir";
  Operation* module = ParseValid(text);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOps(module, OpKind::kRefIsNull), 3u);
  const std::string printed = PrintOperation(*module);
  EXPECT_NE(printed.find("\"vm.ref.is_null\"(%r) : (!vm.buffer) -> i1"), std::string::npos)
      << printed;

  Compiled c = Compiled::FromText(text);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("probe", vm::Opcode::kRefIsNull), 2u) << c.Listing("probe");
  auto probe = c.Call("probe", {});
  ASSERT_TRUE(probe.ok()) << probe.status().ToString();
  EXPECT_EQ((*probe)[0].ToString(), "i32=1");
  EXPECT_EQ((*probe)[1].ToString(), "i32=0");
  auto null_case =
      c.Call("select", {vm::Variant::FromRef(nullptr), vm::Variant::I32(7), vm::Variant::I32(9)});
  ASSERT_TRUE(null_case.ok()) << null_case.status().ToString();
  EXPECT_EQ((*null_case)[0].i32(), 7);
}

TEST_F(RefIsNullTest, VerifierRules) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"mlir(func.func @f(%x: i32) -> i1 {
        %0 = "vm.ref.is_null"(%x) : (i32) -> i1
        return %0 : i1
      })mlir",
       "'vm.ref.is_null' op operand must be a ref type (!hal.*, !vm.buffer), got 'i32'"},
      {R"mlir(func.func @f(%x: !vm.buffer) -> i32 {
        %0 = "vm.ref.is_null"(%x) : (!vm.buffer) -> i32
        return %0 : i32
      })mlir",
       "'vm.ref.is_null' op result must be i1, but got 'i32'"},
      {R"mlir(func.func @f(%x: !vm.buffer) -> i1 {
        %0 = "vm.ref.is_null"(%x, %x) : (!vm.buffer, !vm.buffer) -> i1
        return %0 : i1
      })mlir",
       "'vm.ref.is_null' op expected 1 operand, got 2"},
  };
  for (const auto& [text, message] : cases) {
    SourceManager sources;
    DiagnosticEngine diagnostics(sources);
    auto parsed = ParseModule(sources, sources.AddFile("t.mlir", text), diagnostics);
    ASSERT_TRUE(parsed.ok()) << diagnostics.Render();
    EXPECT_FALSE(VerifyModule(parsed->get(), diagnostics).ok()) << text;
    EXPECT_NE(diagnostics.Render().find(message), std::string::npos) << diagnostics.Render();
  }
}

}  // namespace
}  // namespace kiln::compiler::testing
