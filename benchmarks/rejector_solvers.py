"""Mini-batch Adam (the paper's protocol) against full-batch L-BFGS, for the trained rejectors.

For each cell (seeds 10, 13, 16 x σ = 2, 8, 14 of the paper-size protocol), trains the linear
SelectiveNet for GCUL's test coverage c, and the linear Deep Gamblers model (o = 3), with

- ``adam30``: the paper's protocol (Adam, 30 epochs, lr 1e-3, batch 256; SelectiveNet from
  PyTorch's initialisation, Deep Gamblers from phase 1),
- ``adam300``: the same for 300 epochs,
- ``lbfgs``: full-batch L-BFGS on the same loss from phase 1 (what the sweep uses),

and prints, as Markdown tables: the full-batch objective at the solution (SelectiveNet: the
selective part and the ridge of (W, v), which is all the auxiliary head leaves to them), the
training coverage of g >= 0.5, the test selective risk at the test split's top-m scores with
m = round(c n) (the sweep's "risk at GCUL's coverage"), its standard error
sqrt(r (1 - r) / m), and the CPU time. Then SelectiveNet's L-BFGS at gradient tolerance 1e-3
against the default 1e-4, and the Deep Gamblers payoff sensitivity on one seed.

Usage::

    python benchmarks/rejector_solvers.py            # about 2 minutes on one core
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from simulations.gcul import GCUL
from simulations.rejectors.deep_gamblers import fit_deep_gamblers, gamblers_loss
from simulations.rejectors.selectivenet import fit_selectivenet, selective_loss
from simulations.synthetic import make_dataset

CELLS = [(seed, noise) for seed in (10, 13, 16) for noise in (2.0, 8.0, 14.0)]
SOLVERS = [("adam30", "adam", 30), ("adam300", "adam", 300), ("lbfgs", "lbfgs", 30)]


def risk_at(scores: np.ndarray, wrong: np.ndarray, m: int) -> float:
    return float(wrong[np.argsort(-scores, kind="stable")[:m]].mean())


def aurc(scores: np.ndarray, wrong: np.ndarray) -> float:
    ordered = wrong[np.argsort(-scores, kind="stable")]
    return float(np.mean(np.cumsum(ordered) / np.arange(1, ordered.size + 1)))


def main() -> int:
    print("## Linear SelectiveNet\n")
    print(
        "| seed | σ | c | solver | objective | train cov. g≥0.5 | test risk at c (± SE) "
        "| CPU s |\n|---|---|---|---|---|---|---|---|"
    )
    gambler_rows = []
    with threadpool_limits(1):
        for seed, noise in CELLS:
            data = make_dataset(seed, noise)
            model = GCUL().fit(data.X_train, data.y_train)
            c = float(np.mean(model.predict(data.X_test) != model.n_classes_))
            m = int(round(c * data.y_test.size))
            n = data.y_train.size
            for label, solver, epochs in SOLVERS:
                start = time.process_time()
                net = fit_selectivenet(
                    data.X_train,
                    data.y_train,
                    c,
                    solver=solver,
                    seed=np.random.SeedSequence([seed, 7]),
                    phase1=model.phase1_,
                    n_classes=5,
                    epochs=epochs,
                )
                seconds = time.process_time() - start
                theta = np.concatenate([net.prediction_, net.selection_[None]]).ravel()
                # the design in the whitened coordinates the net was trained in
                ZT = net.whitening_.design(data.X_train)
                objective, _ = selective_loss(
                    theta, ZT, data.y_train, 5, c, 1.0 / n, auxiliary=False
                )
                train_coverage = float(np.mean(net.accept(data.X_train, 0.15)))
                scores, labels = net.score_predict(data.X_test)
                r = risk_at(scores, labels != data.y_test, m)
                print(
                    f"| {seed} | {noise:g} | {c:.3f} | {label} | {objective:.5f} | "
                    f"{train_coverage:.3f} | {r:.4f} ± {math.sqrt(r * (1 - r) / m):.4f} | "
                    f"{seconds:.2f} |"
                )
            for label, solver, epochs in SOLVERS:
                start = time.process_time()
                gambler = fit_deep_gamblers(
                    data.X_train,
                    data.y_train,
                    3.0,
                    solver=solver,
                    seed=np.random.SeedSequence([seed, 8]),
                    phase1=model.phase1_,
                    n_classes=5,
                    epochs=epochs,
                )
                seconds = time.process_time() - start
                ZT = gambler.whitening_.design(data.X_train)
                objective, _ = gamblers_loss(
                    gambler.coef_.ravel(), ZT, data.y_train, math.log(3.0), 1.0 / n
                )
                scores, labels = gambler.score_predict(data.X_test)
                wrong = labels != data.y_test
                r = risk_at(scores, wrong, m)
                gambler_rows.append(
                    f"| {seed} | {noise:g} | {c:.3f} | {label} | {objective:.5f} | "
                    f"{wrong.mean():.4f} | {r:.4f} ± {math.sqrt(r * (1 - r) / m):.4f} | "
                    f"{aurc(scores, wrong):.4f} | {seconds:.2f} |"
                )
        print("\n## Linear Deep Gamblers, o = 3\n")
        print(
            "| seed | σ | c | solver | objective | test error (class head) "
            "| test risk at c (± SE) | AURC | CPU s |\n|---|---|---|---|---|---|---|---|---|"
        )
        print("\n".join(gambler_rows))

        print("\n## SelectiveNet: L-BFGS gradient tolerance 1e-4 (the default) against 1e-3\n")
        print(
            "| seed | σ | iterations 1e-4 / 1e-3 | CPU ms 1e-4 / 1e-3 "
            "| test risk at c 1e-4 / 1e-3 | SE |\n|---|---|---|---|---|---|"
        )
        for seed, noise in CELLS:
            data = make_dataset(seed, noise)
            model = GCUL().fit(data.X_train, data.y_train)
            c = float(np.mean(model.predict(data.X_test) != model.n_classes_))
            m = int(round(c * data.y_test.size))
            results = []
            for gtol in (1e-4, 1e-3):
                start = time.process_time()
                net = fit_selectivenet(
                    data.X_train, data.y_train, c, phase1=model.phase1_, n_classes=5, gtol=gtol
                )
                seconds = time.process_time() - start
                scores, labels = net.score_predict(data.X_test)
                results.append((net.n_iter_, seconds, risk_at(scores, labels != data.y_test, m)))
            (i4, t4, r4), (i3, t3, r3) = results
            print(
                f"| {seed} | {noise:g} | {i4} / {i3} | {1e3 * t4:.0f} / {1e3 * t3:.0f} | "
                f"{r4:.4f} / {r3:.4f} | {math.sqrt(r4 * (1 - r4) / m):.4f} |"
            )

        print("\n## Deep Gamblers payoff o (L-BFGS), seed 16\n")
        print("| σ | o | test error (class head) | test risk at c | AURC |\n|---|---|---|---|---|")
        for noise in (0.4, 6.0, 12.0):
            data = make_dataset(16, noise)
            model = GCUL().fit(data.X_train, data.y_train)
            c = float(np.mean(model.predict(data.X_test) != model.n_classes_))
            m = int(round(c * data.y_test.size))
            for payoff in (1 / 0.85, 1.5, 2.2, 3.0, 4.0):
                gambler = fit_deep_gamblers(
                    data.X_train, data.y_train, payoff, phase1=model.phase1_, n_classes=5
                )
                scores, labels = gambler.score_predict(data.X_test)
                wrong = labels != data.y_test
                print(
                    f"| {noise:g} | {payoff:.3f} | {wrong.mean():.4f} | "
                    f"{risk_at(scores, wrong, m):.4f} | {aurc(scores, wrong):.4f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
