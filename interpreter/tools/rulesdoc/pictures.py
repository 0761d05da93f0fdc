"""Pictures of components (``display: components: <kind>: image:``) folded into the document.

The HTML is one self-contained file, so a picture goes in as a ``data:`` address.  A path is
checked as every picture of a rulebook is (RW257: inside the folder, a picture file, not too
large); one that is not fit to show is left out.
"""
from __future__ import annotations

import base64
from pathlib import Path

from ...game import IMAGE_TYPES, image_problem


def picture_of(hints, root: Path, kind: str) -> str | None:
    """A ``data:`` address of the picture of ``kind`` (the first of one picture per value), or None."""
    spec = hints.components.get(kind, {}).get("image")
    if isinstance(spec, tuple):
        spec = next(iter(spec[1].values()), None)
    if not isinstance(spec, str) or image_problem(root, spec) is not None:
        return None
    path = Path(root) / spec
    kind_of = IMAGE_TYPES.get(path.suffix.lower())
    if kind_of is None:
        return None
    return f"data:{kind_of};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
