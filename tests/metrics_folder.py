"""Each test process counts its metrics in a folder of its own (games/metrics.py).

Loaded as a plugin (``-p tests.metrics_folder`` in pyproject.toml), so that the
folder is set before pytest-django starts Django, which imports the metrics:
runs side by side, the parallel workers of one run (pytest-xdist, whose workers
would otherwise inherit the folder of the process that started them) and the
counts of earlier runs never mix with its own. The processes a test starts
inherit it.
"""

import atexit
import os
import shutil
import tempfile

OWNER = "GIN3_TEST_METRICS_OWNER"
owner = os.environ.get("PYTEST_XDIST_WORKER", "main")
if os.environ.get(OWNER) != owner:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="gin3-test-metrics-")
    os.environ[OWNER] = owner
    atexit.register(shutil.rmtree, os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
