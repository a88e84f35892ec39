"""The documentation builds with warnings as errors, is organised by purpose, documents the public
names only, and its made-at-build-time pages are whole; the examples on its pages run.

The build is CONTRIBUTING.md's command (``python -m sphinx -W --keep-going -b html docs OUT``),
run once per session in a subprocess into a temporary folder; the tests of the site read its
output. It draws the classroom figures and runs the proofs report, so it takes about 30 s of CPU.
"""

from __future__ import annotations

import doctest
import html
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import proofs
from proofs import ClaimResult

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD_TIMEOUT = 1800  # seconds; a guard against a hang, not a speed requirement

sys.path.insert(0, str(DOCS / "_ext"))
import gcul_docs  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the site once; return (html folder, completed process)."""
    out = tmp_path_factory.mktemp("docs")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q"]
    command += [str(DOCS), str(out / "html"), "-d", str(out / "doctrees")]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT
    )
    return out / "html", done


def _text(page: Path) -> str:
    """The visible text of an HTML page's body, whitespace collapsed."""
    source = page.read_text(encoding="utf-8")
    body = source[source.index('<div class="body"') :]
    body = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    # a block ends a word; an inline tag (a highlighted token, a link) does not
    body = re.sub(r"</?(p|div|dt|dd|li|td|th|tr|h[1-6]|pre|table|br)\b[^>]*>", " ", body)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", body)))


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_build_succeeds_with_warnings_as_errors(built):
    html_dir, done = built
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stderr[-6000:]}"
    assert "WARNING" not in done.stderr and "ERROR" not in done.stderr, done.stderr[-6000:]
    for page in PAGES + ("genindex",):
        assert (html_dir / f"{page}.html").is_file(), page


PAGES = (
    "index",
    "tutorial/reproduce",
    "howto/embeddings",
    "howto/certify",
    "howto/dask",
    "howto/teaching",
    "howto/text_emotion",
    "explanation/theory",
    "explanation/errata",
    "explanation/rejection",
    "explanation/regimes",
    "proofs",
    "gallery",
    "reference/index",
    "reference/cli",
    "contributing",
)
"""The site by purpose (Diátaxis): tutorial, how-to guides, explanation, reference."""


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_the_front_page_leads_to_each_purpose_and_to_your_embeddings_first(built):
    html_dir, _ = built
    source = (html_dir / "index.html").read_text(encoding="utf-8")
    body = source[source.index('<div class="body"') : source.index('<div class="sphinxsidebar"')]
    # the first link of the front page's table is the how-to for one's own embeddings
    links = re.findall(r'<a class="reference internal" href="([^"#]+)', body)
    assert links[0] == "howto/embeddings.html", links[:3]
    for page in PAGES[1:]:
        assert f'href="{page}.html' in body, page
    for caption in ("Tutorial", "How-to guides", "Explanation", "Reference"):
        assert f'<span class="caption-text">{caption}</span>' in body, caption
    how_to = _text(html_dir / "howto" / "embeddings.html")
    for step in (
        "gcul feasibility --embeddings Z.npy",
        "gcul compare --embeddings Z.npy",
        "from simulations import GCUL",
        "StandardScaler",
    ):
        assert step in how_to, step


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_the_command_line_page_has_every_commands_help(built):
    from simulations.cli import COMMANDS

    html_dir, _ = built
    text = _text(html_dir / "reference" / "cli.html")
    assert "usage: gcul [-h] [--version]" in text
    for module in COMMANDS:
        name = module.__name__.rsplit(".", 1)[1]
        assert f"usage: gcul {name}" in text, name


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_api_page_of_selectivity_score(built):
    html_dir, _ = built
    page = html_dir / "reference" / "generated" / "gcul_theory.selectivity_score.html"
    text = _text(page)
    # numpydoc rendered the sections, the paper's label and the doctest
    assert "selectivity_score(eps, r1, r2)" in text, text[:300]
    for section in ("Parameters", "Returns", "Raises", "Notes", "Examples"):
        assert section in text, section
    assert "eq:selectivity_score" in text
    assert ">>> selectivity_score(0.135, 1.0, 0.0)" in text


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_every_public_name_has_an_api_page(built):
    """One page per public module and per name of its ``__all__``, so nothing is hand-listed."""
    html_dir, _ = built
    api = html_dir / "reference" / "generated"
    modules = gcul_docs.public_modules()
    assert {"gcul_theory", "simulations", "proofs", "simulations.demo"} <= set(modules)
    assert len(modules) == len(set(modules))
    index = _text(html_dir / "reference" / "index.html")
    for module_name in modules:
        assert (api / f"{module_name}.html").is_file(), module_name
        assert module_name in index, module_name
        module = __import__(module_name, fromlist=["_"])
        for name in gcul_docs.public_names(module):
            assert (api / f"{module_name}.{name}.html").is_file(), f"{module_name}.{name}"


def test_the_reference_documents_public_modules_only():
    """Every module is either in the reference (REFERENCE) or declared internal, never both,
    so a new module is a decision; implementation modules (simulations.cli.common,
    simulations.report.formats, ...) get no page. A package's own ``__all__`` is public."""
    every = set(gcul_docs.all_modules())
    public = set(gcul_docs.public_modules())
    internal = {name for name in every if gcul_docs.is_internal(name)}
    assert public <= every
    assert not public & internal, sorted(public & internal)
    assert every == public | internal, sorted(every - public - internal)
    for name in ("simulations.cli.common", "simulations.report.formats", "simulations.sweep.cache"):
        assert name in internal, name
    assert {"gcul_theory", "simulations", "proofs"} <= public


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_the_reference_pages_hold_no_internal_module(built):
    html_dir, _ = built
    api = html_dir / "reference" / "generated"
    pages = {page.stem for page in api.glob("*.html")}
    for name in gcul_docs.all_modules():
        if gcul_docs.is_internal(name):
            assert name not in pages, name
            assert not any(page.startswith(name + ".") for page in pages), name


@pytest.mark.parametrize("package", sorted(gcul_docs.NAME_GROUPS))
@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_grouped_packages_list_every_public_name_once(package, built):
    module = __import__(package)
    grouped = [name for _, names in gcul_docs.NAME_GROUPS[package] for name in names]
    assert len(grouped) == len(set(grouped))
    assert set(grouped) == set(module.__all__)
    html_dir, _ = built
    text = _text(html_dir / "reference" / "generated" / f"{package}.html")
    positions = [text.index(title) for title, _ in gcul_docs.NAME_GROUPS[package]]
    assert positions == sorted(positions)


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_module_pages_open_with_what_users_need_not_the_contributors_paragraphs(built):
    html_dir, _ = built
    for package in ("simulations", "gcul_theory"):
        module = __import__(package)
        assert "Where a change goes" in module.__doc__  # kept in the source, for contributors
        text = _text(html_dir / "reference" / "generated" / f"{package}.html")
        assert "Where a change goes" not in text, package
        assert "private module" not in text, package
    # proofs' layout section lists its private files: kept in the source, not on its page
    import proofs

    assert "Layout (where a change goes)" in proofs.__doc__
    text = _text(html_dir / "reference" / "generated" / "proofs.html")
    assert "where a change goes" not in text.lower()
    assert "_expressions.py" not in text
    text = _text(html_dir / "reference" / "generated" / "simulations.html")
    assert text.index("The public Python API") < 400


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_the_api_reference_cites_the_paper_by_number_and_title(built):
    """Every label of the paper on the API pages stands beside the number and title of its item
    (``Table 7 “Noise sweep parameters” (tab:noise_params)``) or beside a title the docstring
    quotes; left as written are only code (doctests, literal blocks), signatures (a parameter's
    default value) and a label quoted as a Python string value (``"thm:monotonicity"``)."""
    from proofs.citations import LABEL, PAPER_LABELS

    html_dir, _ = built
    beside = re.compile(r"(”|\d[0-9A-Za-z.]*)\s*\((?:[a-z]+:\w+, )*\Z")
    pages = sorted((html_dir / "reference" / "generated").glob("*.html"))
    cited, alone = 0, []
    for page in [*pages, html_dir / "reference" / "index.html"]:
        source = page.read_text(encoding="utf-8")
        body = source[
            source.index('<div class="body"') : source.index('<div class="sphinxsidebar"')
        ]
        body = re.sub(r'<pre>.*?</pre>|<dt class="sig.*?</dt>', " ", body, flags=re.S)
        body = re.sub(r"</?(p|div|dt|dd|li|td|th|tr|h[1-6]|table|br)\b[^>]*>", " ", body)
        text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", body)))
        for match in LABEL.finditer(text):
            label, before = match.group(0), text[max(0, match.start() - 300) : match.start()]
            if label not in PAPER_LABELS:
                continue
            title = re.sub(r"\W+", " ", PAPER_LABELS[label].title.lower()).strip()
            if beside.search(before):
                cited += 1
            elif not (
                (title and title in re.sub(r"\W+", " ", before.lower()))
                or (before.endswith('"') and text[match.end() : match.end() + 1] == '"')
            ):
                alone.append(f"{page.name}: ...{text[match.start() - 80 : match.end()]}")
    assert not alone, "\n".join(alone)
    assert cited > 100, cited  # the docstrings name the paper's items some 150 times


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_summaries_of_the_module_pages_are_not_cut_at_an_abbreviation(built):
    """autosummary cuts a summary at the first ". " that ends no abbreviation it knows;
    "GCUL selectivity score as printed in Eq." lost the citation that follows "Eq."."""
    html_dir, _ = built
    cut = []
    for page in sorted((html_dir / "reference" / "generated").glob("*.html")):
        source = page.read_text(encoding="utf-8")
        tables = "".join(re.findall(r'<table class="autosummary.*?</table>', source, flags=re.S))
        for row in re.findall(r"<tr\b.*?</tr>", tables, flags=re.S):
            cells = re.findall(r"<td>(.*?)</td>", row, flags=re.S)
            summary = html.unescape(re.sub(r"<[^>]+>", "", cells[-1])).strip()
            # cut after an abbreviation, or inside a parenthesis ("(0 = sadness ... 5" was cut
            # at "sadness .": autosummary reads ". " as the end of the sentence)
            if summary.endswith(gcul_docs.ABBREVIATIONS) or summary.count("(") != summary.count(
                ")"
            ):
                cut.append(f"{page.name}: {summary}")
    assert not cut, "\n".join(cut)
    text = _text(html_dir / "reference" / "generated" / "proofs.html")
    assert "GCUL selectivity score as printed in Eq. (4) in section 3.2" in text


DOCTEST_PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "CONTRIBUTING.md"]


@pytest.mark.parametrize("page", DOCTEST_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_on_the_pages_run(page, monkeypatch, tmp_path):
    """The ``>>>`` examples of the Markdown pages (the pytest configuration collects only the
    packages' docstrings, so these would otherwise never run)."""
    monkeypatch.chdir(tmp_path)
    text = page.read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {page}"


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_reexported_constant_shows_its_own_docstring(built):
    """``gcul_theory.PREDICTORS`` (a tuple defined in a private module) is described by the
    docstring under its definition, not by ``tuple``'s ("Built-in immutable sequence")."""
    html_dir, _ = built
    text = _text(html_dir / "reference" / "generated" / "gcul_theory.PREDICTORS.html")
    assert "Every predictor" in text
    assert "Built-in immutable sequence" not in text
    summary = _text(html_dir / "reference" / "generated" / "gcul_theory.html")
    assert "Built-in immutable sequence" not in summary


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", header[16:24])


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_gallery_shows_every_demo_figure(built):
    from simulations.demo import FIGURES

    html_dir, _ = built
    source = (html_dir / "gallery.html").read_text(encoding="utf-8")
    assert len(FIGURES) >= 11
    for spec in FIGURES:
        image = html_dir / "_images" / f"{spec.name}.png"
        assert f'src="_images/{spec.name}.png"' in source, spec.name
        assert _png_size(image) == (1280, 720), spec.name  # what `gcul demo` writes
        assert re.search(rf'href="_downloads/[0-9a-f]+/{spec.name}\.pdf"', source), spec.name


MAX_BLANK_ROWS = 80  # one ninth of a 720-pixel slide; equal-aspect panels once left 77-140
MAX_BLANK_COLUMNS = 160  # one eighth of 1280 (the 3-D slide's legend column leaves 146)


def _longest_run(mask) -> int:
    best = current = 0
    for value in mask:
        current = current + 1 if value else 0
        best = max(best, current)
    return best


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_gallery_slides_have_no_blank_bands(built):
    """A slide is 16:9; panels drawn at a fixed aspect inside it used to leave bands of blank
    rows between the title and the panels (selectivity_contours: 140 rows, the 3-D surface: 93,
    gcul_2d: 77). "Blank" is a row or column with every pixel lighter than 251 of 255."""
    import numpy as np
    from PIL import Image

    from simulations.demo import FIGURES

    html_dir, _ = built
    for spec in FIGURES:
        grey = np.asarray(Image.open(html_dir / "_images" / f"{spec.name}.png").convert("L"))
        blank = grey > 250
        assert _longest_run(blank.all(axis=1)) <= MAX_BLANK_ROWS, spec.name
        assert _longest_run(blank.all(axis=0)) <= MAX_BLANK_COLUMNS, spec.name


@pytest.mark.slow  # reads the site the module's Sphinx build writes (about 45 s)
def test_proofs_page_has_every_claim_rendered_as_plain_text(built):
    html_dir, _ = built
    page = html_dir / "proofs.html"
    text = _text(page)
    for claim_id in proofs.claim_ids():
        assert claim_id in text, claim_id
    assert re.search(r"\d+ claims: \d+ verified, \d+ erratum, 0 failed", text)
    # SymPy's products and powers reach the page as written, not as emphasis
    assert "g[1a] = 1*g[U]" in text
    assert "t0**3*t1**4*t2**3" in text
    source = page.read_text(encoding="utf-8")
    table = source[source.index("<table") : source.index("</table>")]
    rows = table.split("<tr")[2:]  # after the header row
    assert len(rows) == len(proofs.claim_ids())
    for row in rows:
        evidence = row.split("<td")[-1]
        assert not re.search(r"<(em|strong|a|code)\b", evidence), evidence[:300]


def test_markdown_report_renders_any_text_as_written():
    """format_markdown escapes what Markdown reads as markup, in every field it prints."""
    tricky = r"2*x**2*y_1 with |_(a,r) and `q` <x, y> [a](b) \ a_b _c_ __d__ *e*"
    result = ClaimResult(
        name="demo.claim",
        reference="eq:demo",
        statement=tricky,
        established=tricky,
        status="erratum",
        corrected=tricky,
        evidence=tricky,
    )
    parser = MarkdownIt("commonmark").enable("table")
    tokens = parser.parse(proofs.format_markdown([result]))
    inline = [token for token in tokens if token.type == "inline"]
    rendered = []
    for token in inline:
        kinds = {child.type for child in token.children}
        # an escaped character is a "text_special" token holding the character itself
        text = "".join(
            child.content for child in token.children if child.type in ("text", "text_special")
        )
        if tricky in text:
            assert kinds <= {"text", "text_special", "code_inline"}, kinds
            rendered.append(text)
    # the table cell, the correction and the four detail items
    assert len(rendered) == 6, rendered
