"""The observation writer's loops over the components moved since its last write, in a module
of their own so that the native build compiles them (setup.py NATIVE_MODULES; ``movewrite.pxd``
beside this file gives their C types: the cells written through a typed memoryview).  In pure
Python they are what the writer's generated update ran in place (observation_writer._updater).

A moved component counts once, at its first entry in ``new``: where it is now differs from
where the writer saw it last (``before``); then 1 comes off the count cell of the zone left and
onto that of the zone entered, and off/on the component's label cell in each zone.
"""
from __future__ import annotations


def write_moves(m, new, before, where, count, lab, nc):
    """``lab[zone * nc + cid]``: the label cell of component ``cid`` in ``zone`` under the
    viewer's visibility (the writer's own last cell where the zone is not seen)."""
    for cid in new:
        old = before[cid]
        now = where[cid]
        if old != now:
            before[cid] = now
            m[count[old]] -= 1.0
            m[count[now]] += 1.0
            m[lab[old * nc + cid]] -= 1.0
            m[lab[now * nc + cid]] += 1.0


def write_moves_weighed(m, new, before, where, count, label, vis, nc):
    """The same, the label cells weighed by ``vis`` (per zone, what the viewer sees of it)."""
    for cid in new:
        old = before[cid]
        now = where[cid]
        if old != now:
            before[cid] = now
            m[count[old]] -= 1.0
            m[count[now]] += 1.0
            w = vis[old]
            if w:
                m[label[old * nc + cid]] -= w
            w = vis[now]
            if w:
                m[label[now * nc + cid]] += w
