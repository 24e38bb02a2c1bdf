// Tests of compiler/parser/hal_attributes.h: the HAL attributes of seed 004's
// custom-dispatch workflow, parsed from a whole module, both pipeline layout
// spellings, IREE's other spellings, and every error.
#include "compiler/parser/hal_attributes.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "compiler/parser/affine_map.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"
#include "compiler/parser/parser.h"

namespace kiln::compiler {
namespace {

// Parses a module and keeps it with its sources.
struct Module {
  SourceManager sources;
  DiagnosticEngine diagnostics{sources};
  std::unique_ptr<Operation> op;
};

std::unique_ptr<Module> ParseOk(std::string_view text) {
  auto module = std::make_unique<Module>();
  uint32_t file = module->sources.AddFile("test.mlir", std::string(text));
  auto result = ParseModule(module->sources, file, module->diagnostics);
  EXPECT_TRUE(result.ok()) << module->diagnostics.Render();
  if (result.ok()) module->op = std::move(result).value();
  return module;
}

// The attribute `name` of the module's `attributes {...}`.
Attribute ModuleAttribute(std::string_view text, std::string_view name) {
  auto module = ParseOk(text);
  if (!module->op) return Attribute();
  const Attribute* attribute = module->op->attribute(name);
  EXPECT_NE(attribute, nullptr) << name;
  return attribute ? *attribute : Attribute();
}

// Parses `#attr` written in a module (so aliases and the parser's raw-body
// handling are exercised as in real input).
Attribute Attr(std::string_view attribute_text, std::string_view aliases = "") {
  std::string text = std::string(aliases) +
                     "\nmodule attributes {test.a = " + std::string(attribute_text) + "} {}\n";
  return ModuleAttribute(text, "test.a");
}

Attribute Config(std::string_view dictionary) {
  // A dictionary parsed the way kiln parses it everywhere.
  auto module = ParseOk("module attributes {test.c = " + std::string(dictionary) + "} {}");
  const Attribute* attribute = module->op ? module->op->attribute("test.c") : nullptr;
  return attribute ? *attribute : Attribute();
}

// The seed-004 example: targets, objects, a device target, a pipeline layout
// in the older spelling and the workgroup-count map, on a module's attributes.
constexpr std::string_view kSeedModule = R"mlir(
#nvptx_sm_52_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {
  target_arch = "sm_52"
}>
#nvptx_sm_80_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {
  target_arch = "sm_80"
}>
#cuda_target = #hal.device.target<"cuda", [
  #nvptx_sm_52_target,
  #nvptx_sm_80_target
]>
module @example attributes {
  hal.device.targets = [#cuda_target],
  test.objects = #hal.executable.objects<{
    #nvptx_sm_52_target = [
      #hal.executable.object<{path = "kernels_sm_52.ptx"}>
    ],
    #nvptx_sm_80_target = [
      #hal.executable.object<{path = "kernels_sm_80.ptx"}>
    ]
  }>,
  test.layout = #hal.pipeline.layout<push_constants = 1, sets = [
    <0, bindings = [
      <0, storage_buffer, ReadOnly>,
      <1, storage_buffer, ReadOnly>,
      <2, storage_buffer>
    ]>
  ]>,
  test.workgroup_count = affine_map<()[s0] -> (s0 ceildiv 64)>
} {
  func.func @f(%x: i32) -> i32 {
    return %x : i32
  }
}
)mlir";

TEST(HalAttributesTest, SeedExample) {
  auto module = ParseOk(kSeedModule);
  ASSERT_NE(module->op, nullptr);

  ExecutableTarget sm52{"cuda", "cuda-nvptx-fb", Config(R"({target_arch = "sm_52"})")};
  ExecutableTarget sm80{"cuda", "cuda-nvptx-fb", Config(R"({target_arch = "sm_80"})")};

  const Attribute* devices = module->op->attribute("hal.device.targets");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->elements.size(), 1u);
  Result<DeviceTarget> device = ParseDeviceTarget(devices->elements[0]);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ(device->device, "cuda");
  EXPECT_TRUE(device->config.is_null());
  ASSERT_EQ(device->targets.size(), 2u);
  EXPECT_EQ(device->targets[0], sm52);
  EXPECT_EQ(device->targets[1], sm80);
  const Attribute* arch = device->targets[1].config.Find("target_arch");
  ASSERT_NE(arch, nullptr);
  EXPECT_EQ(arch->text, "sm_80");

  Result<ExecutableObjects> objects =
      ParseExecutableObjects(*module->op->attribute("test.objects"));
  ASSERT_TRUE(objects.ok()) << objects.status().ToString();
  ASSERT_EQ(objects->targets.size(), 2u);
  EXPECT_EQ(objects->targets[0].first, sm52);
  ASSERT_EQ(objects->targets[0].second.size(), 1u);
  EXPECT_EQ(objects->targets[0].second[0].path, "kernels_sm_52.ptx");
  EXPECT_EQ(objects->targets[1].first, sm80);
  ASSERT_EQ(objects->targets[1].second.size(), 1u);
  EXPECT_EQ(objects->targets[1].second[0].path, "kernels_sm_80.ptx");
  EXPECT_TRUE(objects->targets[1].second[0].data.empty());

  Result<PipelineLayout> layout = ParsePipelineLayout(*module->op->attribute("test.layout"));
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->constants, 1);
  ASSERT_EQ(layout->bindings.size(), 3u);
  EXPECT_TRUE(layout->bindings[0].read_only);
  EXPECT_TRUE(layout->bindings[1].read_only);
  EXPECT_FALSE(layout->bindings[2].read_only);
  EXPECT_FALSE(layout->indirect);

  Result<AffineMap> map = ParseAffineMap(*module->op->attribute("test.workgroup_count"));
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  Result<std::vector<int64_t>> count = map->Evaluate({}, std::vector<int64_t>{65});
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, std::vector<int64_t>{2});
}

TEST(HalAttributesTest, BothLayoutSpellingsAreEqual) {
  Result<PipelineLayout> old_form = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<push_constants = 1, sets = [<0, bindings = [<0, storage_buffer, "
           "ReadOnly>, <1, storage_buffer, ReadOnly>, <2, storage_buffer>]>]>"));
  Result<PipelineLayout> new_form = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, "
           "ReadOnly>, #hal.pipeline.binding<storage_buffer, \"ReadOnly\">, "
           "#hal.pipeline.binding<storage_buffer>]>"));
  Result<PipelineLayout> verbose = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<push_constants = 1, sets = [#hal.descriptor_set.layout<0, "
           "bindings = [#hal.descriptor_set.binding<0, storage_buffer, ReadOnly>, "
           "#hal.descriptor_set.binding<1, storage_buffer, flags = \"ReadOnly\">, "
           "#hal.descriptor_set.binding<2, storage_buffer>]>]>"));
  Result<PipelineLayout> keyed = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, flags = "
           "ReadOnly>, #hal.pipeline.binding<storage_buffer, flags = \"ReadOnly\">, "
           "#hal.pipeline.binding<storage_buffer, None>], constants = 1>"));
  ASSERT_TRUE(old_form.ok()) << old_form.status().ToString();
  ASSERT_TRUE(new_form.ok()) << new_form.status().ToString();
  ASSERT_TRUE(verbose.ok()) << verbose.status().ToString();
  ASSERT_TRUE(keyed.ok()) << keyed.status().ToString();
  PipelineLayout expected;
  expected.constants = 1;
  expected.bindings = {{true}, {true}, {false}};
  EXPECT_EQ(*old_form, expected);
  EXPECT_EQ(*new_form, expected);
  EXPECT_EQ(*verbose, expected);
  EXPECT_EQ(*keyed, expected);
}

TEST(HalAttributesTest, LayoutThroughAliases) {
  Attribute attribute =
      Attr("#layout",
           "#binding = #hal.pipeline.binding<storage_buffer, ReadOnly>\n"
           "#layout = #hal.pipeline.layout<constants = 2, bindings = [#binding, #binding]>");
  Result<PipelineLayout> layout = ParsePipelineLayout(attribute);
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->constants, 2);
  EXPECT_EQ(layout->bindings.size(), 2u);
}

TEST(HalAttributesTest, LayoutOmittedKeysAndFlags) {
  Result<PipelineLayout> empty = ParsePipelineLayout(Attribute::Dialect("hal.pipeline.layout", ""));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(*empty, PipelineLayout{});
  Result<PipelineLayout> constants_only =
      ParsePipelineLayout(Attr("#hal.pipeline.layout<constants = 3>"));
  ASSERT_TRUE(constants_only.ok());
  EXPECT_EQ(constants_only->constants, 3);
  EXPECT_TRUE(constants_only->bindings.empty());
  Result<PipelineLayout> bindings_only = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>"));
  ASSERT_TRUE(bindings_only.ok());
  EXPECT_EQ(bindings_only->constants, 0);
  EXPECT_EQ(bindings_only->bindings.size(), 1u);
  Result<PipelineLayout> empty_sets =
      ParsePipelineLayout(Attr("#hal.pipeline.layout<push_constants = 0, sets = []>"));
  ASSERT_TRUE(empty_sets.ok());
  EXPECT_TRUE(empty_sets->bindings.empty());
  // IREE's current output: Indirect flags on bindings and on the layout.
  Result<PipelineLayout> indirect = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, "
           "\"ReadOnly|Indirect\">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = "
           "Indirect>"));
  ASSERT_TRUE(indirect.ok()) << indirect.status().ToString();
  EXPECT_TRUE(indirect->indirect);
  ASSERT_EQ(indirect->bindings.size(), 2u);
  EXPECT_TRUE(indirect->bindings[0].read_only);
  EXPECT_TRUE(indirect->bindings[0].indirect);
  EXPECT_FALSE(indirect->bindings[1].read_only);
  EXPECT_TRUE(indirect->bindings[1].indirect);
  Result<PipelineLayout> set_flags = ParsePipelineLayout(
      Attr("#hal.pipeline.layout<push_constants = 0, sets = [<0, bindings = [<0, storage_buffer, "
           "\"ReadOnly | Indirect\">], flags = Indirect>]>"));
  ASSERT_TRUE(set_flags.ok()) << set_flags.status().ToString();
  EXPECT_TRUE(set_flags->indirect);
  EXPECT_TRUE(set_flags->bindings[0].read_only);
}

std::string LayoutError(std::string_view body) {
  Result<PipelineLayout> layout =
      ParsePipelineLayout(Attribute::Dialect("hal.pipeline.layout", std::string(body)));
  EXPECT_FALSE(layout.ok()) << body;
  return layout.ok() ? "" : layout.status().message();
}

#define EXPECT_CONTAINS(haystack, needle)              \
  do {                                                 \
    std::string h = (haystack);                        \
    EXPECT_NE(h.find(needle), std::string::npos) << h; \
  } while (false)

TEST(HalAttributesTest, LayoutErrors) {
  EXPECT_CONTAINS(LayoutError("push_constants = 1, sets = [<1, bindings = []>]"),
                  "descriptor set 1 is not supported");
  EXPECT_CONTAINS(LayoutError("sets = [<0, bindings = []>, <0, bindings = []>]"),
                  "only one descriptor set");
  EXPECT_CONTAINS(LayoutError("sets = [<0, bindings = [<1, storage_buffer>]>]"),
                  "binding 1 is out of order: expected binding 0");
  EXPECT_CONTAINS(
      LayoutError("sets = [<0, bindings = [<0, storage_buffer>, <0, storage_buffer>]>]"),
      "binding 0 is out of order: expected binding 1");
  EXPECT_CONTAINS(LayoutError("sets = [<0, bindings = [<0, storage_buffer, Bogus>]>]"),
                  "unknown flag 'Bogus'; expected 'ReadOnly', 'Indirect' or 'None'");
  EXPECT_CONTAINS(
      LayoutError("bindings = [#hal.pipeline.binding<storage_buffer, \"ReadOnly|Bad\">]"),
      "unknown flag 'Bad'");
  EXPECT_CONTAINS(LayoutError("bindings = [], flags = ReadOnly"),
                  "unknown flag 'ReadOnly'; expected 'Indirect' or 'None'");
  EXPECT_CONTAINS(LayoutError("bindings = [#hal.pipeline.binding<uniform_buffer>]"),
                  "binding type 'uniform_buffer' is not supported");
  EXPECT_CONTAINS(LayoutError("bindings = [#hal.pipeline.binding<>]"),
                  "expected the binding type 'storage_buffer'");
  EXPECT_CONTAINS(LayoutError("bindings = [<storage_buffer>]"),
                  "expected a binding (#hal.pipeline.binding<...>)");
  EXPECT_CONTAINS(LayoutError("bindings = [#other.binding<storage_buffer>]"), "expected a binding");
  EXPECT_CONTAINS(LayoutError("bindings = [#binding]"), "undefined attribute alias '#binding'");
  EXPECT_CONTAINS(LayoutError("constants = 1, push_constants = 2"), "given twice");
  EXPECT_CONTAINS(LayoutError("bindings = [], sets = []"), "bindings are given twice");
  EXPECT_CONTAINS(LayoutError("constants = -1"), "expected the push constant count");
  EXPECT_CONTAINS(LayoutError("constants = 99999999999"), "below 2^31");
  EXPECT_CONTAINS(LayoutError("constants = 0x10"), "decimal integer");
  EXPECT_CONTAINS(LayoutError("layouts = []"), "unknown key 'layouts'");
  EXPECT_CONTAINS(LayoutError("constants 1"), "'=' after 'constants'");
  EXPECT_CONTAINS(LayoutError("constants = 1 bindings = []"), "unexpected text after");
  EXPECT_CONTAINS(LayoutError("sets = [<0, bindings = [<0, storage_buffer>]"),
                  "expected '>' to end a descriptor set layout");
  EXPECT_CONTAINS(LayoutError("sets = [<0, bindings = [<0, storage_buffer> <1, storage_buffer>]>]"),
                  "',' or ']' in the list");
  EXPECT_CONTAINS(LayoutError("sets = [<0, things = []>]"), "unknown key 'things'");
  EXPECT_CONTAINS(LayoutError("sets = [<0, bindings = [], bindings = []>]"),
                  "'bindings' is given twice");
  // The message names the attribute and locates the problem in the body.
  EXPECT_CONTAINS(
      LayoutError("constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, X>]"),
      "#hal.pipeline.layout: unknown flag 'X'; expected 'ReadOnly', 'Indirect' or "
      "'None', at offset 65 of the body near 'X>]'");
  // Not a layout at all.
  Result<PipelineLayout> wrong = ParsePipelineLayout(Attribute::Integer(1, Type::I64()));
  ASSERT_FALSE(wrong.ok());
  EXPECT_CONTAINS(wrong.status().message(), "expected #hal.pipeline.layout<...>, got 1 : i64");
}

TEST(HalAttributesTest, ExecutableTarget) {
  Result<ExecutableTarget> cuda = ParseExecutableTarget(Attr(
      R"(#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80", max = 4 : i64, nested = #foo.bar<1, [2]>}>)"));
  ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
  EXPECT_EQ(cuda->backend, "cuda");
  EXPECT_EQ(cuda->format, "cuda-nvptx-fb");
  ASSERT_EQ(cuda->config.kind, Attribute::Kind::kDictionary);
  ASSERT_EQ(cuda->config.entries.size(), 3u);
  EXPECT_EQ(cuda->config.Find("max")->integer_value, 4);
  EXPECT_EQ(cuda->config.Find("nested")->text, "foo.bar");

  Result<ExecutableTarget> cpu =
      ParseExecutableTarget(Attr(R"(#hal.executable.target<"llvm-cpu", "system-elf-x86_64">)"));
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  EXPECT_EQ(cpu->backend, "llvm-cpu");
  EXPECT_EQ(cpu->format, "system-elf-x86_64");
  EXPECT_TRUE(cpu->config.is_null());

  Result<ExecutableTarget> empty_config = ParseExecutableTarget(
      Attribute::Dialect("hal.executable.target", R"("vulkan-spirv", "vulkan-spirv-fb", {})"));
  ASSERT_TRUE(empty_config.ok()) << empty_config.status().ToString();
  EXPECT_EQ(empty_config->config.kind, Attribute::Kind::kDictionary);
}

std::string TargetError(std::string_view body) {
  Result<ExecutableTarget> target =
      ParseExecutableTarget(Attribute::Dialect("hal.executable.target", std::string(body)));
  EXPECT_FALSE(target.ok()) << body;
  return target.ok() ? "" : target.status().message();
}

TEST(HalAttributesTest, ExecutableTargetErrors) {
  EXPECT_CONTAINS(TargetError(""), "expected the backend name");
  EXPECT_CONTAINS(TargetError("cuda, \"x\""), "expected the backend name");
  EXPECT_CONTAINS(TargetError("\"cuda\""), "',' and the executable format");
  EXPECT_CONTAINS(TargetError("\"cuda\", 3"), "expected the executable format");
  EXPECT_CONTAINS(TargetError("\"cuda\", \"f\", [1]"), "expected the configuration dictionary");
  EXPECT_CONTAINS(TargetError("\"cuda\", \"f\", {a = 1} extra"), "unexpected text after");
  EXPECT_CONTAINS(TargetError("\"cuda\", \"f\", {a = 1, a = 2}"), "at offset 21");
  EXPECT_CONTAINS(TargetError("\"cuda\", \"f\", {a = }"), "at offset");
  EXPECT_CONTAINS(TargetError("\"cuda\", \"f\", {a = 1"), "unbalanced bracket");
  EXPECT_CONTAINS(TargetError("\"cu\\zda\", \"f\""), "invalid escape");
}

TEST(HalAttributesTest, ExecutableObject) {
  Result<ExecutableObject> path =
      ParseExecutableObject(Attr(R"(#hal.executable.object<{path = "kernels.so"}>)"));
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(path->path, "kernels.so");
  // Inline data is kept as written (kiln does not model vector types).
  Result<ExecutableObject> data = ParseExecutableObject(
      Attribute::Dialect("hal.executable.object", "{data = dense<[1, 2, 3, 4]> : vector<4xi8>}"));
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_TRUE(data->path.empty());
  EXPECT_EQ(data->data, "dense<[1, 2, 3, 4]> : vector<4xi8>");
  Result<ExecutableObject> both = ParseExecutableObject(Attribute::Dialect(
      "hal.executable.object", "{path = \"a.spv\", data = dense<\"0x0102\"> : vector<2xi8>}"));
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(both->path, "a.spv");
  EXPECT_EQ(both->data, "dense<\"0x0102\"> : vector<2xi8>");
}

std::string ObjectError(std::string_view body) {
  Result<ExecutableObject> object =
      ParseExecutableObject(Attribute::Dialect("hal.executable.object", std::string(body)));
  EXPECT_FALSE(object.ok()) << body;
  return object.ok() ? "" : object.status().message();
}

TEST(HalAttributesTest, ExecutableObjectErrors) {
  EXPECT_CONTAINS(ObjectError("{}"), "needs a 'path' or 'data'");
  EXPECT_CONTAINS(ObjectError(""), "'{' to start the object's dictionary");
  EXPECT_CONTAINS(ObjectError("{path = 3}"), "expected the object's path as a string");
  EXPECT_CONTAINS(ObjectError("{path = \"\"}"), "the object's path is empty");
  EXPECT_CONTAINS(ObjectError("{path = \"a\", path = \"b\"}"), "'path' is given twice");
  EXPECT_CONTAINS(ObjectError("{file = \"a\"}"), "unknown key 'file'; expected 'path' or 'data'");
  EXPECT_CONTAINS(ObjectError("{data = }"), "expected a value");
  EXPECT_CONTAINS(ObjectError("{data = dense<1>"), "unexpected end of the body");
  EXPECT_CONTAINS(ObjectError("{data = dense<1>>}"), "unbalanced bracket");
  EXPECT_CONTAINS(ObjectError("{path = \"a\"} x"), "unexpected text after");
}

TEST(HalAttributesTest, ExecutableObjectsErrors) {
  auto error = [](std::string_view body) {
    Result<ExecutableObjects> objects =
        ParseExecutableObjects(Attribute::Dialect("hal.executable.objects", std::string(body)));
    EXPECT_FALSE(objects.ok()) << body;
    return objects.ok() ? std::string() : objects.status().message();
  };
  const std::string target = R"(#hal.executable.target<"llvm-cpu", "system-elf-x86_64">)";
  EXPECT_CONTAINS(error("{#undefined_target = []}"),
                  "undefined attribute alias '#undefined_target'");
  EXPECT_CONTAINS(error("{\"cuda\" = []}"), "expected an executable target");
  EXPECT_CONTAINS(error("{" + target + " []}"), "'=' and a list of objects");
  EXPECT_CONTAINS(error("{" + target + " = [#hal.executable.object<{}>]}"),
                  "needs a 'path' or 'data'");
  EXPECT_CONTAINS(error("{" + target + " = [\"a.so\"]}"), "expected an executable object");
  EXPECT_CONTAINS(error("{" + target + " = [], " + target + " = []}"), "is given twice");
  EXPECT_CONTAINS(error("[]"), "'{' to start the map");
  // The error inside a nested target is located in the outer body.
  EXPECT_CONTAINS(error("{#hal.executable.target<\"cuda\" \"x\"> = []}"), "at offset 31");

  Result<ExecutableObjects> empty =
      ParseExecutableObjects(Attribute::Dialect("hal.executable.objects", "{}"));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->targets.empty());
  Result<ExecutableObjects> no_objects =
      ParseExecutableObjects(Attribute::Dialect("hal.executable.objects", "{" + target + " = []}"));
  ASSERT_TRUE(no_objects.ok()) << no_objects.status().ToString();
  ASSERT_EQ(no_objects->targets.size(), 1u);
  EXPECT_TRUE(no_objects->targets[0].second.empty());
}

TEST(HalAttributesTest, ExecutableObjectsSeveralPerTarget) {
  Result<ExecutableObjects> objects = ParseExecutableObjects(Attr(
      R"(#hal.executable.objects<{#cpu = [#hal.executable.object<{path = "a.so"}>, #hal.executable.object<{path = "b.so"}>]}>)",
      R"(#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64", {cpu = "generic"}>)"));
  ASSERT_TRUE(objects.ok()) << objects.status().ToString();
  ASSERT_EQ(objects->targets.size(), 1u);
  EXPECT_EQ(objects->targets[0].first.format, "system-elf-x86_64");
  EXPECT_EQ(objects->targets[0].first.config.Find("cpu")->text, "generic");
  ASSERT_EQ(objects->targets[0].second.size(), 2u);
  EXPECT_EQ(objects->targets[0].second[1].path, "b.so");
}

TEST(HalAttributesTest, DeviceTargetSpellings) {
  const std::string target =
      R"(#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_60"}>)";
  Result<DeviceTarget> bare = ParseDeviceTarget(Attr(R"(#hal.device.target<"local">)"));
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_EQ(bare->device, "local");
  EXPECT_TRUE(bare->config.is_null());
  EXPECT_TRUE(bare->targets.empty());

  Result<DeviceTarget> full = ParseDeviceTarget(
      Attr("#hal.device.target<\"cuda\", {legacy_sync}, [" + target + ", " + target + "]>"));
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->device, "cuda");
  EXPECT_NE(full->config.Find("legacy_sync"), nullptr);
  ASSERT_EQ(full->targets.size(), 2u);
  EXPECT_EQ(full->targets[0].config.Find("target_arch")->text, "sm_60");

  // The older spelling: the targets live in the config.
  Result<DeviceTarget> older = ParseDeviceTarget(
      Attr("#hal.device.target<\"cuda\", {executable_targets = [" + target + "], legacy_sync}>"));
  ASSERT_TRUE(older.ok()) << older.status().ToString();
  ASSERT_EQ(older->targets.size(), 1u);
  EXPECT_EQ(older->targets[0], full->targets[0]);

  Result<DeviceTarget> list_only = ParseDeviceTarget(Attr("#hal.device.target<\"vulkan\", []>"));
  ASSERT_TRUE(list_only.ok()) << list_only.status().ToString();
  EXPECT_TRUE(list_only->targets.empty());
}

TEST(HalAttributesTest, DeviceTargetErrors) {
  auto error = [](std::string_view body) {
    Result<DeviceTarget> device =
        ParseDeviceTarget(Attribute::Dialect("hal.device.target", std::string(body)));
    EXPECT_FALSE(device.ok()) << body;
    return device.ok() ? std::string() : device.status().message();
  };
  EXPECT_CONTAINS(error(""), "expected the device name");
  EXPECT_CONTAINS(error("\"cuda\", 4"), "expected the configuration dictionary or the list");
  EXPECT_CONTAINS(error("\"cuda\", [], {}"), "unexpected text after the list");
  EXPECT_CONTAINS(error("\"cuda\", {}, {}"), "expected the configuration dictionary or the list");
  EXPECT_CONTAINS(error("\"cuda\", [#hal.executable.object<{path = \"a\"}>]"),
                  "expected an executable target");
  EXPECT_CONTAINS(error("\"cuda\", {executable_targets = 3}"),
                  "'executable_targets' in the configuration must be a list");
  EXPECT_CONTAINS(error("\"cuda\", {executable_targets = [#hal.executable.target<\"x\">]}"),
                  "#hal.device.target: in 'executable_targets': #hal.executable.target: "
                  "expected ',' and the executable format");
  EXPECT_CONTAINS(error("\"cuda\" [ ]"), "unexpected text after the attribute");
}

}  // namespace
}  // namespace kiln::compiler
