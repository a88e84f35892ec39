r"""``deep_gamblers``: a linear model with an abstention output, trained with the gambler's loss.

Model: :math:`K + 1` linear logits :math:`a(x) = \Theta [z; 1]` on whitened features ``z``
(:class:`~simulations.rejectors._linear.Whitening`), :math:`p = \mathrm{softmax}(a)`, the last
output :math:`p_{K+1}` the stake kept back (abstention). Loss (Liu et al. 2019, Eq. (5); their
reference code, Z-T-WANG/NIPS2019DeepGamblers ``main.py``,
``-log(gain + reservation / reward)``), with a ridge on the weights as SelectiveNet's:

.. math::

    \mathcal L = -\frac1n \sum_i \log\Bigl(p_{y_i}(x_i) + \frac{p_{K+1}(x_i)}{o}\Bigr)
        + \frac{1}{2Cn} \lVert V \rVert^2 , \qquad C = 1 .

Payoff. ``o`` must lie in :math:`(1, K)`: for :math:`o \ge K` the uniform bet returns at least
the stake, so abstaining never pays; for :math:`o \le 1` abstaining always does. For a bettor who
knows the posterior :math:`q`, keeping the whole stake is optimal iff :math:`\max_k q_k \le 1/o`
(Kelly betting with a reserve: a class gets a stake iff :math:`o\,q_k` exceeds the kept
fraction; Cover & Thomas, *Elements of Information Theory*, Sec. 6.1), and there the class
outputs get no gradient: the prediction of a sample in that region is untrained. The reference
code's default is ``o = 2.2`` for K = 10. Here :math:`o = (K + 1)/2`, the midpoint of
:math:`(1, K)` (3 for K = 5, 1.5 for K = 2), so that the untrained region is
:math:`\max_k q_k \le 2/(K + 1)`, small enough for the comparison, which scores every sample at
coverages up to 1. Tying the payoff to the cost instead, :math:`o = 1/(1 - λ)` (so that the
full-abstention region is Chow's reject region at λ), was tried and rejected: at λ = 0.15
(:math:`o \approx 1.18`) on seed 16, σ = 6 the class head's test error rose to 0.34 against
0.23 for phase 1, and the AURC to 0.30 against 0.08 at ``o = 3`` (``benchmarks/rejectors.md``).

Pretraining. The reference code pretrains with cross-entropy on the :math:`K` class outputs (100
epochs for CIFAR-10 with ``o < 6.1``, "so that the learning can always start"), leaving the
abstention output at its initialisation. Here GCUL's phase-1 logistic regression is that
cross-entropy fit: its coefficients start the :math:`K` class rows, the abstention row starts at
zero. Then ``solver="lbfgs"`` (full batch, the default) or ``solver="adam"`` (30 epochs, lr 1e-3,
batch 256, the protocol of the paper's SelectiveNet; not the reference's SGD schedule).

Score: :math:`\log(1 - p_{K+1}) - \log p_{K+1} = \operatorname{logsumexp}_{k \le K} a_k -
a_{K+1}`, a strictly increasing transform of :math:`-p_{K+1}` (the reference ranks by
:math:`p_{K+1}`) without its rounding to 0. Prediction: :math:`\arg\max_{k \le K} p_k`. No
natural operating point at a cost λ: the reference chooses the threshold on :math:`p_{K+1}` by
sorting for a target coverage (``sort_by_abortion_to_find_results``), never from a cost.

Solvers. The sweep uses L-BFGS (``fit``; gradient entries at most 1e-4). The gambler's loss is
not convex, and where the bettor keeps its whole stake the class outputs get no gradient (only
the ridge holds them), so at high noise the objective barely determines the class head: on the
paper-size protocol at σ = 14, L-BFGS and 300 epochs of Adam, both from phase 1, end within
5e-4 of each other in objective (either one lower), yet their class heads' test errors differ
by up to 0.05 and their selective risks at GCUL's coverage by up to 5 standard errors; at
σ ≤ 8 they agree within one (``benchmarks/rejectors.md``). Read this rejector's numbers at high
noise with that in mind.

References
----------
.. [1] Z. Liu, Z. Wang, P. P. Liang, R. Salakhutdinov, L.-P. Morency and M. Ueda, "Deep
   Gamblers: learning to abstain with portfolio theory", NeurIPS 2019.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

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
    whitening,
)

__all__ = [
    "FittedDeepGamblers",
    "REJECTOR",
    "fit",
    "fit_deep_gamblers",
    "gamblers_loss",
    "default_payoff",
]

EPOCHS, LEARNING_RATE, BATCH_SIZE = 30, 1e-3, 256
C_RIDGE = 1.0
LBFGS_GTOL = 1e-4  # as GCUL's logistic regressions (tol=1e-4), in whitened coordinates
_STREAM = 1  # child stream of the context's seed (Adam's shuffling)


def gamblers_loss(
    theta: np.ndarray, ZT: np.ndarray, y: np.ndarray, log_payoff: float, penalty: float
) -> tuple[float, np.ndarray]:
    r"""The gambler's loss (module docstring) and its analytic gradient.

    Parameters
    ----------
    theta : ndarray
        Flat ``(K + 1, d + 1)`` rows ``[V | b]``, the abstention row last.
    ZT : ndarray of shape (d + 1, m)
        Whitened features with a last row of ones.
    y : ndarray of shape (m,)
        Labels in ``0..K-1``.
    log_payoff : float
        :math:`\log o`.
    penalty : float
        Ridge coefficient ``1 / (C n)`` on the weights (not the last column).

    Notes
    -----
    Per sample, :math:`\ell = \operatorname{logsumexp}(a) - \operatorname{logaddexp}(a_y,
    a_{K+1} - \log o)`, so :math:`\partial\ell/\partial a = p - w` with :math:`w_y =
    e^{a_y}/(e^{a_y} + e^{a_{K+1}}/o)`, :math:`w_{K+1} = 1 - w_y`, and 0 elsewhere.
    """
    d1, m = ZT.shape
    P = theta.reshape(-1, d1)
    K = P.shape[0] - 1
    logits = P @ ZT
    flat = y * m + np.arange(m)
    top = np.maximum.reduce(logits, axis=0)
    logits -= top
    log_norm = np.log(np.add.reduce(np.exp(logits), axis=0))
    a_y = logits.ravel().take(flat)
    a_abstain = logits[K] - log_payoff
    bet = np.logaddexp(a_y, a_abstain)
    value = float(np.mean(log_norm - bet))
    logits -= log_norm
    probs = np.exp(logits, out=logits)
    weight_y = np.exp(a_y - bet)
    probs.ravel()[flat] -= weight_y
    probs[K] -= 1.0 - weight_y
    grad = probs @ ZT.T
    grad /= m
    weights = P[:, :-1]
    value += 0.5 * penalty * float(np.vdot(weights, weights))
    grad[:, :-1] += penalty * weights
    return value, grad.ravel()


class FittedDeepGamblers(FittedRejector):
    """A trained linear Deep Gamblers model (use :func:`fit_deep_gamblers`).

    Attributes
    ----------
    whitening_ : Whitening
    coef_ : ndarray of shape (K + 1, d + 1)
        Rows ``[V | b]`` in whitened coordinates, the abstention row last.
    payoff_ : float
        ``o``.
    solver_ : str
    n_iter_ : int
        L-BFGS iterations, or Adam steps.
    converged_ : bool
    """

    name = "deep_gamblers"

    def __init__(self, whitening_: Whitening, theta, n_classes, payoff, solver, n_iter, conv):
        super().__init__(whitening_.mean.shape[0], n_classes)
        self.whitening_ = whitening_
        self.coef_ = theta.reshape(n_classes + 1, -1)
        self.payoff_ = payoff
        self.solver_ = solver
        self.n_iter_ = n_iter
        self.converged_ = conv

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits = self.coef_ @ self.whitening_.design(X)
        K = self.n_classes_
        classes = logits[:K]
        labels = np.argmax(classes, axis=0).astype(np.int64)
        top = np.maximum.reduce(classes, axis=0)
        log_bet = top + np.log(np.add.reduce(np.exp(classes - top), axis=0))
        return log_bet - logits[K], labels


def fit_deep_gamblers(
    X,
    y,
    payoff: float,
    *,
    solver: Literal["adam", "lbfgs"] = "lbfgs",
    seed: np.random.SeedSequence | int = 0,
    phase1=None,
    n_classes: int | None = None,
    epochs: int = EPOCHS,
    max_iter: int = 500,
    gtol: float = LBFGS_GTOL,
) -> FittedDeepGamblers:
    """Train a linear Deep Gamblers model with payoff ``o`` (module docstring).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Finite training features.
    y : array_like of shape (n,)
        Labels in ``0..K-1``.
    payoff : float
        ``o ∈ (1, K)``.
    solver : {"adam", "lbfgs"}, default="lbfgs"
    seed : SeedSequence or int, default=0
        Seeds Adam's shuffling (L-BFGS draws nothing).
    phase1 : LogisticRegression, optional
        The cross-entropy ("pretraining") fit whose coefficients start the class rows; zeros
        without it.
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
    FittedDeepGamblers

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
    >>> model = fit_deep_gamblers(X, y, payoff=1.5)
    >>> scores = model.score(np.array([[-3.0, -3.0], [0.0, 0.0]]))
    >>> bool(scores[0] > scores[1])  # abstains more between the classes
    True
    """
    X, y, K = check_training_data(X, y, n_classes)
    if isinstance(payoff, bool) or not isinstance(payoff, (int, float, np.floating)):
        raise TypeError(f"payoff must be a real number in (1, {K}); got {payoff!r}")
    if not 1.0 < payoff < K:
        raise ValueError(
            f"payoff must be in (1, K) = (1, {K}) (o >= K: abstaining never pays; o <= 1: "
            f"abstaining always pays); got {payoff!r}"
        )
    seed = check_solver_arguments(solver, seed, gtol)
    n, d = X.shape
    white = whitening(X)
    ZT = white.design(X)
    theta0 = np.zeros((K + 1, d + 1))
    if phase1 is not None:
        theta0[:K] = white.coefficients_from_raw(phase1.coef_, phase1.intercept_)
    theta0 = theta0.ravel()
    log_payoff = float(np.log(payoff))
    penalty = 1.0 / (C_RIDGE * n)
    if solver == "adam":
        rng = np.random.default_rng(seed)
        trained = adam(
            lambda theta, rows: gamblers_loss(theta, ZT[:, rows], y[rows], log_payoff, penalty),
            theta0,
            n,
            rng,
            epochs=epochs,
            lr=LEARNING_RATE,
            batch_size=BATCH_SIZE,
        )
    else:
        trained = lbfgs(
            lambda theta, rows: gamblers_loss(theta, ZT, y, log_payoff, penalty),
            theta0,
            max_iter=max_iter,
            gtol=gtol,
        )
    return FittedDeepGamblers(
        white, trained.theta, K, float(payoff), solver, trained.n_iter, trained.converged
    )


def default_payoff(n_classes: int) -> float:
    """``o = (K + 1) / 2``, the midpoint of the admissible ``(1, K)`` (module docstring)."""
    return (n_classes + 1) / 2.0


def fit(context: RejectorContext) -> FittedDeepGamblers:
    """Train on ``context`` with ``o = (K + 1) / 2``, L-BFGS from phase 1."""
    return fit_deep_gamblers(
        context.X_train,
        context.y_train,
        default_payoff(context.n_classes),
        solver="lbfgs",
        seed=child_seed(context.seed, _STREAM),
        phase1=context.model.phase1_,
        n_classes=context.n_classes,
    )


REJECTOR = Rejector(
    name="deep_gamblers",
    label=registry.method("deep_gamblers").label,
    description=(
        "-p_abstain of a linear (K + 1)-output model trained with the gambler's loss, "
        "o = (K + 1) / 2 (as log-odds); prediction: argmax over the K classes"
    ),
    operating_point=None,
    reference="Liu et al. 2019 (Deep Gamblers); reference code Z-T-WANG/NIPS2019DeepGamblers",
    needs_truth=False,
    needs_target_coverage=False,
    fit=fit,
)
