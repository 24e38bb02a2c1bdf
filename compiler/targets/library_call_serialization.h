// The library calls of the executable formats that carry them
// (schemas/library_call.fbs: `Export.library_call` of the CUDA and ELF
// formats) from an export's LibraryCallInfo (executable_serialization.h):
// every field checked by name and range, so that a hand-written
// `kiln.library_call` gets an error naming the field rather than a module
// the driver refuses.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>

#include "base/result.h"
#include "compiler/targets/executable_serialization.h"
#include "schemas/library_call_generated.h"

namespace kiln::compiler {

// The LibraryCall table of `e` (which has a library_call); errors name the
// export and the field.
Result<flatbuffers::Offset<schema::library::LibraryCall>> BuildLibraryCall(
    flatbuffers::FlatBufferBuilder& builder, const ExportInfo& e);

// "matmul 256x1024x1024 f32 transpose_b bias relu": what the executable's
// config text says of the call (kiln-dump-module shows it), after the name
// of the library the format's driver calls ("cublasLt matmul ...").
std::string DescribeLibraryCall(const LibraryCallInfo& call);

}  // namespace kiln::compiler
