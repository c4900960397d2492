"""Tests of memory_peers.py that need no GPU: the sizes each problem times,
as the book's records count them, and the bytes a copy or transpose moves."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_peers  # noqa: E402
from unittest_main import main  # noqa: E402


class Sizes(unittest.TestCase):
    # The transpose's sizes are square sides; its lines' n is rows * cols,
    # the element count the book's transpose records are keyed by.
    def test_transpose_sides_are_square_matrices(self):
        self.assertEqual(memory_peers.shapes("transpose", "4096,8192"), [(4096, 4096), (8192, 8192)])

    # The copy's sizes are log2 N of a flat array, as the elementwise
    # records' N.
    def test_copy_sizes_are_powers_of_two(self):
        self.assertEqual(memory_peers.shapes("elementwise", "24,28"), [(1, 1 << 24), (1, 1 << 28)])

    # Every element is read once and written once: 8 bytes, as the book's
    # transpose problem and a copy's elementwise count have it.
    def test_bytes_are_a_copy_of_the_matrix(self):
        self.assertEqual(memory_peers.bytes_moved(8192, 8192), 8 * 8192 * 8192)

    # The default sizes are those the chapters' examples declare.
    def test_default_sizes_match_the_examples(self):
        self.assertEqual(memory_peers.PROBLEMS["transpose"][0], "4096,8192")
        self.assertEqual(memory_peers.PROBLEMS["elementwise"][0], "24,26,28")


if __name__ == "__main__":
    main()
