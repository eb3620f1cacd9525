"""Old import path of :mod:`rankmetrics.analysis.stats`, kept so existing code keeps working."""

import sys

from .analysis import stats as _module

sys.modules[__name__] = _module
