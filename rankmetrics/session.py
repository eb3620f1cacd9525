"""Old import path of :mod:`rankmetrics.analysis.session`, kept so existing code keeps working."""

import sys

from .analysis import session as _module

sys.modules[__name__] = _module
