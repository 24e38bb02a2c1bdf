// rhs *= lhs, in place, for i < dim (same ABI as simple_mul.glsl: binding 0
// is read-only, binding 1 is read and written).
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) buffer Rhs { float rhs[]; };

layout(push_constant) uniform Constants { int dim; };

void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < dim) rhs[i] *= lhs[i];
}
