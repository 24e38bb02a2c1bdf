// Planned memory (--kiln-hal-plan-memory): @f's five intermediates (8x8xf32,
// 256 bytes each) are ranges of one 768-byte arena that each context
// allocates once, packed by lifetime (t1 lives to the end; t4 reuses t2's
// bytes, t5 t3's), so the dispatches that reuse bytes must wait for the last
// reader of what was there (the barriers scheduling puts). @calls calls @f
// four times in one invocation with different inputs (arguments swapped,
// one twice, an earlier result): every call replays the same recording on
// the same arena, and every result is exact, memoized or recorded afresh on
// every call. The arena is recorded into the command buffer: a dispatch
// that binds only arena ranges binds the arena itself, the others bind it
// as one binding-table slot next to the call's own buffers.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --mlir-print-ir-after=kiln-hal-memoize-command-buffers -o %t.unused.kmod 2>&1 | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=calls --input="8x8xf32=1 0 1 0 0 0 0 0 0 1 0 0 1 0 0 0 0 0 1 0 0 0 1 0 1 0 0 1 0 0 0 0 0 0 0 0 1 0 0 1 0 1 0 0 0 1 0 0 0 0 0 1 0 0 1 0 0 0 0 0 0 1 0 1" --input="8x8xf32=0 0 0 1 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 1 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 1 0 0 0" | FileCheck %s --check-prefix=CALLS
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-run-module --device=%device --module=%t.oneshot.kmod --function=calls --input="8x8xf32=1 0 1 0 0 0 0 0 0 1 0 0 1 0 0 0 0 0 1 0 0 0 1 0 1 0 0 1 0 0 0 0 0 0 0 0 1 0 0 1 0 1 0 0 0 1 0 0 0 0 0 1 0 0 1 0 0 0 0 0 0 1 0 1" --input="8x8xf32=0 0 0 1 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 1 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 1 0 0 0" | FileCheck %s --check-prefix=CALLS
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

// With a (0/1, two ones per row) and b (a permutation), computed with exact
// integers in Python: f(a, b), f(b, a), f(a, a), f(f(a, b), b).
// CALLS: EXEC @calls
// CALLS-NEXT: result[0]: hal.buffer_view
// CALLS-NEXT: 8x8xf32=[2 1 1 5 1 1 4 1][2 1 2 1 3 2 1 4][2 3 2 3 1 2 3 0][2 3 1 3 3 1 2 1][0 1 1 1 3 3 2 5][4 1 4 1 1 2 1 2][2 5 2 1 3 2 1 0][2 1 3 1 1 3 2 3]
// CALLS-NEXT: result[1]: hal.buffer_view
// CALLS-NEXT: 8x8xf32=[4 2 2 3 1 0 1 3][5 1 2 2 0 1 2 3][1 1 2 4 2 1 4 1][0 2 1 1 4 3 2 3][2 4 3 1 2 3 0 1][2 0 2 3 1 2 5 1][1 5 1 2 1 4 1 1][1 1 3 0 5 2 1 3]
// CALLS-NEXT: result[2]: hal.buffer_view
// CALLS-NEXT: 8x8xf32=[72 0 64 64 0 0 56 0][0 72 0 0 64 64 0 56][64 0 72 56 0 0 64 0][64 0 56 72 0 0 64 0][0 64 0 0 72 56 0 64][0 64 0 0 56 72 0 64][56 0 64 64 0 0 72 0][0 56 0 0 64 64 0 72]
// CALLS-NEXT: result[3]: hal.buffer_view
// CALLS-NEXT: 8x8xf32=[8104 8336 8112 8144 8312 8200 8152 8176][8200 8138 8211 8246 8108 8203 8257 8173][8184 8246 8173 8138 8276 8181 8127 8211][8088 8276 8158 8076 8272 8262 8146 8258][8264 8180 8222 8236 8160 8150 8194 8130][8232 8066 8215 8318 8060 8175 8301 8169][8168 8186 8219 8070 8236 8243 8121 8293][8296 8108 8226 8308 8112 8122 8238 8126]

// @f allocates only its result; the five intermediates are arena ranges;
// the submission's table holds a, b, the arena and the result.
// IR-LABEL: func.func @f(
// IR-SAME:      kiln.reflection = {arena_size = "768"}
// IR:         %[[ARENA:.+]] = util.global.load immutable @__hal_arena_f : !hal.buffer
// IR-NOT:     hal.buffer.subspan
// IR:         %[[A:.+]] = hal.buffer_view.buffer<%arg0
// IR:         %[[B:.+]] = hal.buffer_view.buffer<%arg1
// IR:         %[[RESULT:.+]] = hal.allocator.allocate
// IR-NOT:     hal.allocator.allocate
// IR:         hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%{{.+}}) commands(%{{.+}}) bindings([%[[A]], %[[B]], %[[ARENA]], %[[RESULT]]])
// IR-LABEL: func.func @calls(
// The recording: t5 = t4 @ t1 reads and writes only arena ranges, so it binds
// the arena itself (t4 at 256, t1 at 0, t5 at 512); the others bind slots.
// IR-LABEL: func.func private @__hal_record_command_buffer_0()
// IR:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// IR-NEXT:      (%{{.+}} : index)
// IR:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// IR-NEXT:      (%{{.+}} : index)
// IR:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// IR-NEXT:      (%{{.+}} : index)
// IR:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// IR-NEXT:      (%{{.+}} : index)
// IR:         %[[ARENA_COPY:.+]] = util.global.load immutable @__hal_arena_f : !hal.buffer
// IR:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// IR-NEXT:      (%[[ARENA_COPY]] : !hal.buffer)[%c256{{(_[0-9]+)?}}, %c256{{(_[0-9]+)?}}],
// IR-NEXT:      (%[[ARENA_COPY]] : !hal.buffer)[%c0{{(_[0-9]+)?}}, %c256{{(_[0-9]+)?}}],
// IR-NEXT:      (%[[ARENA_COPY]] : !hal.buffer)[%c512{{(_[0-9]+)?}}, %c256{{(_[0-9]+)?}}]
// IR:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// IR-NEXT:      (%{{.+}} : index)
// IR:         hal.command_buffer.finalize

// The arena, per export (@calls has none) and as a global.
// DUMP:      @f -> function
// DUMP-NEXT:   arena: 768 bytes
// DUMP:      @calls -> function
// DUMP-NOT:    arena:
// DUMP:      globals:
// DUMP:        @__hal_arena_f : hal.buffer at ref slot

// f(a, b) = ((((a b) b) a) b (a b)) a: t1 = a b is alive to the end.
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t1 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t2 = linalg.matmul ins(%t1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t3 = linalg.matmul ins(%t2, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t4 = linalg.matmul ins(%t3, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t5 = linalg.matmul ins(%t4, %t1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.matmul ins(%t5, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

func.func @calls(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %r0 = call @f(%a, %b) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r1 = call @f(%b, %a) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r2 = call @f(%a, %a) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r3 = call @f(%r0, %b) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r0, %r1, %r2, %r3 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
