"""Runs the TensorBoard event file tests; exits 77 (skipped) without their dependencies."""
import os
import shutil
import sys
import unittest

try:
    import crcmod  # noqa: F401
    import google.protobuf  # noqa: F401
    import h5py  # noqa: F401
except ImportError as missing:
    print(f"skipped: {missing}; tools/setup.sh installs python3-protobuf python3-crcmod "
          "python3-h5py")
    sys.exit(77)
if not shutil.which(os.environ.get("RUNNER_PROTOC", "protoc")):
    print("skipped: no protoc; tools/setup.sh installs protobuf-compiler")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(1, os.path.dirname(here))  # results_fixture, shared with the package's tests
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)
