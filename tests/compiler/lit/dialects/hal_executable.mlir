// hal's executable declarations in IREE's spelling: targets, objects (path or
// inline data), device targets in both forms, pipeline layouts in both
// syntaxes (printed in the newer one), both workgroup count region forms
// (printed as `count(...)`), workgroup_size, and the serialized
// hal.executable with its binaries.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK-DAG: #[[CPU:executable_target_system_elf_x86_64]] = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#cpu_target = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
// CHECK-DAG: #[[SM80:executable_target_cuda_nvptx_fb]] = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#sm80_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
// CHECK-DAG: #[[SPIRV:executable_target_vulkan_spirv_fb]] = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>}>
#spirv_target = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {
  spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>
}>

// The list form, with IREE's trailing `: !hal.device`.
// CHECK-DAG: #device_target_local = #hal.device.target<"local", [#[[CPU]]]>
#cpu_device = #hal.device.target<"local", [#cpu_target]> : !hal.device
// The configuration form: executable_targets moves into the list.
// CHECK-DAG: #device_target_cuda = #hal.device.target<"cuda", [#[[SM80]]]>
#cuda_device = #hal.device.target<"cuda", {executable_targets = [#sm80_target]}>
// A configuration besides the list is kept.
// CHECK-DAG: #device_target_vulkan = #hal.device.target<"vulkan", {legacy_sync}, [#[[SPIRV]]]>
#vulkan_device = #hal.device.target<"vulkan", {legacy_sync, executable_targets = [#spirv_target]}>


// CHECK: module @example attributes {hal.device.targets = [#device_target_local, #device_target_cuda, #device_target_vulkan]}
module @example attributes {hal.device.targets = [#cpu_device, #cuda_device, #vulkan_device]} {

  // CHECK: hal.executable.source private @executable attributes {objects = #hal.executable.objects<{
  // CHECK-SAME: #[[CPU]] = [#hal.executable.object<{path = "kernels.so"}>],
  // CHECK-SAME: #[[SM80]] = [#hal.executable.object<{path = "kernels_sm_80.ptx"}>, #hal.executable.object<{data = dense<[1, 2, 3]> : vector<3xi8>}>]}>}
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #cpu_target = [
        #hal.executable.object<{path = "kernels.so"}>
      ],
      #sm80_target = [
        #hal.executable.object<{path = "kernels_sm_80.ptx"}>,
        #hal.executable.object<{data = dense<[1, 2, 3]> : vector<3xi8>}>
      ]
    }>
  } {
    // The older layout syntax and region form, attributes before the region.
    // CHECK: hal.executable.export public @simple_mul ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    // CHECK-SAME: count(%[[DEVICE:.+]]: !hal.device, %[[WORKLOAD:.+]]: index) -> (index, index, index) {
    // CHECK-NEXT:   %[[X:.+]] = affine.apply #{{.+}}()[%[[WORKLOAD]]]
    // CHECK-NEXT:   %[[ONE:.+]] = arith.constant 1 : index
    // CHECK-NEXT:   hal.return %[[X]], %[[ONE]], %[[ONE]] : index, index, index
    // CHECK-NEXT: } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<push_constants = 1, sets = [
          <0, bindings = [
              <0, storage_buffer, ReadOnly>,
              <1, storage_buffer, ReadOnly>,
              <2, storage_buffer>
          ]>
        ]>) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }

    // The newer layout syntax and count form, attributes after the region:
    // the same layout attribute as the older spelling above.
    // CHECK: hal.executable.export public @simple_add ordinal(1) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    // CHECK-SAME: count(%{{.+}}: !hal.device, %{{.+}}: index) -> (index, index, index) {
    // CHECK: } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @simple_add ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}

    // Flags: a quoted list, a bare one, `flags = ...`; the layout's Indirect.
    // Without a region the workload is the workgroup count.
    // CHECK: hal.executable.export public @indirect ordinal(2) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>){{$}}
    hal.executable.export public @indirect ordinal(2)
        layout(#hal.pipeline.layout<sets = [
          <0, bindings = [
              <0, storage_buffer, "ReadOnly|Indirect">,
              <1, storage_buffer, flags = Indirect>
          ], flags = Indirect>
        ]>)

    // IREE's older attribute names for the set and its bindings: the same
    // layout as @simple_mul's.
    // CHECK: hal.executable.export public @named_sets layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>){{$}}
    hal.executable.export public @named_sets
        layout(#hal.pipeline.layout<push_constants = 1, sets = [
          #hal.descriptor_set.layout<0, bindings = [
              #hal.descriptor_set.binding<0, storage_buffer, ReadOnly>,
              <1, storage_buffer, ReadOnly>,
              #hal.descriptor_set.binding<2, storage_buffer>
          ]>
        ]>)

    // Two workload values; an i64 workgroup_size is kept as written.
    // CHECK: hal.executable.export public @two_d ordinal(3) layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer>]>)
    // CHECK-SAME: count(%{{.+}}: !hal.device, %{{.+}}: index, %{{.+}}: index) -> (index, index, index)
    // CHECK: } attributes {workgroup_size = [8, 8, 1]}
    hal.executable.export public @two_d ordinal(3)
        layout(#hal.pipeline.layout<constants = 2, bindings = [
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %w0: index, %w1: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %w0, %w1, %c1 : index, index, index
    } attributes {workgroup_size = [8, 8, 1]}
  }

  // The serialized form: binaries and the exports.
  // CHECK: hal.executable private @serialized {
  // CHECK-NEXT: hal.executable.binary public @system_elf_x86_64 attributes {data = dense<[127, 69, 76, 70]> : vector<4xi8>, format = "system-elf-x86_64"}
  // CHECK-NEXT: hal.executable.binary public @spirv attributes {data = dense<0> : vector<8xi8>, format = "vulkan-spirv-fb", mime_type = "application/x-spirv"}
  // CHECK-NEXT: hal.executable.export public @main ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(
  hal.executable private @serialized {
    hal.executable.binary public @system_elf_x86_64 attributes {
      format = "system-elf-x86_64", data = dense<[127, 69, 76, 70]> : vector<4xi8>
    }
    hal.executable.binary @spirv attributes {
      format = "vulkan-spirv-fb", data = dense<0> : vector<8xi8>, mime_type = "application/x-spirv"
    }
    hal.executable.export public @main ordinal(0)
        layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
        count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %workload, %c1, %c1 : index, index, index
    }
  }

  // IREE's older interface bindings on an op.
  // CHECK: func.func @interface_bindings() attributes {hal.interface.bindings = [#hal.interface.binding<0, 0>, #hal.interface.binding<0, 1>]}
  func.func @interface_bindings() attributes {
    hal.interface.bindings = [#hal.interface.binding<0, 0>, #hal.interface.binding<0, 1>]
  } {
    return
  }
}
