"""The pictures a served rulebook shows (`display:` images and boards), and nothing else.

A picture is served only when its rulebook's `display:` names it and it passed the
loader's checks (inside the rulebook folder, links followed; a regular file of at
most IMAGE_BYTES; a picture's ending): the address is
``/images/<folder>/<path as written>``, ``<folder>`` naming the rulebook's folder
(:func:`image_folder`).  Each request checks the file again (it may have become a
link out of the folder since) and reads at most IMAGE_BYTES.  An SVG file may hold
a script: the page draws pictures with ``<img>`` (where no script runs), and every
picture is sent with a Content-Security-Policy that allows none and sandboxes a
picture opened on its own.
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from starlette.responses import Response
from starlette.routing import Route

from .guard import Refused, endpoint
from ...game import IMAGE_BYTES, IMAGE_TYPES, image_folder, image_name, image_problem

#: sent with every picture: no script, no request of its own, a sandbox when opened alone
IMAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"


def declared_images(rulebooks) -> dict:
    """folder part -> {path in the address -> (rulebook folder, path as written, file)} for every picture the rulebooks
    may show (those their compiled `display:` kept: engine/display/display.py check_images)."""
    out: dict = {}
    for rb in rulebooks:
        root = Path(rb.game.root)
        out.setdefault(image_folder(root), {}).update({image_name(rel): (root, rel, path)
                                                       for rel, path in rb.game.images.items()})
    return out


def image_routes(rulebooks) -> list:
    """GET /images/<folder>/<path>: a declared picture of a served rulebook, else 404."""
    known = declared_images(rulebooks)

    def image(request, _):
        folder, rel = request.path_params["folder"], request.path_params["rel"]
        entry = known.get(folder, {}).get(rel)
        if entry is None:
            raise Refused("no such page", 404)
        root, written, path = entry
        if image_problem(root, written) is not None:    # the check of loading again: changed since? not served
            raise Refused("no such page", 404)
        try:
            with open(path, "rb") as f:
                data = f.read(IMAGE_BYTES + 1)
        except OSError:
            raise Refused("no such page", 404) from None
        if len(data) > IMAGE_BYTES:
            raise Refused("no such page", 404)
        return Response(data, media_type=IMAGE_TYPES[PurePosixPath(rel).suffix.lower()],
                        headers={"Content-Security-Policy": IMAGE_POLICY, "Cache-Control": "no-cache"})

    return [Route("/images/{folder}/{rel:path}", endpoint(image))]
