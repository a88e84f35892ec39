"""The ``gcul`` command line: ``gcul reproduce``, ``gcul prove``, ``gcul feasibility``, ``gcul demo``.

Every error is one line on stderr (``gcul: error: ...``) with exit code 2, never a traceback; a
bare ``gcul`` also prints the command list (on stdout, like ``--help``). ``gcul --version``
prints the version. Output cut short by its reader (``| head``) ends quietly with exit code 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from simulations.reproduce import MAX_CELLS  # a light module: a run imports the rest

__all__ = ["main", "parse_seeds"]

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 1  # as the Python docs' note on SIGPIPE
EXIT_INTERRUPTED = 130


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


SEED_LIMIT = 2**32
"""Seeds must be below this (``0 <= seed < 2**32``)."""

VERDICT_DEFAULT = "hunter_worsley"
"""The predictor of ``gcul feasibility``'s verdict by default: the default of
:func:`gcul_theory.feasibility_report`, the tightest valid bound."""


def _shown(text: str, limit: int = 40) -> str:
    """``repr`` of a user's argument, shortened so that an error stays one short line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def parse_seeds(text: str) -> list[int]:
    """Parse ``"10-19"``, ``"16"`` or ``"10,12,15-17"`` into a sorted list of distinct seeds.

    Seeds are integers in ``[0, 2**32)``; at most :data:`MAX_CELLS` distinct seeds. Ranges are
    counted before they are expanded, so ``"0-1000000000"`` is refused at once, without building
    a billion-element set.

    Raises
    ------
    argparse.ArgumentTypeError
        For a malformed list, a reversed range, a seed outside ``[0, 2**32)`` or too many seeds.

    Examples
    --------
    >>> parse_seeds("10-12,16")
    [10, 11, 12, 16]
    >>> parse_seeds("0-1000000000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: seeds: at most 100000 distinct seeds ...; got 1000000001 in ...
    """
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(p) for p in part.split("-", 1))
            else:
                low = high = int(part)
            if low > high or low < 0:
                raise ValueError
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"seeds must look like 10-19 or 10,12,15-17 (non-negative integers); "
                f"got {_shown(text)}"
            ) from None
        if high >= SEED_LIMIT:
            raise argparse.ArgumentTypeError(
                f"seeds must be below 2**32 = {SEED_LIMIT}; got {high} in {_shown(text)}"
            )
        ranges.append((low, high))
    merged: list[list[int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    count = sum(high - low + 1 for low, high in merged)
    if count > MAX_CELLS:
        raise argparse.ArgumentTypeError(
            f"seeds: at most {MAX_CELLS} distinct seeds (a grid holds at most {MAX_CELLS} "
            f"cells); got {count} in {_shown(text)}"
        )
    return [seed for low, high in merged for seed in range(low, high + 1)]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer; got {_shown(text)}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {_shown(text)}")
    return value


def _jobs(text: str) -> int:
    """``--jobs``: a non-zero integer, joblib semantics (-1 = all usable cores)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"expected a non-zero integer (N workers, -1 = all usable cores, -2 = all but one); "
            f"got {_shown(text)}"
        )
    return value


def _cost(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1); got {text!r}") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1); got {text!r}")
    return value


REPRODUCE_OPTIONS = {
    "out": "--out",
    "seeds": "--seeds",
    "levels": "--levels",
    "n_jobs": "--jobs",
    "backend": "--backend",
    "scheduler": "--scheduler",
    "lam": "--lam",
    "method": "--method",
    "cache_dir": "--cache",
    "progress": "--quiet",
}
"""How ``gcul reproduce`` names the arguments of :func:`simulations.reproduce.reproduce`."""


def _reproduce(args: argparse.Namespace) -> int:
    from .outputs import FolderInUseError
    from .report import format_violations_text
    from .reproduce import Interrupted, reproduce
    from .sweep import SweepError

    try:
        run = reproduce(
            args.out,
            seeds=args.seeds,
            levels=args.levels,
            n_jobs=args.jobs,
            backend=args.backend,
            scheduler=args.scheduler,
            lam=args.lam,
            method=args.method,
            cache_dir=args.cache,
            progress=not args.quiet,
            argv=sys.argv[1:],
            names=REPRODUCE_OPTIONS,
        )
    except Interrupted as exc:
        print(
            f"gcul: interrupted ({exc.cause}); finished cells are kept in {exc.cache} and a "
            "rerun resumes",
            file=sys.stderr,
        )
        return exc.exit_code
    except FolderInUseError as exc:
        raise CommandError(
            f"--out {str(exc.folder)!r} is in use by {exc.holder}; wait for it to end or choose "
            "another --out"
        ) from None
    except SweepError as exc:  # a worker died, a local cluster did not start
        raise CommandError(_first_line(exc)) from None
    except ImportError as exc:  # --backend dask without dask.distributed
        raise CommandError(_first_line(exc)) from None
    except ConnectionError:  # the dask scheduler: its message names the option
        raise
    except OSError as exc:  # once the run has started: a file could not be written
        where = f" {exc.filename}" if exc.filename else ""
        raise CommandError(f"cannot write{where}: {exc.strerror or exc}") from None

    print(format_violations_text(run.violations))
    print(f"\n{len(run.rows)} cells in {run.elapsed:.1f} s; wrote:")
    for path in run.written:
        print(f"  {path}")
    return 0


def _prove(args: argparse.Namespace) -> int:
    import proofs

    argv = ["--format", args.format]
    if args.claim is not None:
        argv += ["--claim", args.claim]
    return proofs.main(argv, prog="gcul prove")


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"
_TEXT_DELIMITERS = {".csv": ",", ".tsv": "\t"}  # any other text file: whitespace-separated
_MAX_MESSAGE = 1000  # characters of an error message that are printed, at most
_FORMATS = ".npy, or a text table: .csv (commas), .tsv (tabs), anything else whitespace-separated"


def _size(n_bytes: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n_bytes < 1000 or unit == "TB":
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _check_npy_dtype(dtype: np.dtype, where: str) -> None:
    if dtype.hasobject:
        raise CommandError(
            f"{where}: holds Python objects (a pickle), which are never loaded; save a numeric "
            "array with np.save"
        )
    if dtype.names is not None:
        raise CommandError(f"{where}: is a structured array ({dtype}); save a plain numeric array")
    if dtype.kind == "c":
        raise CommandError(f"{where}: is complex ({dtype}); the values must be real")
    if dtype.kind in "US":
        raise CommandError(
            f"{where}: holds strings ({dtype}); save numbers (encode string labels with "
            "np.unique(labels, return_inverse=True))"
        )
    if dtype.kind not in "biuf":
        raise CommandError(f"{where}: holds {dtype} values; expected numbers")


def _read_npy(source: Path, where: str) -> np.ndarray:
    """Read a .npy file after checking its header: a numeric dtype and a size the file holds."""
    file_size = source.stat().st_size
    with source.open("rb") as stream:
        try:
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
            else:
                raise CommandError(
                    f"{where}: .npy format version {version[0]}.{version[1]} is not supported "
                    "(1.0 and 2.0 are)"
                )
        except (ValueError, EOFError) as exc:
            raise CommandError(f"{where}: not a valid .npy file ({_first_line(exc)})") from None
        data_start = stream.tell()
    _check_npy_dtype(dtype, where)
    declared = math.prod(shape) * dtype.itemsize
    if declared > file_size - data_start:
        raise CommandError(
            f"{where}: the header declares shape {shape} of {dtype} ({_size(declared)}) but the "
            f"file holds {_size(file_size - data_start)} of data: truncated or corrupt"
        )
    try:
        return np.load(source, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise CommandError(f"{where}: cannot read the .npy data ({_first_line(exc)})") from None


def _header_line(source: Path, delimiter: str | None) -> str | None:
    """The file's header row, if it has one, else None.

    A header row is the first line that is not blank or a ``#`` comment (``np.loadtxt`` skips
    those) when a non-empty field of it is not a number *and* every line after it reads as a
    number table: then the file is a table with a header, and nothing else. It is reported,
    never skipped: a header of numbers (pandas' default column names 0, 1, ...) cannot be told
    from data, so skipping only the others would make the meaning of a file depend on the
    names of its columns.
    """
    try:
        with source.open(encoding="utf-8", errors="replace") as stream:
            lines = ((n, line.split("#", 1)[0].strip()) for n, line in enumerate(stream, 1))
            number, content = next(((n, text) for n, text in lines if text), (0, ""))
        if not content:
            return None
        names = [field.strip() for field in content.split(delimiter)]
        if all(_is_number(field) or not field for field in names):
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a header and nothing else
            rest = np.loadtxt(
                source, delimiter=delimiter, ndmin=2, encoding="utf-8", skiprows=number
            )
    except (OSError, ValueError):
        return None
    return content if rest.size else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_text(source: Path, head: bytes, where: str) -> np.ndarray:
    """Read a text table as a 2-D float64 array (an empty file is an error, not a warning)."""
    if b"\x00" in head:
        raise CommandError(f"{where}: is a binary file, not one of: {_FORMATS}")
    delimiter = _TEXT_DELIMITERS.get(source.suffix.lower())
    with warnings.catch_warnings():
        # "loadtxt: input contained no data": an empty file is reported below, in one line
        warnings.simplefilter("ignore", UserWarning)
        try:
            array = np.loadtxt(source, delimiter=delimiter, ndmin=2, encoding="utf-8")
        except ValueError as exc:  # including UnicodeDecodeError
            header = _header_line(source, delimiter)
            if header is not None:
                raise CommandError(
                    f"{where}: its first line is a header ({_shown(header)}); the file must "
                    "have no header row, only numbers (np.savetxt writes none; with pandas, "
                    "df.to_csv(path, header=False, index=False))"
                ) from None
            raise CommandError(
                f"{where}: cannot read it as a number table: {_first_line(exc)}"
            ) from None
    if array.size == 0:
        raise CommandError(f"{where}: is empty (no numbers)")
    return array


def _read_array(path: str, option: str) -> np.ndarray:
    """Read one array from ``path``; every failure is a ``CommandError`` naming option and path."""
    source = Path(path)
    where = f"{option} {path}"
    if source.is_dir():
        raise CommandError(f"{where}: is a directory, not a file")
    if not source.exists():
        raise CommandError(f"{where}: no such file")
    if not source.is_file():
        raise CommandError(f"{where}: is not a regular file")
    try:
        with source.open("rb") as stream:
            head = stream.read(4096)
        if head.startswith(_ZIP_MAGIC) or source.suffix.lower() == ".npz":
            raise CommandError(
                f"{where}: is an .npz archive (a zip of arrays), not one array; extract the "
                "one you mean with np.load(path)[name] and save it with np.save"
            )
        if head.startswith(_NPY_MAGIC):
            return _read_npy(source, where)
        if source.suffix.lower() == ".npy":
            raise CommandError(f"{where}: is not a .npy file (it lacks the NumPy magic string)")
        return _read_text(source, head, where)
    except OSError as exc:
        raise CommandError(f"{where}: cannot read it: {exc.strerror or _first_line(exc)}") from None


def _load_embeddings(path: str) -> np.ndarray:
    """The ``(N, d)`` float64 embeddings; a 1-D array is one feature per row."""
    where = f"--embeddings {path}"
    array = _read_array(path, "--embeddings")
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise CommandError(
            f"{where}: expected a 2-D array (N rows x d columns); got shape {array.shape}"
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise CommandError(f"{where}: has no values (shape {array.shape})")
    with np.errstate(over="ignore"):  # long double beyond float64: caught as inf just below
        Z = array.astype(np.float64)
    finite = np.isfinite(Z).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        raise CommandError(f"{where}: row {row} holds NaN or inf; the embeddings must be finite")
    return Z


def _load_labels(path: str, option: str) -> np.ndarray:
    """Non-negative int64 labels, one per row; integral floats (``3.0``) are accepted."""
    where = f"{option} {path}"
    array = _read_array(path, option)
    if array.ndim == 2 and 1 in array.shape:  # one column, or one row, of labels
        array = array.ravel()
    if array.ndim != 1:
        raise CommandError(f"{where}: expected one column of labels; got shape {array.shape}")
    if array.size == 0:
        raise CommandError(f"{where}: holds no labels")
    if array.dtype.kind == "f":
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            row = int(np.argmax(bad))
            raise CommandError(
                f"{where}: labels must be integers; row {row} holds {float(array[row])!r}"
            )
        if np.abs(array).max() >= 2.0**63:
            row = int(np.argmax(np.abs(array)))
            raise CommandError(f"{where}: row {row} holds {float(array[row])!r}, not a class label")
    elif array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
        row = int(np.argmax(array))
        raise CommandError(f"{where}: row {row} holds {int(array[row])}, not a class label")
    labels = array.astype(np.int64)
    if labels.min() < 0:
        row = int(np.argmin(labels))
        raise CommandError(f"{where}: labels must be 0..C-1; row {row} holds {int(labels[row])}")
    return labels


def _check_classes(y: np.ndarray, y_pred: np.ndarray | None, args: argparse.Namespace) -> None:
    """Labels (and predictions) together must use exactly 0..C-1, C <= MAX_CLASSES.

    O(N log N) work, before anything is fitted.
    """
    from gcul_theory import MAX_CLASSES

    from .gcul import _first_missing

    if y_pred is None:
        files, hold = f"--labels {args.labels}", "holds"
        classes = np.unique(y)
    else:
        files, hold = f"--labels {args.labels} and --predictions {args.predictions}", "hold"
        classes = np.unique(np.concatenate([y, y_pred]))
    if classes.size < 2:
        raise CommandError(f"{files} {hold} a single class ({classes[0]}); at least two are needed")
    if classes.size > MAX_CLASSES:
        # checked before phase 1 is fitted: 10**5 classes spent 28.5 s and 9.6 GB before
        # "out of memory" in the fit, which the report would have refused afterwards anyway
        raise CommandError(
            f"{files} {hold} {classes.size} distinct labels; the feasibility report supports "
            f"at most {MAX_CLASSES} classes (gcul_theory.MAX_CLASSES)"
        )
    n_classes = int(classes[-1]) + 1
    n_missing = n_classes - classes.size
    if n_missing:
        first = _first_missing(classes, 5)
        listed = str(first) if n_missing <= 5 else f"{n_missing} labels: {str(first)[:-1]}, ...]"
        hint = " (1-based labels? subtract 1)" if first == [0] else ""
        raise CommandError(
            f"{files} must use the classes 0..C-1, each at least once (C = {n_classes} from the "
            f"largest label); missing {listed}{hint}. Encode other labels with "
            "np.unique(y, return_inverse=True)"
        )


def _method_names(text: str) -> str:
    """One ``--method`` word: a registry name or ``all``."""
    from gcul_theory import METHODS

    if text == "all" or text in METHODS:
        return text
    raise argparse.ArgumentTypeError(
        f"expected one of {', '.join(METHODS)} or all; got {_shown(text)}"
    )


def _requested_methods(words: list[str]) -> list[str]:
    """Expand ``all`` and drop repeats: the verdict's predictor first.

    ``all`` adds every registry name not yet listed; a list that *starts* with ``all`` gives
    the verdict to the default, the valid ``hunter_worsley``.
    """
    from gcul_theory import METHODS

    default = VERDICT_DEFAULT
    names: list[str] = []
    for word in words:
        expanded = ([default] if not names else []) + list(METHODS) if word == "all" else [word]
        names.extend(name for name in expanded if name not in names)
    return names


def _open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (``--calibration``, ``--delta``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"expected a number strictly between 0 and 1; got {_shown(text)}"
        )
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**32); got {_shown(text)}")
    return value


def _finite(value: float) -> float | None:
    """A float for JSON: NaN and inf become null (JSON has no such numbers)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _certify(Z: np.ndarray, y: np.ndarray, args: argparse.Namespace) -> dict:
    """Split (stratified, seeded), fit GCUL on the rest, certify on the calibration part."""
    from .gcul import GCUL, stratified_split

    held_out = stratified_split(y, args.calibration, args.seed)
    n_cal, n_fit = int(held_out.sum()), int((~held_out).sum())
    if n_cal == 0:
        raise CommandError(
            f"--calibration {args.calibration:g} of {y.size} rows leaves no calibration sample "
            "(every class keeps at least one row for fitting); raise --calibration or pass more rows"
        )
    model = GCUL().fit(Z[~held_out], y[~held_out])
    certificate = model.certify(Z[held_out], y[held_out], lam=args.lam, delta=args.delta)
    n_rejected = int(np.count_nonzero(model.predict(Z[held_out]) == model.uncertain_label_))
    guarantee = (
        f"finite-sample valid: P(certified and U(lambda) <= 0) <= delta = {args.delta:g} over "
        f"the calibration split, for this GCUL fitted on {n_fit} rows; not for a GCUL refitted "
        "on all rows"
    )
    if not model.can_reject_:
        reason = (
            f"the GCUL fitted on {n_fit} rows has no training error, hence no uncertain cluster, "
            "and cannot reject"
        )
    elif n_rejected == 0:
        reason = f"the fitted GCUL rejects none of the {n_cal} calibration rows"
    else:
        reason = None
    if reason is not None:
        verdict = f"not feasible: {reason}"
    elif certificate.feasible:
        verdict = (
            f"feasible, certified: U({args.lam:g}) >= {certificate.gain_lower:.4f} > 0 with "
            f"confidence {1 - args.delta:g} ({guarantee})"
        )
    else:
        verdict = (
            f"not certified: the {1 - args.delta:g} lower bound on U({args.lam:g}) is "
            f"{certificate.gain_lower:.4f} <= 0 (too few calibration rows, or rejecting does "
            "not pay)"
        )
    return {
        "lambda_cert": _finite(certificate.lambda_cert),
        "gain_lower": _finite(certificate.gain_lower),
        "gain_upper": _finite(certificate.gain_upper),
        "feasible": bool(certificate.feasible and reason is None),
        "can_reject": bool(model.can_reject_ and n_rejected > 0),
        "n": certificate.n,
        "n_fit": n_fit,
        "n_rejected": n_rejected,
        "calibration": args.calibration,
        "lam": certificate.lam,
        "delta": certificate.delta,
        "seed": args.seed,
        "guarantee": guarantee,
        "verdict": verdict,
    }


def _feasibility(args: argparse.Namespace) -> int:
    import gcul_theory
    from gcul_theory._report import guarantee_phrase

    certify = args.certify
    if not certify and (args.calibration is not None or args.delta is not None):
        given = "--calibration" if args.calibration is not None else "--delta"
        raise CommandError(f"{given} applies to the certificate only; add --certify")
    if certify:
        args.calibration = 0.2 if args.calibration is None else args.calibration
        args.delta = 0.05 if args.delta is None else args.delta
    methods = _requested_methods(args.method)
    Z = _load_embeddings(args.embeddings)
    y = _load_labels(args.labels, "--labels")
    notes: list[str] = []
    if y.size != Z.shape[0]:
        raise CommandError(
            f"--labels {args.labels}: holds {y.size} labels for {Z.shape[0]} rows of "
            f"--embeddings {args.embeddings}"
        )
    if args.predictions is None:
        _check_classes(y, None, args)
        from .models import LogisticRegression, _single_threaded_blas

        with _single_threaded_blas():
            y_pred = LogisticRegression(C=1.0, max_iter=500).fit(Z, y).predict(Z)
        notes.append(
            "phase-1 predictions: fitted here (GCUL's phase 1, a multinomial logistic "
            "regression, C = 1, on the embeddings) and taken in-sample, i.e. GCUL's own "
            "training error pool"
        )
        predictions = "fitted in-sample"
    else:
        y_pred = _load_labels(args.predictions, "--predictions")
        if y_pred.size != Z.shape[0]:
            raise CommandError(
                f"--predictions {args.predictions}: holds {y_pred.size} predictions for "
                f"{Z.shape[0]} rows of --embeddings {args.embeddings} (one per row, as in "
                f"--labels {args.labels})"
            )
        _check_classes(y, y_pred, args)
        notes.append(
            "phase-1 predictions: read from --predictions; pass phase 1's in-sample predictions "
            "on these rows (GCUL's error pool), not cross-validated ones"
        )
        predictions = "given"
    report = gcul_theory.feasibility_report(Z, y, y_pred, lam=args.lam, method=methods[0])
    eps = float(report.geometry.eps)
    certificate = _certify(Z, y, args) if certify else None
    feasible, verdict = report.feasible, report.verdict
    if certificate is not None and feasible and not certificate["can_reject"]:
        feasible = False
        verdict = (
            f"not feasible: {certificate['verdict'].removeprefix('not feasible: ')} (the "
            f"geometry alone said: {report.verdict})"
        )
    notes.extend(report.geometry.notes)
    if args.json:
        predictors = []
        for name in methods:
            entry = gcul_theory.predictor(name)
            computed = name in report.lambda_pre
            predictors.append(
                {
                    "name": name,
                    "kind": entry.kind,
                    "valid": entry.valid,
                    "guarantee": entry.guarantee,
                    "lambda_pre": _finite(report.lambda_pre[name]) if computed else None,
                    "r1_hat": _finite(report.r1_hat[name]) if computed else None,
                    "r2_hat": _finite(report.r2_hat_by_method[name]) if computed else None,
                    "feasible": bool(
                        computed and eps > 0.0 and report.lambda_pre[name] >= args.lam
                    ),
                }
            )
        result = {
            "lam": report.lam,
            "n": int(y.size),
            "n_classes": int(report.geometry.n_classes),
            "eps": _finite(eps),
            "predictions": predictions,
            "s_exist": _finite(report.s_exist),
            "predictors": predictors,
            "verdict": {
                "method": report.method,
                "kind": gcul_theory.predictor(report.method).kind,
                "guarantee": guarantee_phrase(report.method),
                "feasible": bool(feasible),
                "text": verdict,
            },
            "certificate": certificate,
            "per_class": [
                {
                    key: int(value) if key == "class" else _finite(value)
                    for key, value in row.items()
                }
                for row in report.per_class
                if row["pi"] > 0.0
            ],
            "notes": notes,
        }
        print(json.dumps(result, allow_nan=False))
        return 0
    text = report.format(methods).splitlines()
    text = [line for line in text if not line.startswith(("  note: ", "verdict: "))]
    text.extend(f"  note: {note}" for note in notes)
    if certificate is None:
        text.append(f"verdict: {verdict}")
    else:
        # the last line is the strongest evidence there is: the certificate; the geometric
        # verdict (lambda*_PRE from the whole data, before any GCUL is fitted) stays, labelled
        text.append(f"geometric verdict: {report.verdict}")
        text += [
            f"certificate (GCUL fitted on {certificate['n_fit']} rows, certified on "
            f"n = {certificate['n']} held-out rows: --calibration {args.calibration:g}, "
            f"--seed {args.seed}):",
            f"  lambda*_CERT = {certificate['lambda_cert']:.4f}",
            f"  U({args.lam:g}) in [{certificate['gain_lower']:.4f}, "
            f"{certificate['gain_upper']:.4f}] (one-sided {1 - args.delta:g} bounds; together a "
            f"{1 - 2 * args.delta:g} interval)",
            f"  rejected on calibration: {certificate['n_rejected']} of {certificate['n']}",
            f"verdict: {certificate['verdict']}",
        ]
    print("\n".join(text))
    return 0


def _figure_name(text: str) -> str:
    """One ``gcul demo --only`` word: a classroom figure's name."""
    from .demo import FIGURES

    names = [spec.name for spec in FIGURES]
    if text in names:
        return text
    raise argparse.ArgumentTypeError(
        f"expected a figure name ({', '.join(names)}; gcul demo --list describes them); "
        f"got {_shown(text)}"
    )


def _demo(args: argparse.Namespace) -> int:
    from . import demo

    if args.list:
        if args.only:
            raise CommandError("--only chooses figures to write; use it with --out, not --list")
        width = max(len(spec.name) for spec in demo.FIGURES)
        for spec in demo.FIGURES:
            print(f"{spec.name:<{width}}  notebook {spec.notebook}: {spec.description}")
        return 0
    out = Path(args.out)
    ancestor = out
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CommandError(f"--out: {str(ancestor)!r} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CommandError(f"--out: folder {str(ancestor)!r} is not writable")
    names = list(dict.fromkeys(args.only)) if args.only else None
    progress = None if args.quiet else (lambda line: print(f"gcul demo: {line}", file=sys.stderr))
    start = time.perf_counter()
    try:
        written = demo.write_figures(out, names, n_jobs=args.jobs, progress=progress)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise CommandError(f"cannot write{where}: {exc.strerror or exc}") from None
    print(f"{len(written) // 2} figures in {time.perf_counter() - start:.1f} s; wrote:")
    for path in written:
        print(f"  {path}")
    return 0


def _build_parser() -> argparse.ArgumentParser:
    from gcul_theory import MAX_CLASSES, METHODS, PREDICTORS
    from gcul_theory._report import COLUMN_LEGEND, guarantee_phrase

    parser = _Parser(
        prog="gcul",
        description="GCUL: theory, numerically verified proofs and the synthetic phase-transition experiment.",
        epilog="`gcul COMMAND --help` describes a command.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"gcul {_gcul_version()}",
        help="print the installed version of gcul and exit",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND"
    )

    reproduce = commands.add_parser(
        "reproduce",
        help="run the synthetic sweep and write the paper's figure and tables",
        description="Run the synthetic phase-transition sweep (default: the paper's 41 levels x "
        "seeds 10-19) and write results.csv, timings.csv, violations.* (one block per "
        f"predictor: {', '.join(METHODS)}, certified), seed16.*, phase_transition.* (the "
        "paper's figure), predictors.* (one panel per predictor) and manifest.json. "
        "results.csv is byte-identical for any --jobs and for a resumed run; the wall times go "
        "to timings.csv.",
    )
    reproduce.add_argument(
        "--out",
        default="results",
        metavar="DIR",
        help="output folder, created if needed; must be writable. One run at a time: a second "
        "run on the same folder is refused while the first runs (default: %(default)s)",
    )
    reproduce.add_argument(
        "--jobs",
        type=_jobs,
        default=-1,
        metavar="N",
        help="worker processes: N, or -1 = all usable CPU cores, -2 = all but one; more than "
        "the usable cores is capped there; with --backend dask, the workers of the LocalCluster "
        "(default: -1)",
    )
    reproduce.add_argument(
        "--seeds",
        type=parse_seeds,
        default=parse_seeds("10-19"),
        metavar="LIST",
        help=f"dataset seeds, e.g. 10-19 or 10,12,15-17; each below 2**32, at most {MAX_CELLS} "
        "cells in all (default: 10-19)",
    )
    reproduce.add_argument(
        "--levels",
        type=_positive_int,
        default=41,
        metavar="L",
        help="noise levels sigma = 0.4 i for i < L; at least 2 (the figures draw curves over "
        "sigma), at most 101, where the label-flip probability 0.025 sigma reaches 1 "
        "(default: %(default)s)",
    )
    reproduce.add_argument(
        "--method",
        choices=METHODS,
        default="union",
        help="lambda*_PRE predictor drawn in the paper's figure, one of: "
        + "; ".join(f"{e.name} ({guarantee_phrase(e)})" for e in PREDICTORS)
        + " (the tables and the predictors figure show every one; default: union, the paper's)",
    )
    reproduce.add_argument(
        "--lam",
        type=_cost,
        default=0.15,
        metavar="COST",
        help="target rejection cost lambda in [0, 1) for the violation counts (default: 0.15)",
    )
    reproduce.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="per-cell cache folder; a rerun resumes from it (default: OUT/cache)",
    )
    reproduce.add_argument(
        "--backend",
        choices=("loky", "dask"),
        default="loky",
        help="where the cells run: loky (joblib's process pool here) or dask (a dask.distributed "
        "cluster; needs pip install -e '.[dask]'): a LocalCluster of --jobs workers, or the "
        "cluster of --scheduler. results.csv is the same byte for byte (default: %(default)s)",
    )
    reproduce.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="address of a running dask scheduler, e.g. tcp://HOST:8786 (needs --backend dask; "
        "its workers run the cells and --jobs is not used; every worker needs gcul installed)",
    )
    reproduce.add_argument(
        "--quiet",
        action="store_true",
        help="no header and no progress lines on stderr (warnings and errors still show)",
    )
    reproduce.set_defaults(handler=_reproduce)

    prove = commands.add_parser(
        "prove",
        help="re-derive the paper's claims with SymPy and print the report",
        description="Check every claim of the GCUL paper (and of the package's own predictors): "
        "each row gives the paper's label, the statement as printed, what was computed, the "
        "verdict (verified / erratum / failed) and, for an erratum, the counterexample and the "
        "corrected statement. Exit 1 if a check failed.",
    )
    prove.add_argument(
        "--format",
        choices=("text", "markdown", "json", "latex"),
        default="text",
        help="report as plain text, a Markdown table, JSON or a booktabs LaTeX longtable; with "
        "--claim, that claim's derivation in the same format (default: %(default)s)",
    )
    prove.add_argument(
        "--claim",
        metavar="ID",
        default=None,
        help="print one claim's derivation step by step, e.g. asymptotics.dispersion_limit "
        "(an unknown ID exits 2 and lists close matches)",
    )
    prove.set_defaults(handler=_prove)

    feasibility = commands.add_parser(
        "feasibility",
        help="will a reject option pay off on your own embeddings? (lambda*_PRE before running "
        "GCUL; --certify to certify it on held-out rows)",
        description="Read embeddings (N x d) and labels (N integers 0..C-1, every class "
        f"present, C <= {MAX_CLASSES}), optionally phase-1 predictions, and print the "
        "feasibility report: lambda*_PRE of each requested predictor, a per-class table "
        "(columns defined below and in the report's legend) and a verdict naming the predictor "
        "and its guarantee. With --certify the last line is the certified verdict, the "
        "strongest evidence; the one from geometry stays above it as 'geometric verdict:'. "
        "The verdict is never 'feasible' when GCUL cannot reject (no training error; with "
        "--certify, a fitted GCUL with no uncertain cluster or no rejection on the calibration "
        f"rows). Files: {_FORMATS}, with no header row. Pickles and .npz archives are refused.",
        epilog="Per-class columns (labels of the GCUL paper): "
        + "; ".join(f"{name}: {meaning}" for name, meaning in COLUMN_LEGEND)
        + ".",
    )
    feasibility.add_argument(
        "--embeddings", required=True, metavar="FILE", help="N x d array of finite numbers"
    )
    feasibility.add_argument(
        "--labels", required=True, metavar="FILE", help="N observed labels, integers 0..C-1"
    )
    feasibility.add_argument(
        "--predictions",
        default=None,
        metavar="FILE",
        help="N phase-1 predictions, integers 0..C-1: phase 1's IN-SAMPLE predictions on these "
        "rows (GCUL's own error pool), not cross-validated ones, which made every predictor "
        "less safe on real data. Without it gcul fits phase 1 itself (GCUL's multinomial "
        "logistic regression on the embeddings) and uses its in-sample predictions",
    )
    feasibility.add_argument(
        "--lam",
        type=_cost,
        default=0.15,
        help="relative rejection cost lambda in [0, 1) of the verdict (default: %(default)s)",
    )
    feasibility.add_argument(
        "--method",
        type=_method_names,
        nargs="+",
        default=[VERDICT_DEFAULT],
        metavar="NAME",
        help="predictor(s) to report, or all; the verdict uses the first (all alone: "
        f"{VERDICT_DEFAULT}). One of: "
        + "; ".join(f"{e.name} ({guarantee_phrase(e)})" for e in PREDICTORS)
        + f" (default: {VERDICT_DEFAULT})",
    )
    feasibility.add_argument(
        "--certify",
        action="store_true",
        help="also split the rows (stratified, --seed), fit GCUL on the rest and certify on the "
        "calibration part: lambda*_CERT, bounds on U(lambda), a finite-sample verdict for that "
        "fitted GCUL",
    )
    feasibility.add_argument(
        "--calibration",
        type=_open_unit,
        default=None,
        metavar="FRACTION",
        help="share of each class held out to certify, in (0, 1); needs --certify (default: 0.2)",
    )
    feasibility.add_argument(
        "--delta",
        type=_open_unit,
        default=None,
        help="risk of the certificate, in (0, 1); needs --certify (default: 0.05)",
    )
    feasibility.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help="seed of the calibration split, an integer in [0, 2**32) (default: %(default)s)",
    )
    feasibility.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout instead of the text report",
    )
    feasibility.set_defaults(handler=_feasibility)

    demo = commands.add_parser(
        "demo",
        help="write the classroom figures (PNG and PDF, 1280 x 720) without Jupyter",
        description="Draw the figures of the classroom notebooks (notebooks/ in the source "
        "tree) and write each as NAME.png (1280 x 720 pixels, text >= 14 pt, colour-blind "
        "safe) and NAME.pdf. The two notebook-4 figures run a reduced sweep (2 seeds x 21 "
        "noise levels, about 10-30 s). The output is the same on every run.",
    )
    target = demo.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", metavar="DIR", help="output folder, created if needed")
    target.add_argument(
        "--list", action="store_true", help="name every figure with one line about it, and exit"
    )
    demo.add_argument(
        "--only",
        type=_figure_name,
        nargs="+",
        default=None,
        metavar="NAME",
        help="write only these figures (names from --list)",
    )
    demo.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="worker processes of the reduced sweep, joblib semantics (default: %(default)s)",
    )
    demo.add_argument(
        "--quiet", action="store_true", help="no progress lines on stderr (errors still show)"
    )
    demo.set_defaults(handler=_demo)
    return parser


def _gcul_version() -> str:
    """The installed distribution's version, else ``simulations.__version__`` (source tree)."""
    try:
        return metadata.version("gcul")
    except metadata.PackageNotFoundError:
        from . import __version__

        return __version__


def _discard_stdout() -> None:
    """Point stdout at the null device after a closed pipe (the Python docs' "Note on SIGPIPE").

    Otherwise the interpreter's final flush of stdout fails again and prints "Exception ignored
    ... BrokenPipeError". A no-op when stdout has no file descriptor (e.g. under pytest).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _run(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    if not argv:
        # the command list is what a bare `gcul` asks for: print it (stdout, like --help); the
        # error itself keeps the one-line contract on stderr, and the exit code says nothing ran
        parser.print_help()
        print(
            "gcul: error: a command is required (reproduce, prove, feasibility or demo; listed above)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print(f"gcul {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print(
            f"gcul {args.command}: error: out of memory; the input is too large for this machine",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except BrokenPipeError:
        raise  # main() ends quietly
    except (CommandError, ValueError, TypeError, OSError) as exc:
        message = _first_line(exc)
        if isinstance(exc, OSError) and exc.strerror:  # a file or the system: name the file
            message = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
        if len(message) > _MAX_MESSAGE:
            message = message[: _MAX_MESSAGE - 3] + "..."
        print(f"gcul {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gcul`` command line; returns the exit code.

    A reader that closes the pipe early (``gcul ... | head -2``) ends the command quietly with
    exit code 1, as the Python documentation recommends for ``BrokenPipeError``.
    """
    parser = _build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            code = _run(parser, argv)
        finally:
            # flush here, not at exit, so that a closed pipe is caught below (also after
            # --help and --version, which leave through SystemExit)
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
