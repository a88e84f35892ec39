"""The GCUL paper's reference numbers that the text benchmark sets beside its own.

Values as the paper prints them, cited by table title (the paper is "Ambiguity identification in
text emotion classification via cluster-guided learning"):

- :data:`PAPER_KAGGLE`: the table "Overall performance comparison of all models." (section
  "Benchmark performance on real-world datasets"), on the Kaggle set;
- :data:`PAPER_GCUL`: the appendix tables "GCUL results on Dair-AI emotion dataset" and "GCUL
  results on GoEmotions dataset", by PCA dimension;
- :data:`PAPER_OPERATING`: the appendix tables "MSP / SelectiveNet / Mahalanobis results on ...
  dataset", by knob value.

Its phase 1 is logistic regression on DistilBERT 768-d embeddings (:data:`PAPER_PHASE1`), so its
MSP tables threshold that classifier. Data only (no dependency but the standard library).
"""

from __future__ import annotations

__all__ = ["PAPER", "PAPER_GCUL", "PAPER_KAGGLE", "PAPER_OPERATING", "PAPER_PHASE1"]

PAPER = "the GCUL paper"
"""How a table's column names the paper."""

PAPER_PHASE1 = "logistic regression on DistilBERT 768-d embeddings"
"""The paper's phase-1 classifier, as its appendix names it ("Base classifier: Logistic Regression")."""

# Table "Overall performance comparison of all models." (section "Benchmark performance on
# real-world datasets"), on the Kaggle set: accuracy (%), macro-F1, rejection (%).
PAPER_KAGGLE: dict[str, tuple[float, float, float | None]] = {
    "TF-IDF + logistic regression": (84.02, 0.8433, None),
    "DistilBERT": (89.37, 0.8958, None),  # the paper's phase 1
    "GCUL + PCA": (95.85, 0.9594, 10.24),
    "GCUL + LDA": (94.98, 0.9504, 8.49),
}
# Appendix "Complete experimental results", tables "GCUL results on ... dataset": PCA d ->
# (base acc %, sel acc %, rej %, λ*_PRE, λ*_EMP).
PAPER_GCUL: dict[str, dict[int, tuple[float, float, float, float, float]]] = {
    "carer": {
        2: (92.6, 93.65, 2.35, 0.00, 0.00), 3: (92.6, 95.92, 5.70, 0.00, 0.25),
        4: (92.6, 95.79, 4.95, 0.22, 0.27), 5: (92.6, 95.73, 5.10, 0.33, 0.31),
        8: (92.6, 95.79, 4.95, 0.10, 0.24), 10: (92.6, 95.69, 4.95, 0.11, 0.23),
        20: (92.6, 95.79, 4.95, 0.18, 0.33), 40: (92.6, 95.69, 4.95, 0.21, 0.38),
        80: (92.6, 95.69, 4.95, 0.24, 0.42), 160: (92.6, 95.69, 4.95, 0.25, 0.48),
        320: (92.6, 95.69, 4.95, 0.28, 0.56), 768: (92.6, 95.69, 4.95, 0.32, 0.70),
    },
    "goemotions": {
        2: (37.99, 38.15, 3.24, 0, 0), 3: (37.99, 38.19, 2.48, 0, 0), 4: (37.99, 38.09, 3.06, 0, 0),
        5: (37.99, 38.01, 2.48, 0, 0), 8: (37.99, 38.35, 4.06, 0, 0), 10: (37.99, 38.23, 2.81, 0, 0),
        20: (37.99, 38.14, 1.85, 0, 0), 40: (37.99, 37.93, 2.22, 0, 0), 80: (37.99, 38.02, 2.20, 0, 0),
        160: (37.99, 37.94, 2.22, 0, 0), 320: (37.99, 37.95, 2.19, 0, 0), 768: (37.99, 38.03, 2.21, 0, 0),
    },
}  # fmt: skip
# Appendix tables "MSP / SelectiveNet / Mahalanobis results on ... dataset": knob -> (base acc %,
# sel acc %, rej %).
PAPER_OPERATING: dict[str, dict[str, list[tuple[float, float, float, float]]]] = {
    "carer": {
        "msp": [(0.1, 92.55, 98.81, 11.70), (0.2, 92.55, 98.81, 11.70), (0.3, 92.55, 98.81, 11.70),
                (0.4, 92.55, 97.06, 8.25), (0.5, 92.55, 94.09, 3.55), (0.6, 92.55, 93.64, 2.45),
                (0.7, 92.55, 92.55, 0.0), (0.8, 92.55, 92.55, 0.0), (0.9, 92.55, 92.55, 0.0),
                (1.0, 92.55, 92.55, 0.0)],
        "selectivenet": [(0.60, 93.10, 98.82, 40.75), (0.64, 93.00, 98.43, 36.50),
                         (0.68, 93.30, 98.67, 32.40), (0.72, 93.45, 98.04, 28.45),
                         (0.76, 93.10, 96.74, 24.75), (0.80, 93.20, 96.74, 20.25),
                         (0.84, 93.05, 96.54, 16.25), (0.88, 93.15, 96.57, 12.60),
                         (0.92, 93.15, 93.67, 7.60), (0.96, 93.30, 93.64, 4.15)],
        "mahalanobis": [(1.00, 92.55, 92.55, 0), (0.96, 92.55, 93.91, 4), (0.92, 92.55, 93.97, 8),
                        (0.88, 92.55, 94.20, 12), (0.84, 92.55, 94.35, 16), (0.80, 92.55, 94.31, 20),
                        (0.76, 92.55, 94.28, 24), (0.72, 92.55, 94.17, 28), (0.68, 92.55, 93.97, 32),
                        (0.64, 92.55, 93.75, 36)],
    },
    "goemotions": {
        "msp": [(lam, 37.99, 100.0, 99.83) for lam in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)]
               + [(lam, 37.99, 37.99, 0.0) for lam in (0.7, 0.8, 0.9, 1.0)],
        "selectivenet": [(0.60, 37.75, 45.43, 39.94), (0.64, 37.47, 44.30, 35.94),
                         (0.68, 37.46, 43.68, 32.12), (0.72, 37.57, 42.79, 28.06),
                         (0.76, 37.94, 42.45, 23.82), (0.80, 37.27, 41.00, 19.85),
                         (0.84, 37.94, 41.10, 16.16), (0.88, 37.86, 40.07, 11.85),
                         (0.92, 38.30, 39.76, 7.82), (0.96, 38.00, 38.71, 3.74)],
        "mahalanobis": [(1.00, 37.99, 37.99, 0), (0.96, 37.99, 38.14, 4), (0.92, 37.99, 38.37, 8),
                        (0.88, 37.99, 38.49, 12), (0.84, 37.99, 38.69, 16), (0.80, 37.99, 38.80, 20),
                        (0.76, 37.99, 38.94, 24), (0.72, 37.99, 39.05, 28), (0.68, 37.99, 39.40, 32),
                        (0.64, 37.99, 39.66, 36)],
    },
}  # fmt: skip
