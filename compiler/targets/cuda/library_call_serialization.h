// The CUDA format's library calls (schemas/executable_cuda.fbs,
// `Export.library_call`) from an export's LibraryCallInfo
// (executable_serialization.h): every field checked by name and range, so
// that a hand-written `kiln.library_call` gets an error naming the field
// rather than a module the driver refuses.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>

#include "base/result.h"
#include "compiler/targets/executable_serialization.h"
#include "schemas/library_call_generated.h"

namespace kiln::compiler::cuda {

// The LibraryCall table of `e` (which has a library_call); errors name the
// export and the field.
Result<flatbuffers::Offset<schema::library::LibraryCall>> BuildLibraryCall(
    flatbuffers::FlatBufferBuilder& builder, const ExportInfo& e);

// "cublasLt matmul 256x1024x1024 f32 transpose_b bias relu": what the
// executable's config text says of the call (kiln-dump-module shows it).
std::string DescribeLibraryCall(const LibraryCallInfo& call);

}  // namespace kiln::compiler::cuda
