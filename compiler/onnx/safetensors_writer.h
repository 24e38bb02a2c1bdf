// Writing external parameters as a safetensors file: an 8-byte little-endian
// header length, a JSON header (each key's dtype, shape and byte range in
// the data section; `__metadata__`), padded with spaces to 8 bytes, then the
// tensors' bytes back to back. kiln-run-module --parameters=scope=FILE reads
// it memory-mapped.
#pragma once

#include <string>
#include <vector>

#include "compiler/onnx/onnx_importer.h"

namespace kiln::onnx_import {

// Writes `parameters` to `path`; false with `error` on failure.
bool WriteSafetensors(const std::string& path, const std::vector<ExternalParameter>& parameters,
                      std::string* error);

}  // namespace kiln::onnx_import
