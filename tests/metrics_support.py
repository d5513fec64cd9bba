"""Reading the metrics as ``/metrics`` adds them up: every process's files in the folder."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, multiprocess

from games import metrics


def sample(name: str, **labels: str) -> float:
    """The value of the sample ``name`` with these labels (0 if never counted)."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=metrics.DIRECTORY)
    value = registry.get_sample_value(name, labels)
    return value or 0.0
