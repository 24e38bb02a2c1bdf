/* CPU kernels of the dispatch benchmarks (tests/benchmarks/dispatch_benchmark.cc),
 * written against hal/cpu/kernel_abi.h like any user kernel.
 *
 *   add_one_inplace  data[i] += 1: a tiny kernel, to measure the host cost of a
 *                    dispatch (the work per workgroup is a few nanoseconds).
 *   iterate_map      out[i] = 256 steps of x = x * 0.999 + 0.5 from in[i]: a
 *                    dependent chain of multiply-adds per element, so the kernel
 *                    is bound by arithmetic latency, not memory, and scales with
 *                    threads.
 */
#include <stdint.h>

#include "hal/cpu/kernel_abi.h"

int add_one_inplace(const kiln_hal_dispatch_state_t* state) {
  float* data = (float*)state->bindings[0];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) data[i] += 1.0f;
  return 0;
}

int iterate_map(const kiln_hal_dispatch_state_t* state) {
  const float* in = (const float*)state->bindings[0];
  float* out = (float*)state->bindings[1];
  uint32_t begin, end;
  kiln_hal_workgroup_range_x(state, state->constants[0], &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    float x = in[i];
    for (int step = 0; step < 256; ++step) x = x * 0.999f + 0.5f;
    out[i] = x;
  }
  return 0;
}
