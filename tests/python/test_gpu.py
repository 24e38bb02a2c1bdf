"""PyTorch CUDA tensors through kiln on the cuda device, over DLPack and
without copies (label gpu). Skips, saying why, without torch, a GPU or
kiln's cuda driver.

The program is programs/basics.mlir compiled for cuda by the build
(KILN_PYTHON_TEST_MODULES/basics_cuda.kmod), so this runs with a
runtime-only kiln package (tools/python/README.md has the command)."""

import unittest

import numpy as np

import kiln
from support import module_path


def _skip_reason():
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    try:
        kiln.device("cuda")
    except kiln.Error as error:
        return "kiln has no cuda device: %s" % error
    return None


_REASON = _skip_reason()


@unittest.skipIf(_REASON is not None, _REASON or "")
class TorchCudaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        cls.torch = torch
        cls.module = kiln.load_module(module_path("basics_cuda"), device="cuda")

    def test_import_shares_memory(self):
        torch = self.torch
        t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
        wrapped = kiln.from_dlpack(t)
        self.assertEqual(wrapped.shape, (3, 4))
        self.assertEqual(wrapped.__dlpack_device__(), (2, 0))
        self.assertEqual(torch.from_dlpack(wrapped).data_ptr(), t.data_ptr())
        # A write by torch after the import is what kiln computes with, once
        # torch's stream has run it (kiln's queue does not wait for torch's
        # later work: only the import synchronizes).
        t.mul_(2)
        torch.cuda.synchronize()
        result = self.module.mul(wrapped, wrapped)
        np.testing.assert_array_equal(result, (t * t).cpu().numpy())

    def test_results_stay_on_the_gpu(self):
        torch = self.torch
        a = torch.rand(256, 128, device="cuda")
        b = torch.rand(256, 128, device="cuda")
        product = self.module.mul(kiln.from_dlpack(a), kiln.from_dlpack(b), keep_on_device=True)
        self.assertIsInstance(product, kiln.DeviceArray)
        view = torch.from_dlpack(product)
        self.assertEqual(view.device.type, "cuda")
        # Two views of the result are one piece of memory.
        self.assertEqual(torch.from_dlpack(product).data_ptr(), view.data_ptr())
        torch.testing.assert_close(view, a * b)
        # And it chains into another call without leaving the GPU.
        again = self.module.mul(product, kiln.from_dlpack(a), keep_on_device=True)
        torch.testing.assert_close(torch.from_dlpack(again), a * b * a)

    def test_byte_offset_and_numpy_inputs(self):
        torch = self.torch
        base = torch.arange(8, dtype=torch.float32, device="cuda")
        tail = kiln.from_dlpack(base[4:])
        result = self.module.add(tail, np.ones(4, np.float32))
        np.testing.assert_array_equal(result, [5, 6, 7, 8])

    def test_strided_tensor_is_refused(self):
        torch = self.torch
        t = torch.zeros(4, 6, device="cuda").t()
        with self.assertRaises(kiln.Error) as raised:
            kiln.from_dlpack(t)
        self.assertIn("is not C-contiguous", str(raised.exception))

    def test_cpu_tensor_is_not_cuda_memory(self):
        torch = self.torch
        with self.assertRaises(kiln.Error) as raised:
            kiln.from_dlpack(torch.ones(4), device="cuda")
        self.assertIn("from_dlpack never copies", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
