// Executable serialization: turns a hand-authored `hal.executable.source`
// (its exports and the objects declared per target) into the executable
// FlatBuffers a .kmod embeds, one per executable format.
//
//   #hal.executable.target<"llvm-cpu", "system-elf-x86_64">   + kernels.so
//       -> "system-elf-x86_64"   (schemas/executable_elf.fbs)
//   #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}> + a.ptx
//   #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}> + b.ptx
//       -> one "cuda-nvptx-fb" with both PTX images (schemas/executable_cuda.fbs);
//          the CUDA driver picks the image for the device's architecture
//   #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb"> + kernels.spv
//   (or one module per export: [mul.spv, add.spv], object i for export i)
//       -> "vulkan-spirv-fb"     (schemas/executable_spirv.fbs)
//
// Each export's kernel is the symbol or PTX entry named like the export
// (IREE's custom-dispatch convention). A SPIR-V export runs the GLCompute
// entry point named like it, else its module's only GLCompute entry point
// (GLSL's `main`); its workgroup size is the shader's LocalSize, which must
// equal the export's workgroup_size where the IR declares one
// (spirv_module_info.h reads both from the module). `embedded-elf-<arch>`
// (IREE's name for its CPU format) is accepted as `system-elf-<arch>`: kiln
// loads CPU objects as shared libraries either way.
//
// Objects are files or inline bytes (`data = dense<[...]> : vector<Nxi8>`).
// A relative path is looked up in the source file's directory, then in each
// search path in order; a missing object is an error naming the path and
// every directory searched. The bytes are checked enough to catch a wrong
// file early: an ELF header of the right machine for CPU objects, a
// `.version`/`.entry` PTX text for CUDA; SPIR-V modules are parsed (with
// every read bounds-checked) for their entry points and sizes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/parser/hal_attributes.h"

namespace kiln::compiler {

struct ExecutableExportSpec {
  std::string name;
  uint32_t ordinal = 0;
  PipelineLayout layout;
  std::array<uint32_t, 3> workgroup_size = {1, 1, 1};
  // Whether the IR wrote `workgroup_size` (else the size above is the
  // default): a declared size must match a SPIR-V shader's LocalSize.
  bool workgroup_size_declared = false;
};

struct ExecutableSpec {
  std::string name;  // The executable's symbol, without '@' (for messages).
  std::vector<ExecutableExportSpec> exports;
  ExecutableObjects objects;
};

struct ObjectSearch {
  std::string source_directory;           // Where the .mlir file lives ("" = cwd).
  std::vector<std::string> search_paths;  // --object-search-path, in order.
  // --target: "cpu", "cuda", "vulkan"; empty = every declared target.
  std::vector<std::string> selected_targets;
};

struct SerializedExecutable {
  std::string backend;         // "llvm-cpu", "cuda", "vulkan-spirv".
  std::string format;          // "system-elf-x86_64", "cuda-nvptx-fb", "vulkan-spirv-fb".
  std::string config_text;     // The targets' configurations as written, for tools.
  std::vector<uint8_t> bytes;  // The executable FlatBuffer.
};

// The kiln target name ("cpu", "cuda", "vulkan") of a backend, or "" when
// kiln has no driver for it.
std::string TargetNameOfBackend(std::string_view backend);

// Checks a --target list: each name must be cpu, cuda or vulkan.
Status ValidateTargetNames(const std::vector<std::string>& names);

// Serializes every selected target of `spec` (in declaration order, one
// result per format). Exports must have ordinals 0..n-1. An empty result
// means no target was selected; the caller decides whether that is an error.
Result<std::vector<SerializedExecutable>> SerializeExecutable(const ExecutableSpec& spec,
                                                              const ObjectSearch& search);

}  // namespace kiln::compiler
