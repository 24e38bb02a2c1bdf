// ret = lhs * rhs, for i < dim.
//
// kiln's Vulkan dispatch ABI (IREE's): the pipeline layout's bindings are
// set 0, binding i in order, and its constants are the push-constant block.
// The workgroup size here must match the export's workgroup_size in
// example.mlir (kiln checks it when compiling and when loading).
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) readonly buffer Rhs { float rhs[]; };
layout(set = 0, binding = 2) writeonly buffer Ret { float ret[]; };

layout(push_constant) uniform Constants { int dim; };

void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < dim) ret[i] = lhs[i] * rhs[i];
}
