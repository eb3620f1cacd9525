"""Old import path of :mod:`rankmetrics.analysis.vectors`, kept so existing code keeps working."""

import sys

from .analysis import vectors as _module

sys.modules[__name__] = _module
