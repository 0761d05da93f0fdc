"""Pictures of components (``display: components: <kind>: image:``) folded into the document.

The HTML is one self-contained file, so a picture goes in as a ``data:`` address.  A path is
checked as every picture of a rulebook is (RW257: inside the folder, a picture file, not too
large); one that is not fit to show is left out.
"""
from __future__ import annotations

import base64
from pathlib import Path

from ...game import IMAGE_TYPES, image_problem


def pictures_of(hints, root: Path, kind: str) -> list:
    """``data:`` addresses of the pictures of ``kind`` (one, or one per value of an attribute, in the
    order written); those not fit to show are left out."""
    spec = hints.components.get(kind, {}).get("image")
    paths = list(spec[1].values()) if isinstance(spec, tuple) else [spec]
    out = []
    for rel in paths:
        if not isinstance(rel, str) or image_problem(root, rel) is not None:
            continue
        path = Path(root) / rel
        kind_of = IMAGE_TYPES.get(path.suffix.lower())
        if kind_of is not None:
            out.append(f"data:{kind_of};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}")
    return out
