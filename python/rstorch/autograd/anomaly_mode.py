"""Anomaly detection: a NaN produced in backward raises an error naming the op behind it."""
from .. import _C


def set_detect_anomaly(mode, check_nan=True):
    _C._set_detect_anomaly(bool(mode))


def is_anomaly_enabled():
    return _C._is_anomaly_enabled()


class detect_anomaly:
    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = _C._is_anomaly_enabled()
        _C._set_detect_anomaly(True)
        return self

    def __exit__(self, *exc):
        _C._set_detect_anomaly(self._prev)
        return False
