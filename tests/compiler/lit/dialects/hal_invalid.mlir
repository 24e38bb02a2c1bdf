// Invalid hal IR is stopped by the parser or the verifier, with the error at
// the offending line.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{binding 2 is out of order: expected binding 1 (bindings are numbered 0..n-1 in order)}}
#layout = #hal.pipeline.layout<push_constants = 1, sets = [<0, bindings = [<0, storage_buffer>, <2, storage_buffer>]>]>

// -----

// expected-error @+1 {{binding 1 is out of order: expected binding 0 (bindings are numbered 0..n-1 in order)}}
#layout = #hal.pipeline.layout<sets = [#hal.descriptor_set.layout<0, bindings = [#hal.descriptor_set.binding<1, storage_buffer>]>]>

// -----

// expected-error @+1 {{descriptor set 1 is not supported; kiln's layouts use set 0 only}}
#layout = #hal.pipeline.layout<sets = [<1, bindings = [<0, storage_buffer>]>]>

// -----

// expected-error @+1 {{only one descriptor set (set 0) is supported}}
#layout = #hal.pipeline.layout<sets = [<0, bindings = [<0, storage_buffer>]>, <0, bindings = []>]>

// -----

// expected-error @+1 {{the bindings are given twice ('sets' and 'bindings')}}
#layout = #hal.pipeline.layout<sets = [<0, bindings = [<0, storage_buffer>]>], bindings = [#hal.pipeline.binding<storage_buffer>]>

// -----

// expected-error @+1 {{the constant count is given twice}}
#layout = #hal.pipeline.layout<push_constants = 1, constants = 1, bindings = []>

// -----

// expected-error @+1 {{unknown key 'push_constant'; expected 'constants', 'bindings', 'flags' (or 'push_constants', 'sets')}}
#layout = #hal.pipeline.layout<push_constant = 1, bindings = []>

// -----

// expected-error @+1 {{unknown binding type 'image'; expected 'storage_buffer' or 'uniform_buffer'}}
#binding = #hal.pipeline.binding<image>

// -----

// expected-error @+1 {{unknown binding flags 'WriteOnly'; expected 'ReadOnly', 'Indirect', 'Instrumentation' or 'None'}}
#binding = #hal.pipeline.binding<storage_buffer, WriteOnly>

// -----

// expected-error @+1 {{expected a #hal.pipeline.binding<...>, got #hal.interface.binding<0, 0>}}
#layout = #hal.pipeline.layout<bindings = [#hal.interface.binding<0, 0>]>

// -----

// expected-error @+1 {{an executable object needs a 'path' or 'data'}}
#object = #hal.executable.object<{}>

// -----

// expected-error @+1 {{the object's path is empty}}
#object = #hal.executable.object<{path = ""}>

// -----

// expected-error @+1 {{unknown key 'file'; expected 'path' or 'data'}}
#object = #hal.executable.object<{file = "a.so"}>

// -----

// expected-error @+1 {{expected a #hal.executable.target<...> as key, got "llvm-cpu"}}
#objects = #hal.executable.objects<{"llvm-cpu" = [#hal.executable.object<{path = "a.so"}>]}>

// -----

#target = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
// expected-error @+1 {{is given twice}}
#objects = #hal.executable.objects<{#target = [], #target = []}>

// -----

// expected-error @+1 {{expected a #hal.executable.target<...>, got "llvm-cpu"}}
#device = #hal.device.target<"local", ["llvm-cpu"]>

// -----

// expected-error @+1 {{attribute 'hal.device.targets' must be a list of #hal.device.target<...>, got element "local"}}
module attributes {hal.device.targets = ["local"]} {}

// -----

hal.executable.source private @ex {
  // expected-error @+1 {{attribute 'workgroup_size' must be 3 positive integers ([64 : index, 1 : index, 1 : index]), got [64 : index, 1 : index]}}
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) attributes {workgroup_size = [64 : index, 1 : index]}
}

// -----

hal.executable.source private @ex {
  // expected-error @+1 {{attribute 'workgroup_size' must be 3 positive integers}}
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) attributes {workgroup_size = [0, 1, 1]}
}

// -----

hal.executable.source private @ex {
  // expected-error @+1 {{the workgroup count function must return (index, index, index)}}
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) count(%device: !hal.device, %w: index) -> (index, index) {
    hal.return %w, %w : index, index
  }
}

// -----

hal.executable.source private @ex {
  // expected-error @+1 {{the workgroup count region's first argument must be '%device: !hal.device'}}
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) count(%w: index) -> (index, index, index) {
    hal.return %w, %w, %w : index, index, index
  }
}

// -----

hal.executable.source private @ex {
  // expected-error @+1 {{workload argument #0 of the workgroup count region must be 'index', got 'i32'}}
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) count(%device: !hal.device, %w: i32) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %c1, %c1, %c1 : index, index, index
  }
}

// -----

hal.executable.source private @ex {
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) {
  ^bb0(%device: !hal.device, %w: index):
    // expected-error @+1 {{must return the workgroup count as 3 'index' values (x, y, z), got 2 values}}
    hal.return %w, %w : index, index
  }
}

// -----

hal.executable.source private @ex {
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>) count(%device: !hal.device, %w: index) -> (index, index, index) {
    // expected-error @+1 {{is not allowed in a workgroup count region}}
    %t = tensor.empty() : tensor<4xf32>
    hal.return %w, %w, %w : index, index, index
  }
}

// -----

hal.executable.source private @ex {
  // expected-note @+1 {{ordinal 0 is taken here}}
  hal.executable.export public @f ordinal(0) layout(#hal.pipeline.layout<bindings = []>)
  // expected-error @+1 {{reuses ordinal 0}}
  hal.executable.export public @g ordinal(0) layout(#hal.pipeline.layout<bindings = []>)
}

// -----

hal.executable.source private @ex {
  // expected-error @+1 {{has ordinal 1, but the ordinals of the 1 export of '@ex' must be 0..0}}
  hal.executable.export public @f ordinal(1) layout(#hal.pipeline.layout<bindings = []>)
}

// -----

func.func @f() {
  // expected-error @+1 {{'hal.return' op expects parent op 'hal.executable.export'}}
  hal.return
}

// -----

func.func @create(%device: !hal.device) {
  // expected-error @+1 {{target @nowhere is not a hal.executable, hal.executable.binary or hal.executable.source}}
  %exe = hal.executable.create device(%device : !hal.device) target(@nowhere) : !hal.executable
  return
}

// -----

hal.executable.source private @ex {
  hal.executable.export public @f layout(#hal.pipeline.layout<bindings = []>)
}
func.func @ordinal() {
  // expected-error @+1 {{export @ex::@f has no ordinal}}
  %ordinal = hal.executable.export.ordinal target(@ex::@f) : index
  return
}

// -----

func.func @mixed(%cmd: !hal.command_buffer, %exe: !hal.executable, %buffer: !hal.buffer) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{mixes buffers and binding-table slots}}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c0, %c0, %c0]) bindings([(%buffer : !hal.buffer)[%c0, %c0], (%c0 : index)[%c0, %c0]])
  return
}

// -----

func.func @import(%view: !hal.buffer_view) {
  // expected-error @+1 {{'tensor<?x?xf32>' has 2 dynamic dimension(s), but 0 dimension values are given}}
  %t = hal.tensor.import %view : !hal.buffer_view -> tensor<?x?xf32>
  return
}

// -----

func.func @mode(%device: !hal.device) {
  // expected-error @+1 {{unknown command buffer mode 'Reusable'; expected 'OneShot', 'AllowInlineExecution' or 'None'}}
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(Reusable) : !hal.command_buffer
  return
}
