// data[i] += value for i < dim (uint32): chains of it show the order of
// dispatches, barriers and submissions.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Constants {
  uint dim;
  uint value;
};

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) data[i] += value;
}
