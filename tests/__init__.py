"""gin3's tests.

Each test run counts its metrics in a folder of its own (games/metrics.py), made
here, before anything imports the metrics: runs side by side, and the counts of
earlier runs, never mix with this run's. The processes a test starts inherit it.
"""

import atexit
import os
import shutil
import tempfile

if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="gin3-test-metrics-")
    atexit.register(shutil.rmtree, os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
