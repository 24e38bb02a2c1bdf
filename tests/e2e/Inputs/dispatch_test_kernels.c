/* CPU kernels for the end-to-end dispatch tests (tests/e2e/dispatch/), built
 * into dispatch_test_kernels.so. Each handles workgroup_size[0] elements per
 * workgroup; constants[0] is the element count.
 *
 *   mul_add         out0 = lhs * rhs, out1 = lhs + rhs (two results)
 *   scale_i32       out = in * constants[1] on i32 elements
 *   fail_on_negative returns 7 from the workgroup that sees a negative input
 */
#include <stdint.h>

#include "hal/cpu/kernel_abi.h"

int mul_add(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* product = (float*)state->bindings[2];
  float* sum = (float*)state->bindings[3];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    product[i] = lhs[i] * rhs[i];
    sum[i] = lhs[i] + rhs[i];
  }
  return 0;
}

int scale_i32(const kiln_hal_dispatch_state_t* state) {
  const int32_t* in = (const int32_t*)state->bindings[0];
  int32_t* out = (int32_t*)state->bindings[1];
  int32_t factor = (int32_t)state->constants[1];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = in[i] * factor;
  return 0;
}

int fail_on_negative(const kiln_hal_dispatch_state_t* state) {
  const float* in = (const float*)state->bindings[0];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    if (in[i] < 0) return 7;
  }
  return 0;
}
