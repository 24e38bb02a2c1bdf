#!/usr/bin/env python3
"""Writes a small MNIST-sized CNN as an ONNX model, an input and its expected output.

The network (opset 17, float32, NCHW, random weights from a fixed seed):

    x: 1x1x28x28
    Conv 1->8, 3x3, pad 1   -> 1x8x28x28    Relu    MaxPool 2x2, stride 2 -> 1x8x14x14
    Conv 8->16, 3x3, pad 1  -> 1x16x14x14   Relu    MaxPool 2x2, stride 2 -> 1x16x7x7
    Flatten                 -> 1x784
    Gemm (transB) 784->10   -> 1x10         Softmax (axis 1)              -> probs: 1x10

Files written into --out-dir:
    mnist.onnx          the model (graph `mnist`: input `x`, output `probs`)
    mnist_input.npy     a 1x1x28x28 float32 input (a drawn "7" with some noise)
    mnist_expected.npy  the model's output for it, 1x10 float32, computed by the
                        numpy reference below (float64, then rounded to float32)

The reference implements each op the way the ONNX operator spec defines it, in
plain numpy, so the expected output does not come from any ONNX runtime.

Needs numpy and onnx (Debian: python3-numpy, python3-onnx; use /usr/bin/python3).

usage: make_mnist_model.py [--out-dir DIR] [--seed N]
"""
import argparse
import os
import sys

import numpy as np

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    sys.exit("make_mnist_model.py: needs the onnx Python package "
             "(Debian: python3-onnx; run it with /usr/bin/python3)")

OPSET = 17


# ---- the numpy reference (NCHW, float64) -----------------------------------

def conv2d(x, w, b, pad):
    """ONNX Conv, stride 1, dilation 1, group 1: y[n,m,i,j] =
    b[m] + sum over c,u,v of x_padded[n,c,i+u,j+v] * w[m,c,u,v]."""
    n, c, h, wd = x.shape
    m, c2, kh, kw = w.shape
    assert c == c2
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, m, oh, ow), dtype=np.float64)
    for u in range(kh):
        for v in range(kw):
            # Every output position's (u, v) tap at once: a 1x1 convolution.
            patch = xp[:, :, u:u + oh, v:v + ow]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, u, v])
    return y + b.reshape(1, m, 1, 1)


def relu(x):
    return np.maximum(x, 0.0)


def maxpool2x2(x):
    """ONNX MaxPool, kernel 2x2, stride 2, no padding (floor of odd sizes)."""
    n, c, h, w = x.shape
    x = x[:, :, :h // 2 * 2, :w // 2 * 2]
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def flatten(x):
    """ONNX Flatten, axis 1."""
    return x.reshape(x.shape[0], -1)


def gemm_transb(a, b, c):
    """ONNX Gemm, alpha = beta = 1, transB = 1: a @ b.T + c."""
    return a @ b.T + c


def softmax(x):
    """ONNX Softmax (opset 13+), axis 1 of a 2-D input."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def reference(x, p):
    y = maxpool2x2(relu(conv2d(x, p["conv1_w"], p["conv1_b"], pad=1)))
    y = maxpool2x2(relu(conv2d(y, p["conv2_w"], p["conv2_b"], pad=1)))
    return softmax(gemm_transb(flatten(y), p["fc_w"], p["fc_b"]))


# ---- weights, input, model --------------------------------------------------

def make_parameters(rng):
    """He-initialized weights, small biases: float32."""
    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    return {
        "conv1_w": he((8, 1, 3, 3), 9),
        "conv1_b": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "conv2_w": he((16, 8, 3, 3), 72),
        "conv2_b": (rng.standard_normal(16) * 0.1).astype(np.float32),
        "fc_w": he((10, 784), 784),
        "fc_b": (rng.standard_normal(10) * 0.1).astype(np.float32),
    }


def make_input(rng):
    """A 28x28 image in [0, 1]: a "7" (a bar and a diagonal) plus noise."""
    image = np.zeros((28, 28), dtype=np.float64)
    image[6:9, 6:22] = 1.0
    for row in range(9, 24):
        col = 21 - (row - 9) * 10 // 15
        image[row, col - 1:col + 2] = 1.0
    image += rng.uniform(0.0, 0.1, size=image.shape)
    return np.clip(image, 0.0, 1.0).astype(np.float32).reshape(1, 1, 28, 28)


def make_model(p):
    init = [numpy_helper.from_array(v, name) for name, v in p.items()]
    nodes = [
        helper.make_node("Conv", ["x", "conv1_w", "conv1_b"], ["conv1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2_w", "conv2_b"], ["conv2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], name="pool2",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool2"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "mnist",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 28, 28])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
        initializer=init)
    model = helper.make_model(graph, producer_name="kiln samples/models/make_mnist_model.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # what opset 17 came with (ONNX 1.12)
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    params = make_parameters(rng)
    x = make_input(rng)
    expected = reference(x.astype(np.float64),
                         {k: v.astype(np.float64) for k, v in params.items()}).astype(np.float32)

    os.makedirs(args.out_dir, exist_ok=True)
    onnx.save(make_model(params), os.path.join(args.out_dir, "mnist.onnx"))
    np.save(os.path.join(args.out_dir, "mnist_input.npy"), x)
    np.save(os.path.join(args.out_dir, "mnist_expected.npy"), expected)
    print("wrote %s: mnist.onnx, mnist_input.npy (1x1x28x28), mnist_expected.npy (1x10)" %
          args.out_dir)
    print("expected probs: %s (argmax %d)" %
          (np.array2string(expected[0], precision=4, max_line_width=200), expected.argmax()))


if __name__ == "__main__":
    main()
