// add_constant.comp with its workgroup size a specialization constant
// (default 32 x 1 x 1): glslc emits a spec constant composite decorated
// BuiltIn WorkgroupSize, which the loader resolves to the default.
#version 450

layout(local_size_x_id = 0) in;
layout(local_size_x = 32) in;

layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Constants {
  uint dim;
  uint value;
};

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) data[i] += value;
}
