"""Simulation backends: every task's result or error comes back, whatever the workers do."""
from __future__ import annotations

import os

import pytest

from interpreter.tools.backends import BackendError, LocalBackend, RayBackend, make_backend


def square_or_fail(x):
    if x == 3:
        raise ValueError("three is bad")
    if x == 5:
        os._exit(7)                       # the worker process dies
    return x * x


def square(x):
    return x * x


def _collect(backend, fn, tasks):
    return {d.index: (d.value, d.error) for d in backend.run(fn, tasks)}


def test_one_process_reports_a_failing_task_and_keeps_the_rest():
    got = _collect(LocalBackend(1), square, [1, 2, 3, 4])
    assert got == {0: (1, None), 1: (4, None), 2: (9, None), 3: (16, None)}
    got = _collect(LocalBackend(1), square_or_fail, [1, 3, 4])
    assert got[1][0] is None and "three is bad" in got[1][1]
    assert got[0] == (1, None) and got[2] == (16, None)


def test_a_dead_worker_is_named_and_the_other_tasks_are_kept():
    tasks = list(range(8))
    got = _collect(LocalBackend(2), square_or_fail, tasks)
    assert sorted(got) == tasks
    assert "three is bad" in got[3][1]
    assert got[5][0] is None and "died" in got[5][1]
    for i in (0, 1, 2, 4, 6, 7):
        assert got[i] == (i * i, None)


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(BackendError, match="unknown backend 'nope'"):
        make_backend("nope")


@pytest.fixture(scope="module")
def ray_backend():
    pytest.importorskip("ray", reason="the ray backend needs the ray extra (pip install -e '.[ray]')")
    import sys
    from ray import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # Ray's workers cannot import tests/
    backend = RayBackend(jobs=2)
    yield backend
    import ray
    ray.shutdown()


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_ray_returns_every_result_and_reports_a_failing_task(ray_backend):
    got = _collect(ray_backend, square_or_fail, [1, 2, 3, 4])
    assert got[0] == (1, None) and got[1] == (4, None) and got[3] == (16, None)
    assert got[2][0] is None and "three is bad" in got[2][1]


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_ray_reports_a_dead_worker_and_keeps_the_rest(ray_backend):
    got = _collect(ray_backend, square_or_fail, [4, 5, 6])
    assert got[0] == (16, None) and got[2] == (36, None)
    assert got[1][0] is None and got[1][1]
