"""The report of ``python -m proofs`` and ``gcul prove``: its formats and ``--claim ID``.

The report formats parse (JSON loads, LaTeX has booktabs rules, every format carries statement,
computation and correction); ``--claim ID`` works for every id and fails cleanly for a bad one,
also through ``gcul prove``. (Moved from ``test_proofs_new.py``, part (c).)
"""

from __future__ import annotations

import json

import proofs
from proofs import _runner
from simulations.cli import main as gcul_main


def test_json_format_parses_and_is_complete(capsys):
    assert proofs.main(["--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    claims = payload["claims"]
    assert [c["id"] for c in claims] == _runner.claim_ids()
    assert payload["summary"]["claims"] == len(claims) and payload["summary"]["failed"] == 0
    for c in claims:
        assert c["reference"] and c["statement"] and c["computed"] and c["status"]
        if c["status"] == "erratum":
            assert c["counterexample"] and c["corrected"]
        else:
            assert c["counterexample"] is None and c["corrected"] is None


def test_latex_format_has_booktabs_and_every_claim(capsys):
    assert proofs.main(["--format", "latex"]) == 0
    out = capsys.readouterr().out
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{longtable}", r"\end{longtable}"):
        assert rule in out
    assert out.count(r"\emph{Statement:}") == len(_runner.CHECKS)
    assert out.count(r"\emph{Corrected:}") == out.count(r"\textbf{erratum}") > 0
    assert "\\texttt{conservative.lambda\\_pre\\_lower\\_bound}" in out


def test_text_and_markdown_show_statement_and_computation(capsys):
    assert proofs.main([]) == 0
    text = capsys.readouterr().out
    assert text.count("statement:") == text.count("computed:") == len(_runner.CHECKS)
    assert proofs.main(["--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.count("  - statement:") == md.count("  - computed:") == len(_runner.CHECKS)
    # plain text is escaped for Markdown (``*`` of lambda*, ``_`` of a name); the paper's table
    # is cited by number and title, not by its LaTeX label (issue 23)
    assert "  - counterexample: Table 21 “GCUL performance under varying noise levels on " in md
    assert "lambda\\*\\_PRE" in md


def test_claim_option_works_for_every_claim(capsys):
    for claim_id in _runner.claim_ids():
        assert proofs.main(["--claim", claim_id]) == 0, claim_id
        out = capsys.readouterr().out
        assert out.startswith(f"claim:          {claim_id}\n"), claim_id
        assert "statement:" in out and "verdict:" in out, claim_id


def test_claim_option_prints_the_derivation_steps(capsys):
    assert proofs.main(["--claim", "asymptotics.dispersion_limit"]) == 0
    out = capsys.readouterr().out
    assert "step 2: its limit as sigma -> oo" in out
    assert "verdict:        erratum" in out and "corrected:" in out and "counterexample:" in out
    # pretty-printed 3/2 and -1/2 on their own lines
    lines = [ln.strip() for ln in out.splitlines()]
    assert "3/2" in lines and "-1/2" in lines


def test_claim_option_json(capsys):
    assert proofs.main(["--claim", "variance_proxy.directional_variance", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "erratum" and payload["steps"]
    assert any("1/100" in e for st in payload["steps"] for e in st["expressions"])


def test_unknown_claim_is_one_line_exit_2_with_close_matches(capsys):
    assert proofs.main(["--claim", "asymptotics.dispersion_limt"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("python -m proofs: error: unknown claim 'asymptotics.dispersion_limt'")
    assert "close matches: asymptotics.dispersion_limit" in lines[0]


def test_gcul_prove_passes_format_and_claim(capsys):
    assert gcul_main(["prove", "--claim", "space.independence"]) == 0
    assert "verdict:        erratum" in capsys.readouterr().out
    assert gcul_main(["prove", "--claim", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gcul prove: error: unknown claim 'nope'")
    assert gcul_main(["prove", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["failed"] == 0


def test_an_ascii_terminal_gets_the_titles_in_ascii(monkeypatch):
    # the paper's titles bring “”, λ and × into the report; a stdout that cannot encode them
    # gets ASCII quotes and words (JSON: \u escapes), not a UnicodeEncodeError traceback
    import io
    import sys

    claim_id = "conservative.lambda_pre_lower_bound"  # cites Table 20 “… (λ_target = 0.15)”
    for fmt in ("text", "json"):
        raw = io.BytesIO()
        stdout = io.TextIOWrapper(raw, encoding="ascii")
        monkeypatch.setattr(sys, "stdout", stdout)
        assert proofs.main(["--claim", claim_id, "--format", fmt]) == 0
        stdout.flush()
        out = raw.getvalue().decode("ascii")
        if fmt == "json":
            assert json.loads(out)["reference"].startswith("Table 21 “GCUL performance")
        else:
            assert 'reference:      Table 21 "GCUL performance under varying noise' in out
            assert "(lambda_target = 0.15)" in out
