"""Views of a game state for one seat: the data (:mod:`.model`), the hints
that shape it (:mod:`.hints`) and its renderers (:mod:`.terminal`; the web
page draws the same data in the browser)."""
from ...game import DisplayHints, check_display, read_hints
from .model import ViewMaker, build_view

__all__ = ["DisplayHints", "ViewMaker", "build_view", "check_display", "read_hints"]
