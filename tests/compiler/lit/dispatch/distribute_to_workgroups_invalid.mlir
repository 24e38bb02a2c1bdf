// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-distribute-to-workgroups

// The host counts workgroup loops for a root the kernel no longer has: an
// error, not a kernel whose every workgroup does all the work.

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @lost {
  hal.executable.export public @lost ordinal(0) layout(#layout)
  builtin.module {
    // expected-error @+1 {{lost the root its 1 workgroup loops tile}}
    func.func @lost() attributes {kiln.workgroup_loops = 1 : index} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) : memref<64xf32>
      linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>)
      return
    }
  }
}
