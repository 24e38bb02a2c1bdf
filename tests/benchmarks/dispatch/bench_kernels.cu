// CUDA kernel of the GPU dispatch benchmark (tests/benchmarks/gpu_dispatch_benchmark.cc),
// compiled to PTX by nvcc; kiln's CUDA ABI: the binding pointer, then the constant.
//   add_one_inplace  data[i] += 1 for i < n: a tiny kernel, so a chain of them
//                    measures the cost of a dispatch, not of the work.
#include <cstdint>

extern "C" __global__ void add_one_inplace(float* data, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}
