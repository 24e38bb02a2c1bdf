// Kernels of the CUDA driver tests (cuda_driver_test.cc), compiled to PTX by
// nvcc at build time. They follow kiln's CUDA dispatch ABI: binding device
// pointers in order, then the 32-bit constants.
#include <cstdint>

extern "C" __global__ void add_one_inplace(float* data, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

// c = a * b + k, with the constant k passed as raw float bits.
extern "C" __global__ void mul_add(const float* a, const float* b, float* c, uint32_t n,
                                   uint32_t k_bits) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i] + __uint_as_float(k_bits);
}

// Reverses each block's chunk through dynamic shared memory.
extern "C" __global__ void reverse_blocks(const float* in, float* out) {
  extern __shared__ float chunk[];
  uint32_t base = blockIdx.x * blockDim.x;
  chunk[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = chunk[blockDim.x - 1 - threadIdx.x];
}

// At most 128 threads per block: an export declaring more must not load.
extern "C" __global__ void __launch_bounds__(128) bounded(float* data) {
  data[threadIdx.x] = 0.0f;
}

// Writes through a wild pointer: a sticky CUDA error that loses the context.
extern "C" __global__ void fault(float* data) {
  float* wild = reinterpret_cast<float*>(uintptr_t{0x10});
  wild[threadIdx.x] = data[0];
}
