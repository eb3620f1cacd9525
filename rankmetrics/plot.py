"""Old import path of :mod:`rankmetrics.analysis.plot`, kept so existing code keeps working."""

import sys

from .analysis import plot as _module

sys.modules[__name__] = _module
