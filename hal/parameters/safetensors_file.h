// A safetensors file: named tensors stored back to back after a JSON header,
// the format kiln-import-onnx writes a model's large initializers in
// (compiler/onnx/safetensors_writer.h) and that the runtime reads external
// parameters from (parameter_index.h).
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON, then the
// data section. The header maps each key to
//   {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// (offsets relative to the data section) and may hold "__metadata__", an
// object of strings.
//
// Files come from outside the program, so the whole header is checked when
// the file is opened, before any tensor is used: the header fits the file
// (and at most 100 MB), is a JSON object without repeated keys, each entry
// has exactly dtype, shape and data_offsets of the right JSON types, a known
// dtype, non-negative dims, and offsets inside the data section whose length
// is the shape's element count times the dtype's size (without overflow);
// the tensors do not overlap and, as the format requires, cover the data
// section with no gap. Every error names the file and, where there is one,
// the key: "'w.safetensors': tensor "fc.weight": data_offsets [0, 12] hold
// 12 bytes, but F32 [2, 2] needs 16".
//
// The file is memory-mapped (base/mapped_file.h): tensors are spans of the
// mapping, valid while the SafetensorsFile lives.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "base/result.h"
#include "hal/element_type.h"

namespace kiln::hal {

// One tensor of the file.
struct SafetensorsTensor {
  std::string dtype;         // As the file spells it: "F32", "BOOL", "U8", ...
  ElementType element_type;  // F32 -> kFloat32, I8 -> kSint8, U8 -> kUint8, BOOL -> kBool.
  std::vector<int64_t> shape;
  std::span<const uint8_t> bytes;  // In the file's data section.
};

// The runtime element type of a safetensors dtype; kNone when kiln has none
// (F8_E4M3, ...).
ElementType SafetensorsElementType(std::string_view dtype);

class SafetensorsFile {
 public:
  // Maps and checks the file at `path`.
  static Result<std::unique_ptr<SafetensorsFile>> Open(const std::string& path);
  // Checks `bytes` (which must outlive the result) as the file `name`.
  static Result<std::unique_ptr<SafetensorsFile>> Parse(std::span<const uint8_t> bytes,
                                                        std::string name);

  // The path (or name) errors use.
  const std::string& path() const { return path_; }
  // The tensor `key`, or null.
  const SafetensorsTensor* Find(std::string_view key) const;
  // Every tensor by key (sorted).
  const std::map<std::string, SafetensorsTensor, std::less<>>& tensors() const { return tensors_; }

 private:
  SafetensorsFile() = default;
  Status ParseHeader(std::span<const uint8_t> bytes);

  std::unique_ptr<MappedFile> mapping_;  // Null for Parse.
  std::string path_;
  std::map<std::string, SafetensorsTensor, std::less<>> tensors_;
};

}  // namespace kiln::hal
