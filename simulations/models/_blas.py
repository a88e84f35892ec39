"""BLAS thread control for the solvers' many small matrix products."""

from __future__ import annotations

import contextlib
import functools

__all__ = ["single_threaded_blas"]

try:  # optional: keeps BLAS single-threaded inside the many tiny calls of the solvers
    from threadpoolctl import ThreadpoolController as _ThreadpoolController
except ImportError:  # pragma: no cover - exercised only without threadpoolctl
    _ThreadpoolController = None


@functools.cache
def _threadpool_controller():
    return _ThreadpoolController()


def single_threaded_blas() -> contextlib.AbstractContextManager:
    """Context limiting BLAS to one thread while it is open (a no-op without ``threadpoolctl``).

    L-BFGS-B and Lloyd make hundreds of calls on matrices of a few dozen entries to a few
    hundred thousand; on small machines waking BLAS worker threads for each one (NumPy's and
    SciPy's OpenBLAS each keep their own pool) costs milliseconds per call, more than the call
    itself. scikit-learn limits its K-Means the same way. The fits of
    :class:`~simulations.models.LogisticRegression`, :func:`~simulations.models.kmeans` and
    :class:`simulations.gcul.GCUL` open it themselves; open it around a loop of many small fits
    to pay for the thread-pool lookup once.

    Returns
    -------
    context manager
        ``threadpoolctl``'s limiter (restores the previous limits on exit), or
        :func:`contextlib.nullcontext` when ``threadpoolctl`` is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.models import LogisticRegression, single_threaded_blas
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> with single_threaded_blas():
    ...     labels = LogisticRegression().fit(X, [0, 0, 1, 1]).predict(X)
    >>> labels.tolist()
    [0, 0, 1, 1]
    """
    if _ThreadpoolController is None:
        return contextlib.nullcontext()
    return _threadpool_controller().limit(limits=1, user_api="blas")
