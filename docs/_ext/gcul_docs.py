"""Sphinx extension of the gcul documentation: the pages that are made from the code at build time.

- The API reference (``reference/generated/``, not committed): one page per public module,
  listing the names of its ``__all__`` (grouped by topic for the packages of
  :data:`NAME_GROUPS`), and one page per public name, rendered by autodoc + numpydoc. Which
  modules are public, and under which topic the reference lists them, is :data:`REFERENCE`, as
  SciPy's reference is organised by hand; every other module that ``pkgutil`` reaches must match
  :data:`INTERNAL` (``tests/test_docs.py`` checks both), so a new module is a decision, not an
  accident. The paragraphs of a module's docstring that are for contributors ("Where a change
  goes ...") are left out of its page (``CONTRIBUTING.md`` points to them). Every label of the
  paper a docstring names (``thm:r1_rigorous``) is shown beside the number and title the paper's
  PDF prints for it (:func:`proofs.citations.cite_rest`, the package's one citation engine,
  which the outputs of ``gcul prove`` use too); the docstrings keep their labels.
- The command line (``reference/cli.md``): ``gcul --help`` and every command's ``--help``.
- The gallery (``gallery.rst``): every figure of ``simulations.demo.FIGURES``, drawn by
  ``simulations.demo.write_figures`` (what ``gcul demo`` writes) into the build directory.
- The proofs report (``proofs.md``): ``proofs.format_markdown(proofs.run_all())`` (what
  ``python -m proofs --format markdown`` prints), computed at build time.

The figures and the report are made by a worker process (this file run as a script) while
Sphinx reads the API pages, and are marked outdated at every build, so they always show the
code being documented.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import shutil
import subprocess
import sys
import time
from pathlib import Path

from proofs.citations import cite_rest

PACKAGES = ("gcul_theory", "simulations", "proofs")
"""The packages whose public modules the API reference documents."""

API_DIR = Path("reference") / "generated"
"""Where the API pages are written, relative to the source directory (git-ignored)."""

MODULE_INDEX = "modules.inc"
"""The module pages by topic, with their toctrees, included by ``reference/index.rst``."""

REFERENCE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "The mathematics",
        "Every formula, bound and estimator of the paper as broadcasting NumPy/SciPy functions, "
        "and the selective-classification metrics.",
        ("gcul_theory",),
    ),
    (
        "GCUL, the classifier",
        "The selective classifier (a scikit-learn estimator), its NumPy/SciPy models, and "
        "certifying it on held-out data.",
        ("simulations", "simulations.models", "simulations.certification"),
    ),
    (
        "On your own data",
        "What ``gcul feasibility`` and ``gcul compare`` compute, from Python; their statistics "
        "(splits, the corrected t test, ROC AUC with DeLong's and a bootstrap SE, Holm), and "
        "the training-split predictors of GCUL against MSP.",
        (
            "simulations.feasibility",
            "simulations.compare",
            "simulations.statistics",
            "simulations.training_predictors",
        ),
    ),
    (
        "Text emotion corpora",
        "Loaders of GoEmotions and dair-ai/emotion, the representations the text benchmark "
        "uses (the optional extra ``text``), and the benchmark's protocol, measurements, tasks, "
        "tables, report, figures and the paper's reference numbers.",
        (
            "simulations.text",
            "simulations.text.representations",
            "simulations.text.study",
            "simulations.text.measures",
            "simulations.text.tasks",
            "simulations.text.tables",
            "simulations.text.report",
            "simulations.text.figures",
            "simulations.text.csv_rows",
            "simulations.text.paper_values",
        ),
    ),
    (
        "Rejectors and the judged methods",
        "GCUL's rejection and the baselines it is judged against; the registry of every "
        "predictor and rejector (labels, styles, guarantees).",
        ("simulations.rejectors", "simulations.registry"),
    ),
    (
        "The synthetic experiment",
        "The paper's protocol, the parallel resumable sweep, one run of ``gcul reproduce`` and "
        "the columns of its ``results.csv``.",
        (
            "simulations.synthetic",
            "simulations.sweep",
            "simulations.reproduce",
            "simulations.results",
        ),
    ),
    (
        "The regime map",
        "When GCUL's rejection beats thresholding confidence over the synthetic protocol's "
        "geometry and on the text corpora, and whether training-split quantities predict it: "
        "the study's grid, cells, summaries, figures and report (``benchmarks/regime_map.py`` "
        "runs it).",
        ("simulations.regime_map",),
    ),
    (
        "Tables and figures",
        "The violation, per-seed and baselines tables, and the figures of ``gcul reproduce``.",
        (
            "simulations.report",
            "simulations.baselines",
            "simulations.figures",
            "simulations.baseline_figures",
        ),
    ),
    (
        "Classroom",
        "The slides of ``gcul demo`` and what the notebooks call.",
        ("simulations.demo",),
    ),
    (
        "Proofs",
        "The SymPy re-derivations of the paper's claims and their report (``gcul prove``); "
        "the paper's items cited by number and title.",
        ("proofs", "proofs.citations"),
    ),
)
"""The public modules, by topic: (title, one sentence, module names), in reading order."""

INTERNAL: tuple[str, ...] = (
    "simulations.cli",  # the command line is documented as commands (reference/cli.md)
    "simulations.cli.*",
    "simulations.compare.*",  # re-exported by simulations.compare
    "simulations.demo.*",  # re-exported by simulations.demo
    "simulations.figures.*",  # re-exported by simulations.figures
    "simulations.report.*",  # re-exported by simulations.report
    "simulations.rejectors.*",  # one module per rejector, reached through REJECTORS
    "simulations.sweep.*",  # re-exported by simulations.sweep
    "simulations.gcul",  # GCUL is simulations.GCUL; the rest is simulations.certification's
    "simulations.outputs",  # atomic writes and folder locks of reproduce
    "simulations.validation",  # argument checks
    "simulations.text.corpora",  # re-exported by simulations.text
    "simulations.text.precomputed",  # re-exported by simulations.text
)
"""Modules without a page: implementation that a public module re-exports or uses (fnmatch
patterns on the dotted name)."""

NAME_GROUPS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "gcul_theory": (
        (
            "Selectivity and utility",
            (
                "rejection_rate",
                "clean_error",
                "utility",
                "selectivity_score",
                "selectivity_at_rate",
                "empirical_lambda",
            ),
        ),
        ("Tails", ("gaussian_tail", "chernoff_tail")),
        (
            "Geometry and the feasibility report",
            (
                "Geometry",
                "estimate_geometry",
                "MAX_CLASSES",
                "feasibility_report",
                "FeasibilityReport",
                "COLUMN_LEGEND",
                "structural_existence_confidence",
            ),
        ),
        (
            "Predictors of λ* and their bounds",
            (
                "PREDICTORS",
                "METHODS",
                "DEFAULT_METHOD",
                "Predictor",
                "predictor",
                "guarantee_phrase",
                "capture_rate_bound",
                "contamination_rate_bound",
                "critical_lambda",
                "critical_lambda_from_rates",
                "finite_sample_lambda",
                "FiniteSampleBound",
                "hoeffding_deviation",
                "SingleAttractorModel",
            ),
        ),
        (
            "Certified λ* (held-out calibration data)",
            (
                "certified_lambda",
                "utility_confidence_bounds",
                "cross_fit_utility_bounds",
                "CrossFitBounds",
                "CERTIFIED_METHODS",
                "ASYMPTOTIC_MIN_COUNT",
                "null_boundary_law",
                "NULL_BOUNDARY_LAWS",
                "draw_calibration_outcomes",
            ),
        ),
        (
            "Selective-classification metrics",
            (
                "selective_risk_at_coverage",
                "risk_coverage_curve",
                "RiskCoverageCurve",
                "aurc",
                "e_aurc",
                "augrc",
                "joint_utility",
                "selective_risk_upper_bound",
                "sgr_threshold",
                "SGRResult",
            ),
        ),
    ),
    "proofs": (
        (
            "Running and reporting",
            (
                "run_all",
                "run_one",
                "claim_ids",
                "ClaimResult",
                "main",
                "summary_line",
                "format_text",
                "format_markdown",
                "format_json",
                "format_latex",
                "format_derivation",
            ),
        ),
        (
            "Symbolic utility, selectivity and critical cost",
            (
                "rejection_rate_expr",
                "clean_error_expr",
                "utility_expr",
                "joint_utility_expr",
                "selectivity_expr",
                "selectivity_closed_form",
                "selectivity_denominator",
                "criterion_margins",
                "selectivity_gradient",
                "critical_lambda_expr",
            ),
        ),
        (
            "Symbolic tails, capture and contamination",
            (
                "voronoi_margin",
                "projection",
                "normal_density",
                "normal_interval_probability",
                "gaussian_tail_expr",
                "chernoff_exponent",
                "chernoff_tail_expr",
                "capture_rate_bound_expr",
                "contamination_rate_bound_expr",
                "independent_capture_expr",
                "boole_capture_bound_expr",
                "rigorous_capture_bound_expr",
                "nearest_centre_capture",
                "clip_unit",
                "structural_existence_bound_expr",
            ),
        ),
    ),
}
"""How the names of a package's ``__all__`` are grouped on its page, as SciPy's
``scipy.special`` page is; the groups hold every name exactly once (``tests/test_docs.py``)."""

CONTRIBUTOR_PARAGRAPHS = (
    "Where a change goes",
    "Layout (where a change goes)",
    "No module imports a private",
    ":func:`reproduce` is imported with the package",
)
"""A module docstring's paragraphs that start so are for contributors; its page leaves them out."""

CLI_DOC = "reference/cli"
CLI_MARKER = "<!-- gcul-cli-help -->"
CLI_COLUMNS = 100  # the width the help texts are wrapped at on the page

GALLERY_DOC = "gallery"
PROOFS_DOC = "proofs"
GALLERY_MARKER = ".. gcul-gallery-figures::"
PROOFS_MARKER = "<!-- gcul-proofs-report -->"


# --------------------------------------------------------------------------- the API reference


def all_modules(packages=PACKAGES) -> list[str]:
    """Dotted names of every module of ``packages`` with no ``_``-prefixed component, sorted."""
    names = []
    for package_name in packages:
        package = importlib.import_module(package_name)
        names.append(package_name)
        prefix = package_name + "."
        for info in pkgutil.walk_packages(package.__path__, prefix, onerror=_raise):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue  # private modules (and ``__main__``, which runs on import)
            names.append(info.name)
    return sorted(set(names))


def is_internal(module_name: str) -> bool:
    """Whether ``module_name`` matches a pattern of :data:`INTERNAL`."""
    from fnmatch import fnmatchcase

    return any(fnmatchcase(module_name, pattern) for pattern in INTERNAL)


def public_modules() -> list[str]:
    """Dotted names of the modules the reference documents, in :data:`REFERENCE`'s order."""
    return [name for _, _, modules in REFERENCE for name in modules]


def _raise(name: str) -> None:
    raise ImportError(f"cannot import {name} while listing the public modules")


def public_names(module) -> list[str]:
    """The module's ``__all__``, or else the public names defined in the module itself."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        return list(exported)
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not inspect.ismodule(value)
        and getattr(value, "__module__", None) == module.__name__
    )


def _directive(value) -> str:
    if inspect.isclass(value):
        return "autoclass"
    if inspect.isroutine(value):
        return "autofunction"
    return "autodata"


def _title(text: str) -> list[str]:
    return [text, "=" * len(text), ""]


def module_page(module_name: str, no_index: set[str] = frozenset()) -> tuple[str, dict[str, str]]:
    """The rst of one module's page and of the pages of its public names (by document name).

    A public name that is a module is listed (it has its own page) but gets no page here; a
    name in ``no_index`` is documented without an index entry (see :func:`duplicate_classes`).
    """
    module = importlib.import_module(module_name)
    names = public_names(module)
    lines = _title(f"``{module_name}``")
    lines += [f".. automodule:: {module_name}", "   :no-members:", ""]
    objects: dict[str, str] = {}
    if names:
        lines += [f".. currentmodule:: {module_name}", ""]
        for group, group_names in NAME_GROUPS.get(module_name, (("Public names", names),)):
            lines += [f".. rubric:: {group}", "", ".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in group_names]
            lines.append("")
        lines += [".. toctree::", "   :hidden:", ""]
        for name in names:
            value = getattr(module, name)
            if inspect.ismodule(value):
                continue
            full = f"{module_name}.{name}"
            lines.append(f"   {full}")
            objects[full] = object_page(module_name, name, value, full in no_index)
        lines.append("")
    return "\n".join(lines), objects


def duplicate_classes(modules: list[str]) -> set[str]:
    """Public names of a class that would be declared twice; all but the first of each.

    autodoc declares a class documented under another module's name (``simulations.GCUL``) with
    ``:canonical:`` its defining name (``simulations.gcul.GCUL``). When the defining module is
    private and two public modules re-export the class, both pages would declare the same
    canonical name ("duplicate object description"): the second and later pages are then
    written with ``:no-index:``.
    """
    seen: dict[int, str] = {}
    duplicates: set[str] = set()
    documented = set(modules)
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            value = getattr(module, name)
            if not inspect.isclass(value) or value.__module__ in documented:
                continue
            full = f"{module_name}.{name}"
            if id(value) in seen:
                duplicates.add(full)
            else:
                seen[id(value)] = full
    return duplicates


def attribute_doc(module_name: str, name: str, value) -> str | None:
    """The docstring written under ``name = ...`` where ``value`` was defined, if any.

    A constant re-exported by a package (``gcul_theory.METHODS`` from ``gcul_theory._bounds``)
    has its docstring in the defining module, which may be private: every loaded module of the
    same top-level package that binds ``name`` to this very object is searched, the module
    itself first. (autodoc's own ``autodata`` would show the docstring of the value's type, e.g.
    ``tuple``'s, for such a name.)
    """
    from sphinx.pycode import ModuleAnalyzer

    top = module_name.split(".")[0]
    candidates = [module_name] + sorted(
        loaded
        for loaded in list(sys.modules)
        if loaded.split(".")[0] == top and loaded != module_name and "__main__" not in loaded
    )
    for candidate in candidates:
        module = sys.modules.get(candidate)
        if module is None or getattr(module, name, _MISSING) is not value:
            continue
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except Exception:  # no source (a compiled module): look further
            continue
        if ("", name) in docs:
            return "\n".join(docs[("", name)]).strip()
    return None


_MISSING = object()
_MAX_VALUE_REPR = 100  # longer values (registries of dataclasses) are described, not printed


def object_page(module_name: str, name: str, value, no_index: bool = False) -> str:
    """The rst of the page of one public name."""
    directive = _directive(value)
    lines = _title(f"``{module_name}.{name}``")
    lines += [f".. currentmodule:: {module_name}", ""]
    if directive == "autoclass":
        lines += [f".. autoclass:: {name}", "   :members:", "   :show-inheritance:"]
        if no_index:
            lines.append("   :no-index:")
    elif directive == "autofunction":
        lines += [f".. autofunction:: {name}"]
    else:
        lines += [f".. autodata:: {name}"]
        shown = repr(value)
        if len(shown) > _MAX_VALUE_REPR or "\n" in shown:
            lines.append("   :no-value:")
    lines.append("")
    return "\n".join(lines)


def write_api_pages(srcdir: Path) -> int:
    """Write the API pages under ``srcdir / API_DIR``; return how many pages there are.

    A page is rewritten only when its text changes (so an incremental build re-reads only what
    changed) and a page of a name that is no longer public is removed.
    """
    out = srcdir / API_DIR
    pages: dict[str, str] = {}
    modules = public_modules()
    no_index = duplicate_classes(modules)
    for module_name in modules:
        text, objects = module_page(module_name, no_index)
        pages[module_name] = text
        pages.update(objects)
    files = {f"{name}.rst": text for name, text in pages.items()}
    # included by api/index.rst (so its entries are relative to api/); not a page of its own
    index = ["..", "   Written by docs/_ext/gcul_docs.py at every build; not committed.", ""]
    for title, sentence, topic_modules in REFERENCE:
        index += [title, "-" * len(title), "", sentence, ""]
        index += [".. toctree::", "   :maxdepth: 1", ""]
        for name in topic_modules:
            summary = _summary(name)
            index.append(
                f"   {name} — {summary} <{API_DIR.name}/{name}>"
                if summary
                else f"   {API_DIR.name}/{name}"
            )
        index.append("")
    files[MODULE_INDEX] = "\n".join(index) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    for path in out.iterdir():
        if path.name not in files:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    for name, text in files.items():
        path = out / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return len(pages)


def _summary(module_name: str) -> str:
    """The first line of a module's docstring, without its final period and markup."""
    doc = inspect.getdoc(importlib.import_module(module_name)) or ""
    lines = cite_rest(doc.strip().splitlines(), beside=False)
    first = lines[0] if lines else ""
    for markup in ("``", ":func:", ":class:", ":mod:", "`", "*"):
        first = first.replace(markup, "")
    return first.rstrip(".").replace("<", "‹").replace(">", "›")


def user_docstring(module_name: str, lines: list[str]) -> list[str]:
    """``lines`` of a module docstring without its contributors' paragraphs and, for a package
    whose names :data:`NAME_GROUPS` groups, without the literal blocks that index its names
    (the grouped tables replace them)."""
    module = importlib.import_module(module_name)
    names = set(public_names(module)) if module_name in NAME_GROUPS else set()
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    kept: list[list[str]] = []
    dropping_block = False
    for paragraph in filter(None, paragraphs):
        indented = paragraph[0][:1].isspace()
        if dropping_block and indented:
            continue  # the literal block of a dropped "...::" paragraph
        dropping_block = False
        first = paragraph[0].strip()
        index_block = False
        if paragraph[-1].rstrip().endswith("::"):
            after = paragraphs[paragraphs.index(paragraph) + 1 :]
            block = after[0] if after else []
            index_block = bool(block) and block[0].split()[0].rstrip(",") in names
        if first.startswith(CONTRIBUTOR_PARAGRAPHS) or index_block:
            dropping_block = paragraph[-1].rstrip().endswith("::")
            continue
        kept.append(paragraph)
    out: list[str] = []
    for paragraph in kept:
        out += paragraph + [""]
    return out


def _on_process_docstring(app, what, name, obj, options, lines) -> None:
    """Give a re-exported constant the docstring of its definition, not its type's; leave a
    module's contributors' paragraphs out of its page (:func:`user_docstring`)."""
    if what == "module":
        lines[:] = user_docstring(name, lines)
        return
    if what != "data" or inspect.isclass(obj) or inspect.isroutine(obj):
        return
    type_doc = inspect.getdoc(type(obj)) or ""
    if lines and "\n".join(lines).strip() != type_doc.strip():
        return  # autodoc found the constant's own docstring
    module_name, _, short = name.rpartition(".")
    doc = attribute_doc(module_name, short, obj)
    lines[:] = doc.splitlines() + [""] if doc else []


def _on_cite_paper_labels(app, what, name, obj, options, lines) -> None:
    """Cite the paper's items by number and title in every docstring
    (:func:`proofs.citations.cite_rest`, the label kept beside its citation).

    Runs after numpydoc's handler (priority 500): it edits the reST that docutils parses, so
    numpydoc never reads a citation as part of its sections' syntax ("name : type" lines, See
    Also entries), and the docstrings :func:`_on_process_docstring` substitutes (priority 400)
    are covered too."""
    lines[:] = cite_rest(lines)


ABBREVIATIONS = ("Eq.", "Eqs.", "Sec.", "Secs.", "Fig.", "Figs.", "Thm.", "cf.")
"""Abbreviations after which a summary's first sentence goes on (see :func:`_keep_abbreviations`)."""


def _keep_abbreviations() -> None:
    """Let autosummary's one-line summaries read past "Eq." and "Sec.".

    ``sphinx.ext.autosummary`` takes a docstring's first sentence as its summary, cut at the
    first ". " unless it ends a well-known abbreviation ("e.g.", "i.e.", "et al.", "vs."), so
    "Right-hand side of Eq. (13) in section 3.4 …" showed as "Right-hand side of Eq.": the
    citation was lost from the tables of the module pages. Its list is a module constant,
    read at each call, with no configuration value; it is extended here (and left alone if a
    later Sphinx renames it, which ``tests/test_docs.py`` would notice)."""
    from sphinx.ext import autosummary

    known = getattr(autosummary, "WELL_KNOWN_ABBREVIATIONS", None)
    if isinstance(known, tuple):
        extra = tuple(word for word in ABBREVIATIONS if word not in known)
        autosummary.WELL_KNOWN_ABBREVIATIONS = known + extra


def _on_config_inited(app, config) -> None:
    write_api_pages(Path(app.srcdir))


# ---------------------------------------------------------------- gallery and proofs report
#
# The figures and the proofs report are computed by a worker process started when the builder
# starts (this file run as a script), so they are made on the second core while Sphinx reads
# the API pages, which come first in reading order; the gallery and proofs pages wait for it.

WORKER_TIMEOUT = 900.0
"""Seconds the gallery and proofs pages wait for the worker (it takes 10-60 s) before failing."""


def generate(out: Path) -> None:
    """Draw every classroom figure into ``out/gallery`` and write ``out/proofs.md``.

    ``simulations.demo.write_figures`` is what ``gcul demo --out DIR`` runs; the report is what
    ``python -m proofs --format markdown`` prints (without its timing). ``out/done`` is written
    last.
    """
    import proofs
    from simulations.demo import write_figures

    write_figures(out / "gallery")
    results = proofs.run_all()
    report = f"{proofs.format_markdown(results)}\n\n**{proofs.summary_line(results)}**\n"
    (out / "proofs.md").write_text(report, encoding="utf-8")
    (out / "done").write_text("ok\n", encoding="utf-8")


class _Worker:
    """The worker process of one build, and where it writes."""

    def __init__(self, app) -> None:
        import simulations

        self.out = Path(app.doctreedir) / "gcul_generated"
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        self.log = self.out / "worker.log"
        # the worker imports the same checkout as this process
        root = str(Path(simulations.__file__).resolve().parents[1])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        env.setdefault("MPLBACKEND", "agg")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), str(self.out)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        self.parent_pid = os.getpid()

    def wait(self) -> Path:
        """Block until the worker is done; raise with its output if it failed."""
        from sphinx.errors import ExtensionError

        done = self.out / "done"
        deadline = time.monotonic() + WORKER_TIMEOUT
        while not done.exists():
            # only the process that started the worker can poll it (not a parallel reader)
            if os.getpid() == self.parent_pid and self.process.poll() is not None:
                if done.exists():
                    break
                tail = self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
                raise ExtensionError(
                    f"gcul_docs: drawing the gallery / computing the proofs report failed "
                    f"(exit code {self.process.returncode}):\n{tail}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise ExtensionError(f"gcul_docs: the worker took over {WORKER_TIMEOUT:.0f} s")
            time.sleep(0.05)
        return self.out

    def stop(self) -> None:
        if os.getpid() == self.parent_pid and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_WORKERS: dict[int, _Worker] = {}


def _on_builder_inited(app) -> None:
    _WORKERS[id(app)] = _Worker(app)


def _on_build_finished(app, exception) -> None:
    worker = _WORKERS.pop(id(app), None)
    if worker is not None:
        worker.stop()  # a build that failed before the gallery leaves no process behind


def gallery_rst(app, out: Path) -> str:
    """The rst of every classroom figure of ``simulations.demo.FIGURES``, drawn in ``out``."""
    from simulations.demo import FIGURES

    # the image and download roles resolve paths from the source directory; the figures live
    # in the build directory, so they are named by a path relative to the gallery's folder
    doc_dir = Path(app.srcdir) / Path(GALLERY_DOC).parent
    relative = Path(os.path.relpath(out / "gallery", doc_dir)).as_posix()
    lines: list[str] = []
    for spec in FIGURES:
        title = f"{spec.name} (notebook {spec.notebook})"
        lines += [title, "-" * len(title), "", spec.description[0].upper() + spec.description[1:]]
        lines += [
            f"(``gcul demo --out DIR --only {spec.name}``,",
            f":download:`PDF <{relative}/{spec.name}.pdf>`).",
            "",
            f".. image:: {relative}/{spec.name}.png",
            f"   :alt: {spec.description}",
            "   :width: 100%",
            "",
        ]
    return "\n".join(lines)


def cli_help_markdown() -> str:
    """``gcul --help`` and every command's ``--help``, as Markdown code blocks by command."""
    import argparse

    from simulations.cli import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(CLI_COLUMNS)  # argparse wraps at $COLUMNS
    try:
        parser = build_parser()
        parts = ["### `gcul`", "", "```text", parser.format_help().rstrip(), "```", ""]
        for action in parser._actions:  # argparse has no public way to list sub-parsers
            if isinstance(action, argparse._SubParsersAction):
                for command, sub in action.choices.items():
                    parts += [f"### `gcul {command}`", "", "```text"]
                    parts += [sub.format_help().rstrip(), "```", ""]
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(parts)


def _on_source_read(app, docname: str, source: list[str]) -> None:
    if docname == CLI_DOC and CLI_MARKER in source[0]:
        source[0] = source[0].replace(CLI_MARKER, cli_help_markdown())
    elif docname == GALLERY_DOC and GALLERY_MARKER in source[0]:
        out = _WORKERS[id(app)].wait()
        source[0] = source[0].replace(GALLERY_MARKER, gallery_rst(app, out))
    elif docname == PROOFS_DOC and PROOFS_MARKER in source[0]:
        out = _WORKERS[id(app)].wait()
        report = (out / "proofs.md").read_text(encoding="utf-8")
        source[0] = source[0].replace(PROOFS_MARKER, report)


def _on_env_get_outdated(app, env, added, changed, removed) -> list[str]:
    # both pages show what the code computes now, so they are re-read at every build
    return [doc for doc in (GALLERY_DOC, PROOFS_DOC, CLI_DOC) if doc in env.found_docs]


def _on_skip_member(app, what, name, obj, skip, options):
    """Leave out members that scikit-learn attaches to our estimators (``set_score_request``,
    ``get_metadata_routing``, ...): their docstrings cite scikit-learn's own glossary and labels,
    which are not part of this site; scikit-learn documents them."""
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):
        module = type(obj).__module__
    if module.split(".")[0] == "sklearn":
        return True
    return None


def setup(app):
    _keep_abbreviations()
    app.connect("config-inited", _on_config_inited)
    app.connect("autodoc-skip-member", _on_skip_member)
    # before numpydoc's handler (priority 500), which would reformat the type's docstring
    app.connect("autodoc-process-docstring", _on_process_docstring, priority=400)
    # after numpydoc's handler: see _on_cite_paper_labels
    app.connect("autodoc-process-docstring", _on_cite_paper_labels, priority=600)
    app.connect("builder-inited", _on_builder_inited)
    app.connect("source-read", _on_source_read)
    app.connect("build-finished", _on_build_finished)
    app.connect("env-get-outdated", _on_env_get_outdated)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # the worker process
    generate(Path(sys.argv[1]))
