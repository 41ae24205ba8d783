"""Runs the tests of the runner_results package; exits 77 (skipped) without its dependencies."""
import os
import sys
import unittest

try:
    import h5py  # noqa: F401
    import matplotlib  # noqa: F401
    import pandas  # noqa: F401
except ImportError as missing:
    print(f"skipped: {missing}; tools/setup.sh installs python3-h5py python3-pandas "
          "python3-matplotlib")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)
