"""The README's numbers that the package computes itself must be the package's numbers.

A user reads "N claims, V verified, E errata" in the README before running ``gcul prove``; when a
claim is added (issue 16 added ``joint_utility.maximiser``) the sentence has to follow.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import proofs

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_counts_the_claims_gcul_prove_reports():
    text = README.read_text(encoding="utf-8")
    match = re.search(r"(\d+) claims, (\d+) verified, (\d+) errat", text)
    assert match is not None, "the README no longer states the claim counts"
    stated = tuple(int(group) for group in match.groups())
    counts = Counter(result.status for result in proofs.run_all())
    assert counts["failed"] == 0
    assert stated == (sum(counts.values()), counts["verified"], counts["erratum"])
