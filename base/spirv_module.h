// SpirvModule: what kiln reads from a SPIR-V binary: its entry points, each
// with its execution model, name, function and workgroup size. kiln-compile
// reads it to build a "vulkan-spirv-fb" export table
// (compiler/executables/spirv_module_info.h), the Vulkan driver to check an
// executable's exports before a shader module reaches the driver
// (hal/vulkan/vulkan_executable.h); one reader serves both so that what one
// accepts the other accepts too. It lives in base/ because the compiler may
// not depend on hal/ and the Vulkan driver exists only where Vulkan headers
// do; it needs no Vulkan header.
//
//   Result<SpirvModule> module = ParseSpirvModule(words);
//   const SpirvEntryPoint* main = module->FindComputeEntryPoint("main");
//   main->local_size  // {64, 1, 1} when main->size_error is empty.
//
// The words are untrusted (a user's file, a fuzzer's input, a hostile
// executable; Vulkan drivers are entitled to crash on malformed SPIR-V).
// This is not a validator, but it rejects what is cheap to see, as
// INVALID_ARGUMENT naming the word offset, never a crash: a wrong magic
// number (a byte-swapped module included: swapping is the reader's caller's
// business), a truncated header, instructions whose word count is zero or
// runs past the end, operands too short for the instructions read,
// unterminated entry-point names, the same entry point declared twice,
// functions that do not end or that nest, and (unless the options say
// otherwise) an entry point naming no function of the module.
//
// The workgroup size comes from the few instructions that say it:
// OpExecutionMode LocalSize, OpExecutionModeId LocalSizeId with 32-bit
// integer (spec) constant operands, and a constant composite decorated
// BuiltIn WorkgroupSize, which the SPIR-V specification says takes precedence
// over both execution modes. A spec constant counts with its default value:
// kiln specializes nothing.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace kiln {

inline constexpr uint32_t kSpirvMagic = 0x07230203;
inline constexpr uint32_t kSpirvExecutionModelGLCompute = 5;

struct SpirvEntryPoint {
  uint32_t execution_model = 0;
  uint32_t function_id = 0;
  std::string name;
  // The workgroup size, each component >= 1; meaningful when `size_error` is
  // empty. An entry point whose size cannot be determined (no LocalSize, a
  // LocalSizeId operand that is not an integer constant, not a GLCompute
  // entry point) only fails the export that uses it, so `size_error` says
  // why ("it has no LocalSize ...") instead of failing the whole module.
  std::array<uint32_t, 3> local_size = {0, 0, 0};
  std::string size_error;
};

struct SpirvModule {
  std::vector<SpirvEntryPoint> entry_points;  // Every execution model, in declaration order.
  // The module declares OpCapability ShaderClockKHR: it reads a clock
  // (instrumented dispatches read the device clock), which the device must
  // offer through VK_KHR_shader_clock.
  bool uses_shader_clock = false;

  // The GLCompute entry point called `name`, or null.
  const SpirvEntryPoint* FindComputeEntryPoint(std::string_view name) const;
  // "main, frag (execution model 4, not GLCompute)" for messages ("none" when
  // there are no entry points).
  std::string DescribeEntryPoints() const;
};

struct SpirvParseOptions {
  // Each entry point must name an OpFunction of the module. The driver
  // requires it (its driver would be handed a dangling entry point); the
  // compiler reads only the interface, and the driver that loads its output
  // checks the functions.
  bool require_entry_point_functions = true;
};

// Parses `words`, a module in host byte order.
Result<SpirvModule> ParseSpirvModule(std::span<const uint32_t> words,
                                     const SpirvParseOptions& options = {});

// "[x, y, z]": how kiln's messages write a workgroup size.
std::string WorkgroupSizeText(const std::array<uint32_t, 3>& size);

}  // namespace kiln
