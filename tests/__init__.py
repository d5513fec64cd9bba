"""gin3's tests."""
