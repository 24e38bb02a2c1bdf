"""kiln.load_module and calls on the cpu device: values in and out, the
checks against the function's signature, DeviceArrays between calls,
external parameters. Run by ctest (tests/python/CMakeLists.txt)."""

import os
import tempfile
import threading
import unittest

import numpy as np

import kiln
from support import module_path, write_safetensors


class LoadTest(unittest.TestCase):
    def test_exports_are_attributes_and_items(self):
        module = kiln.load_module(module_path("basics_cpu"))
        self.assertCountEqual(module.exports,
                              ["add", "mul", "scalars", "sum_and_product", "add_i8", "nothing"])
        self.assertIs(module.add, module["add"])
        self.assertEqual(module["@add"].name, "add")
        self.assertEqual(module.add.signature, "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>")
        self.assertIn("add", dir(module))

    def test_load_from_bytes(self):
        with open(module_path("basics_cpu"), "rb") as f:
            module = kiln.load_module(f.read())
        np.testing.assert_array_equal(module.add([1, 2, 3, 4], [1, 1, 1, 1]), [2, 3, 4, 5])

    def test_unknown_function(self):
        module = kiln.load_module(module_path("basics_cpu"))
        with self.assertRaises(kiln.Error) as raised:
            module["nope"]
        self.assertIn("function 'nope' not found", str(raised.exception))
        self.assertEqual(raised.exception.code, "NOT_FOUND")
        # Attribute access says the same, as an AttributeError (hasattr works).
        self.assertFalse(hasattr(module, "nope"))

    def test_missing_file(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.load_module("/nonexistent/x.kmod")
        self.assertIn("/nonexistent/x.kmod", str(raised.exception))
        self.assertIsInstance(raised.exception, RuntimeError)

    def test_not_a_module(self):
        with self.assertRaises(kiln.Error):
            kiln.load_module(b"not a kiln module at all")

    def test_unknown_device(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.load_module(module_path("basics_cpu"), device="nope")
        self.assertIn("device 'nope'", str(raised.exception))

    def test_devices_are_shared(self):
        self.assertIs(kiln.device("cpu"), kiln.device("cpu://0"))
        a = kiln.load_module(module_path("basics_cpu"))
        b = kiln.load_module(module_path("basics_cpu"), device="cpu://0")
        self.assertIs(a.device, b.device)


class CallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = kiln.load_module(module_path("basics_cpu"))

    def test_static_tensors(self):
        a = np.array([1, 2, 3, 4], np.float32)
        result = self.module.add(a, np.full(4, 0.5, np.float32))
        self.assertIsInstance(result, np.ndarray)
        self.assertEqual(result.dtype, np.float32)
        np.testing.assert_array_equal(result, [1.5, 2.5, 3.5, 4.5])

    def test_dynamic_shapes_and_strided_inputs(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        # A transposed view is not C-contiguous: it is copied in order.
        result = self.module.mul(a.T, a.T)
        self.assertEqual(result.shape, (4, 3))
        np.testing.assert_array_equal(result, a.T * a.T)

    def test_scalars(self):
        total, product = self.module.scalars(2, 1 << 40, 1.5, 4)
        self.assertEqual(total, (1 << 40) + 2)
        self.assertIsInstance(total, int)
        self.assertEqual(product, 6.0)
        self.assertIsInstance(product, float)
        # bools and NumPy scalars are numbers too.
        self.assertEqual(self.module.scalars(True, np.int64(3), np.float32(2), 0.5), (4, 1.0))

    def test_several_results_are_a_tuple(self):
        result = self.module.sum_and_product(np.array([1, 2, 3], np.int32),
                                             np.array([4, 5, 6], np.int32))
        self.assertIsInstance(result, tuple)
        np.testing.assert_array_equal(result[0], [5, 7, 9])
        np.testing.assert_array_equal(result[1], [4, 10, 18])
        self.assertEqual(result[0].dtype, np.int32)

    def test_no_result_is_none(self):
        self.assertIsNone(self.module.nothing())

    def test_unsigned_arrays_for_signless_integers(self):
        a = np.array([200, 1, 255], np.uint8)
        result = self.module.add_i8(a, np.array([100, 1, 1], np.uint8))
        # The program's i8 is signless: the result reads back signed.
        np.testing.assert_array_equal(result, np.array([44, 2, 0], np.uint8).view(np.int8))

    def test_wrong_input_count(self):
        with self.assertRaises(kiln.Error) as raised:
            self.module.add(np.zeros(4, np.float32))
        self.assertEqual(str(raised.exception), "function 'add' expects 2 input(s), got 1")
        self.assertEqual(raised.exception.code, "INVALID_ARGUMENT")

    def test_wrong_element_type(self):
        with self.assertRaises(kiln.Error) as raised:
            self.module.add(np.zeros(4, np.float32), np.zeros(4, np.int32))
        self.assertEqual(str(raised.exception),
                         "input 1 of function 'add': argument 1 is tensor<4xf32> but the array is "
                         "4xi32 (element type i32 differs from f32)")

    def test_wrong_shape(self):
        with self.assertRaises(kiln.Error) as raised:
            self.module.add(np.zeros(5, np.float32), np.zeros(4, np.float32))
        self.assertIn("argument 0 is tensor<4xf32> but the array is 5xf32 (dimension 0 is 5, "
                      "not 4)", str(raised.exception))
        with self.assertRaises(kiln.Error) as raised:
            self.module.mul(np.zeros(4, np.float32), np.zeros(4, np.float32))
        self.assertIn("rank 1 differs from 2", str(raised.exception))

    def test_wrong_scalar(self):
        with self.assertRaises(kiln.Error) as raised:
            self.module.scalars(1.5, 1, 1.0, 1.0)
        self.assertIn("input 0 of function 'scalars': argument 0 is i32 but got float (1.5)",
                      str(raised.exception))
        with self.assertRaises(kiln.Error) as raised:
            self.module.scalars(1 << 40, 1, 1.0, 1.0)
        self.assertIn("is out of range for i32", str(raised.exception))
        with self.assertRaises(kiln.Error) as raised:
            self.module.scalars(1, 1, "2.0", 1.0)
        self.assertIn("argument 2 is f32 but got str", str(raised.exception))
        with self.assertRaises(kiln.Error):
            self.module.add(None, np.zeros(4, np.float32))

    def test_unsupported_array_type(self):
        with self.assertRaises(kiln.Error) as raised:
            self.module.add(np.zeros(4, np.complex64), np.zeros(4, np.float32))
        self.assertIn("are not supported", str(raised.exception))

    def test_concurrent_calls(self):
        errors = []

        def work():
            try:
                for _ in range(20):
                    np.testing.assert_array_equal(self.module.add([1, 1, 1, 1], [2, 2, 2, 2]),
                                                  [3, 3, 3, 3])
            except Exception as error:  # Reported by the main thread.
                errors.append(error)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])


class DeviceArrayTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = kiln.load_module(module_path("basics_cpu"))

    def test_chained_calls(self):
        a = np.array([1, 2, 3, 4], np.float32)
        first = self.module.add(a, a, keep_on_device=True)
        self.assertIsInstance(first, kiln.DeviceArray)
        self.assertEqual(first.shape, (4,))
        self.assertEqual(first.dtype, np.float32)
        self.assertEqual(first.element_type, "f32")
        self.assertIs(first.device, kiln.device("cpu"))
        # The DeviceArray goes back in without a copy, beside a host array.
        second = self.module.add(first, a, keep_on_device=True)
        np.testing.assert_array_equal(second.numpy(), [3, 6, 9, 12])
        np.testing.assert_array_equal(np.asarray(second), [3, 6, 9, 12])
        # A second module of the same device takes it as well.
        other = kiln.load_module(module_path("basics_cpu"))
        np.testing.assert_array_equal(other.add(first, first), [4, 8, 12, 16])

    def test_several_results_on_device(self):
        s, p = self.module.sum_and_product([1, 2], [3, 4], keep_on_device=True)
        self.assertIsInstance(s, kiln.DeviceArray)
        np.testing.assert_array_equal(p.numpy(), [3, 8])
        self.assertIn("2xi32", repr(s))

    def test_device_array_checked_against_signature(self):
        ints, _ = self.module.sum_and_product([1, 2, 3, 4], [1, 2, 3, 4], keep_on_device=True)
        with self.assertRaises(kiln.Error) as raised:
            self.module.add(ints, ints)
        self.assertIn("argument 0 is tensor<4xf32> but the DeviceArray is 4xi32",
                      str(raised.exception))

    def test_device_array_of_another_device(self):
        on_sync = kiln.load_module(module_path("basics_cpu"), device="cpu-sync")
        a = on_sync.add([1, 2, 3, 4], [1, 2, 3, 4], keep_on_device=True)
        with self.assertRaises(kiln.Error) as raised:
            self.module.add(a, a)
        self.assertIn("the DeviceArray lives on cpu-sync://0 but function 'add' runs on cpu://0",
                      str(raised.exception))


class ParametersTest(unittest.TestCase):
    def test_scope_to_file(self):
        with tempfile.TemporaryDirectory() as directory:
            weights = os.path.join(directory, "weights.safetensors")
            write_safetensors(weights, {
                "fc.weight": np.array([[1, 2, 3], [4, 5, 6]], np.float32),
                "fc.bias": np.array([[0.5, -1, 2]], np.float32)})
            module = kiln.load_module(module_path("parameters_cpu"),
                                      parameters={"model": weights})
            result = module.linear(np.array([[1, -1]], np.float32))
            np.testing.assert_allclose(result, [[-2.5, -4, -1]])

    def test_missing_scope(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.load_module(module_path("parameters_cpu"))
        self.assertIn('no parameter files for scope "model"', str(raised.exception))

    def test_bad_file(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.load_module(module_path("parameters_cpu"),
                             parameters={"model": "/nonexistent/w.safetensors"})
        self.assertIn("/nonexistent/w.safetensors", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
