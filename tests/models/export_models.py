#!/usr/bin/env python3
"""Exports real models to ONNX with PyTorch, with inputs and PyTorch's outputs.

Each model gets random weights (fixed seed), float32, `model.eval()`, and is
exported by torch.onnx.export with the TorchScript exporter (opset 17;
`dynamo=False` where the torch version has that argument, 2.5 and newer):

    resnet50  torchvision.models.resnet50(weights=None)    x: 1x3x224x224 f32 -> logits 1x1000
    gpt2      transformers GPT2Model(GPT2Config())         input_ids: 1x128 i64
                                                           -> last_hidden_state 1x128x768
    bert      transformers BertModel(BertConfig())         input_ids, attention_mask: 1x128 i64
                                                           -> last_hidden_state 1x128x768

and, only when --models names them (the set of tests/benchmarks/model_benchmarks.py):

    mlp_b256, mlp_b1  3 x (Linear 1024 + ReLU)             x: 256x1024 (1x1024) f32 -> y
    resnet50_f16, gpt2_f16   the models above in float16: weights and floating
                      inputs `.half()` (gpt2's input_ids stay i64); traced on
                      CUDA where there is a GPU (CPU kernels lack some f16
                      ops), expected outputs from that f16 run, saved as f32

Writes OUT/<model>/model.onnx, input_K.npy (in the graph's input order),
expected_K.npy (PyTorch's outputs, in the graph's output order) and
meta.json (names, shapes, dtypes, versions). tests/models/run_models.py runs
them through kiln and compares.

Needs torch (and torchvision, transformers for the models that use them),
onnx and numpy: the lent GPU machine has them (tests/models/README.md).

usage: export_models.py --out DIR [--models resnet50,gpt2,bert,mlp_b256,...] [--seed N]
"""
import argparse
import inspect
import json
import os
import sys
import time

import numpy as np
import torch

OPSET = 17
SEQ = 128


class LastHiddenState(torch.nn.Module):
    """A transformers model called with keyword inputs (and `extra`),
    returning only last_hidden_state: the exported graph's one output."""

    def __init__(self, model, input_names, ones_mask=False, **extra):
        super().__init__()
        self.model = model
        self.input_names = input_names
        self.ones_mask = ones_mask
        self.extra = extra

    def forward(self, *inputs):
        kwargs = dict(zip(self.input_names, inputs), **self.extra)
        if self.ones_mask:
            # An all-ones mask made in the graph (no input): without a mask,
            # transformers 5 looks for packed sequences in the position ids
            # with torch.diff, which the TorchScript exporter cannot export.
            kwargs["attention_mask"] = torch.ones_like(inputs[0])
        return self.model(**kwargs, return_dict=True).last_hidden_state


def eager_attention(config):
    # The plain attention (MatMul, Softmax) rather than a fused SDPA kernel:
    # what an ONNX importer sees in most exported transformers.
    try:
        config._attn_implementation = "eager"
    except Exception:
        pass
    return config


def make_resnet50(gen):
    import torchvision
    model = torchvision.models.resnet50(weights=None)
    x = torch.randn(1, 3, 224, 224, generator=gen)
    return model, [("x", x)], ["logits"]


def make_gpt2(gen):
    from transformers import GPT2Config, GPT2Model
    config = eager_attention(GPT2Config())
    model = GPT2Model(config)
    ids = torch.randint(0, config.vocab_size, (1, SEQ), generator=gen, dtype=torch.int64)
    return (LastHiddenState(model, ["input_ids"], ones_mask=True, use_cache=False), [("input_ids", ids)],
            ["last_hidden_state"])


def make_bert(gen):
    from transformers import BertConfig, BertModel
    config = eager_attention(BertConfig())
    model = BertModel(config)
    ids = torch.randint(0, config.vocab_size, (1, SEQ), generator=gen, dtype=torch.int64)
    mask = torch.ones(1, SEQ, dtype=torch.int64)
    mask[:, SEQ - 24:] = 0  # the last 24 positions are padding
    return (LastHiddenState(model, ["input_ids", "attention_mask"]),
            [("input_ids", ids), ("attention_mask", mask)], ["last_hidden_state"])


def make_mlp(batch):
    # The MLP of the benchmarks (../shared/GPU.md's peer figures):
    # 3 x (Linear 1024 -> 1024 + ReLU).
    def make(gen):
        layers = []
        for _ in range(3):
            layers += [torch.nn.Linear(1024, 1024), torch.nn.ReLU()]
        x = torch.randn(batch, 1024, generator=gen)
        return torch.nn.Sequential(*layers), [("x", x)], ["y"]
    return make


MODELS = {"resnet50": make_resnet50, "gpt2": make_gpt2, "bert": make_bert}
# Exported only when named: the benchmarks' models (model_benchmarks.py).
EXTRA_MODELS = {"mlp_b256": make_mlp(256), "mlp_b1": make_mlp(1),
                "resnet50_f16": make_resnet50, "gpt2_f16": make_gpt2}
F16_SUFFIX = "_f16"


def build(name, seed, device="cpu"):
    """The model `name` as export() exports it: (model in eval mode with its
    dtype applied, on `device`; [(input name, tensor on `device`)]; output
    names). The same seed gives the same weights and inputs."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model, inputs, output_names = {**MODELS, **EXTRA_MODELS}[name](gen)
    if name.endswith(F16_SUFFIX):
        # Integer inputs (token ids) keep their type; floating ones follow the weights.
        model = model.half()
        inputs = [(n, t.half() if t.is_floating_point() else t) for n, t in inputs]
    else:
        model = model.float()
    model = model.eval().to(device)
    return model, [(n, t.to(device)) for n, t in inputs], output_names


def export(name, out_dir, seed):
    # f16 traces on the GPU where there is one: PyTorch's CPU kernels lack
    # some float16 ops (convolutions in older versions).
    device = "cuda" if name.endswith(F16_SUFFIX) and torch.cuda.is_available() else "cpu"
    model, inputs, output_names = build(name, seed, device)
    input_names = [n for n, _ in inputs]
    tensors = tuple(t for _, t in inputs)
    with torch.no_grad():
        outputs = model(*tensors)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)

    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    kwargs = dict(opset_version=OPSET, input_names=input_names, output_names=output_names,
                  do_constant_folding=True)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the TorchScript exporter (torch 2.5+ defaults may differ)
    start = time.time()
    with torch.no_grad():
        torch.onnx.export(model, tensors, path, **kwargs)
    seconds = time.time() - start

    for k, t in enumerate(tensors):
        np.save(os.path.join(folder, "input_%d.npy" % k), t.cpu().numpy())
    for k, t in enumerate(outputs):
        np.save(os.path.join(folder, "expected_%d.npy" % k), t.detach().float().cpu().numpy())

    def describe(names, values):
        return [{"name": n, "shape": list(v.shape), "dtype": str(v.cpu().numpy().dtype)}
                for n, v in zip(names, values)]
    meta = {"model": name, "opset": OPSET, "seed": seed, "torch": torch.__version__,
            "traced_on": device,
            "inputs": describe(input_names, tensors),
            "outputs": describe(output_names, outputs),
            "parameters": sum(p.numel() for p in model.parameters())}
    try:
        import onnx
        meta["onnx"] = onnx.__version__
        graph = onnx.load(path, load_external_data=False).graph
        meta["graph_inputs"] = [i.name for i in graph.input]
        meta["graph_outputs"] = [o.name for o in graph.output]
        meta["nodes"] = len(graph.node)
    except ImportError:
        pass
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    size = os.path.getsize(path) / 2**20
    print("%-9s %s: %.1f MB, %d parameters, exported in %.1f s; inputs %s; outputs %s" %
          (name, path, size, meta["parameters"], seconds,
           ", ".join("%s %s %s" % (i["name"], "x".join(map(str, i["shape"])), i["dtype"])
                     for i in meta["inputs"]),
           ", ".join("%s %s" % (o["name"], "x".join(map(str, o["shape"])))
                     for o in meta["outputs"])), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder of one subfolder per model")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated, of: " + ", ".join(list(MODELS) + list(EXTRA_MODELS)) +
                        " (default: " + ",".join(MODELS) + ")")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = [m for m in args.models.split(",") if m]
    known = list(MODELS) + list(EXTRA_MODELS)
    unknown = [m for m in names if m not in known]
    if unknown:
        sys.exit("export_models.py: unknown model(s) %s (known: %s)" %
                 (", ".join(unknown), ", ".join(known)))
    torch.set_grad_enabled(False)
    for name in names:
        export(name, args.out, args.seed)


if __name__ == "__main__":
    main()
