#!/usr/bin/env python3
"""Writes the tensor-parallel MLP sample for a group of N processes.

GPT-2's MLP block, y = GELU(x W1 + b1) W2 + b2 (hidden 768, inner 3072,
sequence 128), split Megatron-style across N ranks: rank r holds columns
[r F/N, (r+1) F/N) of W1 and b1 and the same rows of W2, computes its
partial product GELU(x W1_r + b1_r) W2_r, and an all-reduce (sum) over the
ranks' partials gives every rank x's whole product; b2 is added after it.
With N = 1 the program is the plain, unsplit block.

    make_tp_mlp.py --ranks 2 --out DIR [--seq 128 --hidden 768 --inner 3072]

writes to DIR:
    tp_mlp_n<N>.mlir                the program (function @mlp)
    weights_n<N>_rank<r>.safetensors   rank r's shard (scope "model")
    input.npy, expected.npy        x and the unsplit block's result (float64
                                   reference, stored as f32)
Weights and input come from a fixed seed, so every N sees the same block.
"""
import argparse
import json
import os
import struct

import numpy as np


def write_safetensors(path, tensors):
    header = {}
    offset = 0
    blobs = []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


PROGRAM = """\
// GPT-2's MLP block split across {n} rank(s) of a collective group (written by
// make_tp_mlp.py): this rank's shard of the inner dimension ({shard} of {inner}),
// then an all-reduce (sum) of the partial products, then the output bias.
util.global private @w1 = #flow.parameter.named<"model"::"w1"> : tensor<{hidden}x{shard}xf32>
util.global private @b1 = #flow.parameter.named<"model"::"b1"> : tensor<{shard}xf32>
util.global private @w2 = #flow.parameter.named<"model"::"w2"> : tensor<{shard}x{hidden}xf32>
util.global private @b2 = #flow.parameter.named<"model"::"b2"> : tensor<{hidden}xf32>

func.func @mlp(%x: tensor<{seq}x{hidden}xf32>) -> tensor<{seq}x{hidden}xf32> {{
  %w1 = util.global.load @w1 : tensor<{hidden}x{shard}xf32>
  %b1 = util.global.load @b1 : tensor<{shard}xf32>
  %w2 = util.global.load @w2 : tensor<{shard}x{hidden}xf32>
  %b2 = util.global.load @b2 : tensor<{hidden}xf32>
  %zero = arith.constant 0.0 : f32
  %inner_empty = tensor.empty() : tensor<{seq}x{shard}xf32>
  %inner_init = linalg.fill ins(%zero : f32) outs(%inner_empty : tensor<{seq}x{shard}xf32>) -> tensor<{seq}x{shard}xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<{seq}x{hidden}xf32>, tensor<{hidden}x{shard}xf32>)
                     outs(%inner_init : tensor<{seq}x{shard}xf32>) -> tensor<{seq}x{shard}xf32>
  // GELU (tanh approximation) of h + b1.
  %g = linalg.generic {{
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}}
      ins(%h, %b1 : tensor<{seq}x{shard}xf32>, tensor<{shard}xf32>) outs(%inner_empty : tensor<{seq}x{shard}xf32>) {{
  ^bb0(%hv: f32, %bv: f32, %out: f32):
    %v = arith.addf %hv, %bv : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608028654 : f32
    %k = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %k, %v3 : f32
    %inner = arith.addf %v, %kv3 : f32
    %scaled = arith.mulf %c, %inner : f32
    %t = math.tanh %scaled : f32
    %onet = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %v : f32
    %r = arith.mulf %hx, %onet : f32
    linalg.yield %r : f32
  }} -> tensor<{seq}x{shard}xf32>
  %out_empty = tensor.empty() : tensor<{seq}x{hidden}xf32>
  %out_init = linalg.fill ins(%zero : f32) outs(%out_empty : tensor<{seq}x{hidden}xf32>) -> tensor<{seq}x{hidden}xf32>
  %partial = linalg.matmul ins(%g, %w2 : tensor<{seq}x{shard}xf32>, tensor<{shard}x{hidden}xf32>)
                           outs(%out_init : tensor<{seq}x{hidden}xf32>) -> tensor<{seq}x{hidden}xf32>
  // Every rank's partial product, summed: the whole block's product.
  %channel = flow.channel.default : !flow.channel
  %sum_empty = tensor.empty() : tensor<{seq}x{hidden}xf32>
  %sum = flow.collective.all_reduce sum, f32, %sum_empty, %partial, %channel
      : (tensor<{seq}x{hidden}xf32>, tensor<{seq}x{hidden}xf32>, !flow.channel) -> %sum_empty as tensor<{seq}x{hidden}xf32>
  %y = linalg.generic {{
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}}
      ins(%sum, %b2 : tensor<{seq}x{hidden}xf32>, tensor<{hidden}xf32>) outs(%out_empty : tensor<{seq}x{hidden}xf32>) {{
  ^bb0(%sv: f32, %bv: f32, %out: f32):
    %r = arith.addf %sv, %bv : f32
    linalg.yield %r : f32
  }} -> tensor<{seq}x{hidden}xf32>
  return %y : tensor<{seq}x{hidden}xf32>
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--inner", type=int, default=3072)
    args = parser.parse_args()
    n = args.ranks
    if n < 1 or args.inner % n:
        parser.error("--ranks must divide --inner (%d)" % args.inner)
    shard = args.inner // n
    os.makedirs(args.out, exist_ok=True)

    rng = np.random.default_rng(2026)
    # GPT-2-like scales: weights ~ N(0, 0.02), activations ~ N(0, 1).
    x = rng.standard_normal((args.seq, args.hidden)).astype(np.float32)
    w1 = (0.02 * rng.standard_normal((args.hidden, args.inner))).astype(np.float32)
    b1 = (0.02 * rng.standard_normal(args.inner)).astype(np.float32)
    w2 = (0.02 * rng.standard_normal((args.inner, args.hidden))).astype(np.float32)
    b2 = (0.02 * rng.standard_normal(args.hidden)).astype(np.float32)

    h = x.astype(np.float64) @ w1.astype(np.float64) + b1
    expected = gelu_tanh(h) @ w2.astype(np.float64) + b2
    np.save(os.path.join(args.out, "input.npy"), x)
    np.save(os.path.join(args.out, "expected.npy"), expected.astype(np.float32))

    for rank in range(n):
        columns = slice(rank * shard, (rank + 1) * shard)
        write_safetensors(
            os.path.join(args.out, "weights_n%d_rank%d.safetensors" % (n, rank)),
            {"w1": w1[:, columns], "b1": b1[columns], "w2": w2[columns, :], "b2": b2})
    with open(os.path.join(args.out, "tp_mlp_n%d.mlir" % n), "w") as f:
        f.write(PROGRAM.format(n=n, seq=args.seq, hidden=args.hidden, inner=args.inner,
                               shard=shard))


if __name__ == "__main__":
    main()
