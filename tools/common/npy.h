// .npy files: NumPy's single-array format, read into and written from a
// HostTensor (`--input=@x.npy`, `--output=@out.npy`).
//
// A file is the magic "\x93NUMPY", a version (1.0: 16-bit header length;
// 2.0: 32-bit; 3.0, a 2.0 with a UTF-8 header, is read too), a header that is
// a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and ended by '\n' so the data starts 64-byte aligned,
// then the raw elements. Supported dtypes, little-endian only:
//   <f2 f16  <f4 f32  <f8 f64  |b1 i1  |i1 <i2 <i4 <i8 i8..i64  |u1 <u2 <u4 <u8 ui8..ui64
// ('<' and '|' are both accepted for one-byte types). Written files use
// version 1.0 (2.0 only when the header needs it); signless and signed
// integers are written as <iN. bf16 has no NumPy dtype and cannot be written.
// Only C order is supported (`fortran_order: True` is an error). Every
// length and offset is checked: a truncated or malformed file is an error
// that says what is wrong, never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "tools/common/host_tensor.h"

namespace kiln::tools {

// Parses the bytes of a .npy file (exactly one array).
Result<HostTensor> ReadNpy(std::span<const uint8_t> bytes);
// Parses the array at the start of `bytes`, which may be followed by more:
// a file written by appending arrays (numpy.save on an open file, or
// AppendNpyFile) holds them back to back. `*consumed` receives the size of
// the array's bytes, where the next one starts.
Result<HostTensor> ReadNpyArray(std::span<const uint8_t> bytes, size_t* consumed);
// Reads the .npy file at `path` ("-" reads standard input); errors name it.
Result<HostTensor> ReadNpyFile(const std::string& path);

// The bytes of a .npy file holding `tensor`.
Result<std::vector<uint8_t>> WriteNpy(const HostTensor& tensor);
// Writes `tensor` to `path` ("-" writes standard output).
Status WriteNpyFile(const std::string& path, const HostTensor& tensor);
// Appends `tensor` as one more array to `path`, creating it if missing
// (numpy.load on an open file reads such arrays one after the other).
Status AppendNpyFile(const std::string& path, const HostTensor& tensor);

// Appends raw bytes to `path` (created if missing; "-" writes standard
// output); errors name the path.
Status AppendFile(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace kiln::tools
