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
  // With a constant filter or a blocked activation, oneDNN picks the
  // layouts it was not given (onednn_call.h): those operands are described
  // with `any`; a blocked activation is described as the binding holds it.
  const bool choose = cv.constant_filter || cv.any_blocked();
  const dnnl_format_tag_t blocked_tag = library->blocked_tag();
  auto activation = [&](bool blocked, std::vector<int64_t> dims,
                        const std::string& what) -> Result<dnnl_memory_desc_t> {
    if (blocked) return TagDesc(s, std::move(dims), blocked_tag, what);
    const int64_t channels = dims[1], rows = dims[2], columns = dims[3];
    return PlainDesc(s, std::move(dims), {channels * rows * columns, rows * columns, columns, 1},
                     what);
  };
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t x, activation(cv.x_blocked, {n, c, h, w}, d + " (x)"));
  KILN_ASSIGN_OR_RETURN(dnnl_memory_desc_t y, activation(cv.y_blocked, {n, k, p, q}, d + " (y)"));
  dnnl_memory_desc_t z = {};
  if (cv.z >= 0) {
    KILN_ASSIGN_OR_RETURN(z, activation(cv.z_blocked, {n, k, p, q}, d + " (z)"));
  }
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
  if (choose) {
    if (!cv.x_blocked) {
      KILN_ASSIGN_OR_RETURN(op_x, AnyDesc(s, {n, c, h, w}, d + " (x)"));
    }
    if (!cv.y_blocked) {
      KILN_ASSIGN_OR_RETURN(op_y, AnyDesc(s, {n, k, p, q}, d + " (y)"));
    }
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
  if (!choose) {
    AppendEpilogue(params, cv.z, cv.y, z, cv.activation);
  } else {
    if (!cv.x_blocked) params.operands[0].chosen = dnnl_query_src_md;
    params.operands[1].chosen = dnnl_query_weights_md;
    params.operands[1].constant = cv.constant_filter;
    if (!cv.y_blocked) params.operands[2].chosen = dnnl_query_dst_md;
    if (cv.z >= 0 && cv.z != cv.y && cv.y_blocked && cv.z_blocked) {
      // The addend is in the result's own layout: a binary post-op reads
      // it where it is.
      AppendEpilogue(params, cv.z, cv.y, z, cv.activation);
    } else {
      // The addend starts the result (reordered into the primitive's
      // layout where it is not in it) and is summed in, as an addend the
      // result's binding holds is: a binary post-op would read it in a
      // layout other than the result's.
      params.result_init = cv.z;
      params.result_init_desc = z;
      AppendEpilogue(params, cv.z, cv.z, z, cv.activation);
    }
  }
  return CreateOnednnCall(std::move(library), std::move(params));
}

}  // namespace kiln::hal::cpu
