// Executable: compiled kernels loaded on a device, addressed by export
// ordinal.
//
// A device creates an executable from the bytes of an executable FlatBuffer
// and its format name ("system-elf-x86_64", "cuda-nvptx-fb",
// "vulkan-spirv-fb"; schemas/executable_*.fbs). Each export has a name, the
// workgroup size its kernel was written for and its pipeline layout, which
// command buffers use to validate dispatches when they are recorded.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/pipeline_layout.h"

namespace kiln::hal {

struct ExecutableExport {
  std::string name;
  std::array<uint32_t, 3> workgroup_size = {1, 1, 1};
  PipelineLayout layout;
};

class Executable : public RefObject {
 public:
  const std::string& format() const { return format_; }
  // The name the program gave the executable ("main_dispatch_0": the hal
  // module's executable.load passes it), which names its dispatches in
  // traces; empty for one created directly. Set once, by whoever created
  // the executable, before it is shared.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  std::span<const ExecutableExport> exports() const { return exports_; }
  const ExecutableExport& export_at(uint32_t ordinal) const { return exports_[ordinal]; }

  // The ordinal of the export called `name`; NOT_FOUND lists the exports.
  Result<uint32_t> LookupExport(std::string_view name) const {
    std::string names;
    for (uint32_t i = 0; i < exports_.size(); ++i) {
      if (exports_[i].name == name) return i;
      names += (i ? ", " : "") + exports_[i].name;
    }
    return NotFoundError("executable (" + format_ + ") has no export '" + std::string(name) +
                         "' (exports: " + names + ")");
  }

 protected:
  Executable(std::string format, std::vector<ExecutableExport> exports)
      : format_(std::move(format)), exports_(std::move(exports)) {}

  // Checks what every driver relies on: names present and unique, workgroup
  // sizes >= 1. Drivers call it before constructing an executable.
  static Status ValidateExports(std::string_view format,
                                std::span<const ExecutableExport> exports) {
    for (size_t i = 0; i < exports.size(); ++i) {
      const ExecutableExport& e = exports[i];
      std::string where = std::string(format) + " executable export " + std::to_string(i);
      if (e.name.empty()) return InvalidArgumentError(where + " has no name");
      for (size_t j = 0; j < i; ++j) {
        if (exports[j].name == e.name) {
          return InvalidArgumentError(where + ": duplicate export name '" + e.name + "'");
        }
      }
      for (uint32_t size : e.workgroup_size) {
        if (size == 0) {
          return InvalidArgumentError(where + " '" + e.name + "' has a zero workgroup size");
        }
      }
    }
    return OkStatus();
  }

 private:
  std::string format_;
  std::string name_;
  std::vector<ExecutableExport> exports_;
};

}  // namespace kiln::hal
