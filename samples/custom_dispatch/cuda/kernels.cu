// Hand-authored CUDA kernels for samples/custom_dispatch/cuda, compiled by
// nvcc to PTX (one file per target architecture) that example.mlir declares
// as the objects of its executable.
//
// kiln's CUDA dispatch ABI (DESIGN.md): the kernel parameters are the binding
// device pointers in the order of the export's pipeline layout, then the
// 32-bit constants; the block size is the export's workgroup_size. Kernels
// are extern "C" so their PTX .entry names are the export names.

// binding2 = binding0 * binding1
extern "C" __global__ void simple_mul(const float* __restrict__ binding0,
                                      const float* __restrict__ binding1,
                                      float* __restrict__ binding2, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding2[tid] = binding0[tid] * binding1[tid];
}

// binding2 = binding0 + binding1
extern "C" __global__ void simple_add(const float* __restrict__ binding0,
                                      const float* __restrict__ binding1,
                                      float* __restrict__ binding2, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding2[tid] = binding0[tid] + binding1[tid];
}

// binding1 *= binding0, in place
extern "C" __global__ void simple_mul_inplace(const float* __restrict__ binding0,
                                              float* __restrict__ binding1, int dim) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  if (tid < dim) binding1[tid] *= binding0[tid];
}
