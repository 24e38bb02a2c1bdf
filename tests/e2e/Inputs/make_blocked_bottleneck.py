#!/usr/bin/env python3
"""Writes the program and the expected values of
tests/e2e/tensors/blocked_bottleneck.mlir: two ResNet bottlenecks in a row
(1x1 -> zero padding -> 3x3 -> 1x1 + residual, each with its bias and
ReLU) on a 1x32x6x6 image, the filters, biases and image immutable globals,
the expected output computed here in double precision.

    python3 tests/e2e/Inputs/make_blocked_bottleneck.py > tests/e2e/tensors/blocked_bottleneck.mlir
"""
import math
import sys

N, C, MID, H = 1, 32, 16, 6


def values(count, seed, scale):
    """Deterministic values in [-scale, scale], 3 decimals (exact in the text)."""
    return [round(scale * math.sin(0.7 * i + seed) * math.cos(0.13 * i), 3) for i in range(count)]


def conv(x, c, h, w, f, k, r, bias, residual=None):
    """relu(conv(x, f) + bias (+ residual)), stride 1, no padding; x is [c][h][w]."""
    p, q = h - r + 1, w - r + 1
    y = [[[0.0] * q for _ in range(p)] for _ in range(k)]
    for o in range(k):
        for i in range(p):
            for j in range(q):
                s = bias[o]
                for ci in range(c):
                    for a in range(r):
                        for b in range(r):
                            s += x[ci][i + a][j + b] * f[((o * c + ci) * r + a) * r + b]
                if residual is not None:
                    s += residual[o][i][j]
                y[o][i][j] = max(s, 0.0)
    return y


def pad(x):
    return [[[0.0] * (len(x[0][0]) + 2)] + [[0.0] + row + [0.0] for row in plane] +
            [[0.0] * (len(x[0][0]) + 2)] for plane in x]


def dense(flat, shape):
    """A dense literal of `flat` in `shape`, nested, one innermost row per line."""
    def nest(offset, dims):
        if len(dims) == 1:
            return "[" + ",".join(repr(v) for v in flat[offset:offset + dims[0]]) + "]"
        size = 1
        for d in dims[1:]:
            size *= d
        inner = [nest(offset + i * size, dims[1:]) for i in range(dims[0])]
        return "[" + (",\n   " if len(dims) == 2 else ",").join(inner) + "]"
    return "dense<" + nest(0, shape) + ">"


def main():
    x = values(N * C * H * H, 0.1, 1.0)
    w1 = values(MID * C, 1.3, 0.35)
    b1 = values(MID, 2.1, 0.2)
    w2 = values(MID * MID * 9, 3.7, 0.16)
    b2 = values(MID, 4.3, 0.2)
    w3 = values(C * MID, 5.9, 0.35)
    b3 = values(C, 6.1, 0.2)

    def block(image):
        a = conv(image, C, H, H, w1, MID, 1, b1)
        b = conv(pad(a), MID, H + 2, H + 2, w2, MID, 3, b2)
        return conv(b, MID, H, H, w3, C, 1, b3, residual=image)

    image = [[x[(c * H + i) * H:(c * H + i) * H + H] for i in range(H)] for c in range(C)]
    out = block(block(image))
    expected = [round(out[c][i][j], 6) for c in range(C) for i in range(H) for j in range(H)]

    t = lambda shape: "tensor<" + "x".join(str(d) for d in shape) + "xf32>"
    xs, ys, ms, ps = [N, C, H, H], [N, C, H, H], [N, MID, H, H], [N, MID, H + 2, H + 2]
    lines = []
    emit = lines.append
    emit(HEADER)
    for name, flat, shape in [("image", x, xs), ("w1", w1, [MID, C, 1, 1]), ("b1", b1, [MID]),
                              ("w2", w2, [MID, MID, 3, 3]), ("b2", b2, [MID]),
                              ("w3", w3, [C, MID, 1, 1]), ("b3", b3, [C])]:
        emit("util.global private @%s = %s : %s" % (name, dense(flat, shape), t(shape)))
    emit("")
    emit("#id = affine_map<(n, c, h, w) -> (n, c, h, w)>")
    emit("#ch = affine_map<(n, c, h, w) -> (c)>")
    emit("")
    emit("func.func @two_bottlenecks() {")
    emit("  %zero = arith.constant 0.0 : f32")
    emit("  %%x = util.global.load @image : %s" % t(xs))
    for g, shape in [("w1", [MID, C, 1, 1]), ("b1", [MID]), ("w2", [MID, MID, 3, 3]),
                     ("b2", [MID]), ("w3", [C, MID, 1, 1]), ("b3", [C])]:
        emit("  %%%s = util.global.load @%s : %s" % (g, g, t(shape)))
    emit("  %%em = tensor.empty() : %s" % t(ms))
    emit("  %%im = linalg.fill ins(%%zero : f32) outs(%%em : %s) -> %s" % (t(ms), t(ms)))
    emit("  %%ey = tensor.empty() : %s" % t(ys))
    emit("  %%iy = linalg.fill ins(%%zero : f32) outs(%%ey : %s) -> %s" % (t(ys), t(ys)))

    def bottleneck(name, x, library):
        """Emits one bottleneck on %x as %<name>_y; `library` is the convolutions' attribute."""
        v = lambda value: "%" + name + "_" + value
        attributes = library + "dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>"
        emit("  %s = linalg.conv_2d_nchw_fchw {%s} ins(%s, %%w1 : %s, %s) outs(%%im : %s) -> %s" %
             (v("c1"), attributes, x, t(xs), t([MID, C, 1, 1]), t(ms), t(ms)))
        emit(EPILOGUE.format(out=v("a"), conv=v("c1"), bias="%b1", bias_type=t([MID]), type=t(ms)))
        emit("  %s = tensor.pad %s low[0, 0, 1, 1] high[0, 0, 1, 1] {" % (v("ap"), v("a")))
        emit("  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        emit("    tensor.yield %zero : f32")
        emit("  } : %s to %s" % (t(ms), t(ps)))
        emit("  %s = linalg.conv_2d_nchw_fchw {%s} ins(%s, %%w2 : %s, %s) outs(%%im : %s) -> %s" %
             (v("c2"), attributes, v("ap"), t(ps), t([MID, MID, 3, 3]), t(ms), t(ms)))
        emit(EPILOGUE.format(out=v("b"), conv=v("c2"), bias="%b2", bias_type=t([MID]), type=t(ms)))
        emit("  %s = linalg.conv_2d_nchw_fchw {%s} ins(%s, %%w3 : %s, %s) outs(%%iy : %s) -> %s" %
             (v("c3"), attributes, v("b"), t(ms), t([C, MID, 1, 1]), t(ys), t(ys)))
        emit(RESIDUAL.format(out=v("y"), conv=v("c3"), x=x, type=t(ys), bias_type=t([C])))
        return v("y")

    emit("  // The program.")
    always = "kiln.library = \"always\", "
    y = bottleneck("second", bottleneck("first", "%x", always), always)
    emit("  // The reference: the same as generated kernels.")
    g = bottleneck("ref2", bottleneck("ref1", "%x", "kiln.library = \"none\", "),
                   "kiln.library = \"none\", ")
    emit("  check.expect_almost_eq(%s, %s, atol 1.0e-04, rtol 1.0e-05) : %s" % (y, g, t(ys)))
    emit("  check.expect_almost_eq_const(%s, %s : %s, atol 1.0e-04, rtol 1.0e-05) : %s" %
         (y, dense(expected, ys), t(ys), t(ys)))
    emit("  return")
    emit("}")
    sys.stdout.write("\n".join(lines) + "\n")


EPILOGUE = """  {out} = linalg.generic {{indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins({conv}, {bias} : {type}, {bias_type}) outs(%em : {type}) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }} -> {type}"""

RESIDUAL = """  {out} = linalg.generic {{indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins({conv}, %b3, {x} : {type}, {bias_type}, {type}) outs(%ey : {type}) {{
  ^bb0(%p: f32, %q: f32, %z: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.addf %s, %z : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  }} -> {type}"""

HEADER = """// Two ResNet bottlenecks in a row on the cpu: 1x1 -> zero padding -> 3x3
// -> 1x1 + residual, each convolution with its bias and ReLU, 16 and 32
// channels (whole blocks of 16), filters immutable globals. Compiled for cpu
// alone with --im2col-max-pixels=-1, each convolution is a oneDNN
// convolution (kiln.library = "always": the 1x1 ones are below the size a
// library call takes by default), and with --blocked-activations the
// results that only convolution calls read stay in oneDNN's blocked layout
// between them (--kiln-select-library-calls, blocked-activations):
// each 3x3's result (the next 1x1's image) and the first bottleneck's
// result (the second's image and residual); the 1x1 results that the zero
// padding reads, the image (a global) and the second bottleneck's result
// (checked) stay NCHW. The result against the same bottlenecks as generated
// kernels (NCHW throughout) and against the values that
// tests/e2e/Inputs/make_blocked_bottleneck.py (which writes this file)
// computes in double precision; the same without --blocked-activations.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --iree-hal-target-backends=llvm-cpu --blocked-activations --im2col-max-pixels=-1 -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP
// RUN: %kiln-compile %s --iree-hal-target-backends=llvm-cpu --im2col-max-pixels=-1 -o %t.plain.kmod
// RUN: %kiln-check-module --device=%device --module=%t.plain.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-dump-module %t.plain.kmod | FileCheck %s --check-prefix=PLAIN

// CHECKS-NOT: FAILED
// CHECKS: [  PASSED  ] 1 test.
// DUMP: oneDNN conv 1x32x6x6 * 16x1x1 stride 1,1 dilation 1,1 f32 bias constant_filter relu:
// DUMP: oneDNN conv 1x16x8x8 * 16x3x3 stride 1,1 dilation 1,1 f32 bias constant_filter y_blocked relu:
// DUMP: oneDNN conv 1x16x6x6 * 32x1x1 stride 1,1 dilation 1,1 f32 bias z constant_filter x_blocked y_blocked relu:
// DUMP: oneDNN conv 1x32x6x6 * 16x1x1 stride 1,1 dilation 1,1 f32 bias constant_filter x_blocked relu:
// DUMP: oneDNN conv 1x16x8x8 * 16x3x3 stride 1,1 dilation 1,1 f32 bias constant_filter y_blocked relu:
// DUMP: oneDNN conv 1x16x6x6 * 32x1x1 stride 1,1 dilation 1,1 f32 bias z constant_filter x_blocked z_blocked relu:
// PLAIN-COUNT-6: oneDNN conv
// PLAIN-NOT: _blocked"""

if __name__ == "__main__":
    main()
