// Function I/O: the values kiln-run-module passes into an exported function
// and reads out of it, scalars and tensors, in iree-run-module's notation.
//
// A function's signature says which arguments and results are scalars
// (i/I/f/F) and which are refs (r); its reflection (argument_descriptions,
// written by kiln-compile, e.g. "tensor<?x4xf32>") says which refs are
// tensors and of what type. Tensors cross the boundary as hal.buffer_view
// refs (the hal VM module's wrappers around hal::BufferView).
//
// Input notation (--input, --expected_output), one value per argument/result:
//   5  i32=5  f32=1.5  ...     scalars (tools/common/value_parsing.h)
//   8xf32=2  2x2xf32=[[1 2][3 4]]  f32=1.5  4xf32
//                              tensors (tools/common/tensor_literal.h); a
//                              shape and type alone is all zeros
//   1 2 3 4                    untyped values for a statically shaped tensor
//                              argument take its shape and type (tensor<4xf32>)
//   @file.npy                  the first array of a .npy file
//   +file.npy                  the next array of a file read before (the first
//                              when it was not read yet)
//   4xf32=@file.bin            raw little-endian elements at the start of a
//   4xf32=+file.bin            file, or following the previous read of it
//   (ignored)                  expected outputs only: the result is not checked
// Every tensor is checked against the argument's declared type before
// anything runs (an argument described only as `!hal.buffer_view` takes any
// tensor); a mismatch names the input, the function, the value and the
// declared type. Inputs become buffer views in host-visible memory of the
// device (tools/common/device_tensor.h); tensor results are read back through
// the HAL buffer API.
//
// Output notation (--output, one per result, in order):
//   (empty)      ignore the result
//   -            print it to stdout as the default printing does
//   @file.npy    write it to a new .npy file (scalars as 0-d arrays)
//   +file.npy    append it to a .npy file (`+@file.npy` is read the same)
//   @file.bin    write its raw bytes; +file.bin appends them
//
// Results print as `result[0]: i32=5`, or for a tensor
//   result[0]: hal.buffer_view
//   8xf32=96 96 96 96 96 96 96 96
// Comparison: integers exactly; floats within the default tolerances of
// host_tensor.h / value_parsing.h, or, for a type given a threshold
// (--expected_f32_threshold=... as in iree-run-module), within that absolute
// difference.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/ref.h"
#include "base/result.h"
#include "hal/device.h"
#include "tools/common/host_tensor.h"
#include "tools/common/tensor_literal.h"
#include "tools/common/tensor_type.h"
#include "tools/common/value_parsing.h"
#include "vm/bytecode_module.h"
#include "vm/list.h"

namespace kiln::tools {

// What the tools know about one value of a function's signature.
struct ValueSpec {
  char type_char = 'i';              // Calling-convention character: i I f F r.
  std::string description;           // From the reflection; may be empty.
  std::optional<TensorType> tensor;  // The declared tensor type, if any.
};

// The export `function` of `module` with its signature and reflection.
struct FunctionSpec {
  std::string name;
  std::vector<ValueSpec> arguments;
  std::vector<ValueSpec> results;
};
Result<FunctionSpec> DescribeFunction(const vm::BytecodeModule& module,
                                      const vm::ExportedFunction& function);

// One value on the host side of the boundary.
struct HostValue {
  enum class Kind : uint8_t {
    kScalar,   // `scalar` holds it.
    kTensor,   // `tensor` holds it.
    kRef,      // A result ref that is not a buffer view (or null): `scalar` holds it.
    kIgnored,  // An expected output given as "(ignored)".
  };
  Kind kind = Kind::kScalar;
  vm::Variant scalar;
  HostTensor tensor;
};

// Files named by `@file`/`+file` inputs and where the next `+file` read of
// each starts, so consecutive inputs can walk through one file.
class InputFiles {
 public:
  // The bytes of `path` from the offset a `+` read continues at (`restart`
  // false) or from the start (`restart` true; an `@` read).
  Result<std::span<const uint8_t>> Bytes(const std::string& path, bool restart);
  // Moves the next read of `path` `count` bytes further.
  void Advance(const std::string& path, size_t count);

 private:
  struct File {
    AlignedBuffer bytes;
    size_t offset = 0;
  };
  std::map<std::string, File> files_;
};

// Parses one value per entry of `specs` (the arguments for kInput, the
// results for kExpectedOutput). Errors name the role, position and function:
// "input 0 of function 'f': argument 0 is tensor<4xf32> but '4xi32=1' is
// 4xi32 (element type i32 differs from f32)".
Result<std::vector<HostValue>> ParseFunctionValues(std::span<const std::string> texts,
                                                   std::span<const ValueSpec> specs,
                                                   std::string_view function, ValueRole role,
                                                   InputFiles& files);

// The invocation's argument list: scalars as they are, tensors uploaded to
// `device` and wrapped as hal.buffer_view refs.
Result<Ref<vm::List>> MakeArguments(hal::Device& device, std::span<const HostValue> values);

// Reads results back: buffer views are downloaded from `device` into host
// tensors, other values are kept. A signless integer tensor whose `declared`
// result type is signed or unsigned of the same width (tensor<4xui8>, as the
// ONNX importer records in kiln.abi_type) takes the declared element type.
Result<std::vector<HostValue>> ReadResults(hal::Device& device, const vm::List& results,
                                           std::span<const ValueSpec> declared = {});

// "i32=5", or "hal.buffer_view\n8xf32=2 2 ..." for a tensor.
std::string FormatHostValue(const HostValue& value, const TensorFormatOptions& options = {});

// Absolute thresholds for float comparison by element type (as
// iree-run-module's --expected_f32_threshold and friends); a type without one
// uses its default tolerance.
struct ComparisonOptions {
  std::optional<double> f16_threshold, bf16_threshold, f32_threshold, f64_threshold;
  TensorFormatOptions format;
};

// One message per result that does not match: "result[0]: expected i32=5 but
// got i32=6", or for a tensor the first differing element followed by both
// tensors:
//   result[0]: element [2]: expected 3 but got 4
//     expected:
//   4xf32=1 2 3 4
//     actual:
//   4xf32=1 2 4 4
std::vector<std::string> CompareHostValues(std::span<const HostValue> expected,
                                           std::span<const HostValue> actual,
                                           const ComparisonOptions& options = {});

// Handles the results as --output says (see above); `print` receives the text
// of results given `-` (the whole "result[i]: ..." line(s), newline-ended).
// `specs.size()` must equal `results.size()`.
Status WriteOutputs(std::span<const std::string> specs, std::span<const HostValue> results,
                    const TensorFormatOptions& format,
                    const std::function<void(std::string_view)>& print);

}  // namespace kiln::tools
