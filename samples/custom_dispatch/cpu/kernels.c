/* Hand-authored CPU kernels for samples/custom_dispatch/cpu.
 *
 * Built by CMake into a shared object (kernels.so) that example.mlir declares
 * as the llvm-cpu object of its executable; kiln-compile embeds it in the
 * .kmod and kiln's CPU driver loads it from memory. Each exported function
 * follows the C ABI of hal/cpu/kernel_abi.h: it is called once per workgroup
 * and handles the workgroup's 64 (workgroup_size[0]) elements; the bindings
 * are the dispatch's buffers in the order of the export's pipeline layout and
 * constants[0] is the element count (`dim`).
 */
#include <stdint.h>

#include "hal/cpu/kernel_abi.h"

/* binding2 = binding0 * binding1 */
int simple_mul(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* out = (float*)state->bindings[2];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = lhs[i] * rhs[i];
  return 0;
}

/* binding2 = binding0 + binding1 */
int simple_add(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  const float* rhs = (const float*)state->bindings[1];
  float* out = (float*)state->bindings[2];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = lhs[i] + rhs[i];
  return 0;
}

/* binding1 *= binding0 */
int simple_mul_inplace(const kiln_hal_dispatch_state_t* state) {
  const float* lhs = (const float*)state->bindings[0];
  float* rhs = (float*)state->bindings[1];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) rhs[i] *= lhs[i];
  return 0;
}
