"""The README: short, in the agreed order, its two commands first, every number it states the
package's number, every link one that works on an index's page too.

Every numeric statement of the README is matched here by a pattern in its context and checked
against what the package computes (or, for a setting, against where the setting lives); the
test then removes the matched text and fails on any digit left over, so a number added to the
README without a check fails. Text moved to the documentation keeps its checks where it now lives
(the claim counts on the errata page below; the feasibility columns in
``tests/test_feasibility_cli.py``).
"""

from __future__ import annotations

import inspect
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import proofs

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ERRATA = ROOT / "docs" / "explanation" / "errata.md"
MAX_WORDS = 1500  # the README fits on a screen or two; the manual is the documentation site

SECTIONS = (
    "Install",
    "The two commands",
    "What it shows",
    "On text emotion corpora",
    "Use it on your embeddings",
    "Read more",
)
COMMANDS = (
    "python -m pip install -e . && gcul reproduce --out results",
    'python -m pip install -e ".[test]" && python -m pytest',
)


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _config() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _code_blocks(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_readme_is_short_and_in_order():
    text = _text()
    assert len(text.split()) <= MAX_WORDS  # what `wc -w README.md` counts
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert tuple(headings) == SECTIONS
    # "what it is" is the three lines under the title
    intro = text[: text.index("\n## ")].strip().splitlines()
    assert intro[0] == "# gcul" and len([line for line in intro[1:] if line.strip()]) <= 3


def test_the_two_commands_come_first_and_are_the_ones_ci_runs():
    blocks = _code_blocks(_text())
    assert [body.strip() for _, body in blocks[:2]] == list(COMMANDS)


def test_links_are_absolute_into_the_repository_and_the_files_exist():
    """On an index's page a relative path or an in-page anchor goes nowhere: every link is an
    absolute address under the repository's address in pyproject.toml, to a file that exists."""
    text = _text()
    repository = _config()["project"]["urls"]["Repository"]
    owner_name = repository.removeprefix("https://github.com/")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    assert "](#" not in text
    for link in links:
        assert link.startswith("https://"), link
        blob = f"{repository}/blob/main/"
        raw = f"https://raw.githubusercontent.com/{owner_name}/main/"
        assert link.startswith((blob, raw)), link
        path = link.removeprefix(blob).removeprefix(raw)
        assert (ROOT / path).is_file(), path
    # the repository's address is written as the clone command too
    assert f"git clone {repository}" in text


def test_the_readme_warns_about_the_other_proofs_distribution():
    text = " ".join(_text().split())
    assert "top-level package named `proofs`" in text
    for name in ("gcul_theory", "simulations", "proofs"):
        assert f"`{name}`" in text


def _claim_counts() -> tuple[int, int, int]:
    counts = Counter(result.status for result in proofs.run_all())
    assert counts["failed"] == 0
    return sum(counts.values()), counts["verified"], counts["erratum"]


@pytest.mark.parametrize("page", [README, ERRATA], ids=["README", "errata page"])
def test_the_claim_counts_are_what_gcul_prove_reports(page):
    text = page.read_text(encoding="utf-8")
    match = re.search(r"(\d+) claims, (\d+) verified, (\d+) errat", " ".join(text.split()))
    assert match is not None, f"{page.name} no longer states the claim counts"
    assert tuple(int(group) for group in match.groups()) == _claim_counts()


def _cell_means(levels, seeds=range(10, 20)) -> dict[float, dict[str, float]]:
    from simulations.sweep import run_cell

    means = {}
    for noise in levels:
        rows = [run_cell(seed, noise) for seed in seeds]
        means[noise] = {key: float(np.mean([row[key] for row in rows])) for key in rows[0]}
    return means


def _decimals(stated: str) -> int:
    return len(stated.split(".")[1]) if "." in stated else 0


def _agrees(stated: str, value: float) -> bool:
    """A stated number agrees with a value when it is the value rounded to as many decimals."""
    return f"{value:.{_decimals(stated)}f}" == stated


def _text_findings() -> dict:
    """The README's text-corpora table, computed again from benchmarks/text_emotion/'s per-split
    CSV rows by the package's summary (simulations.text.report.readme_findings, whose cells the
    text benchmark's tests recompute by hand)."""
    from simulations.text.csv_rows import tables_from_csv
    from simulations.text.report import readme_findings

    tables = tables_from_csv(ROOT / "benchmarks" / "text_emotion")
    return {"table": " ".join(readme_findings(tables).split()), "tables": tables}


def text_sentence_checks(corpora: dict) -> list:
    """(pattern, verify) for the numbers and claims of the sentences around the text table,
    each recomputed from the committed per-split rows."""
    from simulations.text import measures, paper_values, report, study, tasks
    from simulations.text import tables as text_tables

    tables = corpora["tables"]
    rows, compare_rows = tables["rows"], tables["compare"]

    def seed_means(corpus, method, variant, column):
        return report.seed_means(text_tables.select(rows, corpus=corpus, representation=method, variant=variant), column)

    def carer_pays(m):
        return float(m[1]) == study.LAM and all(
            np.mean(seed_means("carer", rep, "gcul_pca", "lambda_emp")) > study.LAM
            for rep in ("finetuned_paper", "finetuned_valtest")
        )

    def screening(m):
        held = seed_means("goemotions", "finetuned_valtest", "gcul_pca", "lambda_pre_paper")
        paper = seed_means("goemotions", "finetuned_paper", "gcul_pca", "lambda_pre_paper")
        return int(m[1]) == measures.REDUCED and float(m[2]) == 0 and max(held) == 0.0 and min(paper) > 0.0

    def unreduced(m):
        # every GoEmotions representation the committed run measured ((b) LSA only when named)
        reps = [rep for rep in tasks.ALL_REPS if rep != tasks.FT_SPLITS
                and text_tables.select(rows, corpus="goemotions", representation=rep)]  # fmt: skip
        assert set(report.README_REPS) <= set(reps), reps
        means = [np.mean(seed_means("goemotions", rep, "gcul", "lambda_pre_paper")) for rep in reps]
        valid = [np.mean(seed_means("goemotions", rep, "gcul", "lambda_pre_valid")) for rep in reps]
        return float(m[1]) == 0 and min(means) > 0.0 and max(valid) < study.LAM

    def held_out_pays(m):
        emp = seed_means("goemotions", "finetuned_valtest", "gcul_pca", "lambda_emp")  # at d = 10
        paper = paper_values.PAPER_GCUL["goemotions"][measures.REDUCED][4]
        return _agrees(m[1], float(np.mean(emp))) and float(m[2]) == paper and min(emp) > study.LAM

    def pays_barely(m):
        reps = [rep for rep in tasks.ALL_REPS if rep != tasks.FT_SPLITS
                and text_tables.select(rows, corpus="goemotions", representation=rep)]  # fmt: skip
        pays = [rep for rep in reps if np.mean(seed_means("goemotions", rep, "gcul", "lambda_emp")) > study.LAM]
        gains = [np.mean(seed_means("goemotions", rep, "gcul", "utility")) for rep in pays]
        certified = [np.mean(seed_means("goemotions", rep, "gcul", "lambda_cert")) > study.LAM for rep in reps]
        return (len(pays) == int(m[1]) and float(m[2]) == study.LAM and 0 < max(gains) <= float(m[3])
                and not any(certified))  # fmt: skip

    def head_every_seed(m):
        held = text_tables.select(compare_rows, corpus="goemotions", representation=tasks.FT_SPLITS, rejector="head_msp")
        cell = report.verdict_cell(held)
        n = len({r["seed"] for r in held})
        return cell.startswith("lower risk") and cell.endswith(f"in {n} of {n} seeds")

    def msp_no_difference(m):
        cells = [report.verdict_cell(text_tables.select(compare_rows, corpus=c, representation=tasks.FT_SPLITS,
                                                  rejector="msp"))
                 for c in study.CORPORA]  # fmt: skip
        return all(cell.startswith("no difference") and "lower" not in cell and "higher" not in cell
                   for cell in cells)

    n_seeds = len({r["seed"] for r in rows if r["representation"] == "finetuned_valtest"})
    return [
        (r"two public corpora \(λ = (\d+(?:\.\d+)?)\)", lambda m: float(m[1]) == study.LAM),
        (r"recipe, (\d) seeds, GoEmotions \(P\) seed (\d) only: mean",
         lambda m: int(m[1]) == n_seeds and [int(m[2])] == sorted(
             {r["seed"] for r in rows if (r["corpus"], r["representation"]) == ("goemotions", "finetuned_paper")})),
        (r"its appendix, PCA d = (\d+);", lambda m: int(m[1]) == measures.REDUCED),
        (r"λ\*_EMP above (\d+\.\d+)\)", carer_pays),
        (r"at d = (\d+) its predictor gives λ\*_PRE (\d) on GoEmotions held out", screening),
        (r"but λ\*_EMP there is (\d\.\d+), not the paper's (\d\.\d+);", held_out_pays),
        (r"unreduced, its λ\*_PRE is above (\d) on every GoEmotions row", unreduced),
        (r"rejecting pays, barely, on (\d) \(U\((\d\.\d+)\) ≤ (\d\.\d+), none certified\)", pays_barely),
        (r"better on GoEmotions in every seed", head_every_seed),
        (r"shows no difference from GCUL in any seed", msp_no_difference),
    ]


@pytest.mark.slow
def test_every_number_the_readme_states_is_checked():
    """About 10 s of CPU: 50 sweep cells (5 noise levels × seeds 10-19)."""
    from gcul_theory import Geometry, capture_rate_bound, feasibility_report, gaussian_tail
    from simulations.report import PAPER_SEED, PAPER_SEED16_TABLE
    from simulations.synthetic import noise_levels

    text = " ".join(_text().split())
    config = _config()
    means = _cell_means([0.0, 2.0, 8.0, 12.0, 16.0])
    checks = []  # (pattern, function of the match returning True when the numbers are right)

    def check(pattern, verify):
        checks.append((pattern, verify))

    grid = noise_levels()
    check(
        r"(\d+) noise levels × seeds (\d+)–(\d+)",
        lambda m: (int(m[1]), int(m[2]), int(m[3])) == (len(grid), 10, 19),
    )
    check(r"seeds (\d+)–(\d+)", lambda m: (int(m[1]), int(m[2])) == (10, 19))
    check(r"Python ≥ (\d+\.\d+)", lambda m: config["project"]["requires-python"] == f">={m[1]}")
    check(
        r"dependency \(Python (\d+\.\d+)\)",
        lambda m: f"Programming Language :: Python :: {m[1]}" in config["project"]["classifiers"],
    )
    check(
        r"on Python (\d+\.\d+), installs",
        lambda m: config["project"]["requires-python"] == f">={m[1]}",
    )
    floors = dict(
        re.match(r"([a-z-]+)>=(\d+(?:\.\d+)?)", dep).groups()
        for dep in config["project"]["dependencies"]
    )
    # .ci/oldest.txt pins what CI's second job installs: each floor, as X.Y or X.Y.0
    pins = dict(
        re.match(r"([a-z-]+)==(\d+\.\d+)(?:\.0)?$", line).groups()
        for line in (ROOT / ".ci" / "oldest.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#") and line.split("==")[0] in floors
    )
    names = ("numpy", "scipy", "scikit-learn", "matplotlib", "joblib")
    check(
        r"NumPy (\d+\.\d+), SciPy (\d+\.\d+), scikit-learn (\d+\.\d+), matplotlib (\d+\.\d+), "
        r"joblib (\d+\.\d+)",
        lambda m: all(
            m[i + 1] == floors[name] == pins[name] for i, name in enumerate(names)
        ),
    )
    # finding 1: the phase transition, means over seeds 10-19
    check(
        r"accuracy is (\d+(?:\.\d+)?)% at σ = 0 \(the paper reports (\d+(?:\.\d+)?)%\), (\d+(?:\.\d+)?)% at σ = 8 "
        r"and (\d+(?:\.\d+)?)% at σ = 16",
        lambda m: (
            _agrees(m[1], 100 * means[0.0]["base_acc"])
            and float(m[2]) == PAPER_SEED16_TABLE[0][1]
            and _agrees(m[3], 100 * means[8.0]["base_acc"])
            and _agrees(m[4], 100 * means[16.0]["base_acc"])
        ),
    )
    check(
        r"λ\*_EMP falls from (\d+(?:\.\d+)?) at σ = 0 to (\d+(?:\.\d+)?) at σ = 16",
        lambda m: (
            _agrees(m[1], means[0.0]["lambda_emp"]) and _agrees(m[2], means[16.0]["lambda_emp"])
        ),
    )
    lam = inspect.signature(feasibility_report).parameters["lam"].default
    check(r"pays at λ = (\d+(?:\.\d+)?)", lambda m: float(m[1]) == lam)
    # finding 2: the claim counts and the 20-class counterexample to the union bound
    check(
        r"(\d+) claims, (\d+) verified, (\d+) errata",
        lambda m: tuple(int(g) for g in m.groups()) == _claim_counts(),
    )

    def union_counterexample(m):
        classes, snr = int(m[1]), float(m[2])
        geometry = Geometry(
            eps=0.2,
            pi=np.full(classes, 1 / classes),
            eps_c=np.full(classes, 0.2),
            D=np.full(classes, snr),
            sigma_mix=np.ones(classes),
            sigma_c=np.ones(classes),
            corr_mix=np.eye(classes),
        )
        exact = (1.0 - gaussian_tail(snr, 1.0)) ** classes  # orthogonal boundaries
        return _agrees(m[3], capture_rate_bound(geometry, "union")) and _agrees(m[4], exact)

    check(
        r"with (\d+) classes at D/σ = (\d+) its \"rigorous\" union bound promises (\d+(?:\.\d+)?) "
        r"where the attractor captures (\d+(?:\.\d+)?)",
        union_counterexample,
    )
    check(r"seed-(\d+) λ\*_PRE column", lambda m: int(m[1]) == PAPER_SEED)

    # finding 3: selective risk at GCUL's coverage
    def risks(noise):
        cell = means[noise]
        return cell["sel_risk_gcul"], cell["sel_risk_msp"], cell["sel_risk_bayes"]

    check(
        r"at σ = (\d+) is (\d+(?:\.\d+)?) for GCUL, (\d+(?:\.\d+)?) for MSP and (\d+(?:\.\d+)?) for Bayes",
        lambda m: all(
            _agrees(s, v) for s, v in zip(m.groups()[1:], risks(float(m[1])), strict=True)
        ),
    )
    check(
        r"at σ = (\d+) it is (\d+(?:\.\d+)?), (\d+(?:\.\d+)?) and (\d+(?:\.\d+)?)\.",
        lambda m: all(
            _agrees(s, v) for s, v in zip(m.groups()[1:], risks(float(m[1])), strict=True)
        ),
    )
    # the text corpora: the table is the benchmark's summary of its committed per-split rows
    # (benchmarks/text_emotion/*.csv), recomputed here; the sentences' numbers from the same rows
    corpora = _text_findings()
    check(re.escape(corpora["table"]), lambda m: True)
    for pattern, verify in text_sentence_checks(corpora):
        check(pattern, verify)
    # names that hold a digit but state no number
    check(r"phase 1\b", lambda m: True)
    check(r"(?<!\S)\d\. (?=\*\*)", lambda m: True)  # the numbers of the findings' list
    check(r"BSD-3-Clause", lambda m: config["project"]["license"] == "BSD-3-Clause")
    check(r"lam=(\d+(?:\.\d+)?)\)", lambda m: float(m[1]) == lam)
    check(r"at cost (\d+(?:\.\d+)?)\?", lambda m: float(m[1]) == lam)

    rest = text
    for pattern, verify in checks:
        found = list(re.finditer(pattern, rest))
        assert found, f"the README no longer says {pattern!r}: drop its check"
        for match in found:
            assert verify(match), f"the README's {match[0]!r} is not what the package computes"
        rest = re.sub(pattern, " ", rest)
    rest = re.sub(r"\(https://[^)]+\)", " ", rest)  # addresses
    assert not re.findall(r"[^\s]*\d[^\s]*", rest), "a number of the README has no check"


def test_the_python_example_runs():
    """The README's Python block, on the synthetic protocol's data, does what it says."""
    (source,) = [body for kind, body in _code_blocks(_text()) if kind == "python"]
    from simulations import make_dataset

    data = make_dataset(seed=10, noise=2.0)
    half = len(data.y_test) // 2
    namespace = {
        "Z_train": data.X_train,
        "y_train": data.y_train,
        "Z_test": data.X_test[:half],
        "Z_cal": data.X_test[half:],
        "y_cal": data.y_test[half:],
        "print": lambda *args: namespace.setdefault("printed", args),
    }
    exec(compile(source, "README.md", "exec"), namespace)
    labels, certificate = namespace["labels"], namespace["certificate"]
    assert labels.shape == (half,)
    assert certificate.n == len(data.y_test) - half and certificate.lam == 0.15
    assert namespace["printed"] == (certificate.lambda_cert, certificate.feasible)
