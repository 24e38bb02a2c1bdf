// Executable serialization: turns a hand-authored executable (its exports and
// the objects declared per target) into the executable FlatBuffers a .kmod
// embeds, one per executable format. This is the format-level half, free of
// any IR: the MLIR pass (serialize_executables.cc) reads the `hal` ops and
// attributes into an ExecutableInfo and writes the results back as
// `hal.executable.binary` ops.
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
// Objects are files or inline bytes. A relative path is looked up in the
// source file's directory, then in each search path in order; a missing
// object is an error naming the path and every directory searched. The bytes
// are checked enough to catch a wrong file early: an ELF header of the right
// machine for CPU objects, a `.version`/`.entry` PTX text naming every
// exported kernel for CUDA; SPIR-V modules are parsed (with every read
// bounds-checked) for their entry points and sizes. A CPU kernel symbol
// missing from its shared object is found when the module is loaded.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace kiln::compiler {

// A library call an export carries beside its kernel (`kiln.library_call`,
// compiler/dispatch/select_library_calls.cc): serialized by the CUDA format
// (schemas/executable_cuda.fbs), ignored by the others.
struct LibraryCallInfo {
  std::string kind;                 // "matmul" or "convolution".
  std::string element_type;         // "f32", "f16", "bf16".
  std::string activation = "none";  // "none", "relu", "gelu_tanh".
  // Every other field by its schema name: sizes, strides, binding ordinals,
  // and flags as 0/1 (transpose_a, allow_tf32, ...).
  std::map<std::string, int64_t> fields;
  // Not a schema field: the generated kernel beats the call on GPUs (a
  // matrix-vector product, compiler/dispatch/library_calls.h), so the CUDA
  // format leaves the call out and the kernel runs.
  bool generated_on_gpu = false;
};

// What the executable formats record of one export.
struct ExportInfo {
  std::string name;
  uint32_t ordinal = 0;
  uint32_t constants = 0;       // 32-bit push constants.
  std::vector<bool> read_only;  // Per binding, in ordinal order.
  std::array<uint32_t, 3> workgroup_size = {1, 1, 1};
  // Whether the IR wrote `workgroup_size` (else the size above is the
  // default): a declared size must match a SPIR-V shader's LocalSize.
  bool workgroup_size_declared = false;
  std::optional<LibraryCallInfo> library_call;
};

// One declared object: a file (`path`) or inline bytes (`path` empty).
struct ObjectSource {
  std::string path;
  std::vector<uint8_t> data;
};

// The objects declared for one #hal.executable.target.
struct TargetObjects {
  std::string backend;      // "llvm-cpu", "cuda", "vulkan-spirv", ...
  std::string format;       // "system-elf-x86_64", "cuda-nvptx-fb", ...
  std::string target_arch;  // The config's target_arch string (CUDA), or "".
  std::string config_text;  // The config as written, for tools ("" when none).
  std::vector<ObjectSource> objects;
};

struct ExecutableInfo {
  std::string name;  // The executable's symbol, without '@' (for messages).
  std::vector<ExportInfo> exports;
  std::vector<TargetObjects> targets;  // In declaration order.
};

struct ObjectSearch {
  std::string source_directory;           // Where the .mlir file lives ("" = cwd).
  std::vector<std::string> search_paths;  // --object-search-path, in order.
  // Target names ("cpu", "cuda", "vulkan", see TargetNameOfBackend); empty =
  // every declared target.
  std::vector<std::string> selected_targets;
  // When set, object files are read through this instead of the file system
  // (no path lookup): the fuzzer serializes with stand-in bytes.
  std::function<Result<std::vector<uint8_t>>(const std::string& path)> read_object = nullptr;
};

struct SerializedExecutable {
  std::string backend;         // "llvm-cpu", "cuda", "vulkan-spirv".
  std::string format;          // "system-elf-x86_64", "cuda-nvptx-fb", "vulkan-spirv-fb".
  std::string config_text;     // The targets' configurations as written, for tools.
  std::vector<uint8_t> bytes;  // The executable FlatBuffer.
};

// The kiln target name ("cpu", "cuda", "vulkan") of a backend or of a target
// name ("llvm-cpu" and "cpu" -> "cpu", "vulkan-spirv" and "vulkan" ->
// "vulkan"), or "" when kiln has no driver for it.
std::string TargetNameOfBackend(std::string_view backend);

// Checks a --target list: each name must be cpu, cuda or vulkan.
Status ValidateTargetNames(const std::vector<std::string>& names);

// Looks `path` up: as is when absolute, else in the source directory and then
// each search path. NotFound names every directory searched.
Result<std::string> ResolveObjectPath(const std::string& path, const ObjectSearch& search);

// Serializes every selected target of `executable` (in declaration order, one
// result per format; CUDA images merge into the first CUDA target's place).
// Exports must have ordinals 0..n-1 in order. An empty result means no target
// was selected; the caller decides whether that is an error. Messages name
// the executable (and the target, where one is at fault).
Result<std::vector<SerializedExecutable>> SerializeExecutable(const ExecutableInfo& executable,
                                                              const ObjectSearch& search);

}  // namespace kiln::compiler
