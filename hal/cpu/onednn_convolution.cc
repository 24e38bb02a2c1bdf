#include "hal/cpu/onednn_convolution.h"

#include <vector>

#include "hal/cpu/onednn_call.h"

namespace kiln::hal::cpu {

namespace lib = ::kiln::schema::library;

Result<std::unique_ptr<CpuLibraryCall>> CreateOnednnConvolution(Ref<OnednnLibrary> library,
                                                                const ConvolutionSpec& cv) {
  if (cv.element_type != lib::LibraryElementType::F32) {
    return UnimplementedError(cv.description + ": the CPU driver's oneDNN calls are f32 only");
  }
  const OnednnSymbols& s = library->symbols();
  const std::string& d = cv.description;
  // Validated: every value and product fits an int64.
  const auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
  const int64_t n = i64(cv.n), c = i64(cv.c), h = i64(cv.h), w = i64(cv.w), k = i64(cv.k),
                r = i64(cv.r), sw = i64(cv.s), g = i64(cv.groups), p = i64(cv.p), q = i64(cv.q);
  // With a constant filter, oneDNN picks the layouts (onednn_call.h): the
  // op is described with `any`, the operands keep their plain descriptors.
  const bool blocked = cv.constant_filter;
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t x,
                        PlainDesc(s, {n, c, h, w}, {c * h * w, h * w, w, 1}, d + " (x)"));
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t y,
                        PlainDesc(s, {n, k, p, q}, {k * p * q, p * q, q, 1}, d + " (y)"));
  const int64_t cg = c / g, kg = k / g;
  KILN_ASSIGN_OR_RETURN(
      dnnl_memory_desc_t filter,
      g == 1 ? PlainDesc(s, {k, c, r, sw}, {c * r * sw, r * sw, sw, 1}, d + " (filter)")
             : PlainDesc(s, {g, kg, cg, r, sw}, {kg * cg * r * sw, cg * r * sw, r * sw, sw, 1},
                         d + " (filter)"));
  dnnl_memory_desc_t bias = {};
  if (cv.bias >= 0) {
    KILN_ASSIGN_OR_RETURN(bias, PlainDesc(s, {k}, {1}, d + " (bias)"));
  }
  dnnl_memory_desc_t op_x = x, op_y = y, op_filter = filter;
  if (blocked) {
    KILN_ASSIGN_OR_RETURN(op_x, AnyDesc(s, {n, c, h, w}, d + " (x)"));
    KILN_ASSIGN_OR_RETURN(op_y, AnyDesc(s, {n, k, p, q}, d + " (y)"));
    KILN_ASSIGN_OR_RETURN(op_filter, g == 1 ? AnyDesc(s, {k, c, r, sw}, d + " (filter)")
                                            : AnyDesc(s, {g, kg, cg, r, sw}, d + " (filter)"));
  }
  const dnnl_dims_t strides = {i64(cv.stride_h), i64(cv.stride_w)};
  const dnnl_dims_t dilates = {i64(cv.dilation_h) - 1, i64(cv.dilation_w) - 1};
  const dnnl_dims_t padding = {0, 0};
  dnnl_convolution_desc_t op = {};
  Status described =
      s.Check(s.dnnl_dilated_convolution_forward_desc_init(
                  &op, dnnl_forward_inference, dnnl_convolution_direct, &op_x, &op_filter,
                  cv.bias >= 0 ? &bias : nullptr, &op_y, strides, dilates, padding, padding),
              d + ": dnnl_dilated_convolution_forward_desc_init");
  if (!described.ok()) return UnimplementedError(described.message());

  OnednnCallParams params;
  params.description = cv.description;
  params.required = cv.required;
  params.op_desc = &op;
  params.operands = {
      {DNNL_ARG_SRC, cv.x, x}, {DNNL_ARG_WEIGHTS, cv.filter, filter}, {DNNL_ARG_DST, cv.y, y}};
  params.result = 2;
  if (cv.bias >= 0) params.operands.push_back({DNNL_ARG_BIAS, cv.bias, bias});
  if (blocked) {
    params.operands[0].chosen = dnnl_query_src_md;
    params.operands[1].chosen = dnnl_query_weights_md;
    params.operands[1].constant = true;
    params.operands[2].chosen = dnnl_query_dst_md;
    // The addend starts the result (reordered into the primitive's layout)
    // and is summed in, as an addend the result's binding holds is: a
    // binary post-op would read it in the plain layout.
    params.result_init = cv.z;
  }
  AppendEpilogue(params, cv.z, blocked ? cv.z : cv.y, y, cv.activation);
  return CreateOnednnCall(std::move(library), std::move(params));
}

}  // namespace kiln::hal::cpu
