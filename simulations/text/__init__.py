"""Text corpora and their representations: the GCUL paper's real-data experiments, in kind.

The rest of :mod:`simulations` takes arrays (embeddings ``Z`` and labels ``y``); the paper's
evidence is on *text*. This subpackage is the step between: it is named ``text`` because its
inputs are raw sentences (corpora read from the files their authors publish) and its outputs are
the arrays every other part of the package consumes. It holds no selective classification of
its own: GCUL, its baselines and their comparison stay in :mod:`simulations.gcul`,
:mod:`simulations.rejectors` and :mod:`simulations.compare`.

- :mod:`~simulations.text.corpora`: :func:`load_goemotions` and :func:`load_carer` (core
  dependencies only).
- :mod:`~simulations.text.precomputed`: :func:`load_precomputed`, a folder of representations
  computed elsewhere (a fine-tuned encoder's embeddings, labels, split ids and logits; core
  dependencies only).
- :mod:`~simulations.text.study`: the text studies' shared protocol: :data:`CORPORA`,
  :func:`load_pooled` (a corpus's three files pooled), :func:`load_finetuned` (a fine-tuned
  encoder's folders, checked against the corpus) and the split constants (core dependencies only).
- :mod:`~simulations.text.representations`: text to vectors (the optional extra ``text``:
  ``pip install "gcul[text]"``), imported on use.

``benchmarks/text_emotion.py`` runs the paper's real-data tables on these corpora.
"""

from __future__ import annotations

from simulations.text.corpora import CARER_LABELS, Corpus, load_carer, load_goemotions
from simulations.text.precomputed import Precomputed, load_precomputed

__all__ = ["CARER_LABELS", "Corpus", "Precomputed", "load_carer", "load_goemotions", "load_precomputed"]
