// The kernels of tests/hal/test_kernels.c (built into a shared object whose
// path is KILN_TEST_KERNELS_PATH) as system-elf executable FlatBuffers, shared
// by the ELF loader tests and the hal module tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "schemas/executable_elf_generated.h"

namespace kiln::hal::testing {

// One export of the executable: its name, the library symbol that implements
// it, and its layout.
struct ElfExportSpec {
  std::string name;
  std::string symbol;
  uint32_t workgroup_size;
  std::vector<bool> read_only;  // One flag per binding.
  uint32_t constant_count;
};

// The bytes of the test kernel library (empty, with a test failure, when it
// cannot be read).
inline std::vector<uint8_t> ReadTestKernelLibrary() {
  Result<AlignedBuffer> file = ReadFile(KILN_TEST_KERNELS_PATH);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return {};
  return std::vector<uint8_t>(file->data(), file->data() + file->size());
}

// An ElfExecutable FlatBuffer of `library` with `specs` as its export table.
inline std::vector<uint8_t> BuildElfExecutable(const std::vector<uint8_t>& library,
                                               const std::vector<ElfExportSpec>& specs) {
  namespace fb = ::kiln::schema::elf;
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::Export>> exports;
  for (const ElfExportSpec& spec : specs) {
    std::vector<flatbuffers::Offset<fb::Binding>> bindings;
    for (bool flag : spec.read_only) bindings.push_back(fb::CreateBinding(builder, flag));
    fb::WorkgroupSize size(spec.workgroup_size, 1, 1);
    exports.push_back(fb::CreateExport(builder, builder.CreateString(spec.name),
                                       builder.CreateString(spec.symbol), &size,
                                       builder.CreateVector(bindings), spec.constant_count));
  }
  // PreAlign as vm/module_builder.cc does: ForceVectorAlignment asserts (in
  // debug builds) that alignments stay at or below 32 bytes.
  if (!library.empty()) builder.PreAlign(library.size(), 64);
  auto library_offset = builder.CreateVector(library);
  auto root = fb::CreateElfExecutable(builder, library_offset, builder.CreateVector(exports));
  fb::FinishElfExecutableBuffer(builder, root);
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

}  // namespace kiln::hal::testing
