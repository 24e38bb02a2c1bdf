// The parameters a program reads from outside itself: scopes mapped to
// safetensors files (safetensors_file.h), looked up by the `hal` module when
// a module initializer fills a #flow.parameter.named global
// (hal.allocator.allocate.parameter).
//
//   Ref<ParameterIndex> parameters = ParameterIndex::Create();
//   KILN_RETURN_IF_ERROR(parameters->AddFile("model", "weights.safetensors"));
//   CreateHalModule(instance, {device}, {.parameters = parameters});
//
// A scope may have several files (a model split in shards); a key may be in
// only one of them. Files are opened, mapped and checked when added, so a bad
// file fails before any program runs. After the files are added the index is
// only read, so contexts on different threads share it (through the hal
// module) without locking; the mapped bytes stay until the last reference
// goes.
//
// Lookup checks what the program declared against what the file holds, and
// its errors name the parameter as the program spells it ("scope"::"key", or
// "key" in the empty scope), the scope and the file(s):
//   NOT_FOUND: no parameter files for scope "model" (parameter "model"::"w");
//              give them as --parameters=model=FILE.safetensors
//   NOT_FOUND: parameter "model"::"w" not found in 'weights.safetensors'
//   INVALID_ARGUMENT: parameter "model"::"w" in 'weights.safetensors' holds
//              F16 [4], but the program expects tensor<4xf32>
// A program's signless integer type (i8, i32, ...) accepts a signed or
// unsigned integer dtype of its width (an ONNX uint8 initializer is i8 in the
// program and U8 in the file); i1 is BOOL (one byte per element).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/element_type.h"
#include "hal/parameters/safetensors_file.h"

namespace kiln::hal {

class ParameterIndex : public RefObject {
 public:
  static Ref<ParameterIndex> Create() { return Ref<ParameterIndex>::Adopt(new ParameterIndex()); }

  // Opens the safetensors file at `path` and adds its tensors to `scope`.
  // Fails on a bad file and on a key the scope already has.
  Status AddFile(std::string_view scope, const std::string& path);
  // Adds an opened file (in-memory files in tests).
  Status Add(std::string_view scope, std::unique_ptr<SafetensorsFile> file);

  bool HasScope(std::string_view scope) const;

  // The tensor `key` of `scope`, checked to hold `element_type` elements of
  // shape `dims` (see above for the errors).
  Result<const SafetensorsTensor*> Lookup(std::string_view scope, std::string_view key,
                                          ElementType element_type,
                                          std::span<const int64_t> dims) const;

  // `"scope"::"key"`, or `"key"` in the empty scope: IREE's spelling.
  static std::string FormatParameter(std::string_view scope, std::string_view key);

 private:
  struct Scope {
    std::string name;
    std::vector<std::unique_ptr<SafetensorsFile>> files;
  };
  ParameterIndex() = default;
  const Scope* FindScope(std::string_view scope) const;

  std::vector<Scope> scopes_;
};

}  // namespace kiln::hal
