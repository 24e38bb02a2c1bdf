// Typed views of the HAL dialect attributes that describe hand-authored
// executables and the devices they run on, parsed from the raw bodies the IR
// keeps (Attribute kind kDialect; see attributes.h):
//
//   #hal.pipeline.layout<...>     -> PipelineLayout   (push constants + bindings)
//   #hal.executable.target<...>   -> ExecutableTarget (backend, format, config)
//   #hal.executable.object<...>   -> ExecutableObject (a file, or inline data)
//   #hal.executable.objects<...>  -> ExecutableObjects (objects per target)
//   #hal.device.target<...>       -> DeviceTarget     (device + its targets)
//
// Both spellings of a pipeline layout that IREE has used are accepted and give
// equal PipelineLayouts:
//
//   #hal.pipeline.layout<push_constants = 1, sets = [<0, bindings = [
//       <0, storage_buffer, ReadOnly>, <1, storage_buffer>]>]>
//   #hal.pipeline.layout<constants = 1, bindings = [
//       #hal.pipeline.binding<storage_buffer, ReadOnly>,
//       #hal.pipeline.binding<storage_buffer>]>
//
// (in the older one, a set and a binding may also be written in full:
// `#hal.descriptor_set.layout<0, bindings = [#hal.descriptor_set.binding<0,
// storage_buffer>]>`; a set or the layout may carry `flags = Indirect`).
//
// Binding flags are `ReadOnly`, `Indirect`, `None`, a string of them joined by
// '|' ("ReadOnly|Indirect"), or any of these as `flags = ...`. kiln's dispatch
// ABI (DESIGN.md) has one descriptor set of storage buffers, so only set 0,
// storage_buffer bindings and ordinals 0..n-1 in order are accepted.
//
// Errors are InvalidArgument Statuses naming the attribute, what was expected
// and the byte offset in the body (with an excerpt); the caller adds the op's
// location. Nested generic attributes (a target's config dictionary) are
// parsed with kiln's attribute parser (parser/parser_impl.h) and kept as
// Attributes, so they compare and print like any other attribute.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "compiler/ir/attributes.h"

namespace kiln::compiler {

struct PipelineLayout {
  struct Binding {
    bool read_only = false;
    bool indirect = false;  // IREE's `Indirect`: bound through a binding table.
    friend bool operator==(const Binding&, const Binding&) = default;
  };
  int constants = 0;              // 32-bit push constants.
  std::vector<Binding> bindings;  // Binding i is ordinal i.
  bool indirect = false;          // Layout-level `flags = Indirect`.
  friend bool operator==(const PipelineLayout&, const PipelineLayout&) = default;
};

struct ExecutableTarget {
  std::string backend;  // "llvm-cpu", "cuda", "vulkan-spirv", ...
  std::string format;   // "embedded-elf-x86_64", "cuda-nvptx-fb", "vulkan-spirv-fb", ...
  Attribute config;     // The dictionary (e.g. {target_arch = "sm_80"}); null when absent.
  friend bool operator==(const ExecutableTarget&, const ExecutableTarget&) = default;
};

struct ExecutableObject {
  std::string path;  // Empty when the object carries its data inline.
  std::string data;  // `data = ...` as written (e.g. `dense<[...]> : vector<4xi8>`), or empty.
  friend bool operator==(const ExecutableObject&, const ExecutableObject&) = default;
};

struct ExecutableObjects {
  // In source order; the same target may appear once.
  std::vector<std::pair<ExecutableTarget, std::vector<ExecutableObject>>> targets;
  friend bool operator==(const ExecutableObjects&, const ExecutableObjects&) = default;
};

struct DeviceTarget {
  std::string device;  // "cuda", "local", "vulkan", "llvm-cpu", ...
  Attribute config;    // The dictionary; null when absent.
  // The executable targets: the `[...]` list, followed by those of the older
  // spelling `{executable_targets = [...]}` in the config (which stays there).
  std::vector<ExecutableTarget> targets;
  friend bool operator==(const DeviceTarget&, const DeviceTarget&) = default;
};

Result<PipelineLayout> ParsePipelineLayout(const Attribute& attribute);
Result<ExecutableTarget> ParseExecutableTarget(const Attribute& attribute);
Result<ExecutableObject> ParseExecutableObject(const Attribute& attribute);
Result<ExecutableObjects> ParseExecutableObjects(const Attribute& attribute);
Result<DeviceTarget> ParseDeviceTarget(const Attribute& attribute);

}  // namespace kiln::compiler
