"""The GUI records runs with the engine's one recorder (engine/project/recording.py); this module
only keeps the names older GUI code imports."""

from engine.project import LEGACY_MAPPING_KEY as MAPPING_KEY
from engine.project import RunRecorder, mapping_of

__all__ = ["MAPPING_KEY", "RunRecorder", "mapping_of"]
