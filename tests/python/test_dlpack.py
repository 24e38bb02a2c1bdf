"""DLPack on the cpu device: DeviceArrays to NumPy (numpy.from_dlpack) and
NumPy arrays into kiln (kiln.from_dlpack), without copies."""

import gc
import sys
import unittest

import numpy as np

import kiln
from support import module_path


class ExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = kiln.load_module(module_path("basics_cpu"))

    def test_dlpack_device(self):
        result = self.module.add([1, 2, 3, 4], [1, 1, 1, 1], keep_on_device=True)
        self.assertEqual(result.__dlpack_device__(), (1, 0))

    def test_numpy_views_the_device_memory(self):
        result = self.module.add([1, 2, 3, 4], [1, 1, 1, 1], keep_on_device=True)
        view = np.from_dlpack(result)
        np.testing.assert_array_equal(view, [2, 3, 4, 5])
        # No copy: every view is of one address, the buffer's.
        address = view.__array_interface__["data"][0]
        self.assertEqual(np.from_dlpack(result).__array_interface__["data"][0], address)

    def test_view_outlives_the_array(self):
        view = np.from_dlpack(self.module.mul(np.full((2, 3), 3, np.float32),
                                              np.full((2, 3), 2, np.float32),
                                              keep_on_device=True))
        gc.collect()
        self.assertEqual(view.shape, (2, 3))
        np.testing.assert_array_equal(view, np.full((2, 3), 6, np.float32))

    def test_copy_is_refused(self):
        result = self.module.add([1, 2, 3, 4], [1, 1, 1, 1], keep_on_device=True)
        with self.assertRaises(BufferError):
            result.__dlpack__(copy=True)


class ImportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = kiln.load_module(module_path("basics_cpu"))

    def test_round_trip_shares_memory(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        wrapped = kiln.from_dlpack(a)
        self.assertIsInstance(wrapped, kiln.DeviceArray)
        self.assertEqual(wrapped.shape, (2, 3))
        self.assertIs(wrapped.device, kiln.device("cpu"))
        back = np.from_dlpack(wrapped)
        self.assertEqual(back.__array_interface__["data"][0], a.__array_interface__["data"][0])
        # Writes through NumPy reach kiln's calls: the buffer is NumPy's memory.
        a[1, 2] = 10
        np.testing.assert_array_equal(self.module.mul(wrapped, wrapped), a * a)

    def test_byte_offset(self):
        base = np.arange(10, dtype=np.float32)
        wrapped = kiln.from_dlpack(base[6:])
        np.testing.assert_array_equal(self.module.add(wrapped, wrapped), [12, 14, 16, 18])

    def test_keeps_the_producer_alive(self):
        a = np.ones(4, np.float32)
        before = sys.getrefcount(a)
        wrapped = kiln.from_dlpack(a)
        self.assertGreater(sys.getrefcount(a), before)
        del wrapped
        gc.collect()
        self.assertEqual(sys.getrefcount(a), before)

    def test_non_contiguous_is_refused(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        with self.assertRaises(kiln.Error) as raised:
            kiln.from_dlpack(a.T)
        self.assertIn("is not C-contiguous", str(raised.exception))

    def test_not_a_dlpack_object(self):
        with self.assertRaises(kiln.Error):
            kiln.from_dlpack([1, 2, 3])

    def test_another_cpu_device(self):
        # cpu-sync is another kiln device over the same host memory.
        wrapped = kiln.from_dlpack(np.ones(4, np.float32), device="cpu-sync")
        self.assertEqual(wrapped.device.uri, "cpu-sync://0")

    def test_unsupported_dtype(self):
        with self.assertRaises(kiln.Error) as raised:
            kiln.from_dlpack(np.zeros(3, np.complex64))
        self.assertIn("DLPack dtype (code 5", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
