#include "compiler/targets/executable_serialization.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "base/file_io.h"
#include "base/spirv_module.h"
#include "compiler/targets/library_call_serialization.h"
#include "compiler/targets/spirv_module_info.h"
#include "schemas/executable_cuda_generated.h"
#include "schemas/executable_elf_generated.h"
#include "schemas/executable_spirv_generated.h"

namespace kiln::compiler {
namespace {

namespace fb = ::flatbuffers;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

// The bytes of one object, with where they came from for messages.
struct LoadedObject {
  std::string origin;  // The resolved path or "inline data".
  std::vector<uint8_t> bytes;
};

Result<LoadedObject> LoadObject(const ObjectSource& object, const ObjectSearch& search) {
  if (object.path.empty()) {
    if (object.data.empty()) return InvalidArgumentError("executable object has no path or data");
    return LoadedObject{"inline data", object.data};
  }
  if (search.read_object) {
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, search.read_object(object.path));
    return LoadedObject{object.path, std::move(bytes)};
  }
  KILN_ASSIGN_OR_RETURN(std::string resolved, ResolveObjectPath(object.path, search));
  KILN_ASSIGN_OR_RETURN(AlignedBuffer contents, ReadFile(resolved));
  return LoadedObject{resolved,
                      std::vector<uint8_t>(contents.data(), contents.data() + contents.size())};
}

// The architecture part of a CPU format ("x86_64" in "system-elf-x86_64"),
// or "" when the format is not a CPU ELF format.
std::string CpuArchOfFormat(std::string_view format) {
  for (std::string_view prefix : {"system-elf-", "embedded-elf-"}) {
    if (format.substr(0, prefix.size()) == prefix) return std::string(format.substr(prefix.size()));
  }
  return "";
}

Status CheckElf(const LoadedObject& object, std::string_view arch) {
  const std::vector<uint8_t>& b = object.bytes;
  if (b.size() < 20 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F') {
    return InvalidArgumentError("CPU object '" + object.origin +
                                "' is not an ELF shared object (build it with -shared -fPIC)");
  }
  if (b[4] != 2 || b[5] != 1) {
    return InvalidArgumentError("CPU object '" + object.origin +
                                "' is not a 64-bit little-endian ELF file");
  }
  const uint16_t type = static_cast<uint16_t>(b[16] | (b[17] << 8));
  const uint16_t machine = static_cast<uint16_t>(b[18] | (b[19] << 8));
  constexpr uint16_t kElfTypeShared = 3, kMachineX86_64 = 62, kMachineAarch64 = 183;
  if (type != kElfTypeShared) {
    return InvalidArgumentError("CPU object '" + object.origin +
                                "' is an ELF file but not a shared object (link it with -shared)");
  }
  const uint16_t expected = arch == "x86_64" ? kMachineX86_64 : kMachineAarch64;
  if (machine != expected) {
    return InvalidArgumentError("CPU object '" + object.origin + "' was built for ELF machine " +
                                std::to_string(machine) + ", not " + std::string(arch));
  }
  return OkStatus();
}

std::vector<uint8_t> Finish(fb::FlatBufferBuilder& builder) {
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

template <typename BindingT>
fb::Offset<fb::Vector<fb::Offset<BindingT>>> BuildBindings(
    fb::FlatBufferBuilder& builder, const ExportInfo& e,
    fb::Offset<BindingT> (*create)(fb::FlatBufferBuilder&, bool)) {
  std::vector<fb::Offset<BindingT>> bindings;
  for (bool read_only : e.read_only) bindings.push_back(create(builder, read_only));
  return builder.CreateVector(bindings);
}

Result<SerializedExecutable> SerializeElf(const ExecutableInfo& executable, const std::string& arch,
                                          const std::vector<LoadedObject>& objects) {
  if (objects.size() != 1) {
    // The caller adds the executable and target as context.
    return InvalidArgumentError(
        "the CPU target takes exactly one shared object per architecture, got " +
        std::to_string(objects.size()));
  }
  KILN_RETURN_IF_ERROR(CheckElf(objects[0], arch));
  namespace s = ::kiln::schema::elf;
  fb::FlatBufferBuilder builder;
  std::vector<fb::Offset<s::Export>> exports;
  std::string config;
  for (const ExportInfo& e : executable.exports) {
    s::WorkgroupSize size(e.workgroup_size[0], e.workgroup_size[1], e.workgroup_size[2]);
    fb::Offset<::kiln::schema::library::LibraryCall> library_call = 0;
    if (e.library_call) {
      KILN_ASSIGN_OR_RETURN(library_call, BuildLibraryCall(builder, e));
      config += std::string(config.empty() ? "" : ", ") + "@" + e.name + ": oneDNN " +
                DescribeLibraryCall(*e.library_call);
    }
    // The kernel symbol is named like the export.
    exports.push_back(s::CreateExport(
        builder, builder.CreateString(e.name), builder.CreateString(e.name), &size,
        BuildBindings<s::Binding>(builder, e, &s::CreateBinding), e.constants, library_call));
  }
  auto export_vector = builder.CreateVector(exports);
  const std::vector<uint8_t>& library = objects[0].bytes;
  // PreAlign (not ForceVectorAlignment, which asserts above 32 bytes in debug
  // FlatBuffers) so the shared object stays 64-byte aligned in the module.
  builder.PreAlign(library.size(), 64);
  auto library_offset = builder.CreateVector(library);
  s::FinishElfExecutableBuffer(builder,
                               s::CreateElfExecutable(builder, library_offset, export_vector));
  return SerializedExecutable{"llvm-cpu", "system-elf-" + arch, std::move(config), Finish(builder)};
}

Status CheckPtx(const LoadedObject& object, const std::vector<ExportInfo>& exports) {
  std::string_view text(reinterpret_cast<const char*>(object.bytes.data()), object.bytes.size());
  if (text.find(".version") == std::string_view::npos ||
      text.find(".target") == std::string_view::npos) {
    return InvalidArgumentError("CUDA object '" + object.origin +
                                "' is not PTX text (no .version/.target directive)");
  }
  // The name must end where the entry's parameter list or whitespace starts:
  // `.entry simple_mul_inplace(` is no kernel `simple_mul`.
  auto has_entry = [&](const std::string& name) {
    const std::string directive = ".entry " + name;
    for (size_t at = text.find(directive); at != std::string_view::npos;
         at = text.find(directive, at + 1)) {
      const size_t end = at + directive.size();
      if (end == text.size() || text[end] == '(' ||
          std::isspace(static_cast<unsigned char>(text[end]))) {
        return true;
      }
    }
    return false;
  };
  for (const ExportInfo& e : exports) {
    if (!has_entry(e.name)) {
      return InvalidArgumentError("CUDA object '" + object.origin + "' has no kernel '.entry " +
                                  e.name + "' for export @" + e.name +
                                  " (declare kernels extern \"C\")");
    }
  }
  return OkStatus();
}

Result<SerializedExecutable> SerializeCuda(
    const ExecutableInfo& executable,
    const std::vector<std::pair<std::string, std::vector<LoadedObject>>>& images) {
  namespace s = ::kiln::schema::cuda;
  namespace lib = ::kiln::schema::library;
  fb::FlatBufferBuilder builder;
  std::vector<fb::Offset<s::PtxImage>> image_offsets;
  std::string config;
  for (const auto& [arch, objects] : images) {
    if (objects.size() != 1) {
      return InvalidArgumentError("executable '" + executable.name + "': CUDA target " + arch +
                                  " takes exactly one PTX object, got " +
                                  std::to_string(objects.size()));
    }
    KILN_RETURN_IF_ERROR(CheckPtx(objects[0], executable.exports));
    std::string ptx(objects[0].bytes.begin(), objects[0].bytes.end());
    image_offsets.push_back(
        s::CreatePtxImage(builder, builder.CreateString(arch), builder.CreateString(ptx)));
    config += (config.empty() ? "" : ", ") + arch;
  }
  std::vector<fb::Offset<s::Export>> exports;
  for (const ExportInfo& e : executable.exports) {
    s::BlockSize size(e.workgroup_size[0], e.workgroup_size[1], e.workgroup_size[2]);
    fb::Offset<lib::LibraryCall> library_call = 0;
    if (e.library_call && !e.library_call->generated_on_gpu) {
      KILN_ASSIGN_OR_RETURN(library_call, BuildLibraryCall(builder, e));
    }
    exports.push_back(s::CreateExport(
        builder, builder.CreateString(e.name), builder.CreateString(e.name), &size, 0,
        BuildBindings<s::Binding>(builder, e, &s::CreateBinding), e.constants, library_call));
  }
  s::FinishCudaExecutableBuffer(
      builder, s::CreateCudaExecutable(builder, builder.CreateVector(image_offsets),
                                       builder.CreateVector(exports)));
  config = "target_arch = [" + config + "]";
  for (const ExportInfo& e : executable.exports) {
    if (e.library_call && !e.library_call->generated_on_gpu) {
      config += ", @" + e.name + ": " +
                (e.library_call->kind == "matmul" ? "cublasLt " : "cuDNN ") +
                DescribeLibraryCall(*e.library_call);
    }
  }
  return SerializedExecutable{"cuda", "cuda-nvptx-fb", std::move(config), Finish(builder)};
}

// The entry point of `module` that export `e` runs: the one named like the
// export, else the module's only GLCompute entry point (GLSL's `main`).
Result<const SpirvEntryPoint*> FindEntryPoint(const SpirvModuleInfo& module,
                                              const std::string& object_name, const ExportInfo& e) {
  for (const SpirvEntryPoint& entry : module.entry_points) {
    if (entry.name == e.name) return &entry;
  }
  if (module.entry_points.size() == 1) return &module.entry_points[0];
  std::vector<std::string> names;
  for (const SpirvEntryPoint& entry : module.entry_points) names.push_back("'" + entry.name + "'");
  if (names.empty()) {
    std::string others;
    for (const std::string& other : module.other_entry_points) {
      others += (others.empty() ? "" : ", ") + ("'" + other + "'");
    }
    return InvalidArgumentError(
        object_name + " has no GLCompute entry point for export @" + e.name +
        (others.empty() ? "" : " (its other entry points: " + others + ")"));
  }
  return InvalidArgumentError(object_name + " has no GLCompute entry point named '" + e.name +
                              "' for export @" + e.name +
                              ", and more than one to choose from: " + JoinNames(names));
}

// One SPIR-V module for every export, or one per export (object i is export
// i's module): GLSL compiles one `main` per file, so an executable of several
// GLSL kernels has one module per export.
Result<SerializedExecutable> SerializeSpirv(const ExecutableInfo& executable,
                                            const std::vector<LoadedObject>& objects) {
  const size_t export_count = executable.exports.size();
  if (objects.empty() || (objects.size() != 1 && objects.size() != export_count)) {
    return InvalidArgumentError(
        "the Vulkan target takes one SPIR-V module for all exports or one per export (" +
        std::to_string(export_count) + " exports, in ordinal order), got " +
        std::to_string(objects.size()) + " objects");
  }
  std::vector<SpirvModuleInfo> modules;
  std::vector<std::string> names;
  for (size_t i = 0; i < objects.size(); ++i) {
    names.push_back("Vulkan object " +
                    (objects.size() > 1 ? std::to_string(i) + " " : std::string()) + "'" +
                    objects[i].origin + "'");
    KILN_ASSIGN_OR_RETURN(SpirvModuleInfo module,
                          ReadSpirvModuleInfo(objects[i].bytes, names.back()));
    modules.push_back(std::move(module));
  }

  namespace s = ::kiln::schema::spirv;
  fb::FlatBufferBuilder builder;
  std::vector<fb::Offset<s::Export>> exports;
  for (size_t i = 0; i < export_count; ++i) {
    const ExportInfo& e = executable.exports[i];
    const uint32_t module_ordinal = objects.size() == 1 ? 0 : static_cast<uint32_t>(i);
    const std::string& object_name = names[module_ordinal];
    KILN_ASSIGN_OR_RETURN(const SpirvEntryPoint* entry,
                          FindEntryPoint(modules[module_ordinal], object_name, e));
    if (!entry->size_error.empty()) {
      return InvalidArgumentError(object_name + ": entry point '" + entry->name + "' (export @" +
                                  e.name + ") has no usable workgroup size: " + entry->size_error);
    }
    if (e.workgroup_size_declared && e.workgroup_size != entry->local_size) {
      return InvalidArgumentError(
          "export @" + e.name + " declares workgroup_size " + WorkgroupSizeText(e.workgroup_size) +
          " but its SPIR-V entry point '" + entry->name + "' in " + object_name +
          " has LocalSize " + WorkgroupSizeText(entry->local_size));
    }
    s::WorkgroupSize size(entry->local_size[0], entry->local_size[1], entry->local_size[2]);
    exports.push_back(s::CreateExport(
        builder, builder.CreateString(e.name), builder.CreateString(entry->name), module_ordinal,
        &size, BuildBindings<s::Binding>(builder, e, &s::CreateBinding), e.constants));
  }
  std::vector<fb::Offset<s::ShaderModule>> shader_modules;
  for (const SpirvModuleInfo& module : modules) {
    shader_modules.push_back(s::CreateShaderModule(builder, builder.CreateVector(module.words)));
  }
  s::FinishSpirvExecutableBuffer(
      builder, s::CreateSpirvExecutable(builder, builder.CreateVector(shader_modules),
                                        builder.CreateVector(exports)));
  return SerializedExecutable{"vulkan-spirv", "vulkan-spirv-fb", "", Finish(builder)};
}

}  // namespace

std::string TargetNameOfBackend(std::string_view backend) {
  if (backend == "llvm-cpu" || backend == "cpu") return "cpu";
  if (backend == "cuda") return "cuda";
  if (backend == "vulkan-spirv" || backend == "vulkan") return "vulkan";
  return "";
}

Status ValidateTargetNames(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name != "cpu" && name != "cuda" && name != "vulkan") {
      return InvalidArgumentError("unknown target '" + name + "' (targets: cpu, cuda, vulkan)");
    }
  }
  return OkStatus();
}

Result<std::string> ResolveObjectPath(const std::string& path, const ObjectSearch& search) {
  namespace stdfs = std::filesystem;
  std::error_code error;
  if (stdfs::path(path).is_absolute()) {
    if (stdfs::is_regular_file(path, error)) return path;
    return NotFoundError("executable object '" + path + "' not found");
  }
  std::vector<std::string> directories;
  directories.push_back(search.source_directory.empty() ? "." : search.source_directory);
  for (const std::string& dir : search.search_paths) directories.push_back(dir);
  for (const std::string& dir : directories) {
    stdfs::path candidate = stdfs::path(dir) / path;
    if (stdfs::is_regular_file(candidate, error)) return candidate.string();
  }
  return NotFoundError("executable object '" + path +
                       "' not found; searched: " + JoinNames(directories) +
                       (search.search_paths.empty() ? " (add --object-search-path=DIR)" : ""));
}

Result<std::vector<SerializedExecutable>> SerializeExecutable(const ExecutableInfo& executable,
                                                              const ObjectSearch& search) {
  KILN_RETURN_IF_ERROR(ValidateTargetNames(search.selected_targets));
  for (size_t i = 0; i < executable.exports.size(); ++i) {
    if (executable.exports[i].ordinal != i) {
      return InvalidArgumentError("executable '" + executable.name + "': export @" +
                                  executable.exports[i].name + " has ordinal " +
                                  std::to_string(executable.exports[i].ordinal) + ", expected " +
                                  std::to_string(i) + " (ordinals are 0..n-1 in order)");
    }
  }
  auto selected = [&](const std::string& target_name) {
    return search.selected_targets.empty() ||
           std::find(search.selected_targets.begin(), search.selected_targets.end(), target_name) !=
               search.selected_targets.end();
  };
  std::vector<SerializedExecutable> results;
  // CUDA images of every cuda-nvptx-fb target merge into one executable,
  // emitted where the first of them was declared.
  std::vector<std::pair<std::string, std::vector<LoadedObject>>> cuda_images;
  size_t cuda_position = 0;
  for (const TargetObjects& target : executable.targets) {
    const std::string target_name = TargetNameOfBackend(target.backend);
    if (target_name.empty()) {
      return InvalidArgumentError("executable '" + executable.name + "': target backend '" +
                                  target.backend +
                                  "' has no kiln driver (backends: llvm-cpu, "
                                  "cuda, vulkan-spirv)");
    }
    if (!selected(target_name)) continue;
    std::vector<LoadedObject> loaded;
    for (const ObjectSource& object : target.objects) {
      Result<LoadedObject> one = LoadObject(object, search);
      if (!one.ok()) return one.status().WithContext("executable '" + executable.name + "'");
      loaded.push_back(std::move(*one));
    }
    const std::string where = "executable '" + executable.name + "' target \"" + target.backend +
                              "\", \"" + target.format + "\"";
    if (target_name == "cpu") {
      const std::string arch = CpuArchOfFormat(target.format);
      if (arch != "x86_64" && arch != "arm_64") {
        return InvalidArgumentError(where +
                                    ": CPU formats are system-elf-x86_64 and "
                                    "system-elf-arm_64");
      }
      Result<SerializedExecutable> elf = SerializeElf(executable, arch, loaded);
      if (!elf.ok()) return elf.status().WithContext(where);
      // The config as declared, then the library calls' description.
      if (!target.config_text.empty()) {
        elf->config_text = target.config_text +
                           (elf->config_text.empty() ? "" : ", " + elf->config_text);
      }
      results.push_back(std::move(*elf));
    } else if (target_name == "cuda") {
      if (target.format != "cuda-nvptx-fb") {
        return InvalidArgumentError(where + ": the CUDA format is cuda-nvptx-fb");
      }
      if (target.target_arch.empty()) {
        return InvalidArgumentError(where + ": config needs target_arch = \"sm_NN\"");
      }
      for (const auto& image : cuda_images) {
        if (image.first == target.target_arch) {
          return InvalidArgumentError(where + ": target_arch " + target.target_arch +
                                      " is declared twice");
        }
      }
      if (cuda_images.empty()) cuda_position = results.size();
      cuda_images.emplace_back(target.target_arch, std::move(loaded));
    } else {
      if (target.format != "vulkan-spirv-fb") {
        return InvalidArgumentError(where + ": the Vulkan format is vulkan-spirv-fb");
      }
      Result<SerializedExecutable> spirv = SerializeSpirv(executable, loaded);
      if (!spirv.ok()) return spirv.status().WithContext(where);
      spirv->config_text = target.config_text;
      results.push_back(std::move(*spirv));
    }
  }
  if (!cuda_images.empty()) {
    Result<SerializedExecutable> cuda = SerializeCuda(executable, cuda_images);
    if (!cuda.ok()) return cuda.status();
    results.insert(results.begin() + static_cast<std::ptrdiff_t>(cuda_position), std::move(*cuda));
  }
  return results;
}

}  // namespace kiln::compiler
