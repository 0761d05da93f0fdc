"""Where simulations run: processes on this machine, or a Ray cluster.

A simulation is a list of independent *tasks* (a batch of seeds each) and a
module-level function that does one task.  A backend runs them and yields a
:class:`Done` per task as it finishes, in any order; callers sort by task
index, so the numbers never depend on the backend or the number of workers.

* :class:`LocalBackend` — ``jobs`` processes of this machine (``jobs=1``:
  this process, nothing pickled).  A task that raises is reported with its
  error; a worker process that dies (a crash, the OOM killer) breaks the
  pool, and the tasks that had not finished are run again one at a time so
  that the one that kills its worker is named and the others are kept.
* :class:`RayBackend` — Ray tasks (``pip install 'regelwerk[ray]'``) on a
  local Ray (``address=None``) or a cluster (``address="ray://host:10001"``
  or ``"auto"``).  Each task is retried never; a task whose worker dies
  comes back as a :class:`Done` with the error, the others are unaffected.

Task functions load a rulebook through a per-process cache
(``interpreter.simulate._book``), so each worker loads it once however many
tasks it runs.
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable, Iterator


@dataclass
class Done:
    """One finished task: its index in the task list, and its value or the error that ended it."""
    index: int
    value: Any = None
    error: str | None = None


class BackendError(Exception):
    """A backend cannot start (Ray missing, no cluster at the address)."""


def watch_parent(parent: int, every: float = 0.5) -> None:
    """A pool worker's initializer: the worker ends itself once ``parent`` is gone (killed with -9,
    its pool never shut down) instead of finishing its queued tasks and waiting for ever."""
    import threading
    import time

    def watch():
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)
    threading.Thread(target=watch, name="regelwerk-parent-watch", daemon=True).start()


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool whose workers exit when this process dies."""
    return ProcessPoolExecutor(max_workers=jobs, initializer=watch_parent, initargs=(os.getpid(),))


class LocalBackend:
    name = "processes"

    def __init__(self, jobs: int = 1):
        self.jobs = max(1, int(jobs))

    def describe(self) -> str:
        return f"{self.jobs} process{'es' * (self.jobs != 1)} on this machine"

    def start(self) -> None:
        """Nothing to start: the pool is made for each run."""

    def run(self, fn: Callable, tasks: list) -> Iterator[Done]:
        if self.jobs == 1 or len(tasks) <= 1:
            for i, task in enumerate(tasks):
                try:
                    yield Done(i, fn(task))
                except Exception as exc:        # a task's failure is reported, the others go on
                    yield Done(i, error=f"{type(exc).__name__}: {exc}")
            return
        left = set(range(len(tasks)))
        try:
            with worker_pool(self.jobs) as pool:
                futures = {pool.submit(fn, tasks[i]): i for i in sorted(left)}
                while futures:
                    finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        i = futures.pop(fut)
                        exc = fut.exception()
                        if isinstance(exc, BrokenProcessPool):
                            raise exc
                        left.discard(i)
                        yield Done(i, fut.result()) if exc is None else Done(i, error=f"{type(exc).__name__}: {exc}")
        except BrokenProcessPool:
            # a worker died: find the task that kills it by running the rest one at a time
            for i in sorted(left):
                with worker_pool(1) as solo:
                    fut = solo.submit(fn, tasks[i])
                    try:
                        yield Done(i, fut.result())
                    except BrokenProcessPool:
                        yield Done(i, error="the worker process died (crashed or was killed) running this task")
                    except Exception as exc:
                        yield Done(i, error=f"{type(exc).__name__}: {exc}")


class RayBackend:
    name = "ray"

    def __init__(self, address: str | None = None, jobs: int | None = None):
        try:
            import ray
        except ImportError as exc:
            raise BackendError(f"the ray backend needs the ray extra: pip install 'regelwerk[ray]' ({exc})") from None
        self.ray = ray
        self.address = address
        self.jobs = jobs
        self._started = False

    def describe(self) -> str:
        where = self.address or "a local Ray"
        return f"Ray ({where}, {self.ray.cluster_resources().get('CPU', 0):g} CPUs)" if self._started else f"Ray ({where})"

    def start(self) -> None:
        """Connect to the cluster (or start a local Ray) now rather than at the first run."""
        ray = self.ray
        if ray.is_initialized():
            self._started = True
            return
        kwargs: dict = {"ignore_reinit_error": True, "log_to_driver": False, "include_dashboard": False,
                        "configure_logging": False}
        if self.address:
            kwargs["address"] = self.address
        else:
            if self.jobs:
                kwargs["num_cpus"] = self.jobs
            # local workers import this package from where the driver does (a source checkout too)
            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            path = os.pathsep.join(p for p in [here, os.environ.get("PYTHONPATH", "")] if p)
            kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
        try:
            ray.init(**kwargs)
        except Exception as exc:
            raise BackendError(f"cannot start Ray{' at ' + self.address if self.address else ''}: {exc}") from None
        self._started = True

    def run(self, fn: Callable, tasks: list) -> Iterator[Done]:
        self.start()
        ray = self.ray
        remote = ray.remote(max_retries=0)(fn)
        refs = {remote.remote(task): i for i, task in enumerate(tasks)}
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                i = refs[ref]
                try:
                    yield Done(i, ray.get(ref))
                except ray.exceptions.RayTaskError as exc:
                    cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                    yield Done(i, error=f"{type(cause).__name__}: {cause}")
                except Exception as exc:            # a worker that died, an object lost with its node
                    yield Done(i, error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


def make_backend(name: str = "processes", jobs: int | None = None, address: str | None = None):
    """``processes`` (``jobs`` processes; default: the CPU count, at most 4) or ``ray``."""
    if name == "processes":
        return LocalBackend(jobs or min(os.cpu_count() or 1, 4))
    if name == "ray":
        return RayBackend(address, jobs)
    raise BackendError(f"unknown backend '{name}' (backends: processes, ray)")
