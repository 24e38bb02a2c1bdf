// out[i] = lhs[i] * rhs[i] for i < dim: the dispatch ABI of kiln's Vulkan
// driver (set 0, binding i = dispatch binding i; constants are push
// constants), as a hand-written kernel would use it.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) readonly buffer Rhs { float rhs[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float result[]; };
layout(push_constant) uniform Constants { uint dim; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) result[i] = lhs[i] * rhs[i];
}
