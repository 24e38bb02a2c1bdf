// The `hal` VM module: bytecode built with vm::ModuleBuilder calls the
// imports exactly as kiln-compile emits them (allocation, buffer views and
// their asserts, executable.load from rodata with variant selection, command
// buffers, channels and collectives, fences, the queue); results are read
// back through the HAL API.
// Every test runs on the threaded `cpu` and the inline `cpu-sync` device.
// Argument errors are checked by calling the exports directly.
#include "hal/module/hal_module.h"

#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "flatbuffers/flatbuffers.h"
#include "hal/cpu/elf_loader.h"
#include "hal/element_type.h"
#include "hal/module/hal_imports.h"
#include "hal/module/hal_types.h"
#include "hal/parameters/parameter_index.h"
#include "hal/rendezvous.h"
#include "hal/transfer.h"
#include "schemas/executable_elf_generated.h"
#include "tests/hal/elf_test_executable.h"
#include "tests/hal/multiprocess.h"
#include "tests/hal/parameters/safetensors_test_file.h"
#include "tests/hal/test_util.h"
#include "tests/hal/trace_test_util.h"
#include "vm/byte_buffer.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/module_builder.h"
#include "vm/stack.h"

namespace kiln::hal {
namespace {

using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::Unwrap;
using vm::FunctionBuilder;
using vm::ImmI32;
using vm::ImmI64;
using vm::Index;
using vm::ModuleBuilder;
using vm::Opcode;
using vm::Reg;
using vm::Variant;

constexpr int32_t kF32 = static_cast<int32_t>(ElementType::kFloat32);
constexpr int32_t kI32 = static_cast<int32_t>(ElementType::kInt32);

// ---------------------------------------------------------------------------
// The kernels of tests/hal/test_kernels.c as a system-elf executable.

std::vector<uint8_t> BuildElfExecutable() {
  return testing::BuildElfExecutable(
      testing::ReadTestKernelLibrary(),
      {{"simple_mul", "simple_mul", 64, {true, true, false}, 1},
       {"simple_mul_inplace", "simple_mul_inplace", 64, {true, false}, 0},
       {"always_fail", "always_fail", 1, {}, 0}});
}

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// ---------------------------------------------------------------------------
// Emitting calls to hal imports: one import entry per (name, signature), as
// the compiler does.

class Program {
 public:
  Program() : builder_("test") {}

  ModuleBuilder& builder() { return builder_; }

  void Call(FunctionBuilder& f, const std::string& name, const std::string& signature,
            std::initializer_list<uint16_t> args, std::initializer_list<uint16_t> results = {}) {
    auto key = name + " " + signature;
    auto it = imports_.find(key);
    if (it == imports_.end()) {
      it = imports_.emplace(key, builder_.AddImport("hal." + name, signature)).first;
    }
    f.EmitCallImport(it->second, std::span(args.begin(), args.size()),
                     std::span(results.begin(), results.size()));
  }

  // r[reg] = a vm.buffer of `text` (rodata).
  void Text(FunctionBuilder& f, uint16_t reg, std::string_view text) {
    uint32_t rodata = builder_.AddRodata("text" + std::to_string(rodata_count_++), Bytes(text), 1);
    f.Emit(Opcode::kConstRefRodata, {Reg(reg), Index(rodata)});
  }
  void Data(FunctionBuilder& f, uint16_t reg, const std::vector<uint8_t>& data) {
    uint32_t rodata = builder_.AddRodata("data" + std::to_string(rodata_count_++), data, 64);
    f.Emit(Opcode::kConstRefRodata, {Reg(reg), Index(rodata)});
  }

  // r[device] = devices.get(0) (uses i-register `scratch`).
  void Device0(FunctionBuilder& f, uint16_t device, uint16_t scratch) {
    f.Emit(Opcode::kConstI32, {Reg(scratch), ImmI32(0)});
    Call(f, "devices.get", "i_r", {scratch}, {device});
  }

  // Ends `cmd`, submits it on `device` and waits (r-registers `fence`,
  // `null`; I-register `minus_one`), the way a block ends in compiled code.
  void SubmitAndWait(FunctionBuilder& f, uint16_t device, uint16_t cmd, uint16_t fence,
                     uint16_t null, uint16_t minus_one) {
    Call(f, "command_buffer.end", "r_", {cmd});
    Call(f, "fence.create", "r_r", {device}, {fence});
    f.Emit(Opcode::kConstRefNull, {Reg(null)});
    Call(f, "device.queue.execute", "rrrr_", {device, null, fence, cmd});
    f.Emit(Opcode::kConstI64, {Reg(minus_one), ImmI64(-1)});
    Call(f, "fence.await", "rI_", {fence, minus_one});
  }

 private:
  ModuleBuilder builder_;
  std::map<std::string, uint32_t> imports_;
  int rodata_count_ = 0;
};

// Errors from bytecode carry the trap location first; the import's own
// message follows it.
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::vector<std::string> Texts(const std::vector<Variant>& values) {
  std::vector<std::string> texts;
  for (const Variant& v : values) texts.push_back(v.ToString());
  return texts;
}

class HalModuleTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    device_ = testing::CreateDevice(GetParam());
    instance_ = vm::Instance::Create();
    hal_ = Unwrap(CreateHalModule(*instance_, {device_}));
  }

  // Loads the program and links it after the hal module.
  Result<Ref<vm::Context>> Link(Program& program) {
    auto bytes = program.builder().Finish();
    KILN_RETURN_IF_ERROR(bytes.status());
    KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> module,
                          vm::BytecodeModule::Load(*instance_, AlignedBuffer::CopyOf(*bytes)));
    return vm::Context::Create(instance_, {hal_, Ref<vm::Module>(module)});
  }

  Ref<vm::Context> MustLink(Program& program) {
    auto context = Link(program);
    EXPECT_TRUE(context.ok()) << context.status().ToString();
    return context.ok() ? *context : nullptr;
  }

  static Result<std::vector<Variant>> Invoke(vm::Context& context, std::string_view function,
                                             std::vector<Variant> args) {
    Ref<vm::List> list = vm::List::Create(args.size());
    for (Variant& arg : args) list->Push(std::move(arg));
    KILN_ASSIGN_OR_RETURN(Ref<vm::List> results, vm::Invoke(context, function, *list));
    return results->items();
  }

  // Calls hal export `name` directly (no bytecode) in a context of its own.
  Result<std::vector<Variant>> CallHal(std::string_view name, std::vector<Variant> args,
                                       size_t result_count) {
    if (!direct_) {
      KILN_ASSIGN_OR_RETURN(direct_, vm::Context::Create(instance_, {hal_}));
    }
    const vm::ExportedFunction* function = hal_->LookupExport(name);
    if (!function) return NotFoundError("no export " + std::string(name));
    std::vector<Variant> results(result_count);
    vm::Stack stack;
    KILN_RETURN_IF_ERROR(
        hal_->Call(*direct_->state_of(0), function->ordinal, args, results, stack));
    return results;
  }
  Status CallHalError(std::string_view name, std::vector<Variant> args, size_t result_count = 0) {
    auto results = CallHal(name, std::move(args), result_count);
    EXPECT_FALSE(results.ok()) << name;
    return results.status();
  }

  Variant Wrap(Ref<Buffer> buffer) { return Variant::FromRef(WrapBuffer(std::move(buffer))); }

  Ref<Device> device_;
  Ref<vm::Instance> instance_;
  Ref<vm::Module> hal_;
  Ref<vm::Context> direct_;
};

// ---------------------------------------------------------------------------

TEST_P(HalModuleTest, ExportsTheContractSignatures) {
  const std::map<std::string, std::string> expected = {
      {"devices.count", "_i"},
      {"devices.get", "i_r"},
      {"device.allocator", "r_r"},
      {"device.instrumentation_ring", "rI_r"},
      {"allocator.allocate", "riiI_r"},
      {"allocator.allocate.initialized", "rr_r"},
      {"allocator.allocate.parameter", "rrriI*_r"},
      {"buffer.length", "r_I"},
      {"buffer.subspan", "rII_r"},
      {"buffer.assert", "rrI_"},
      {"buffer.load", "rrIi_I"},
      {"buffer_view.create", "ri*_r"},
      {"buffer_view.buffer", "r_r"},
      {"buffer_view.rank", "r_i"},
      {"buffer_view.dim", "ri_I"},
      {"buffer_view.element_type", "r_i"},
      {"buffer_view.assert", "rri*_"},
      {"executable.load", "rr*_r"},
      {"channel.default", "rr_r"},
      {"channel.split", "rii_r"},
      {"channel.rank_and_count", "r_ii"},
      {"command_buffer.create", "ri_r"},
      {"command_buffer.end", "r_"},
      {"command_buffer.dispatch", "rriiiii*_"},
      {"command_buffer.dispatch.indirect", "rriiiii*_"},
      {"command_buffer.fill_buffer", "rrIIii_"},
      {"command_buffer.copy_buffer", "rrIrII_"},
      {"command_buffer.execution_barrier", "r_"},
      {"command_buffer.collective", "rriiiirIIrIII_"},
      {"command_buffer.collective.indirect", "rriiiiiIIiIII_"},
      {"fence.create", "r_r"},
      {"fence.await", "rI_"},
      {"device.queue.execute", "rrrr_"},
      {"device.queue.execute.indirect", "rrrr*_"},
      {"device.queue.alloca", "rrrI_r"},
      {"device.queue.dealloca", "rrrr_"},
  };
  std::map<std::string, std::string> actual;
  for (const vm::ExportedFunction& e : hal_->exports()) actual[e.name] = e.signature;
  EXPECT_EQ(actual, expected);
  // Exactly the entries of the one contract table (hal_imports.h), which the
  // compiler declares its imports from.
  std::map<std::string, std::string> table;
  for (const HalImportInfo& import : kHalImports) {
    table[std::string(import.name)] = std::string(import.signature);
  }
  EXPECT_EQ(actual, table);
  EXPECT_EQ(hal_->name(), "hal");
  for (std::string_view type :
       {"hal.device", "hal.allocator", "hal.buffer", "hal.buffer_view", "hal.channel",
        "hal.executable", "hal.command_buffer", "hal.fence"}) {
    EXPECT_NE(instance_->types().Lookup(type), nullptr) << type;
  }
}

TEST_P(HalModuleTest, DevicesAndAllocation) {
  Program program;
  // alloc(length) -> (buffer, buffer.length, devices.count, same device twice)
  FunctionBuilder& f = program.builder().AddFunction("alloc", "I_rIii");
  program.Device0(f, 0, 0);
  program.Call(f, "device.allocator", "r_r", {0}, {1});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  program.Call(f, "allocator.allocate", "riiI_r", {1, 1, 1, 0}, {2});
  program.Call(f, "buffer.length", "r_I", {2}, {1});
  program.Call(f, "devices.count", "_i", {}, {2});
  program.Device0(f, 3, 3);
  f.Emit(Opcode::kRefEq, {Reg(3), Reg(0), Reg(3)});
  f.EmitReturn({2, 1, 2, 3});
  program.builder().AddExport("alloc", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto results = Invoke(*context, "alloc", {Variant::I64(96)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 4u);
  Ref<Buffer> buffer = UnwrapBuffer((*results)[0]);
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer->byte_length(), 96u);
  EXPECT_TRUE(buffer->memory_type() & kMemoryTypeDeviceLocal);
  EXPECT_EQ(buffer->allowed_usage() & kBufferUsageDefault, kBufferUsageDefault);
  EXPECT_EQ(Texts({(*results)[1], (*results)[2], (*results)[3]}),
            (std::vector<std::string>{"i64=96", "i32=1", "i32=1"}));

  // Host-side unwrap helpers reject other types.
  EXPECT_FALSE(UnwrapBufferView((*results)[0]));
  EXPECT_FALSE(UnwrapBuffer(Variant::I32(3)));
  EXPECT_FALSE(UnwrapBuffer(Variant::FromRef(nullptr)));
  EXPECT_EQ(UnwrapDevice(Variant::FromRef(WrapDevice(device_))), device_);

  results = Invoke(*context, "alloc", {Variant::I64(-8)});
  ASSERT_FALSE(results.ok());
  EXPECT_CONTAINS(results.status().message(),
                  "import 'hal.allocator.allocate' failed: argument 3 (byte length): -8 is "
                  "negative");
}

// The instrumentation ring: made once per context and device (the first
// call, as the module initializer makes it) with a new ring's header,
// registered in the module's InstrumentationRings, the same buffer on every
// later call; a size that is not a ring's, or not the first call's, is an
// error naming the argument.
TEST_P(HalModuleTest, InstrumentationRingIsMadeOncePerContext) {
  auto rings = MakeRef<InstrumentationRings>();
  Ref<vm::Module> hal = Unwrap(CreateHalModule(
      *instance_, {device_},
      {.parameters = nullptr, .trace = nullptr, .collectives = {}, .instrumentation = rings}));
  Program program;
  // ring(bytes) -> (ring, the same ring again?)
  FunctionBuilder& f = program.builder().AddFunction("ring", "I_ri");
  program.Device0(f, 0, 0);
  program.Call(f, "device.instrumentation_ring", "rI_r", {0, 0}, {1});
  program.Call(f, "device.instrumentation_ring", "rI_r", {0, 0}, {2});
  f.Emit(Opcode::kRefEq, {Reg(0), Reg(1), Reg(2)});
  f.EmitReturn({1, 0});
  program.builder().AddExport("ring", f.ordinal());
  auto bytes = program.builder().Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Ref<vm::BytecodeModule> module =
      Unwrap(vm::BytecodeModule::Load(*instance_, AlignedBuffer::CopyOf(*bytes)));
  Ref<vm::Context> first = Unwrap(vm::Context::Create(instance_, {hal, Ref<vm::Module>(module)}));
  Ref<vm::Context> second = Unwrap(vm::Context::Create(instance_, {hal, Ref<vm::Module>(module)}));

  auto results = Invoke(*first, "ring", {Variant::I64(32 + 4 * 32)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ((*results)[1].ToString(), "i32=1");
  Ref<Buffer> ring = UnwrapBuffer((*results)[0]);
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->byte_length(), 160u);
  EXPECT_EQ(ring->allowed_usage() & kBufferUsageDispatchStorage, kBufferUsageDispatchStorage);
  auto contents = ReadInstrumentationRing(*device_, ring);
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(contents->header.capacity, 4u);
  EXPECT_EQ(contents->header.next, 0u);
  EXPECT_TRUE(contents->records.empty());

  // A later call of the same context: the same ring, not registered again.
  results = Invoke(*first, "ring", {Variant::I64(160)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(UnwrapBuffer((*results)[0]), ring);
  ASSERT_EQ(rings->rings().size(), 1u);
  EXPECT_EQ(rings->rings()[0].device, device_);
  EXPECT_EQ(rings->rings()[0].buffer, ring);
  EXPECT_EQ(rings->rings()[0].byte_length, 160u);

  // Another context has a ring of its own.
  results = Invoke(*second, "ring", {Variant::I64(64)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_NE(UnwrapBuffer((*results)[0]), ring);
  ASSERT_EQ(rings->rings().size(), 2u);
  EXPECT_EQ(rings->rings()[1].byte_length, 64u);

  results = Invoke(*first, "ring", {Variant::I64(64)});
  ASSERT_FALSE(results.ok());
  EXPECT_CONTAINS(results.status().message(),
                  "import 'hal.device.instrumentation_ring' failed: argument 1 (byte length): "
                  "this context's instrumentation ring on the device holds 160 bytes, not 64");

  const Variant device = Variant::FromRef(WrapDevice(device_));
  for (int64_t bad : {0, 32, 100}) {
    Status status = CallHalError("device.instrumentation_ring", {device, Variant::I64(bad)}, 1);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_CONTAINS(status.message(), "argument 1 (byte length): an instrumentation ring of " +
                                          std::to_string(bad) + " bytes");
  }
  Status status = CallHalError("device.instrumentation_ring", {device, Variant::I64(-64)}, 1);
  EXPECT_CONTAINS(status.message(), "argument 1 (byte length): -64 is negative");
  // Without a sink the ring is made all the same.
  auto made = CallHal("device.instrumentation_ring", {device, Variant::I64(96)}, 1);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(UnwrapBuffer((*made)[0])->byte_length(), 96u);
  EXPECT_EQ(rings->rings().size(), 2u);
}

// A program's constant bytes in a new buffer: the same bytes read back,
// whichever way the transfer went.
TEST_P(HalModuleTest, AllocateInitialized) {
  auto allocator = CallHal("device.allocator", {Variant::FromRef(WrapDevice(device_))}, 1);
  ASSERT_TRUE(allocator.ok()) << allocator.status().ToString();
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xFF};
  auto source = vm::ByteBuffer::Allocate(bytes.size());
  ASSERT_TRUE(source.ok());
  std::memcpy((*source)->mutable_data(), bytes.data(), bytes.size());
  auto made =
      CallHal("allocator.allocate.initialized", {(*allocator)[0], Variant::FromRef(*source)}, 1);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Ref<Buffer> buffer = UnwrapBuffer((*made)[0]);
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer->byte_length(), bytes.size());
  EXPECT_EQ(buffer->allowed_usage() & kBufferUsageDispatchStorage, kBufferUsageDispatchStorage);
  std::vector<uint8_t> back(bytes.size());
  ASSERT_TRUE(ReadBuffer(*device_, buffer, back, "constant").ok());
  EXPECT_EQ(back, bytes);
  // Each call makes a buffer of its own (programs may write it).
  auto again =
      CallHal("allocator.allocate.initialized", {(*allocator)[0], Variant::FromRef(*source)}, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(UnwrapBuffer((*again)[0]), buffer);
  // Empty data is an empty buffer.
  auto empty = vm::ByteBuffer::Allocate(0);
  ASSERT_TRUE(empty.ok());
  auto none =
      CallHal("allocator.allocate.initialized", {(*allocator)[0], Variant::FromRef(*empty)}, 1);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(UnwrapBuffer((*none)[0])->byte_length(), 0u);

  Status status = CallHalError("allocator.allocate.initialized",
                               {(*allocator)[0], Variant::FromRef(nullptr)}, 1);
  EXPECT_CONTAINS(status.message(), "argument 1 (source): expected vm.buffer");
  status = CallHalError("allocator.allocate.initialized",
                        {Variant::FromRef(WrapDevice(device_)), Variant::FromRef(*source)}, 1);
  EXPECT_CONTAINS(status.message(), "argument 0 (allocator): expected hal.allocator");
}

// The embedding API's parameters: files given to CreateHalModule, read by a
// program the way a module initializer fills a #flow.parameter.named
// global (allocator.allocate.parameter of scope, key, element type, byte
// length and dims), into a device buffer of each context; every mismatch an
// error naming the parameter and the file.
TEST_P(HalModuleTest, AllocateParameter) {
  const std::string path = testing::WriteTestFile(
      "hal_module_" + GetParam() + ".safetensors",
      testing::SafetensorsBytes(
          R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})",
          testing::BytesOf<float>({1.5f, 2, 3, -4})));
  Ref<ParameterIndex> parameters = ParameterIndex::Create();
  ASSERT_TRUE(parameters->AddFile("model", path).ok());
  hal_ = Unwrap(CreateHalModule(
      *instance_, {device_},
      {.parameters = parameters, .trace = nullptr, .collectives = {}, .instrumentation = nullptr}));

  Program program;
  // load_<key>(element type, byte length, d0, d1) -> buffer of parameter
  // "model"::"<key>".
  for (const char* key : {"w", "absent"}) {
    FunctionBuilder& f = program.builder().AddFunction(std::string("load_") + key, "iIII_r");
    program.Device0(f, 0, 1);
    program.Call(f, "device.allocator", "r_r", {0}, {1});
    program.Text(f, 2, "model");
    program.Text(f, 3, key);
    program.Call(f, "allocator.allocate.parameter", "rrriIII_r", {1, 2, 3, 0, 0, 1, 2}, {4});
    f.EmitReturn({4});
    program.builder().AddExport(std::string("load_") + key, f.ordinal());
  }
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);
  auto load = [&](std::string_view function, int32_t type, int64_t length, int64_t d0, int64_t d1) {
    return Invoke(*context, function,
                  {Variant::I32(type), Variant::I64(length), Variant::I64(d0), Variant::I64(d1)});
  };
  auto loaded = load("load_w", kF32, 16, 2, 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  Ref<Buffer> buffer = UnwrapBuffer((*loaded)[0]);
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer->allowed_usage() & kBufferUsageDispatchStorage, kBufferUsageDispatchStorage);
  std::vector<float> values(4);
  const std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(values.data()), 16);
  ASSERT_TRUE(ReadBuffer(*device_, buffer, bytes, "parameter").ok());
  EXPECT_EQ(values, std::vector<float>({1.5f, 2, 3, -4}));

  auto absent = load("load_absent", kF32, 16, 2, 2);
  ASSERT_FALSE(absent.ok());
  EXPECT_CONTAINS(absent.status().message(),
                  "import 'hal.allocator.allocate.parameter' failed: parameter "
                  "\"model\"::\"absent\" not found in '" +
                      path + "'");
  auto shape = load("load_w", kF32, 16, 4, 1);
  ASSERT_FALSE(shape.ok());
  EXPECT_CONTAINS(shape.status().message(),
                  "parameter \"model\"::\"w\" in '" + path +
                      "' holds F32 [2, 2], but the program expects tensor<4x1xf32>");
  auto type = load("load_w", kI32, 16, 2, 2);
  ASSERT_FALSE(type.ok());
  EXPECT_CONTAINS(type.status().message(), "but the program expects tensor<2x2xi32>");
  auto length = load("load_w", kF32, 8, 2, 2);
  ASSERT_FALSE(length.ok());
  EXPECT_CONTAINS(length.status().message(),
                  "argument 4 (byte length): 8 bytes expected of parameter \"model\"::\"w\", "
                  "which holds 16");
}

// A program that reads a parameter of a scope it was given no files for.
TEST_P(HalModuleTest, AllocateParameterWithoutFiles) {
  Program program;
  FunctionBuilder& f = program.builder().AddFunction("load", "_r");
  program.Device0(f, 0, 0);
  program.Call(f, "device.allocator", "r_r", {0}, {1});
  program.Text(f, 2, "model");
  program.Text(f, 3, "w");
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(kF32)});
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(4)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(1)});
  program.Call(f, "allocator.allocate.parameter", "rrriII_r", {1, 2, 3, 0, 0, 1}, {4});
  f.EmitReturn({4});
  program.builder().AddExport("load", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);
  auto loaded = Invoke(*context, "load", {});
  ASSERT_FALSE(loaded.ok());
  EXPECT_CONTAINS(loaded.status().message(),
                  "no parameter files for scope \"model\" (parameter \"model\"::\"w\"); give "
                  "them as --parameters=model=FILE.safetensors");
}

// buffer.load: one element read back (tensor.extract on the host), its
// bytes zero-extended; a range past the end is an error, not a read.
TEST_P(HalModuleTest, BufferLoadReadsOneElement) {
  Ref<Buffer> buffer = MakeBuffer<uint8_t>(
      *device_, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88, 0xF0, 0xFF, 0x00, 0x80});
  const Variant device = Variant::FromRef(WrapDevice(device_));
  const Variant wrapped = Wrap(buffer);
  auto load = [&](int64_t offset, int32_t length) {
    return CallHal("buffer.load", {device, wrapped, Variant::I64(offset), Variant::I32(length)}, 1);
  };
  struct Case {
    int64_t offset;
    int32_t length;
    int64_t expected;
  };
  for (const Case& c : {Case{0, 1, 0x01}, Case{7, 1, 0x88}, Case{8, 2, 0xFFF0},
                        Case{8, 4, 0x8000FFF0}, Case{0, 8, int64_t{-0x77F8F9FAFBFCFDFF}},
                        Case{4, 8, static_cast<int64_t>(0x8000FFF088070605u)}}) {
    auto value = load(c.offset, c.length);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    EXPECT_EQ((*value)[0].i64(), c.expected) << c.offset << " " << c.length;
  }
  EXPECT_CONTAINS(load(9, 4).status().message(),
                  "hal.buffer.load of 4 bytes at offset 9 of a buffer of 12 bytes");
  EXPECT_CONTAINS(load(0, 3).status().message(), "argument 3 (length): 3 is not 1, 2, 4 or 8");
  EXPECT_CONTAINS(load(-1, 4).status().message(), "argument 2 (offset): -1 is negative");
}

TEST_P(HalModuleTest, SubspanAndBufferViews) {
  Program program;
  // view(buffer, d0, d1, element_type) -> (view, view.buffer, dim 1, rank, element type)
  FunctionBuilder& f = program.builder().AddFunction("view", "rIIi_rrIii");
  program.Call(f, "buffer_view.create", "riII_r", {0, 0, 0, 1}, {1});
  program.Call(f, "buffer_view.rank", "r_i", {1}, {1});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
  program.Call(f, "buffer_view.dim", "ri_I", {1, 2}, {2});
  program.Call(f, "buffer_view.element_type", "r_i", {1}, {3});
  program.Call(f, "buffer_view.buffer", "r_r", {1}, {2});
  f.EmitReturn({1, 2, 2, 1, 3});
  program.builder().AddExport("view", f.ordinal());
  // dim(view, index) -> i64
  FunctionBuilder& d = program.builder().AddFunction("dim", "ri_I");
  program.Call(d, "buffer_view.dim", "ri_I", {0, 0}, {0});
  d.EmitReturn({0});
  program.builder().AddExport("dim", d.ordinal());
  // scalar(buffer, offset, length) -> a rank-0 view of a subspan
  FunctionBuilder& s = program.builder().AddFunction("scalar", "rII_r");
  program.Call(s, "buffer.subspan", "rII_r", {0, 0, 1}, {1});
  s.Emit(Opcode::kConstI32, {Reg(0), ImmI32(kI32)});
  program.Call(s, "buffer_view.create", "ri_r", {1, 0}, {2});
  s.EmitReturn({2});
  program.builder().AddExport("scalar", s.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<float>(32, 1.0f));
  auto results = Invoke(*context, "view",
                        {Wrap(buffer), Variant::I64(8), Variant::I64(4), Variant::I32(kF32)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  Ref<BufferView> view = UnwrapBufferView((*results)[0]);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->ShapeString(), "8x4xf32");
  EXPECT_EQ(UnwrapBuffer((*results)[1]), buffer);
  EXPECT_EQ(Texts({(*results)[2], (*results)[3], (*results)[4]}),
            (std::vector<std::string>{"i64=4", "i32=2", "i32=" + std::to_string(kF32)}));

  auto dim = Invoke(*context, "dim", {(*results)[0], Variant::I32(2)});
  ASSERT_FALSE(dim.ok());
  EXPECT_EQ(dim.status().code(), StatusCode::kOutOfRange);
  EXPECT_CONTAINS(dim.status().message(),
                  "import 'hal.buffer_view.dim' failed: argument 1 (index): dim 2 does not exist "
                  "in a buffer view of rank 2 (8x4xf32)");

  // A view larger than its buffer: the HAL's message.
  results = Invoke(*context, "view",
                   {Wrap(buffer), Variant::I64(8), Variant::I64(5), Variant::I32(kF32)});
  ASSERT_FALSE(results.ok());
  EXPECT_CONTAINS(results.status().message(),
                  "buffer view 8x5xf32 needs 160 bytes but its buffer has 128");

  // A scalar view of bytes [8, 12) shares the buffer's storage.
  KILN_ASSERT_OK(buffer->WriteData(8, Bytes(std::string_view("\x2A\0\0\0", 4))));
  auto scalar = Invoke(*context, "scalar", {Wrap(buffer), Variant::I64(8), Variant::I64(-1)});
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  Ref<BufferView> scalar_view = UnwrapBufferView((*scalar)[0]);
  ASSERT_TRUE(scalar_view);
  EXPECT_EQ(scalar_view->ShapeString(), "i32");
  EXPECT_EQ(scalar_view->buffer()->byte_length(), 120u);
  EXPECT_EQ(ReadBuffer<int32_t>(*scalar_view->buffer(), 0, 1)[0], 42);
}

TEST_P(HalModuleTest, BufferViewAssert) {
  Program program;
  // check(view): asserts tensor<?x4xf32> as the compiler does at entry.
  FunctionBuilder& f = program.builder().AddFunction("check", "r_");
  program.Text(f, 1, "argument 0 of @mixed_invocation");
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(kF32)});
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-1)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(4)});
  program.Call(f, "buffer_view.assert", "rriII_", {0, 1, 0, 0, 1});
  f.EmitReturn({});
  program.builder().AddExport("check", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<float>(32, 0.0f));
  auto view = [&](std::vector<int64_t> shape, ElementType type) {
    return Variant::FromRef(WrapBufferView(Unwrap(BufferView::Create(buffer, shape, type))));
  };
  for (int64_t rows : {8, 1, 0}) {
    auto ok = Invoke(*context, "check", {view({rows, 4}, ElementType::kFloat32)});
    EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  }
  const std::string prefix =
      "import 'hal.buffer_view.assert' failed: argument 0 of @mixed_invocation: expected "
      "tensor<?x4xf32>, got ";
  struct Case {
    Variant value;
    std::string got;
  };
  std::vector<Case> cases = {
      {view({8, 4}, ElementType::kInt32), "8x4xi32"},
      {view({8, 2}, ElementType::kFloat32), "8x2xf32"},
      {view({32}, ElementType::kFloat32), "32xf32"},
      {view({2, 4, 4}, ElementType::kFloat32), "2x4x4xf32"},
      {view({}, ElementType::kFloat32), "f32"},
      {Variant::FromRef(nullptr), "null"},
      {Wrap(buffer), "a hal.buffer (not a tensor)"},
  };
  for (const Case& c : cases) {
    auto result = Invoke(*context, "check", {c.value});
    ASSERT_FALSE(result.ok()) << c.got;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_CONTAINS(result.status().message(), prefix + c.got);
    // The message ends with what was found.
    const std::string& message = result.status().message();
    EXPECT_EQ(message.substr(message.size() - c.got.size()), c.got);
  }
}

// The table's typed argument lists are what the compiler reads: names and
// types of every value, nullable refs marked.
TEST(HalImportTableTest, DescribesEveryArgument) {
  const HalImportInfo& dispatch = GetHalImport(HalImport::kCommandBufferDispatch);
  EXPECT_EQ(dispatch.name, "command_buffer.dispatch");
  EXPECT_TRUE(IsVariadic(dispatch));
  EXPECT_EQ(HalImportValueCount(dispatch.arguments), 7u);
  EXPECT_EQ(HalImportValueAt(dispatch.arguments, 1).name, "executable");
  EXPECT_EQ(HalImportValueAt(dispatch.arguments, 1).type, "hal.executable");
  EXPECT_EQ(HalImportValueAt(dispatch.arguments, 6).name, "constant_count");
  EXPECT_EQ(HalImportValueAt(dispatch.arguments, 7).name, "");
  const HalImportInfo& execute = GetHalImport(HalImport::kDeviceQueueExecute);
  EXPECT_FALSE(IsVariadic(execute));
  EXPECT_TRUE(HalImportValueAt(execute.arguments, 1).nullable);
  EXPECT_FALSE(HalImportValueAt(execute.arguments, 2).nullable);
  const HalImportInfo& length = GetHalImport(HalImport::kBufferLength);
  EXPECT_EQ(HalImportValueAt(length.results, 0).type, "i64");
  EXPECT_EQ(HalImportValueAt(length.results, 0).signature_char(), 'I');
}

// buffer.assert: the compiler's check that a dispatch operand's declared
// size fits the buffer bound to it.
TEST_P(HalModuleTest, BufferAssertChecksTheMinimumLength) {
  Program program;
  FunctionBuilder& f = program.builder().AddFunction("check", "rI_");
  program.Text(f, 1, "@main: operand 1 of the dispatch of @ex::@f at a.mlir:3:5");
  program.Call(f, "buffer.assert", "rrI_", {0, 1, 0});
  f.EmitReturn({});
  program.builder().AddExport("check", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);
  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<float>(4, 0.0f));
  for (int64_t length : {0, 15, 16}) {
    auto ok = Invoke(*context, "check", {Wrap(buffer), Variant::I64(length)});
    EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  }
  auto short_buffer = Invoke(*context, "check", {Wrap(buffer), Variant::I64(32)});
  ASSERT_FALSE(short_buffer.ok());
  EXPECT_EQ(short_buffer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_CONTAINS(short_buffer.status().message(),
                  "import 'hal.buffer.assert' failed: @main: operand 1 of the dispatch of "
                  "@ex::@f at a.mlir:3:5: needs 32 bytes, but its buffer holds 16");
  auto negative = Invoke(*context, "check", {Wrap(buffer), Variant::I64(-1)});
  ASSERT_FALSE(negative.ok());
  EXPECT_CONTAINS(negative.status().message(), "argument 2 (minimum length): -1 is negative");
}

// A workgroup count with a zero component (an empty tensor) records nothing
// instead of failing, in both dispatch forms.
TEST_P(HalModuleTest, DispatchOfZeroWorkgroupsIsSkipped) {
  Program program;
  FunctionBuilder& f = program.builder().AddFunction("mul", "rrrIii_");
  program.Device0(f, 3, 2);
  program.Text(f, 4, "ex");
  program.Text(f, 7, cpu::HostElfFormat());
  program.Data(f, 8, BuildElfExecutable());
  program.Call(f, "executable.load", "rrrr_r", {3, 4, 7, 8}, {9});
  f.Emit(Opcode::kConstI32, {Reg(3), ImmI32(0)});
  program.Call(f, "command_buffer.create", "ri_r", {3, 3}, {10});
  f.Emit(Opcode::kConstI32, {Reg(4), ImmI32(1)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(0)});
  // Workgroups (0, 1, 1): i-register 3 holds 0 (the ordinal too).
  program.Call(f, "command_buffer.dispatch", "rriiiiiirIIrIIrII_",
               {10, 9, 3, 3, 4, 4, 4, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0});
  program.SubmitAndWait(f, 3, 10, 11, 12, 2);
  f.EmitReturn({});
  program.builder().AddExport("mul", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);
  Ref<Buffer> lhs = MakeBuffer(*device_, std::vector<float>(4, 2.0f));
  Ref<Buffer> rhs = MakeBuffer(*device_, std::vector<float>(4, 3.0f));
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<float>(4, -1.0f));
  auto results =
      Invoke(*context, "mul",
             {Wrap(lhs), Wrap(rhs), Wrap(out), Variant::I64(16), Variant::I32(4), Variant::I32(0)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(ReadBuffer<float>(*out), std::vector<float>(4, -1.0f));
}

TEST_P(HalModuleTest, ExecutableLoadDispatchAndFence) {
  Program program;
  // mul(lhs, rhs, out, byte_length, n, workgroups): out = lhs * rhs, then
  // out *= lhs in a second dispatch after a barrier (another signature of
  // the same dispatch import).
  FunctionBuilder& f = program.builder().AddFunction("mul", "rrrIii_");
  program.Device0(f, 3, 2);
  program.Text(f, 4, "ex");
  program.Text(f, 5, "cuda-nvptx-fb");
  program.Data(f, 6, {1, 2, 3, 4});  // Never looked at: the CPU does not run it.
  program.Text(f, 7, cpu::HostElfFormat());
  program.Data(f, 8, BuildElfExecutable());
  program.Call(f, "executable.load", "rrrrrr_r", {3, 4, 5, 6, 7, 8}, {9});
  f.Emit(Opcode::kConstI32, {Reg(3), ImmI32(0)});
  program.Call(f, "command_buffer.create", "ri_r", {3, 3}, {10});
  f.Emit(Opcode::kConstI32, {Reg(4), ImmI32(1)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(0)});
  program.Call(f, "command_buffer.dispatch", "rriiiiiirIIrIIrII_",
               {10, 9, 3, 1, 4, 4, 4, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0});
  program.Call(f, "command_buffer.execution_barrier", "r_", {10});
  program.Call(f, "command_buffer.dispatch", "rriiiiirIIrII_",
               {10, 9, 4, 1, 4, 4, 3, 0, 1, 0, 2, 1, 0});
  program.SubmitAndWait(f, 3, 10, 11, 12, 2);
  f.EmitReturn({});
  program.builder().AddExport("mul", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  const int32_t n = 200;
  std::vector<float> lhs(n), rhs(n);
  for (int32_t i = 0; i < n; ++i) {
    lhs[i] = static_cast<float>(i);
    rhs[i] = 0.5f;
  }
  Ref<Buffer> lhs_buffer = MakeBuffer(*device_, lhs);
  Ref<Buffer> rhs_buffer = MakeBuffer(*device_, rhs);
  Ref<Buffer> out_buffer = MakeBuffer(*device_, std::vector<float>(n, -1.0f));
  auto results = Invoke(*context, "mul",
                        {Wrap(lhs_buffer), Wrap(rhs_buffer), Wrap(out_buffer), Variant::I64(n * 4),
                         Variant::I32(n), Variant::I32((n + 63) / 64)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  std::vector<float> out = ReadBuffer<float>(*out_buffer);
  for (int32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], lhs[i] * 0.5f * lhs[i]) << i;
}

// A hal module given a recording trace attaches it to its device and names
// each loaded executable after the program's name for it: the dispatches
// come back as device spans "dispatch @ex::@<export>", in order, after the
// submit span and before the wait ends.
TEST_P(HalModuleTest, TraceGetsADeviceSpanPerDispatchNamedByTheProgram) {
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  hal_ = Unwrap(CreateHalModule(
      *instance_, {device_},
      {.parameters = nullptr, .trace = trace, .collectives = {}, .instrumentation = nullptr}));
  EXPECT_EQ(device_->attached_trace().get(), trace.get());
  Program program;
  FunctionBuilder& f = program.builder().AddFunction("mul", "rrrIii_");
  program.Device0(f, 3, 2);
  program.Text(f, 4, "ex");
  program.Text(f, 7, cpu::HostElfFormat());
  program.Data(f, 8, BuildElfExecutable());
  program.Call(f, "executable.load", "rrrr_r", {3, 4, 7, 8}, {9});
  f.Emit(Opcode::kConstI32, {Reg(3), ImmI32(0)});
  program.Call(f, "command_buffer.create", "ri_r", {3, 3}, {10});
  f.Emit(Opcode::kConstI32, {Reg(4), ImmI32(1)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(0)});
  program.Call(f, "command_buffer.dispatch", "rriiiiiirIIrIIrII_",
               {10, 9, 3, 1, 4, 4, 4, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0});
  program.Call(f, "command_buffer.execution_barrier", "r_", {10});
  program.Call(f, "command_buffer.dispatch", "rriiiiirIIrII_",
               {10, 9, 4, 1, 4, 4, 3, 0, 1, 0, 2, 1, 0});
  program.SubmitAndWait(f, 3, 10, 11, 12, 2);
  f.EmitReturn({});
  program.builder().AddExport("mul", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);
  const int32_t n = 64;
  Ref<Buffer> lhs = MakeBuffer(*device_, std::vector<float>(n, 2.0f));
  Ref<Buffer> rhs = MakeBuffer(*device_, std::vector<float>(n, 3.0f));
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<float>(n, -1.0f));
  auto results = Invoke(
      *context, "mul",
      {Wrap(lhs), Wrap(rhs), Wrap(out), Variant::I64(n * 4), Variant::I32(n), Variant::I32(1)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(ReadBuffer<float>(*out), std::vector<float>(n, 12.0f));
  int64_t submitted_ns = -1, waited_ns = -1;
  for (const Trace::Span& span : trace->Spans()) {
    if (span.name == "submit") submitted_ns = span.start_ns;
    if (span.name == "wait") waited_ns = span.start_ns + span.duration_ns;
  }
  testing::ExpectDispatchSpans(*trace,
                               {"dispatch @ex::@simple_mul", "dispatch @ex::@simple_mul_inplace"},
                               submitted_ns, waited_ns);
}

TEST_P(HalModuleTest, ExecutableVariantErrors) {
  Program program;
  // load(name, formats...) picks nothing the CPU runs, or a broken ELF.
  FunctionBuilder& none = program.builder().AddFunction("none", "_");
  program.Device0(none, 0, 0);
  program.Text(none, 1, "ex");
  program.Text(none, 2, "cuda-nvptx-fb");
  program.Data(none, 3, {1});
  program.Text(none, 4, "vulkan-spirv-fb");
  program.Data(none, 5, {2});
  program.Call(none, "executable.load", "rrrrrr_r", {0, 1, 2, 3, 4, 5}, {6});
  none.EmitReturn({});
  program.builder().AddExport("none", none.ordinal());
  FunctionBuilder& broken = program.builder().AddFunction("broken", "_");
  program.Device0(broken, 0, 0);
  program.Text(broken, 1, "ex");
  program.Text(broken, 2, cpu::HostElfFormat());
  program.Data(broken, 3, {1, 2, 3});
  program.Call(broken, "executable.load", "rrrr_r", {0, 1, 2, 3}, {4});
  broken.EmitReturn({});
  program.builder().AddExport("broken", broken.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto results = Invoke(*context, "none", {});
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), StatusCode::kNotFound);
  EXPECT_CONTAINS(results.status().message(),
                  "import 'hal.executable.load' failed: executable 'ex' has no variant for "
                  "device '" +
                      device_->properties().name +
                      "' (embedded formats: cuda-nvptx-fb, vulkan-spirv-fb; device runs: " +
                      std::string(cpu::HostElfFormat()) + ")");
  results = Invoke(*context, "broken", {});
  ASSERT_FALSE(results.ok());
  EXPECT_CONTAINS(results.status().message(),
                  "import 'hal.executable.load' failed: loading executable 'ex' (" +
                      std::string(cpu::HostElfFormat()) + "): ");
}

TEST_P(HalModuleTest, KernelFailureSurfacesFromFenceAwait) {
  Program program;
  FunctionBuilder& f = program.builder().AddFunction("fail", "_");
  program.Device0(f, 0, 0);
  program.Text(f, 1, "ex");
  program.Text(f, 2, cpu::HostElfFormat());
  program.Data(f, 3, BuildElfExecutable());
  program.Call(f, "executable.load", "rrrr_r", {0, 1, 2, 3}, {4});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(1)});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(2)});
  program.Call(f, "command_buffer.create", "ri_r", {0, 0}, {5});
  program.Call(f, "command_buffer.dispatch", "rriiiii_", {5, 4, 2, 1, 1, 1, 0});
  program.SubmitAndWait(f, 0, 5, 6, 7, 0);
  f.EmitReturn({});
  program.builder().AddExport("fail", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto results = Invoke(*context, "fail", {});
  ASSERT_FALSE(results.ok());
  const std::string& message = results.status().message();
  EXPECT_CONTAINS(message, "import 'hal.fence.await' failed: ");
  EXPECT_NE(message.find("always_fail"), std::string::npos) << message;
  EXPECT_NE(message.find("return code 42"), std::string::npos) << message;
}

TEST_P(HalModuleTest, FillAndCopyBuffer) {
  Program program;
  // fill_copy(a, b): a = 0x01020304 repeated, b[4, 12) = a[0, 8), b[12..] = 0xEE bytes.
  FunctionBuilder& f = program.builder().AddFunction("fill_copy", "rr_");
  program.Device0(f, 2, 0);
  program.Call(f, "command_buffer.create", "ri_r", {2, 0}, {3});
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(0)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(-1)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0x01020304)});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(4)});
  program.Call(f, "command_buffer.fill_buffer", "rrIIii_", {3, 0, 0, 1, 1, 2});
  f.Emit(Opcode::kConstI64, {Reg(2), ImmI64(12)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0xEE)});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
  program.Call(f, "command_buffer.fill_buffer", "rrIIii_", {3, 1, 2, 1, 1, 2});
  program.Call(f, "command_buffer.execution_barrier", "r_", {3});
  f.Emit(Opcode::kConstI64, {Reg(3), ImmI64(4)});
  f.Emit(Opcode::kConstI64, {Reg(4), ImmI64(8)});
  program.Call(f, "command_buffer.copy_buffer", "rrIrII_", {3, 0, 0, 1, 3, 4});
  program.SubmitAndWait(f, 2, 3, 4, 5, 5);
  f.EmitReturn({});
  program.builder().AddExport("fill_copy", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  Ref<Buffer> a = MakeBuffer(*device_, std::vector<uint32_t>(4, 0));
  Ref<Buffer> b = MakeBuffer(*device_, std::vector<uint32_t>(4, 0));
  auto results = Invoke(*context, "fill_copy", {Wrap(a), Wrap(b)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(ReadBuffer<uint32_t>(*a), std::vector<uint32_t>(4, 0x01020304));
  EXPECT_EQ(ReadBuffer<uint32_t>(*b),
            (std::vector<uint32_t>{0, 0x01020304, 0x01020304, 0xEEEEEEEE}));
}

TEST_P(HalModuleTest, QueueAllocaAndDealloca) {
  Program program;
  // alloca(length): a queue-ordered buffer filled with 7s by a command
  // buffer that waits on the allocation, then released after it.
  FunctionBuilder& f = program.builder().AddFunction("alloca", "I_r");
  program.Device0(f, 0, 0);
  program.Call(f, "fence.create", "r_r", {0}, {1});
  f.Emit(Opcode::kConstRefNull, {Reg(2)});
  program.Call(f, "device.queue.alloca", "rrrI_r", {0, 2, 1, 0}, {3});
  program.Call(f, "command_buffer.create", "ri_r", {0, 0}, {4});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(0)});
  f.Emit(Opcode::kConstI64, {Reg(2), ImmI64(-1)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(7)});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
  program.Call(f, "command_buffer.fill_buffer", "rrIIii_", {4, 3, 1, 2, 1, 2});
  program.Call(f, "command_buffer.end", "r_", {4});
  program.Call(f, "fence.create", "r_r", {0}, {5});
  program.Call(f, "device.queue.execute", "rrrr_", {0, 1, 5, 4});
  program.Call(f, "fence.await", "rI_", {5, 2});
  program.Call(f, "fence.create", "r_r", {0}, {6});
  program.Call(f, "device.queue.dealloca", "rrrr_", {0, 5, 6, 3});
  f.Emit(Opcode::kConstI64, {Reg(3), ImmI64(10000)});
  program.Call(f, "fence.await", "rI_", {6, 3});
  f.EmitReturn({3});
  program.builder().AddExport("alloca", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto results = Invoke(*context, "alloca", {Variant::I64(24)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  Ref<Buffer> buffer = UnwrapBuffer((*results)[0]);
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer->byte_length(), 24u);
  EXPECT_EQ(ReadBuffer<uint8_t>(*buffer), std::vector<uint8_t>(24, 7));
}

TEST_P(HalModuleTest, FenceAwaitTimesOut) {
  auto fence = CallHal("fence.create", {Variant::FromRef(WrapDevice(device_))}, 1);
  ASSERT_TRUE(fence.ok()) << fence.status().ToString();
  Ref<Fence> unwrapped = UnwrapFence((*fence)[0]);
  ASSERT_TRUE(unwrapped);
  ASSERT_EQ(unwrapped->timepoints().size(), 1u);
  EXPECT_EQ(unwrapped->timepoints()[0].value, 1u);
  EXPECT_EQ(*unwrapped->timepoints()[0].semaphore->Query(), 0u);
  Status status = CallHalError("fence.await", {(*fence)[0], Variant::I64(0)});
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
  KILN_ASSERT_OK(unwrapped->Signal());
  auto done = CallHal("fence.await", {(*fence)[0], Variant::I64(0)}, 0);
  EXPECT_TRUE(done.ok()) << done.status().ToString();
  status = CallHalError("fence.await", {(*fence)[0], Variant::I64(-2)});
  EXPECT_EQ(status.message(), "argument 1 (timeout): -2 ms is negative (-1 waits without limit)");
}

TEST_P(HalModuleTest, FenceCreateReusesASemaphoreOnlyOnceItsFencesAreReached) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  auto create = [&]() -> Ref<Fence> {
    auto fence = CallHal("fence.create", {device}, 1);
    EXPECT_TRUE(fence.ok()) << fence.status().ToString();
    return fence.ok() ? UnwrapFence((*fence)[0]) : nullptr;
  };
  Ref<Fence> first = create();
  // The first fence is not reached: the next one cannot share its
  // semaphore (awaiting it would return at once).
  Ref<Fence> second = create();
  ASSERT_TRUE(first && second);
  EXPECT_NE(second->timepoints()[0].semaphore.get(), first->timepoints()[0].semaphore.get());
  EXPECT_EQ(second->timepoints()[0].value, 1u);
  // Once it is reached, the next fence is its semaphore's next timepoint.
  KILN_ASSERT_OK(second->Signal());
  Ref<Fence> third = create();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->timepoints()[0].semaphore.get(), second->timepoints()[0].semaphore.get());
  EXPECT_EQ(third->timepoints()[0].value, 2u);
  Status status =
      CallHalError("fence.await", {Variant::FromRef(WrapForVm(third)), Variant::I64(0)});
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
}

TEST_P(HalModuleTest, FenceCreateHandsOutADroppedFenceAgainAtItsNextTimepoint) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  auto create = [&]() -> Variant {
    auto fence = CallHal("fence.create", {device}, 1);
    EXPECT_TRUE(fence.ok()) << fence.status().ToString();
    return fence.ok() ? (*fence)[0] : Variant::FromRef(nullptr);
  };
  Variant first = create();
  const vm::Object* first_object = first.ref().get();
  Ref<Fence> fence = UnwrapFence(first);
  ASSERT_TRUE(fence);
  KILN_ASSERT_OK(fence->Signal());
  // Still held (here and by `fence`): the next fence is another object.
  Variant second = create();
  EXPECT_NE(second.ref().get(), first_object);
  Ref<Fence> second_fence = UnwrapFence(second);
  KILN_ASSERT_OK(second_fence->Signal());
  const uint64_t second_value = second_fence->timepoints()[0].value;
  const vm::Object* second_object = second.ref().get();
  // Dropped by every holder: the same object comes back, moved on to the
  // semaphore's next timepoint, which nothing has signaled.
  second_fence = nullptr;
  second = Variant::FromRef(nullptr);
  Variant third = create();
  EXPECT_EQ(third.ref().get(), second_object);
  Ref<Fence> third_fence = UnwrapFence(third);
  ASSERT_EQ(third_fence->timepoints().size(), 1u);
  EXPECT_EQ(third_fence->timepoints()[0].value, second_value + 1);
  Status status = CallHalError("fence.await", {third, Variant::I64(0)});
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
  KILN_ASSERT_OK(third_fence->Signal());
  auto reached = CallHal("fence.await", {third, Variant::I64(0)}, 0);
  EXPECT_TRUE(reached.ok()) << reached.status().ToString();
}

TEST_P(HalModuleTest, ArgumentErrorsNameTheArgument) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  const Variant null = Variant::FromRef(nullptr);
  const Variant list = Variant::FromRef(vm::List::Create());
  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<uint32_t>(4, 0));
  const Variant buffer_ref = Wrap(buffer);
  auto command_buffer = CallHal("command_buffer.create", {device, Variant::I32(0)}, 1);
  ASSERT_TRUE(command_buffer.ok()) << command_buffer.status().ToString();
  const Variant cmd = (*command_buffer)[0];
  ASSERT_TRUE(UnwrapFromVm<CommandBuffer>(cmd.ref().get())->is_recording());
  const Variant executable =
      Variant::FromRef(WrapForVm(Ref<Executable>(testing::MakeTestExecutable())));

  struct Case {
    std::string import;
    std::vector<Variant> args;
    size_t results;
    std::string message;
  };
  // Dispatch prefix: (cmd, executable, export 1 = mul_add, 1, 1, 1).
  auto dispatch = [&](std::vector<Variant> tail) {
    std::vector<Variant> args = {
        cmd, executable, Variant::I32(1), Variant::I32(1), Variant::I32(1), Variant::I32(1)};
    args.insert(args.end(), tail.begin(), tail.end());
    return args;
  };
  const std::vector<Case> cases = {
      {"buffer.length",
       {device},
       1,
       "argument 0 (buffer): expected hal.buffer, got ref<hal.device>"},
      {"buffer.length", {null}, 1, "argument 0 (buffer): expected hal.buffer, got ref<null>"},
      {"devices.get",
       {Variant::I32(3)},
       1,
       "argument 0 (index): device 3 does not exist (the hal module has 1 device(s))"},
      {"buffer.subspan",
       {buffer_ref, Variant::I64(-4), Variant::I64(4)},
       1,
       "argument 1 (offset): -4 is negative"},
      {"buffer.subspan",
       {buffer_ref, Variant::I64(0), Variant::I64(-3)},
       1,
       "argument 2 (length): -3 is negative (only -1, the whole buffer, is allowed)"},
      {"buffer_view.create",
       {buffer_ref, Variant::I32(kF32), Variant::F32(2)},
       1,
       "argument 2 (dim 0): expected i64, got f32=2"},
      {"buffer_view.create",
       {buffer_ref, Variant::I32(kF32), Variant::I64(2), Variant::I64(-1)},
       1,
       "argument 3 (dim 1): -1 is negative"},
      {"buffer_view.create",
       {buffer_ref, Variant::I32(0x7F000020)},
       1,
       "argument 1 (element type): unknown element type encoding 0x7F000020"},
      {"buffer_view.assert",
       {null, list, Variant::I32(kF32)},
       0,
       "argument 1 (message): expected vm.buffer, got ref<vm.list>"},
      {"executable.load",
       {device, list},
       1,
       "argument 1 (name): expected vm.buffer, got ref<vm.list>"},
      {"command_buffer.create",
       {device, Variant::I32(2)},
       1,
       "argument 1 (mode): 2 is neither 0 (one-shot) nor 1 (reusable)"},
      {"command_buffer.dispatch", dispatch({Variant::I32(5), Variant::I32(1), Variant::I32(2)}), 0,
       "argument 6 (constant count): 5 constants do not fit in the 2 arguments that follow"},
      {"command_buffer.dispatch", dispatch({Variant::I32(-1)}), 0,
       "argument 6 (constant count): -1 constants do not fit in the 0 arguments that follow"},
      {"command_buffer.dispatch", dispatch({Variant::I32(1), Variant::I64(3)}), 0,
       "argument 7 (constant 0): expected i32, got i64=3"},
      {"command_buffer.dispatch",
       dispatch({Variant::I32(1), Variant::I32(3), buffer_ref, Variant::I64(0)}), 0,
       "2 arguments follow the 1 constant(s); bindings take 3 each (buffer, offset, length)"},
      {"command_buffer.dispatch",
       dispatch({Variant::I32(0), list, Variant::I64(0), Variant::I64(16)}), 0,
       "argument 7 (binding buffer): expected hal.buffer, got ref<vm.list>"},
      {"command_buffer.dispatch",
       dispatch({Variant::I32(0), buffer_ref, Variant::I64(-4), Variant::I64(16)}), 0,
       "argument 8 (binding offset): -4 is negative"},
      {"command_buffer.dispatch",
       dispatch({Variant::I32(0), buffer_ref, Variant::I64(0), Variant::I32(16)}), 0,
       "argument 9 (binding length): expected i64, got i32=16"},
      // The HAL's own validation: mul_add declares 3 constants and 2 bindings.
      {"command_buffer.dispatch",
       dispatch({Variant::I32(0), buffer_ref, Variant::I64(0), Variant::I64(16)}), 0,
       "Dispatch of 'mul_add': 0 constants given but the layout declares 3"},
      {"command_buffer.fill_buffer",
       {cmd, buffer_ref, Variant::I64(0), Variant::I64(-1), Variant::I32(0), Variant::I32(3)},
       0,
       "argument 5 (pattern length): 3 is not 1, 2 or 4"},
      {"device.queue.execute",
       {device, null, null, cmd},
       0,
       "argument 2 (signal fence): expected hal.fence, got ref<null>"},
      {"device.queue.execute",
       {device, list, null, cmd},
       0,
       "argument 1 (wait fence): expected hal.fence, got ref<vm.list>"},
      {"device.queue.alloca",
       {buffer_ref, null, null, Variant::I64(4)},
       1,
       "argument 0 (device): expected hal.device, got ref<hal.buffer>"},
  };
  for (const Case& c : cases) {
    Status status = CallHalError(c.import, c.args, c.results);
    EXPECT_EQ(status.code(),
              c.import == "devices.get" ? StatusCode::kOutOfRange : StatusCode::kInvalidArgument)
        << c.import;
    EXPECT_EQ(status.message(), c.message) << c.import;
  }
  // A failed dispatch leaves the command buffer usable.
  EXPECT_TRUE(UnwrapFromVm<CommandBuffer>(cmd.ref().get())->is_recording());
}

// Record once, replay many, as memoized command buffers do: `record` makes a
// reusable command buffer whose dispatches bind binding-table slots
// (dispatch.indirect), `submit` runs it with a table of buffers
// (queue.execute.indirect); each submission computes on its own buffers.
TEST_P(HalModuleTest, ReusableCommandBufferReplaysWithEachBindingTable) {
  Program program;
  // record() -> cmd: out = lhs * rhs (n = 100), barrier, out *= lhs, with
  // slots lhs = 0, rhs = 1, out = 2 (whole buffers: length -1).
  FunctionBuilder& r = program.builder().AddFunction("record", "_r");
  program.Device0(r, 0, 0);
  program.Text(r, 1, "ex");
  program.Text(r, 2, cpu::HostElfFormat());
  program.Data(r, 3, BuildElfExecutable());
  program.Call(r, "executable.load", "rrrr_r", {0, 1, 2, 3}, {4});
  r.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  program.Call(r, "command_buffer.create", "ri_r", {0, 0}, {5});
  r.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});    // Export 0, slot 0.
  r.Emit(Opcode::kConstI32, {Reg(2), ImmI32(2)});    // Workgroups, slot 2.
  r.Emit(Opcode::kConstI32, {Reg(3), ImmI32(100)});  // n.
  r.Emit(Opcode::kConstI64, {Reg(0), ImmI64(0)});
  r.Emit(Opcode::kConstI64, {Reg(1), ImmI64(-1)});
  program.Call(r, "command_buffer.dispatch.indirect", "rriiiiiiiIIiIIiII_",
               {5, 4, 1, 2, 0, 0, 0, 3, 1, 0, 1, 0, 0, 1, 2, 0, 1});
  program.Call(r, "command_buffer.execution_barrier", "r_", {5});
  program.Call(r, "command_buffer.dispatch.indirect", "rriiiiiiIIiII_",
               {5, 4, 0, 2, 0, 0, 1, 1, 0, 1, 2, 0, 1});
  program.Call(r, "command_buffer.end", "r_", {5});
  r.EmitReturn({5});
  program.builder().AddExport("record", r.ordinal());
  // submit(cmd, lhs, rhs, out): queue.execute.indirect with that table, then wait.
  FunctionBuilder& s = program.builder().AddFunction("submit", "rrrr_");
  program.Device0(s, 4, 0);
  program.Call(s, "fence.create", "r_r", {4}, {5});
  s.Emit(Opcode::kConstRefNull, {Reg(6)});
  program.Call(s, "device.queue.execute.indirect", "rrrrrrr_", {4, 6, 5, 0, 1, 2, 3});
  s.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-1)});
  program.Call(s, "fence.await", "rI_", {5, 0});
  s.EmitReturn({});
  program.builder().AddExport("submit", s.ordinal());
  // submit2(cmd, lhs, rhs): a table of two slots.
  FunctionBuilder& s2 = program.builder().AddFunction("submit2", "rrr_");
  program.Device0(s2, 4, 0);
  program.Call(s2, "fence.create", "r_r", {4}, {5});
  s2.Emit(Opcode::kConstRefNull, {Reg(6)});
  program.Call(s2, "device.queue.execute.indirect", "rrrrrr_", {4, 6, 5, 0, 1, 2});
  s2.EmitReturn({});
  program.builder().AddExport("submit2", s2.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto recorded = Invoke(*context, "record", {});
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  const Variant cmd = (*recorded)[0];
  Ref<CommandBuffer> command_buffer = UnwrapFromVm<CommandBuffer>(cmd.ref().get());
  ASSERT_TRUE(command_buffer);
  EXPECT_EQ(command_buffer->mode(), CommandBufferMode::kReusable);
  EXPECT_TRUE(command_buffer->is_ended());

  // Three submissions, each on new buffers: (lhs * rhs) * lhs every time.
  for (int round = 1; round <= 3; ++round) {
    std::vector<float> lhs(100), rhs(100);
    for (int i = 0; i < 100; ++i) {
      lhs[i] = static_cast<float>(i % 7 + round);
      rhs[i] = static_cast<float>(round) * 0.5f;
    }
    Ref<Buffer> out = MakeBuffer(*device_, std::vector<float>(100, -1.0f));
    auto submitted =
        Invoke(*context, "submit",
               {cmd, Wrap(MakeBuffer(*device_, lhs)), Wrap(MakeBuffer(*device_, rhs)), Wrap(out)});
    ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
    std::vector<float> result = ReadBuffer<float>(*out);
    for (int i = 0; i < 100; ++i) {
      ASSERT_EQ(result[i], lhs[i] * rhs[i] * lhs[i]) << "round " << round << " element " << i;
    }
  }

  // A table without slot 2: an error of the submission naming the dispatch,
  // the binding and the slot; nothing was enqueued and the command buffer
  // still replays.
  Ref<Buffer> a = MakeBuffer(*device_, std::vector<float>(100, 2.0f));
  Ref<Buffer> b = MakeBuffer(*device_, std::vector<float>(100, 3.0f));
  auto short_table = Invoke(*context, "submit2", {cmd, Wrap(a), Wrap(b)});
  ASSERT_FALSE(short_table.ok());
  EXPECT_EQ(short_table.status().code(), StatusCode::kInvalidArgument);
  EXPECT_CONTAINS(short_table.status().message(),
                  "import 'hal.device.queue.execute.indirect' failed: ");
  EXPECT_CONTAINS(short_table.status().message(),
                  "Dispatch of 'simple_mul' binding 2: binding-table slot 2 is out of range (the "
                  "table has 2 entries)");
  // A null slot is an empty one.
  auto empty_slot = Invoke(*context, "submit", {cmd, Wrap(a), Variant::FromRef(nullptr), Wrap(b)});
  ASSERT_FALSE(empty_slot.ok());
  EXPECT_CONTAINS(empty_slot.status().message(),
                  "Dispatch of 'simple_mul' binding 1: binding-table slot 1 is empty");
  // A ref of another type in the table is an argument error.
  auto wrong_type =
      Invoke(*context, "submit", {cmd, Wrap(a), Variant::FromRef(vm::List::Create()), Wrap(b)});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_CONTAINS(wrong_type.status().message(),
                  "argument 5 (binding-table slot 1): expected hal.buffer or null, got "
                  "ref<vm.list>");
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<float>(100, 0.0f));
  auto again = Invoke(*context, "submit", {cmd, Wrap(a), Wrap(b), Wrap(out)});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ReadBuffer<float>(*out), std::vector<float>(100, 12.0f));
}

// Slot ranges are checked at submit against the table's buffers.
TEST_P(HalModuleTest, BindingTableSlotRangesAreCheckedAtSubmit) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  auto created = CallHal("command_buffer.create", {device, Variant::I32(1)}, 1);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const Variant cmd = (*created)[0];
  const Variant executable =
      Variant::FromRef(WrapForVm(Ref<Executable>(testing::MakeTestExecutable())));
  // increment(slot 3, bytes [8, 12)): one i32 at offset 8.
  auto dispatched =
      CallHal("command_buffer.dispatch.indirect",
              {cmd, executable, Variant::I32(4), Variant::I32(1), Variant::I32(1), Variant::I32(1),
               Variant::I32(0), Variant::I32(3), Variant::I64(8), Variant::I64(4)},
              0);
  ASSERT_TRUE(dispatched.ok()) << dispatched.status().ToString();
  KILN_ASSERT_OK(UnwrapFromVm<CommandBuffer>(cmd.ref().get())->End());

  auto submit = [&](Ref<Buffer> slot3) {
    auto fence = CallHal("fence.create", {device}, 1);
    EXPECT_TRUE(fence.ok());
    const Variant null = Variant::FromRef(nullptr);
    auto done = CallHal("device.queue.execute.indirect",
                        {device, null, (*fence)[0], cmd, null, null, null, Wrap(slot3)}, 0);
    if (!done.ok()) return done.status();
    return CallHal("fence.await", {(*fence)[0], Variant::I64(-1)}, 0).status();
  };
  Ref<Buffer> small = MakeBuffer(*device_, std::vector<int32_t>(2, 0));
  Status status = submit(small);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  EXPECT_CONTAINS(status.message(), "binding-table slot 3");
  EXPECT_CONTAINS(status.message(), "Dispatch of 'increment' binding 0");
  Ref<Buffer> big = MakeBuffer(*device_, std::vector<int32_t>{5, 6, 7, 8});
  KILN_ASSERT_OK(submit(big));
  KILN_ASSERT_OK(submit(big));
  EXPECT_EQ(ReadBuffer<int32_t>(*big), (std::vector<int32_t>{5, 6, 9, 8}));
}

TEST_P(HalModuleTest, IndirectArgumentErrorsNameTheArgument) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  const Variant null = Variant::FromRef(nullptr);
  const Variant list = Variant::FromRef(vm::List::Create());
  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<uint32_t>(4, 0));
  auto created = CallHal("command_buffer.create", {device, Variant::I32(1)}, 1);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const Variant cmd = (*created)[0];
  const Variant executable =
      Variant::FromRef(WrapForVm(Ref<Executable>(testing::MakeTestExecutable())));
  auto fence = CallHal("fence.create", {device}, 1);
  ASSERT_TRUE(fence.ok()) << fence.status().ToString();
  const Variant signal = (*fence)[0];
  // Dispatch prefix: (cmd, executable, export 4 = increment, 1, 1, 1, 0 constants).
  auto dispatch = [&](std::vector<Variant> bindings) {
    std::vector<Variant> args = {cmd,
                                 executable,
                                 Variant::I32(4),
                                 Variant::I32(1),
                                 Variant::I32(1),
                                 Variant::I32(1),
                                 Variant::I32(0)};
    args.insert(args.end(), bindings.begin(), bindings.end());
    return args;
  };
  struct Case {
    std::string import;
    std::vector<Variant> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"command_buffer.dispatch.indirect",
       dispatch({Variant::I64(0), Variant::I64(0), Variant::I64(4)}),
       "argument 7 (binding slot): expected i32, got i64=0"},
      {"command_buffer.dispatch.indirect",
       dispatch({Wrap(buffer), Variant::I64(0), Variant::I64(4)}),
       "argument 7 (binding slot): expected i32, got ref<hal.buffer>"},
      {"command_buffer.dispatch.indirect",
       dispatch({Variant::I32(-1), Variant::I64(0), Variant::I64(4)}),
       "argument 7 (binding slot): -1 is negative"},
      {"command_buffer.dispatch.indirect",
       dispatch({Variant::I32(0), Variant::I64(-4), Variant::I64(4)}),
       "argument 8 (binding offset): -4 is negative"},
      {"command_buffer.dispatch.indirect",
       dispatch({Variant::I32(0), Variant::I64(0), Variant::I64(-2)}),
       "argument 9 (binding length): -2 is negative (only -1, the whole buffer, is allowed)"},
      {"command_buffer.dispatch.indirect", dispatch({Variant::I32(0), Variant::I64(0)}),
       "2 arguments follow the 0 constant(s); bindings take 3 each (slot, offset, length)"},
      {"command_buffer.dispatch.indirect",
       {list, executable, Variant::I32(4), Variant::I32(1), Variant::I32(1), Variant::I32(1),
        Variant::I32(0)},
       "argument 0 (command buffer): expected hal.command_buffer, got ref<vm.list>"},
      {"command_buffer.dispatch.indirect",
       {cmd, Wrap(buffer), Variant::I32(4), Variant::I32(1), Variant::I32(1), Variant::I32(1),
        Variant::I32(0)},
       "argument 1 (executable): expected hal.executable, got ref<hal.buffer>"},
      // The HAL's validation at record time: increment has 1 binding.
      {"command_buffer.dispatch.indirect", dispatch({}),
       "Dispatch of 'increment': 0 bindings given but the layout declares 1"},
      {"device.queue.execute.indirect",
       {device, null, signal, cmd, Variant::I64(0)},
       "argument 4 (binding-table slot 0): expected hal.buffer or null, got i64=0"},
      {"device.queue.execute.indirect",
       {device, null, signal, cmd, Wrap(buffer), list},
       "argument 5 (binding-table slot 1): expected hal.buffer or null, got ref<vm.list>"},
      {"device.queue.execute.indirect",
       {device, null, null, cmd, Wrap(buffer)},
       "argument 2 (signal fence): expected hal.fence, got ref<null>"},
      {"device.queue.execute.indirect",
       {device, list, signal, cmd},
       "argument 1 (wait fence): expected hal.fence, got ref<vm.list>"},
      {"device.queue.execute.indirect",
       {device, null, signal, Wrap(buffer)},
       "argument 3 (command buffer): expected hal.command_buffer, got ref<hal.buffer>"},
      {"device.queue.execute.indirect",
       {Wrap(buffer), null, signal, cmd},
       "argument 0 (device): expected hal.device, got ref<hal.buffer>"},
  };
  for (const Case& c : cases) {
    Status status = CallHalError(c.import, c.args);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(status.message(), c.message) << c.import;
  }
  // Failed dispatches leave the command buffer recording and unchanged;
  // submitting it before End is the HAL's error.
  Ref<CommandBuffer> command_buffer = UnwrapFromVm<CommandBuffer>(cmd.ref().get());
  EXPECT_TRUE(command_buffer->is_recording());
  Status not_ended = CallHalError("device.queue.execute.indirect", {device, null, signal, cmd});
  EXPECT_EQ(not_ended.code(), StatusCode::kFailedPrecondition) << not_ended.ToString();
}

// A loop of 1,000 dependent dispatches with barriers in one command buffer
// (the shape of the dispatch benchmark): every increment lands, in order.
// ---------------------------------------------------------------------------
// Channels and collectives.

constexpr int32_t kAllGather = 0, kAllReduce = 1, kAllToAll = 2, kReduceScatter = 3, kSendRecv = 4;
constexpr int32_t kSum = 1, kMaximum = 4, kAverage = 5;

// The import's op: kind | reduction << 8.
constexpr int32_t CollectiveOpCode(int32_t kind, int32_t reduction = 0) {
  return kind | reduction << 8;
}

Variant TextArg(std::string_view text) {
  Ref<vm::ByteBuffer> buffer = Unwrap(vm::ByteBuffer::Allocate(text.size()));
  std::memcpy(buffer->mutable_data(), text.data(), text.size());
  return Variant::FromRef(buffer);
}

// A program's default channel in a group of one (the module's default
// options): rank 0 of 1, every collective a copy on the device. The
// program joins it, asks its rank and count, and records each kind of
// collective in one one-shot command buffer, as compiled code does.
TEST_P(HalModuleTest, CollectivesOnAGroupOfOne) {
  Program program;
  // join() -> (channel, rank, count)
  FunctionBuilder& j = program.builder().AddFunction("join", "_rii");
  program.Device0(j, 0, 0);
  program.Text(j, 1, "");
  program.Call(j, "channel.default", "rr_r", {0, 1}, {2});
  program.Call(j, "channel.rank_and_count", "r_ii", {2}, {0, 1});
  j.EmitReturn({2, 0, 1});
  program.builder().AddExport("join", j.ordinal());
  // collect(channel, a, b, c, d, e): b = all_reduce sum of a, c = all_gather
  // of b, d = send_recv of c to and from rank 0, e = send_recv of a to and
  // from nobody (zeros); 4 f32 each, whole-buffer lengths.
  FunctionBuilder& f = program.builder().AddFunction("collect", "rrrrrr_");
  program.Device0(f, 6, 0);
  program.Call(f, "command_buffer.create", "ri_r", {6, 0}, {7});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(static_cast<int32_t>(ElementType::kFloat32))});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(-1)});
  f.Emit(Opcode::kConstI32, {Reg(3), ImmI32(0)});
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(0)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(-1)});
  f.Emit(Opcode::kConstI64, {Reg(2), ImmI64(4)});
  auto collective = [&](int32_t op, uint16_t send_rank, uint16_t recv_rank, uint16_t send,
                        uint16_t recv) {
    f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(op)});
    program.Call(f, "command_buffer.collective", "rriiiirIIrIII_",
                 {7, 0, 0, 1, send_rank, recv_rank, send, 0, 1, recv, 0, 1, 2});
    program.Call(f, "command_buffer.execution_barrier", "r_", {7});
  };
  collective(CollectiveOpCode(kAllReduce, kSum), 2, 2, 1, 2);
  collective(CollectiveOpCode(kAllGather), 2, 2, 2, 3);
  collective(CollectiveOpCode(kSendRecv), 3, 3, 3, 4);
  collective(CollectiveOpCode(kSendRecv), 2, 2, 1, 5);
  program.SubmitAndWait(f, 6, 7, 8, 9, 3);
  f.EmitReturn({});
  program.builder().AddExport("collect", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto joined = Invoke(*context, "join", {});
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  const Variant channel = (*joined)[0];
  ASSERT_TRUE(UnwrapFromVm<Channel>(channel.ref().get()));
  EXPECT_EQ(Texts({(*joined)[1], (*joined)[2]}), (std::vector<std::string>{"i32=0", "i32=1"}));

  const std::vector<float> a = {1.5f, -2.0f, 3.0f, 4.25f};
  std::vector<Ref<Buffer>> buffers = {MakeBuffer(*device_, a)};
  for (int i = 0; i < 4; ++i) buffers.push_back(MakeBuffer(*device_, std::vector<float>(4, 7.0f)));
  std::vector<Variant> args = {channel};
  for (const Ref<Buffer>& buffer : buffers) args.push_back(Wrap(buffer));
  auto collected = Invoke(*context, "collect", args);
  ASSERT_TRUE(collected.ok()) << collected.status().ToString();
  EXPECT_EQ(ReadBuffer<float>(*buffers[1]), a);
  EXPECT_EQ(ReadBuffer<float>(*buffers[2]), a);
  EXPECT_EQ(ReadBuffer<float>(*buffers[3]), a);
  EXPECT_EQ(ReadBuffer<float>(*buffers[4]), std::vector<float>(4, 0.0f));
}

// Splits: a color >= 0 is a subgroup (of one, here), -1 none (a null ref).
TEST_P(HalModuleTest, ChannelSplit) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  auto channel = CallHal("channel.default", {device, TextArg("rows")}, 1);
  ASSERT_TRUE(channel.ok()) << channel.status().ToString();
  auto split = CallHal("channel.split", {(*channel)[0], Variant::I32(3), Variant::I32(0)}, 1);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_TRUE(UnwrapFromVm<Channel>((*split)[0].ref().get()));
  auto rank_and_count = CallHal("channel.rank_and_count", {(*split)[0]}, 2);
  ASSERT_TRUE(rank_and_count.ok()) << rank_and_count.status().ToString();
  EXPECT_EQ(Texts(*rank_and_count), (std::vector<std::string>{"i32=0", "i32=1"}));
  auto none = CallHal("channel.split", {(*channel)[0], Variant::I32(-1), Variant::I32(0)}, 1);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE((*none)[0].is_ref());
  EXPECT_EQ((*none)[0].ref(), nullptr);
}

// Record once, replay many with collectives: slots instead of buffers
// (collective.indirect), lengths -1 (exactly what the op needs), the table
// given at each submission.
TEST_P(HalModuleTest, ReusableCommandBufferReplaysCollectives) {
  Program program;
  // record(channel) -> cmd: slot 1 = reduce_scatter maximum of slot 0,
  // slot 2 = all_to_all of slot 1, 3 si32 each.
  FunctionBuilder& r = program.builder().AddFunction("record", "r_r");
  program.Device0(r, 1, 0);
  r.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  program.Call(r, "command_buffer.create", "ri_r", {1, 0}, {2});
  r.Emit(Opcode::kConstI32, {Reg(0), ImmI32(CollectiveOpCode(kReduceScatter, kMaximum))});
  r.Emit(Opcode::kConstI32, {Reg(1), ImmI32(static_cast<int32_t>(ElementType::kSint32))});
  r.Emit(Opcode::kConstI32, {Reg(2), ImmI32(-1)});
  r.Emit(Opcode::kConstI32, {Reg(3), ImmI32(0)});
  r.Emit(Opcode::kConstI32, {Reg(4), ImmI32(1)});
  r.Emit(Opcode::kConstI32, {Reg(5), ImmI32(2)});
  r.Emit(Opcode::kConstI32, {Reg(6), ImmI32(CollectiveOpCode(kAllToAll))});
  r.Emit(Opcode::kConstI64, {Reg(0), ImmI64(0)});
  r.Emit(Opcode::kConstI64, {Reg(1), ImmI64(-1)});
  r.Emit(Opcode::kConstI64, {Reg(2), ImmI64(3)});
  program.Call(r, "command_buffer.collective.indirect", "rriiiiiIIiIII_",
               {2, 0, 0, 1, 2, 2, 3, 0, 1, 4, 0, 1, 2});
  program.Call(r, "command_buffer.execution_barrier", "r_", {2});
  program.Call(r, "command_buffer.collective.indirect", "rriiiiiIIiIII_",
               {2, 0, 6, 1, 2, 2, 4, 0, 1, 5, 0, 1, 2});
  program.Call(r, "command_buffer.end", "r_", {2});
  r.EmitReturn({2});
  program.builder().AddExport("record", r.ordinal());
  // submit(cmd, a, b, c)
  FunctionBuilder& s = program.builder().AddFunction("submit", "rrrr_");
  program.Device0(s, 4, 0);
  program.Call(s, "fence.create", "r_r", {4}, {5});
  s.Emit(Opcode::kConstRefNull, {Reg(6)});
  program.Call(s, "device.queue.execute.indirect", "rrrrrrr_", {4, 6, 5, 0, 1, 2, 3});
  s.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-1)});
  program.Call(s, "fence.await", "rI_", {5, 0});
  s.EmitReturn({});
  program.builder().AddExport("submit", s.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  auto channel =
      CallHal("channel.default", {Variant::FromRef(WrapDevice(device_)), TextArg("")}, 1);
  ASSERT_TRUE(channel.ok()) << channel.status().ToString();
  // The channel is made by this context's hal state; the program's own
  // context records on it just the same.
  auto recorded = Invoke(*context, "record", {(*channel)[0]});
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  const Variant cmd = (*recorded)[0];
  for (int32_t round = 1; round <= 3; ++round) {
    const std::vector<int32_t> a = {-round, 10 * round, round * round};
    Ref<Buffer> b = MakeBuffer(*device_, std::vector<int32_t>(3, 0));
    Ref<Buffer> c = MakeBuffer(*device_, std::vector<int32_t>(3, 0));
    auto submitted =
        Invoke(*context, "submit", {cmd, Wrap(MakeBuffer(*device_, a)), Wrap(b), Wrap(c)});
    ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
    EXPECT_EQ(ReadBuffer<int32_t>(*b), a) << "round " << round;
    EXPECT_EQ(ReadBuffer<int32_t>(*c), a) << "round " << round;
  }
  // A slot whose buffer is too small for the op fails the submission.
  auto small = Invoke(*context, "submit",
                      {cmd, Wrap(MakeBuffer(*device_, std::vector<int32_t>(2, 0))),
                       Wrap(MakeBuffer(*device_, std::vector<int32_t>(3, 0))),
                       Wrap(MakeBuffer(*device_, std::vector<int32_t>(3, 0)))});
  ASSERT_FALSE(small.ok());
  EXPECT_CONTAINS(small.status().message(), "import 'hal.device.queue.execute.indirect' failed");
  EXPECT_CONTAINS(small.status().message(), "Collective send");
}

TEST_P(HalModuleTest, CollectiveArgumentErrorsNameTheArgument) {
  const Variant device = Variant::FromRef(WrapDevice(device_));
  const Variant null = Variant::FromRef(nullptr);
  auto channel = CallHal("channel.default", {device, TextArg("")}, 1);
  ASSERT_TRUE(channel.ok()) << channel.status().ToString();
  const Variant ch = (*channel)[0];
  auto command_buffer = CallHal("command_buffer.create", {device, Variant::I32(0)}, 1);
  ASSERT_TRUE(command_buffer.ok()) << command_buffer.status().ToString();
  const Variant cmd = (*command_buffer)[0];
  const Variant a = Wrap(MakeBuffer(*device_, std::vector<float>(4, 0.0f)));
  const Variant b = Wrap(MakeBuffer(*device_, std::vector<float>(4, 0.0f)));
  // (cmd, channel, op, element type, send rank, recv rank, send, offset,
  // length, recv, offset, length, count), all_reduce sum f32 of 4.
  auto collective = [&](std::map<size_t, Variant> changes) {
    std::vector<Variant> args = {cmd,
                                 ch,
                                 Variant::I32(CollectiveOpCode(kAllReduce, kSum)),
                                 Variant::I32(kF32),
                                 Variant::I32(-1),
                                 Variant::I32(-1),
                                 a,
                                 Variant::I64(0),
                                 Variant::I64(16),
                                 b,
                                 Variant::I64(0),
                                 Variant::I64(-1),
                                 Variant::I64(4)};
    for (auto& [index, value] : changes) args[index] = value;
    return args;
  };
  struct Case {
    std::string import;
    std::vector<Variant> args;
    size_t results;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"channel.default",
       {device, null},
       1,
       "argument 1 (group): expected vm.buffer, got ref<null>"},
      {"channel.split",
       {ch, Variant::I32(-2), Variant::I32(0)},
       1,
       "argument 1 (color): -2 is negative (only -1, no subgroup, is allowed)"},
      {"channel.rank_and_count",
       {a},
       2,
       "argument 0 (channel): expected hal.channel, got ref<hal.buffer>"},
      {"command_buffer.collective", collective({{1, null}}), 0,
       "argument 1 (channel): expected hal.channel, got ref<null>"},
      {"command_buffer.collective", collective({{2, Variant::I32(0x10001)}}), 0,
       "argument 2 (op): 0x10001 is not a collective (kind | reduction << 8, each a byte)"},
      {"command_buffer.collective", collective({{3, Variant::I32(0x7F000020)}}), 0,
       "argument 3 (element type): unknown element type encoding 0x7F000020"},
      {"command_buffer.collective", collective({{6, ch}}), 0,
       "argument 6 (send buffer): expected hal.buffer, got ref<hal.channel>"},
      {"command_buffer.collective", collective({{10, Variant::I64(-8)}}), 0,
       "argument 10 (recv offset): -8 is negative"},
      {"command_buffer.collective", collective({{12, Variant::I64(-1)}}), 0,
       "argument 12 (element count): -1 is negative"},
      {"command_buffer.collective.indirect",
       collective({{6, Variant::I32(0)}, {9, Variant::I32(-1)}}), 0,
       "argument 9 (recv slot): -1 is negative"},
      // The command buffer's own checks (CommandBuffer::Collective).
      {"command_buffer.collective", collective({{8, Variant::I64(12)}}), 0,
       "Collective all_reduce sum f32 send: a range of 12 bytes given for 16 bytes (4 elements "
       "among 1 participants)"},
      {"command_buffer.collective",
       collective({{2, Variant::I32(CollectiveOpCode(kAllGather))}, {9, a}}), 0,
       "Collective all_gather f32: the send and recv ranges overlap (only all_reduce may run in "
       "place, on identical ranges)"},
      {"command_buffer.collective",
       collective({{2, Variant::I32(CollectiveOpCode(kSendRecv))}, {4, Variant::I32(1)}}), 0,
       "collective send_recv f32 (send 1, recv -1): rank 1 is not -1 or in [0, 1)"},
      {"command_buffer.collective",
       collective({{2, Variant::I32(CollectiveOpCode(kAllToAll, kAverage))}}), 0,
       "collective all_to_all average f32: takes no reduction"},
  };
  for (const Case& c : cases) {
    Status status = CallHalError(c.import, c.args, c.results);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(status.message(), c.message) << c.import;
  }
  // The failed recordings left the command buffer usable.
  EXPECT_TRUE(UnwrapFromVm<CommandBuffer>(cmd.ref().get())->is_recording());
}

// The collective group of the hal module's options reaches the channel:
// two ranks (threads here, each with its own device, hal module and
// context) join through a directory rendezvous and reduce together. Each
// rank then does it again in a second context (a second hal module on the
// same rendezvous): its default channel of the same group meets the other
// rank's second one under a name of its own.
TEST_P(HalModuleTest, DefaultChannelJoinsTheModulesGroup) {
  testing::ScratchDirectory folder;
  constexpr int32_t kWorld = 2;
  constexpr int kContexts = 2;
  std::vector<std::string> outcomes(kWorld * kContexts);
  std::vector<std::vector<float>> reduced(kWorld * kContexts), gathered(kWorld * kContexts);
  auto rank_body = [&](int32_t rank, const Ref<Rendezvous>& rendezvous, int pass) -> std::string {
    const size_t slot = static_cast<size_t>(rank * kContexts + pass);
    Ref<Device> device = testing::CreateDevice(GetParam());
    HalModuleOptions options;
    options.collectives = CollectiveGroup{rank, kWorld, rendezvous};
    auto hal = CreateHalModule(*instance_, {device}, std::move(options));
    if (!hal.ok()) return hal.status().ToString();
    auto context = vm::Context::Create(instance_, {*hal});
    if (!context.ok()) return context.status().ToString();
    auto call = [&](std::string_view name, std::vector<Variant> args,
                    size_t result_count) -> Result<std::vector<Variant>> {
      std::vector<Variant> results(result_count);
      vm::Stack stack;
      KILN_RETURN_IF_ERROR((*hal)->Call(*(*context)->state_of(0),
                                        (*hal)->LookupExport(name)->ordinal, args, results, stack));
      return results;
    };
    const Variant device_ref = Variant::FromRef(WrapDevice(device));
    auto channel = call("channel.default", {device_ref, TextArg("")}, 1);
    if (!channel.ok()) return channel.status().ToString();
    auto rank_and_count = call("channel.rank_and_count", {(*channel)[0]}, 2);
    if (!rank_and_count.ok()) return rank_and_count.status().ToString();
    if ((*rank_and_count)[0].i32() != rank || (*rank_and_count)[1].i32() != kWorld) {
      return "rank_and_count: " + Texts(*rank_and_count)[0] + ", " + Texts(*rank_and_count)[1];
    }
    Ref<Buffer> send = MakeBuffer(*device, std::vector<float>{rank + 1.0f, 10.0f * (rank + 1)});
    Ref<Buffer> sum = MakeBuffer(*device, std::vector<float>(2, 0.0f));
    Ref<Buffer> all = MakeBuffer(*device, std::vector<float>(4, 0.0f));
    auto cmd = call("command_buffer.create", {device_ref, Variant::I32(0)}, 1);
    if (!cmd.ok()) return cmd.status().ToString();
    auto record = [&](int32_t op, const Ref<Buffer>& recv) {
      return call("command_buffer.collective",
                  {(*cmd)[0], (*channel)[0], Variant::I32(op), Variant::I32(kF32), Variant::I32(-1),
                   Variant::I32(-1), Wrap(send), Variant::I64(0), Variant::I64(-1), Wrap(recv),
                   Variant::I64(0), Variant::I64(-1), Variant::I64(2)},
                  0)
          .status();
    };
    CHILD_OK(record(CollectiveOpCode(kAllReduce, kSum), sum));
    CHILD_OK(call("command_buffer.execution_barrier", {(*cmd)[0]}, 0).status());
    CHILD_OK(record(CollectiveOpCode(kAllGather), all));
    CHILD_OK(call("command_buffer.end", {(*cmd)[0]}, 0).status());
    auto fence = call("fence.create", {device_ref}, 1);
    if (!fence.ok()) return fence.status().ToString();
    CHILD_OK(call("device.queue.execute",
                  {device_ref, Variant::FromRef(nullptr), (*fence)[0], (*cmd)[0]}, 0)
                 .status());
    CHILD_OK(call("fence.await", {(*fence)[0], Variant::I64(-1)}, 0).status());
    reduced[slot] = ReadBuffer<float>(*sum);
    gathered[slot] = ReadBuffer<float>(*all);
    return "";
  };
  std::vector<std::thread> threads;
  for (int32_t rank = 0; rank < kWorld; ++rank) {
    threads.emplace_back([&, rank] {
      auto rendezvous = Rendezvous::Open(folder.path(), rank, kWorld, std::chrono::seconds(60));
      for (int pass = 0; pass < kContexts; ++pass) {
        outcomes[rank * kContexts + pass] =
            rendezvous.ok() ? rank_body(rank, *rendezvous, pass) : rendezvous.status().ToString();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t slot = 0; slot < outcomes.size(); ++slot) {
    const std::string where = "rank " + std::to_string(slot / kContexts) + ", context " +
                              std::to_string(slot % kContexts);
    EXPECT_EQ(outcomes[slot], "") << where;
    EXPECT_EQ(reduced[slot], (std::vector<float>{3.0f, 30.0f})) << where;
    EXPECT_EQ(gathered[slot], (std::vector<float>{1.0f, 10.0f, 2.0f, 20.0f})) << where;
  }
}

// A group of several participants without a rendezvous cannot be joined:
// the error says which channel, as which rank.
TEST(HalModuleSetupTest, DefaultChannelOfSeveralNeedsARendezvous) {
  Ref<vm::Instance> instance = vm::Instance::Create();
  Ref<Device> device = testing::CreateDevice("cpu");
  HalModuleOptions options;
  options.collectives = CollectiveGroup{1, 2, nullptr};
  Ref<vm::Module> hal = Unwrap(CreateHalModule(*instance, {device}, std::move(options)));
  Ref<vm::Context> context = Unwrap(vm::Context::Create(instance, {hal}));
  const std::vector<Variant> args = {Variant::FromRef(WrapDevice(device)), TextArg("tp")};
  std::vector<Variant> results(1);
  vm::Stack stack;
  Status status = hal->Call(*context->state_of(0), hal->LookupExport("channel.default")->ordinal,
                            args, results, stack);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "joining the channel of group 'tp' as rank 1 of 2: a group of several participants "
            "needs a rendezvous (none was given)");
}

TEST_P(HalModuleTest, ThousandDispatches) {
  Program program;
  // many(executable, buffer, count): `count` x increment(buffer[0]) with
  // barriers between (the increments depend on each other).
  FunctionBuilder& f = program.builder().AddFunction("many", "rri_");
  program.Device0(f, 2, 1);
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  program.Call(f, "command_buffer.create", "ri_r", {2, 1}, {3});
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(4)});  // increment
  f.Emit(Opcode::kConstI32, {Reg(3), ImmI32(1)});
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(0)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(4)});
  f.Emit(Opcode::kConstI32, {Reg(4), ImmI32(0)});  // Loop counter.
  vm::Label body = f.NewLabel(), done = f.NewLabel();
  f.Emit(Opcode::kBrLtI32S, {Reg(4), Reg(0), vm::Target(body), vm::Target(done)});
  f.Bind(body);
  program.Call(f, "command_buffer.dispatch", "rriiiiirII_", {3, 0, 2, 3, 3, 3, 1, 1, 0, 1});
  program.Call(f, "command_buffer.execution_barrier", "r_", {3});
  f.Emit(Opcode::kForStepI32, {Reg(4), ImmI32(1), Reg(0), vm::Target(body), vm::Target(done)});
  f.Bind(done);
  program.SubmitAndWait(f, 2, 3, 4, 5, 2);
  f.EmitReturn({});
  program.builder().AddExport("many", f.ordinal());
  Ref<vm::Context> context = MustLink(program);
  ASSERT_TRUE(context);

  const Variant executable =
      Variant::FromRef(WrapForVm(Ref<Executable>(testing::MakeTestExecutable())));
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<int32_t>{0});
  auto warm = Invoke(*context, "many", {executable, Wrap(counter), Variant::I32(10)});
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();
  // Speed is measured by tests/benchmarks/dispatch_benchmark.cc, not here.
  const int32_t count = 1000;
  auto results = Invoke(*context, "many", {executable, Wrap(counter), Variant::I32(count)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(ReadBuffer<int32_t>(*counter)[0], 10 + count);
}

TEST(HalModuleSetupTest, TypesAndDevices) {
  // A module naming hal types loads only once they are registered.
  ModuleBuilder builder("typed");
  builder.AddType("hal.buffer_view");
  FunctionBuilder& f = builder.AddFunction("main", "_");
  f.EmitReturn({});
  std::vector<uint8_t> bytes = Unwrap(builder.Finish());
  Ref<vm::Instance> instance = vm::Instance::Create();
  auto module = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(bytes));
  EXPECT_FALSE(module.ok());
  KILN_ASSERT_OK(RegisterHalTypes(*instance));
  KILN_ASSERT_OK(RegisterHalTypes(*instance));  // Again: harmless.
  module = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(bytes));
  EXPECT_TRUE(module.ok()) << module.status().ToString();

  auto hal = CreateHalModule(*instance, {nullptr});
  ASSERT_FALSE(hal.ok());
  EXPECT_EQ(hal.status().message(), "hal module: device 0 is null");

  // No devices: count is 0 and get fails.
  Ref<vm::Module> empty = Unwrap(CreateHalModule(*instance, {}));
  Ref<vm::Context> context = Unwrap(vm::Context::Create(instance, {empty}));
  Ref<vm::List> no_args = vm::List::Create();
  auto count = vm::Invoke(*context, "hal.devices.count", *no_args);
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(count.value()->items()[0].ToString(), "i32=0");
}

INSTANTIATE_TEST_SUITE_P(Devices, HalModuleTest, ::testing::Values("cpu", "cpu-sync"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace kiln::hal
