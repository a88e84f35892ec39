r"""``selectivenet``: a linear SelectiveNet trained for a target coverage.

Architecture (``LinearSelectiveNet`` of ``tab:experimental_parameters`` of the GCUL paper): three
linear heads on the features, no hidden layer: prediction :math:`f(x) = \mathrm{softmax}(Wx + b)`,
selection :math:`g(x) = \mathrm{sigmoid}(v^\top x + c_0)`, auxiliary
:math:`h(x) = \mathrm{softmax}(W'x + b')`. The heads work on whitened features
(:class:`~simulations.rejectors._linear.Whitening` of the training split: an invertible affine
map, so the model class is the same).

Loss (Geifman & El-Yaniv 2019, Eqs. (2)-(4); α = 0.5, λ = 32 as the paper's table), on a batch
:math:`B` of size :math:`m` with cross-entropy :math:`\ell`:

.. math::

    \hat r(f, g) = \frac{\frac1m \sum_{i \in B} \ell(f(x_i), y_i)\, g(x_i)}{\hat\phi(g)}, \quad
    \hat\phi(g) = \frac1m \sum_{i \in B} g(x_i), \quad
    \mathcal L_{(f,g)} = \hat r(f, g) + λ \max(0, c - \hat\phi(g))^2,

    \mathcal L = α\, \mathcal L_{(f,g)} + (1 - α) \frac1m \sum_{i \in B} \ell(h(x_i), y_i)
        + \frac{1}{2Cn}\bigl(\lVert V\rVert^2 + \lVert v\rVert^2 + \lVert V'\rVert^2\bigr),

the last term a ridge on the (whitened) weights, not the intercepts, with C = 1 as GCUL's logistic
regressions (:math:`\frac{1}{2Cn} \approx 5 \cdot 10^{-5}` on the paper-size split): it keeps
the full-batch optimum finite where the accepted samples are separable, and changes 30 epochs of
Adam by nothing measurable. The division by the empirical coverage follows the paper's Eq. (2) and
the PyTorch port (gatheluck/pytorch-SelectiveNet, ``selectivenet/loss.py``); the authors' Keras code
(geifmany/selectivenet, ``selective_loss``) omits it.

Training: ``solver="adam"``, the paper's protocol (30 epochs, lr 1e-3, batch 256, Adam; PyTorch's
``nn.Linear`` initialisation, drawn from the seed) -- the reference; or ``solver="lbfgs"``,
full-batch L-BFGS on the same loss started from GCUL's phase-1 coefficients (prediction head),
:math:`v = 0` and :math:`c_0 = \mathrm{logit}(c)` (clipped to [0.01, 0.99]), so that
:math:`\hat\phi(g) = c` at the start. In a linear SelectiveNet the three heads share no
parameter, so the auxiliary term does not move :math:`(W, v)`: L-BFGS leaves the auxiliary head out
(it is never used to score or predict). L-BFGS stops when the largest gradient entry is at most
1e-4 (whitened coordinates), as GCUL's logistic regressions.

Which one the sweep uses: ``"lbfgs"`` (``fit``). On the paper-size protocol (9,600 training
samples: 38 batches an epoch) the paper's 30 epochs of Adam (1,140 steps of at most 1e-3) do not
train the selection head: g ≥ 0.5 on every training sample in 8 of 9 cells, and a full-batch
objective 1.1-2.7 times L-BFGS's. With 300 epochs Adam's objective is within 1.3% of L-BFGS's
(L-BFGS always lower) and its selective risk at the target coverage is within one test-set
standard error of L-BFGS's in all 9 cells (largest gap 0.008); its own g ≥ 0.5 coverage is still
0.95-1.0, against 0.83-0.92 for L-BFGS (targets 0.80-0.89). Table and command in
``benchmarks/rejectors.md``.

Score: the selection logit :math:`v^\top x + c_0` (a strictly increasing transform of
:math:`g`, without the ties of :math:`g` rounding to 1). Prediction: :math:`\arg\max f(x)`.
Operating point: :math:`g(x) \ge 0.5` (the paper's rule), whatever λ (the model was trained for
a coverage, not a cost).

References
----------
.. [1] Y. Geifman and R. El-Yaniv, "SelectiveNet: a deep neural network with an integrated reject
   option", ICML 2019.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.special import expit

from simulations import registry
from simulations.rejectors._base import (
    FittedRejector,
    Rejector,
    RejectorContext,
    check_training_data,
    child_seed,
)
from simulations.rejectors._linear import (
    Whitening,
    adam,
    check_solver_arguments,
    lbfgs,
    pytorch_linear_init,
    whitening,
)

__all__ = [
    "ALPHA",
    "COVERAGE_PENALTY",
    "FittedSelectiveNet",
    "REJECTOR",
    "fit",
    "fit_selectivenet",
    "selective_loss",
]

ALPHA = 0.5
"""α: weight of the selective loss against the auxiliary loss."""
COVERAGE_PENALTY = 32.0
"""λ of the coverage constraint :math:`λ \\max(0, c - \\hat\\phi)^2`."""
EPOCHS, LEARNING_RATE, BATCH_SIZE = 30, 1e-3, 256  # tab:experimental_parameters
C_RIDGE = 1.0  # inverse ridge strength, as GCUL's logistic regressions
LBFGS_GTOL = 1e-4  # as GCUL's logistic regressions (tol=1e-4), in whitened coordinates
_STREAM = 0  # child stream of the context's seed (initialisation and shuffling)


def _softmax_cross_entropy(logits: np.ndarray, flat: np.ndarray):
    """``(softmax(logits), -log softmax(logits)[y])`` along axis 0, ``flat`` the flat indices of
    the ``(y_i, i)`` entries; overwrites ``logits``."""
    top = np.maximum.reduce(logits, axis=0)
    logits -= top
    log_norm = np.log(np.add.reduce(np.exp(logits), axis=0))
    ce = log_norm - logits.ravel().take(flat)
    logits -= log_norm
    return np.exp(logits, out=logits), ce


def selective_loss(
    theta: np.ndarray,
    ZT: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    coverage: float,
    penalty: float,
    *,
    auxiliary: bool,
    alpha: float = ALPHA,
    coverage_penalty: float = COVERAGE_PENALTY,
) -> tuple[float, np.ndarray]:
    r"""The SelectiveNet loss (module docstring) and its analytic gradient.

    Parameters
    ----------
    theta : ndarray
        Flat parameters: rows ``[W | b]`` (``K`` rows), ``[v | c_0]`` (one row) and, if
        ``auxiliary``, ``[W' | b']`` (``K`` rows), each of length ``d + 1``.
    ZT : ndarray of shape (d + 1, m)
        Whitened features of the batch with a last row of ones.
    y : ndarray of shape (m,)
        Labels in ``0..K-1``.
    n_classes : int
        ``K``.
    coverage : float
        Target coverage ``c``.
    penalty : float
        Ridge coefficient ``1 / (C n)`` on the weights (not the last column).
    auxiliary : bool
        Whether ``theta`` holds the auxiliary head (and the loss its term).

    Returns
    -------
    value : float
    gradient : ndarray, shape of ``theta``

    Notes
    -----
    With :math:`A = \frac1m\sum \ell_i g_i`, :math:`\hat\phi = \frac1m\sum g_i`,
    :math:`\hat r = A/\hat\phi` and :math:`s = \max(0, c - \hat\phi)`:
    :math:`\partial \mathcal L_{(f,g)}/\partial g_i = \frac1m[(\ell_i - \hat r)/\hat\phi - 2λs]`,
    :math:`\partial g_i/\partial u_i = g_i(1 - g_i)`, and
    :math:`\partial \mathcal L_{(f,g)}/\partial a_i = \frac{g_i}{m\hat\phi}(f(x_i) - e_{y_i})`
    for the prediction logits :math:`a_i`.
    """
    d1, m = ZT.shape
    K = n_classes
    P = theta.reshape(-1, d1)
    flat = y * m + np.arange(m)
    grad = np.empty_like(P)
    # prediction head: softmax probabilities and cross-entropy from one stable log-sum-exp
    probs, ce = _softmax_cross_entropy(P[:K] @ ZT, flat)
    u = P[K] @ ZT
    g = expit(u)  # g(1 - g) below as expit(u) expit(-u): no cancellation where g rounds to 1
    phi = g.mean()
    risk = np.dot(ce, g) / m / phi
    short = max(0.0, coverage - phi)
    value = alpha * (risk + coverage_penalty * short * short)
    probs.ravel()[flat] -= 1.0
    probs *= (alpha / (m * phi)) * g
    np.dot(probs, ZT.T, out=grad[:K])
    d_g = (alpha / m) * ((ce - risk) / phi - 2.0 * coverage_penalty * short)
    np.dot(d_g * g * expit(-u), ZT.T, out=grad[K])
    if auxiliary:
        aux_probs, aux_ce = _softmax_cross_entropy(P[K + 1 :] @ ZT, flat)
        value += (1.0 - alpha) * aux_ce.mean()
        aux_probs.ravel()[flat] -= 1.0
        np.dot(aux_probs, ZT.T, out=grad[K + 1 :])
        grad[K + 1 :] *= (1.0 - alpha) / m
    weights = P[:, :-1]
    value += 0.5 * penalty * np.vdot(weights, weights)
    grad[:, :-1] += penalty * weights
    return float(value), grad.ravel()


class FittedSelectiveNet(FittedRejector):
    """A trained linear SelectiveNet (use :func:`fit_selectivenet`).

    Attributes
    ----------
    whitening_ : Whitening
        The feature map of the training split.
    prediction_ : ndarray of shape (K, d + 1)
        ``[W | b]`` in whitened coordinates.
    selection_ : ndarray of shape (d + 1,)
        ``[v | c_0]``.
    auxiliary_ : ndarray of shape (K, d + 1) or None
        ``[W' | b']`` (``None`` for ``solver="lbfgs"``).
    target_coverage_ : float
    solver_ : str
    n_iter_ : int
        L-BFGS iterations, or Adam steps.
    converged_ : bool
        Whether L-BFGS met its criterion (Adam: always True, a fixed budget).
    """

    name = "selectivenet"
    has_operating_point = True

    def __init__(self, whitening_: Whitening, theta, n_classes, coverage, solver, n_iter, conv):
        super().__init__(whitening_.mean.shape[0], n_classes)
        P = theta.reshape(-1, whitening_.mean.shape[0] + 1)
        self.whitening_ = whitening_
        self.prediction_ = P[:n_classes]
        self.selection_ = P[n_classes]
        self.auxiliary_ = P[n_classes + 1 :] if P.shape[0] > n_classes + 1 else None
        self.target_coverage_ = coverage
        self.solver_ = solver
        self.n_iter_ = n_iter
        self.converged_ = conv

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ZT = self.whitening_.design(X)
        labels = np.argmax(self.prediction_ @ ZT, axis=0).astype(np.int64)
        return self.selection_ @ ZT, labels

    def _accept(self, X: np.ndarray, lam: float) -> np.ndarray:
        return self._score_predict(X)[0] >= 0.0  # g(x) >= 0.5


def fit_selectivenet(
    X,
    y,
    target_coverage: float,
    *,
    solver: Literal["adam", "lbfgs"] = "lbfgs",
    seed: np.random.SeedSequence | int = 0,
    phase1=None,
    n_classes: int | None = None,
    epochs: int = EPOCHS,
    max_iter: int = 500,
    gtol: float = LBFGS_GTOL,
) -> FittedSelectiveNet:
    """Train a linear SelectiveNet for ``target_coverage`` (module docstring).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Finite training features.
    y : array_like of shape (n,)
        Labels in ``0..K-1``.
    target_coverage : float
        ``c ∈ (0, 1]``.
    solver : {"adam", "lbfgs"}, default="lbfgs"
        The paper's mini-batch Adam, or full-batch L-BFGS on the same loss.
    seed : SeedSequence or int, default=0
        Seeds Adam's initialisation and shuffling (L-BFGS draws nothing).
    phase1 : LogisticRegression, optional
        A fitted ``K``-class model on ``X`` whose coefficients start L-BFGS's prediction head
        (GCUL's phase 1); without it the prediction head starts at zero. Ignored by Adam.
    n_classes : int, optional
        ``K``; by default ``max(y) + 1``.
    epochs : int, default=30
        Adam's epochs.
    max_iter : int, default=500
        L-BFGS's iteration cap.
    gtol : float, default=1e-4
        L-BFGS stops when the largest gradient entry is at most ``gtol`` (> 0).

    Returns
    -------
    FittedSelectiveNet

    Raises
    ------
    ValueError, TypeError
        For a bad argument (the message names it).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(-2, 1, (200, 2)), rng.normal(2, 1, (200, 2))])
    >>> y = np.repeat([0, 1], 200)
    >>> net = fit_selectivenet(X, y, 0.8)
    >>> net.solver_, bool(net.converged_)
    ('lbfgs', True)
    >>> bool(np.mean(net.accept(X, 0.15)) >= 0.8)  # the constraint is coverage >= c
    True
    """
    X, y, K = check_training_data(X, y, n_classes)
    if isinstance(target_coverage, bool) or not 0.0 < target_coverage <= 1.0:
        raise ValueError(f"target_coverage must be in (0, 1]; got {target_coverage!r}")
    seed = check_solver_arguments(solver, seed, gtol)
    n, d = X.shape
    white = whitening(X)
    ZT = white.design(X)
    coverage = float(target_coverage)
    penalty = 1.0 / (C_RIDGE * n)
    if solver == "adam":
        rng = np.random.default_rng(seed)
        theta0 = np.concatenate(
            [
                pytorch_linear_init(rng, K, d),
                pytorch_linear_init(rng, 1, d),
                pytorch_linear_init(rng, K, d),
            ]
        ).ravel()

        def batch_loss(theta, rows):
            return selective_loss(theta, ZT[:, rows], y[rows], K, coverage, penalty, auxiliary=True)

        trained = adam(
            batch_loss, theta0, n, rng, epochs=epochs, lr=LEARNING_RATE, batch_size=BATCH_SIZE
        )
    else:
        if phase1 is None:
            prediction = np.zeros((K, d + 1))
        else:
            prediction = white.coefficients_from_raw(phase1.coef_, phase1.intercept_)
        start = float(np.clip(coverage, 0.01, 0.99))
        selection = np.zeros((1, d + 1))
        selection[0, d] = np.log(start / (1.0 - start))
        theta0 = np.concatenate([prediction, selection]).ravel()

        def full_loss(theta, rows):
            return selective_loss(theta, ZT, y, K, coverage, penalty, auxiliary=False)

        trained = lbfgs(full_loss, theta0, max_iter=max_iter, gtol=gtol)
    return FittedSelectiveNet(
        white, trained.theta, K, coverage, solver, trained.n_iter, trained.converged
    )


def fit(context: RejectorContext) -> FittedSelectiveNet:
    """Train on ``context`` for ``context.target_coverage`` with L-BFGS from phase 1.

    Raises
    ------
    ValueError
        If ``context.target_coverage`` is None.
    """
    if context.target_coverage is None:
        raise ValueError(
            "the 'selectivenet' rejector is trained for a target coverage: pass "
            "target_coverage in (0, 1] to RejectorContext"
        )
    return fit_selectivenet(
        context.X_train,
        context.y_train,
        context.target_coverage,
        solver="lbfgs",
        seed=child_seed(context.seed, _STREAM),
        phase1=context.model.phase1_,
        n_classes=context.n_classes,
    )


REJECTOR = Rejector(
    name="selectivenet",
    label=registry.method("selectivenet").label,
    description=(
        "selection head logit of a linear SelectiveNet trained for the target coverage "
        "(alpha = 0.5, lambda = 32); prediction: its prediction head"
    ),
    operating_point="g(x) >= 0.5 (trained for the target coverage; lam not used)",
    reference=(
        "Geifman & El-Yaniv 2019; the GCUL paper's table “Experimental parameter "
        "configurations for selective classification baselines and GCUL”"
    ),
    needs_truth=False,
    needs_target_coverage=True,
    fit=fit,
)
