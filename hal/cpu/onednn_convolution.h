// A convolution library call (library_call_spec.h, ConvolutionSpec) as a
// oneDNN convolution primitive (onednn_call.h).
//
// y = activation(conv(x, w) + bias + z): a forward-inference direct
// convolution with plain NCHW x and y and OIHW filter (GOIHW for groups > 1),
// no padding (the input binding holds the padded image), oneDNN's dilation
// being kiln's minus one; the bias is the convolution's, then z as a binary
// add post-op (a sum where z is y updated in place), then ReLU (or
// gelu_tanh) as an eltwise post-op. With a constant filter or an activation
// in the blocked layout (x_blocked, y_blocked, z_blocked) oneDNN chooses its
// own layouts for the rest (onednn_call.h); the addend is then summed into
// a result that starts from it, or read by the binary post-op where both
// are blocked.
#pragma once

#include <memory>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/library_call.h"
#include "hal/cpu/onednn_library.h"
#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cpu {

// UNIMPLEMENTED for element types other than f32, and where oneDNN has no
// implementation for the shapes; the export then runs its kernel.
Result<std::unique_ptr<CpuLibraryCall>> CreateOnednnConvolution(Ref<OnednnLibrary> library,
                                                                const utils::ConvolutionSpec& spec);

}  // namespace kiln::hal::cpu
