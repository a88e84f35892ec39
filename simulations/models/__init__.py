"""NumPy/SciPy models used by GCUL: multinomial logistic regression, K-Means, PCA and LDA.

Each model reproduces one scikit-learn estimator exactly enough for the synthetic protocol
(same objective, same convergence rules, same subspaces), with NumPy/SciPy code of its own:

- :class:`LogisticRegression`: multinomial L2 logistic regression, the objective of
  ``sklearn.linear_model.LogisticRegression(C=C, solver="lbfgs")``; a scikit-learn estimator
  (``BaseEstimator``/``ClassifierMixin``: scikit-learn supplies the API, not the fit);
- :func:`kmeans`: Lloyd's algorithm from given initial centres, the iteration of
  ``sklearn.cluster.KMeans(init=init, n_init=1, algorithm="lloyd")``;
- :func:`pca` and :func:`lda`: the projections of ``sklearn.decomposition.PCA`` and
  ``sklearn.discriminant_analysis.LinearDiscriminantAnalysis(solver="svd")``, returned as a
  :class:`LinearProjection`;
- :func:`single_threaded_blas`: the context the solvers run in (BLAS on one thread);
- :func:`lbfgsb_minimize`: ``scipy.optimize.minimize(method="L-BFGS-B")`` bit for bit, driving
  SciPy's core without ``minimize``'s wrappers (the logistic regressions and the trained
  rejectors use it).

Inputs are validated at these public entry points. :class:`LogisticRegression` uses
scikit-learn's checks (``validate_data``: its messages, ``NotFittedError``, feature names);
:func:`kmeans`, :func:`pca` and :func:`lda` require a real, finite numeric matrix (complex and
string arrays raise ``TypeError`` rather than being cast). Every solver runs on ``X`` times a
power of two that brings its largest magnitude into ``[0.5, 1)``; the scaling is exact, so
results do not change for data of ordinary scale, and features near ``1e300`` or ``1e-300``
neither overflow nor underflow.

If ``threadpoolctl`` is installed, the solvers keep BLAS on one thread while they run (see
:func:`single_threaded_blas`); without it they are correct but can be much slower on small
machines.

Where a change goes: ``_logistic.py`` (the estimator and its fit), ``_design.py`` (the whitened
design and the fused loss), ``_kmeans.py``, ``_lbfgsb.py`` (L-BFGS-B without ``minimize``),
``_projection.py``, ``_blas.py``, ``_numerics.py``
(power-of-two scaling, the fast argmin, label encoding), ``_validation.py``.
"""

from typing import TYPE_CHECKING

from ._blas import single_threaded_blas
from ._kmeans import kmeans
from ._projection import LinearProjection, lda, pca

if TYPE_CHECKING:
    from ._lbfgsb import lbfgsb as lbfgsb_minimize
    from ._logistic import ConvergenceWarning, LogisticRegression

__all__ = [
    "ConvergenceWarning",
    "LinearProjection",
    "LogisticRegression",
    "kmeans",
    "lbfgsb_minimize",
    "lda",
    "pca",
    "single_threaded_blas",
]

# The name the sweep, the CLI and the benchmarks imported before it became public; kept so that
# their imports keep working until they switch to single_threaded_blas.
_single_threaded_blas = single_threaded_blas


def __getattr__(name: str):
    # LogisticRegression (and its warning) load scikit-learn, for its estimator API; imported on
    # first use, so that a process that only needs kmeans or single_threaded_blas (the parent of
    # a sweep) does not pay for scikit-learn's import (0.3 s, scipy.stats included)
    if name in ("ConvergenceWarning", "LogisticRegression"):
        from . import _logistic

        return getattr(_logistic, name)
    if name == "lbfgsb_minimize":  # loads scipy.optimize: on first use too
        from ._lbfgsb import lbfgsb

        return lbfgsb
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
