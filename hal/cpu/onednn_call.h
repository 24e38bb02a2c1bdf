// OnednnCall: a oneDNN primitive run as a CpuLibraryCall (library_call.h).
//
// The primitive is built once, when the executable is loaded, from an op
// descriptor (a matmul's or a convolution's: onednn_matmul.h,
// onednn_convolution.h) and its epilogue as post-ops. Every operand has a
// plain (row-major, NCHW, OIHW) memory descriptor: the bindings hold plain
// arrays.
//
// A convolution whose filter is a program constant (constant_filter) is
// described to oneDNN with format `any` instead, so that it picks its own
// blocked layouts (nChw16c images, OIhw16i16o filters on AVX-512), whose
// direct kernels run 1.3 to 2.5 times faster than its GEMM-based ones on
// plain NCHW. The call then reorders the image into its layout and the
// result out of it at each execution, and the filter once per address (a
// constant: the same bytes for as long as the executable is loaded), kept
// by the call.
//
// An operand in the blocked activation layout (x_blocked, y_blocked,
// z_blocked: another convolution call wrote it, or will read it, in that
// layout; onednn_library.h says which) is described to oneDNN with that
// layout, not `any`: the primitive reads or writes the binding itself, with
// no reorder. The filter of such a call is `any` (oneDNN's direct blocked
// kernels take blocked weights), reordered at each execution unless it is
// a constant.
//
// Each call owns what executing its primitive needs: a stream (oneDNN's
// streams are not thread-safe), one memory object per operand whose data
// handle is pointed at the binding at each execution, and the scratchpad
// (user-managed, sized at load), all guarded by one mutex: executions of a
// call are serialized (the CPU device's queue runs dispatches one after
// another anyway; cpu-sync submitters on several threads wait for each
// other).
//
// An addend that is not the result's own binding is read by a binary-add
// post-op (no copy); one that is the result's binding (C updated in place)
// is a sum post-op. Where the addend and the result are distinct bindings
// whose ranges overlap at run time, the addend is first copied aside.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/library_call.h"
#include "hal/cpu/onednn_library.h"
#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cpu {

// The specs are what all drivers validate calls into (hal/utils).
using utils::ConvolutionSpec;
using utils::LibraryActivation;
using utils::MatmulSpec;

// One operand of the primitive: its execution argument (DNNL_ARG_SRC, ...,
// DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1), the binding that
// holds it and its memory descriptor.
struct OnednnOperand {
  int arg;
  int32_t binding;
  dnnl_memory_desc_t desc;  // The binding's layout (plain, or the blocked activation layout).
  // Where the op was described with format `any` for this operand: the
  // query of the layout the primitive chose (dnnl_query_src_md, ...), which
  // the call reorders the binding into (an input) or out of (the result)
  // when it is not `desc`. dnnl_query_undef: the primitive reads `desc`.
  dnnl_query_t chosen = dnnl_query_undef;
  bool constant = false;  // Reordered once per binding address, then kept.
  // Where the operand starts in its binding (a matmul's strided operand:
  // offset_a, ... of library_call.fbs, in bytes).
  uint64_t offset_bytes = 0;
};

// One post-op of the epilogue, in order.
struct OnednnPostOp {
  enum Kind { kSum, kBinaryAdd, kEltwise } kind;
  dnnl_alg_kind_t eltwise = dnnl_alg_kind_undef;  // kEltwise.
  dnnl_memory_desc_t src1 = {};                   // kBinaryAdd.
};

// What the primitive is built from.
struct OnednnCallParams {
  std::string description;         // The spec's ("matmul 64x64x64 f32").
  std::vector<uint64_t> required;  // The spec's bytes per binding.
  const void* op_desc = nullptr;   // A dnnl_matmul_desc_t or dnnl_convolution_desc_t.
  std::vector<OnednnPostOp> post_ops;
  std::vector<OnednnOperand> operands;
  int result = -1;  // Index into operands: the result.
  int addend = -1;  // Index into operands: a binary-added addend, or -1.
  // The binding whose contents the result starts from, for a sum post-op
  // (the addend), or -1: the result's own binding or another one, copied
  // or reordered into the result's memory before the primitive runs.
  int32_t result_init = -1;
  // result_init's layout (as the binding holds it).
  dnnl_memory_desc_t result_init_desc = {};
};

// The activation's eltwise algorithm (undef for none).
dnnl_alg_kind_t EltwiseOf(LibraryActivation activation);

// Appends the epilogue both calls share after the bias: the addend held by
// binding `addend` (-1: none), added in place where it is the result's
// binding `result` (oneDNN's sum post-op) and otherwise as a binary post-op
// reading `addend_desc`; then the activation.
void AppendEpilogue(OnednnCallParams& params, int32_t addend, int32_t result,
                    const dnnl_memory_desc_t& addend_desc, LibraryActivation activation);

// A plain memory descriptor of `dims` with `strides` (elements), f32.
Result<dnnl_memory_desc_t> PlainDesc(const OnednnSymbols& s, std::vector<int64_t> dims,
                                     std::vector<int64_t> strides, const std::string& what);

// A descriptor of `dims`, f32, whose layout the primitive chooses (`any`).
Result<dnnl_memory_desc_t> AnyDesc(const OnednnSymbols& s, std::vector<int64_t> dims,
                                   const std::string& what);

// A descriptor of `dims`, f32, in the layout `tag` (the blocked activation
// layout: OnednnLibrary::blocked_tag()).
Result<dnnl_memory_desc_t> TagDesc(const OnednnSymbols& s, std::vector<int64_t> dims,
                                   dnnl_format_tag_t tag, const std::string& what);

// Builds the primitive. UNIMPLEMENTED where oneDNN has no implementation of
// it (the export then runs its kernel); never INVALID_ARGUMENT (the call was
// validated: what oneDNN refuses is its limit, not a malformed call).
Result<std::unique_ptr<CpuLibraryCall>> CreateOnednnCall(Ref<OnednnLibrary> library,
                                                         OnednnCallParams params);

}  // namespace kiln::hal::cpu
