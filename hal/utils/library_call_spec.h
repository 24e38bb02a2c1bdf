// Library-call specs: an export's library call (schemas/library_call.fbs)
// checked against the export's layout, in the form a driver's library
// builds its call from (the CPU driver's oneDNN primitives:
// hal/cpu/onednn_matmul.h, onednn_convolution.h). The CUDA driver still
// validates its calls itself (hal/cuda/cublaslt_matmul.cc,
// cudnn_convolution.cc) and is meant to move onto these.
//
// Validation does not need the library: a malformed call (a binding index
// out of range, a read-only result, a zero or overflowing dimension, an
// unknown enum) is INVALID_ARGUMENT naming the export and the field, and
// fails the executable's load on every machine, whether oneDNN is present,
// absent or disabled there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "hal/executable.h"
#include "schemas/library_call_generated.h"

namespace kiln::hal::utils {

enum class LibraryActivation { kNone, kRelu, kGeluTanh };

// D[b] = activation(A[b] · B[b] + bias + C[b]) for b < batch_count
// (library_call.fbs, MatmulCall); every value fits an int64.
struct MatmulSpec {
  schema::library::LibraryElementType element_type;
  uint64_t element_bytes;
  uint64_t m, n, k, batch_count;
  bool transpose_a, transpose_b;
  int32_t a, b, c, d, bias;  // Binding indices; c and bias -1 for none.
  uint64_t batch_stride_a, batch_stride_b, batch_stride_c, batch_stride_d;  // Elements.
  // Each operand's leading dimension (the stride of its stored rows; the
  // call's 0 resolved to the stored row length) and the offset of its first
  // element from the binding's address, in elements (library_call.fbs).
  // Checked: every ld at least its stored row length, C read in place of D
  // laid out as D, D's rows and batches disjoint, and `required` covering
  // each operand's last element.
  uint64_t lda, ldb, ldc, ldd;
  uint64_t offset_a, offset_b, offset_c, offset_d;
  LibraryActivation activation;
  std::vector<uint64_t> required;  // Bytes per binding of the export.
  // "matmul 4x256x1024x1024 f32 A^T +bias +C relu", then the layout fields
  // the call set: layout_description (" lda=2304 offset_b=768", or empty).
  std::string description;
  std::string layout_description;
};

// y = activation(conv(x, w) + bias + z), NCHW, filter KCRS, no padding
// (library_call.fbs, ConvolutionCall); every value fits an int64.
struct ConvolutionSpec {
  schema::library::LibraryElementType element_type;
  uint64_t element_bytes;
  uint64_t n, c, h, w, k, r, s, groups;
  uint64_t stride_h, stride_w, dilation_h, dilation_w;
  uint64_t p, q;                  // Output rows and columns.
  int32_t x, filter, y, bias, z;  // Binding indices; bias and z -1 for none.
  LibraryActivation activation;
  // The filter is a program constant (schemas/library_call.fbs): a driver may
  // keep it reordered, per address, for as long as the executable is loaded.
  bool constant_filter = false;
  // The image, the result and the addend in the blocked layout nChw{B}c
  // (schemas/library_call.fbs; B is the driver's) instead of NCHW. Checked:
  // each blocked operand is present with a multiple of kBlockedChannels
  // channels, and one binding read or written as two operands has one
  // layout.
  bool x_blocked = false, y_blocked = false, z_blocked = false;
  std::vector<uint64_t> required;  // Bytes per binding of the export.
  // "convolution 1x64x56x56 k64 3x3 s1 d1 f32 +bias relu", then
  // " x_blocked y_blocked z_blocked" for the blocked operands.
  std::string description;
  bool any_blocked() const { return x_blocked || y_blocked || z_blocked; }
};

// A blocked operand's channel count is a multiple of this: every block size
// a driver may choose (8, 16) divides it, so the blocked layout holds no
// padding and takes exactly NCHW's bytes.
constexpr uint64_t kBlockedChannels = 16;

// `where` prefixes errors ("system-elf-x86_64 executable 'e' export 0 'f'
// library_call.matmul").
Result<MatmulSpec> ValidateMatmulCall(const schema::library::MatmulCall& call,
                                      const ExecutableExport& info, std::string_view where);
Result<ConvolutionSpec> ValidateConvolutionCall(const schema::library::ConvolutionCall& call,
                                                const ExecutableExport& info,
                                                std::string_view where);

// "f32", "f16", "bf16" ("?" for a value the schema does not name).
const char* LibraryElementTypeName(schema::library::LibraryElementType type);

// The error of a dispatch binding (`site`) whose range is smaller than the
// `required` bytes the export's library call (`description`) reads or
// writes from it: every driver checks ranges before it makes a call.
Status LibraryBindingTooSmallError(std::string_view site, std::string_view description,
                                   uint64_t required, uint64_t length);

}  // namespace kiln::hal::utils
