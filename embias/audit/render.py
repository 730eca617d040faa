"""Turning results into page parts: HTML tables, figures as data URIs, the templates.

HTML tables of DataFrames (``frame_table``), figures as ``data:`` URIs
(``picture``), and the Jinja2 environment of the page (``environment``; the
templates and the style sheet are package data in ``embias/audit/templates/``).

Numbers are formatted here, once, with the terminal tables' rule
(:func:`embias.report.to_markdown`: fixed decimals, scientific notation for tiny values),
and the minus sign stays ASCII so that a copied cell is a number again.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..report import format_number, is_scientific_column
from .options import FIGURE_FORMATS

if TYPE_CHECKING:  # pragma: no cover
    import jinja2
    from matplotlib.figure import Figure

__all__ = ["FIGURE_FORMATS", "Cell", "Picture", "Table", "cache_file", "drawing_code_files",
           "environment", "frame_table", "number", "picture", "read_cached", "write_cached"]

#: Resolution of PNG figures.
PNG_DPI = 110


def number(value: Any, digits: int = 3, *, scientific: bool = False) -> str:
    """Return ``value`` as the page prints it.

    Floats as :func:`embias.report.format_number` prints them (``digits`` decimals, fixed
    point, no negative zero; scientific notation for tiny p-values when ``scientific``),
    integers as integers, booleans as ``yes``/``no``, missing values as ``""``.

    Parameters
    ----------
    value
        The value.
    digits
        Decimals of a float.
    scientific
        Scientific notation for a tiny non-zero float (a p-value).

    Returns
    -------
    str
        The text of the cell.

    Examples
    --------
    >>> number(-0.0004), number(0.12345), number(7), number(True), number(None)
    ('0.000', '0.123', '7', 'yes', '')
    >>> number(0.000155, scientific=True)
    '1.55e-04'
    """
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return format_number(float(value), digits, scientific=scientific)
    return str(value)


@dataclass(frozen=True)
class Cell:
    """One table cell: its text and an optional CSS class (``num`` for numbers)."""

    text: str
    css: str = ""


@dataclass(frozen=True)
class Table:
    """An HTML table of the page: ``headers`` and rows of :class:`Cell`."""

    headers: list[str]
    rows: list[list[Cell]]
    caption: str = ""
    id: str = ""
    css: str = ""
    numeric: list[bool] = field(default_factory=list)


def frame_table(
    frame: pd.DataFrame,
    *,
    columns: Mapping[str, str] | Sequence[str] | None = None,
    digits: int | Mapping[str, int] = 3,
    caption: str = "",
    id: str = "",
    css: str = "",
    cell_class: Callable[[str, Any, pd.Series], str] | None = None,
) -> Table:
    """Return a DataFrame as a page :class:`Table`.

    Parameters
    ----------
    frame
        The data.
    columns
        Column → header (or a list of columns, headed by their names); default all.
        Columns not in ``frame`` are skipped.
    digits
        Decimals of float columns, one number or per column.
    caption, id, css
        The table's caption, ``id`` and CSS class.
    cell_class
        ``(column, value, row) -> css class`` for extra cell classes (e.g. a decision).

    Returns
    -------
    Table
        Headers, rows of cells (numbers formatted by :func:`number`, numeric cells of CSS
        class ``num``) and which columns are numeric.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"group": ["associated", "none"], "estimate": [0.81234, 0.9],
    ...                       "n": [10, 40]})
    >>> table = frame_table(frame, columns={"group": "connection", "estimate": "mean"},
    ...                     digits=2)
    >>> table.headers, table.numeric
    (['connection', 'mean'], [False, True])
    >>> [[(c.text, c.css) for c in row] for row in table.rows]
    [[('associated', ''), ('0.81', 'num')], [('none', ''), ('0.90', 'num')]]
    """
    if columns is None:
        columns = {c: str(c) for c in frame.columns}
    elif not isinstance(columns, Mapping):
        columns = {c: str(c) for c in columns}
    shown = {c: h for c, h in columns.items() if c in frame.columns}
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(
        frame[c]) for c in shown]
    rows = []
    for _, record in frame.iterrows():
        cells = []
        for (col, _header), is_num in zip(shown.items(), numeric, strict=True):
            value = record[col]
            places = digits.get(col, 3) if isinstance(digits, Mapping) else digits
            extra = cell_class(col, value, record) if cell_class else ""
            cells.append(Cell(number(value, places, scientific=is_scientific_column(col)),
                              " ".join(c for c in ("num" if is_num else "", extra) if c)))
        rows.append(cells)
    return Table(headers=list(shown.values()), rows=rows, caption=caption, id=id, css=css,
                 numeric=numeric)


@dataclass(frozen=True)
class Picture:
    """A figure ready for the page: a ``data:`` URI, its alt text and caption."""

    uri: str
    alt: str
    caption: str = ""
    width: int = 0
    height: int = 0


def picture(figure: Figure, *, alt: str, caption: str = "", fmt: str = "svg",
            close: bool = True) -> Picture:
    """Render a matplotlib figure into a :class:`Picture` (and close it).

    SVG output is reproducible (no date, fixed element ids); PNG is drawn at
    :data:`PNG_DPI`. The picture is shown at the figure's size (96 CSS pixels per inch).

    Parameters
    ----------
    figure
        The figure.
    alt, caption
        Its alt text and caption.
    fmt
        ``"svg"`` (default) or ``"png"`` (:data:`FIGURE_FORMATS`).
    close
        Close the figure (set ``False`` when it is saved again elsewhere).

    Returns
    -------
    Picture
        The ``data:`` URI, the texts and the size in CSS pixels.

    Raises
    ------
    ValueError
        An unknown ``fmt``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, ax = plt.subplots(figsize=(4, 3))
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> shown = picture(figure, alt="a line")
    >>> shown.uri[:26], shown.width, shown.height
    ('data:image/svg+xml;base64,', 384, 288)
    >>> plt.fignum_exists(figure.number)  # closed
    False
    """
    import matplotlib
    import matplotlib.pyplot as plt

    if fmt not in FIGURE_FORMATS:
        raise ValueError(f"figure format {fmt!r} is not one of {list(FIGURE_FORMATS)}")
    buffer = io.BytesIO()
    try:
        if fmt == "svg":
            with matplotlib.rc_context({"svg.hashsalt": "embias-audit",
                                        "svg.fonttype": "none"}):
                figure.savefig(buffer, format="svg", metadata={"Date": None})
            mime = "image/svg+xml"
        else:
            figure.savefig(buffer, format="png", dpi=PNG_DPI, metadata={"Software": None})
            mime = "image/png"
        # shown at the figure's size in CSS pixels (96 per inch), whatever the format
        width, height = figure.get_size_inches() * 96
    finally:
        if close:
            plt.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return Picture(uri=f"data:{mime};base64,{data}", alt=alt, caption=caption,
                   width=round(float(width)), height=round(float(height)))


#: Folder inside a saved fit where the page's figures are kept (redrawn only when the fit,
#: the options or the drawing code change; removed with the fit when it is refitted).
CACHE_FOLDER = "report-cache"


def drawing_code_files() -> list[Path]:
    """Return the source files of the code that draws the page's figures.

    Every module of :mod:`embias.plots` and the audit page's rendering and content modules
    and the module that keeps a saved fit's figures (:mod:`~embias.audit.figures`); a change
    to any of them redraws the figures a saved fit keeps (:func:`cache_file`).

    Returns
    -------
    list of pathlib.Path
        The files.

    Examples
    --------
    >>> files = drawing_code_files()
    >>> [f.name for f in files[-3:]], all(f.is_file() for f in files)
    (['render.py', 'content.py', 'figures.py'], True)
    """
    from .. import plots

    package = Path(plots.__file__).parent
    return [*sorted(package.rglob("*.py")), Path(__file__),
            Path(__file__).with_name("content.py"), Path(__file__).with_name("figures.py")]


@cache
def _code_identity() -> str:
    """Return a hash of the code that draws the page's figures (a change redraws them)."""
    from .. import __version__

    digest = hashlib.sha256(__version__.encode())
    for path in drawing_code_files():
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_file(fit_path: str | None, name: str, key: Mapping[str, Any]) -> Path | None:
    """Return where a saved fit keeps the page part ``name`` drawn with options ``key``.

    The file's name hashes the options, the fit's draws (size and time of
    ``posterior.nc``) and the drawing code (:func:`drawing_code_files`), so that a change to
    any of them draws the part again.

    Parameters
    ----------
    fit_path
        The saved fit's folder (None for a fit that is not saved).
    name
        The part (``"forest"``, ``"ppc"`` …).
    key
        The options the part was drawn with (JSON-ready values).

    Returns
    -------
    pathlib.Path or None
        ``<fit>/report-cache/<name>-<hash>.json``; None for a fit that is not saved or has
        no draws file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> fit = Path(tempfile.mkdtemp())
    >>> cache_file(str(fit), "forest", {"rope": 0.02}) is None  # no posterior.nc
    True
    >>> _ = (fit / "posterior.nc").write_bytes(b"draws")
    >>> where = cache_file(str(fit), "forest", {"rope": 0.02})
    >>> where.parent.name, where.name.startswith("forest-")
    ('report-cache', True)
    >>> where == cache_file(str(fit), "forest", {"rope": 0.05})
    False
    """
    if not fit_path:
        return None
    folder = Path(fit_path)
    try:
        stat = (folder / "posterior.nc").stat()
    except OSError:
        return None
    ident = json.dumps({"name": name, **key, "code": _code_identity(),
                        "draws": [stat.st_size, stat.st_mtime_ns]}, sort_keys=True,
                       default=str)
    return folder / CACHE_FOLDER / f"{name}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.json"


def read_cached(file: Path | None) -> dict[str, Any] | None:
    """Return a page part a saved fit keeps, or None (absent or unreadable: it is drawn again).

    Parameters
    ----------
    file
        Where it is kept (:func:`cache_file`), or None.

    Returns
    -------
    dict or None
        The part as :func:`write_cached` kept it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> where = Path(tempfile.mkdtemp()) / "report-cache" / "forest-0123.json"
    >>> read_cached(where) is None
    True
    >>> write_cached(where, {"uri": "data:,", "width": 10, "height": 5})
    >>> read_cached(where)
    {'uri': 'data:,', 'width': 10, 'height': 5}
    """
    if file is None or not file.is_file():
        return None
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_cached(file: Path | None, payload: Mapping[str, Any]) -> None:
    """Keep a page part with its saved fit.

    The file is written whole (through a temporary file); older versions of the same part
    are removed. A fit folder that cannot be written to only means that the part is drawn
    again next time.

    Parameters
    ----------
    file
        Where to keep it (:func:`cache_file`; None: nothing is kept).
    payload
        The part (JSON-ready).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp()) / "report-cache"
    >>> write_cached(folder / "ppc-aaaa.json", {"width": 1})
    >>> write_cached(folder / "ppc-bbbb.json", {"width": 2})  # replaces the older one
    >>> sorted(p.name for p in folder.iterdir())
    ['ppc-bbbb.json']
    """
    if file is None:
        return
    try:
        file.parent.mkdir(exist_ok=True)
        tmp = file.with_name(f".{file.stem}.{os.getpid()}.tmp")  # one per process
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, file)
        prefix = file.name.rsplit("-", 1)[0]
        for old in file.parent.glob(f"{prefix}-*.json"):
            if old != file:
                old.unlink(missing_ok=True)
    except OSError:
        return


def _template_cache() -> jinja2.BytecodeCache | None:
    """Return the cache of compiled templates, in ``$XDG_CACHE_HOME/embias/templates``.

    Compiling the templates is otherwise part of every page. None when that folder cannot be
    made; a cache that cannot be written to only means that templates are compiled again.
    """
    import jinja2

    from ..settings import cache_home

    class QuietCache(jinja2.FileSystemBytecodeCache):
        """A bytecode cache that skips a cache file it cannot write."""

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            """Write the compiled template, or nothing if the folder cannot be written to."""
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    folder = cache_home() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return QuietCache(str(folder))


@cache
def environment() -> jinja2.Environment:
    """Return the page's Jinja2 environment.

    The package's templates, HTML autoescaping, undefined names are errors.

    Returns
    -------
    jinja2.Environment
        The environment (one per process).

    Examples
    --------
    >>> sorted(environment().list_templates())
    ['macros.html.j2', 'report.css', 'report.html.j2']
    >>> str(environment().from_string("{{ x }}").render(x="<b>"))
    '&lt;b&gt;'
    """
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("embias.audit", "templates"),
        bytecode_cache=_template_cache(),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def style_sheet() -> str:
    """Return the page's CSS, inlined into the page (no other file or host is needed)."""
    from importlib import resources

    return (resources.files("embias.audit") / "templates" / "report.css").read_text(
        encoding="utf-8")
