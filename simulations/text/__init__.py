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

``benchmarks/text_emotion.py`` runs the paper's real-data tables on these corpora; what it
computes is here, one module per step, each imported on use (not by this package):

- :mod:`~simulations.text.measures`: what is measured on one split (a GCUL variant's numbers,
  the baselines along their knobs, the PCA sweep, a fine-tuned head's MSP);
- :mod:`~simulations.text.tasks`: the units of work (one per split, protocol or sweep) and
  their results merged into tables of rows;
- :mod:`~simulations.text.csv_rows`: those rows as CSV files, written and read back exactly;
- :mod:`~simulations.text.tables` and :mod:`~simulations.text.report`: the Markdown tables and
  the report (``text_emotion.md``, the README's summary), from the rows alone;
- :mod:`~simulations.text.figures`: the operating-point and PCA-sweep figures;
- :mod:`~simulations.text.paper_values`: the paper's numbers set beside ours.
"""

from __future__ import annotations

from simulations.text.corpora import CARER_LABELS, Corpus, load_carer, load_goemotions
from simulations.text.precomputed import Precomputed, load_precomputed

__all__ = ["CARER_LABELS", "Corpus", "Precomputed", "load_carer", "load_goemotions", "load_precomputed"]
