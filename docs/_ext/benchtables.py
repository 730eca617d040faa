"""Write the benchmarks page's tables from the files the benchmark scripts write.

Every table of ``docs/benchmarks.md`` is generated here, at build time, from
``benchmarks/results/`` (JSON and CSV written by ``benchmarks/bench_*.py``); nothing is
copied by hand. Each table is preceded by the provenance its file records (machine, date,
load, seed, settings) and by the provenance fields the file does not record, so a reader
sees what the numbers rest on. ``conf.py`` calls :func:`write_tables`; the page includes the
files it writes (``docs/_generated/bench_*.md``). A results file that is missing gives a
table saying so, not a failed build: the benchmarks are run by hand (``make bench``).
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: The provenance a results file should record; missing ones are named under its table.
PROVENANCE = ("machine", "date")

#: The contrasts of a study, in the order the user guide reads them.
CONTRASTS = ("associated - none", "associated - different", "different - none")
CONNECTIONS = ("associated", "different", "none")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]],
                   align: str | None = None) -> str:
    """A pipe table; ``align`` is one letter per column (``l`` or ``r``, default ``l``)."""
    align = align or "l" * len(header)
    rule = ["--:" if a == "r" else ":--" for a in align]

    def cells(values: Sequence[Any]) -> str:
        return "| " + " | ".join(str(v).replace("|", "\\|") for v in values) + " |"

    return "\n".join([cells(header), "|" + "|".join(rule) + "|", *map(cells, rows)])


def _f(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}".replace("-", "−")


def _load(x: Sequence[float] | None) -> str:
    return "—" if not x else " / ".join(f"{v:.1f}" for v in x)


def provenance(path: Path, recorded: dict[str, Any]) -> str:
    """The provenance paragraph of one results file."""
    shown = {k: v for k, v in recorded.items() if v not in (None, "", [], {})}
    parts = [f"**{k}**: {v}" for k, v in shown.items()]
    missing = [k for k in PROVENANCE if k not in shown]
    text = f"Source: `benchmarks/results/{path.name}`"
    if path.parent.name != "results":
        text = f"Source: `benchmarks/results/{path.parent.name}/{path.name}`"
    if parts:
        text += "; recorded: " + "; ".join(parts)
    if missing:
        text += (f". *Not recorded in the file: {', '.join(missing)}* (the benchmark script "
                 "does not write it yet)")
    return text + "."


def _stamp(d: dict[str, Any]) -> dict[str, Any]:
    """Where and when a results file's run was made: machine, date, and a note on them."""
    return {"machine": _machine(d), "date": d.get("date"), "note": d.get("provenance_note")}


def _machine(d: dict[str, Any]) -> str | None:
    m = d.get("machine")
    if isinstance(m, dict):
        return ", ".join(f"{k} {v}" for k, v in m.items())
    if d.get("cpus"):
        return None  # only a CPU count: shown as its own field
    return m


# --------------------------------------------------------------------------- one per file
def batch_table(path: Path) -> str:
    """``bench_batch.py``: many fits of one shape through the batch sampler."""
    d = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for run, r in d["fits"].items():
        rows.append([run, r["fits"], _f(r["wall_seconds"], 1), _f(r["seconds_per_fit"], 2),
                     f"{r['leapfrog_steps_per_fit']:,.0f}", _f(r["program_seconds"], 1),
                     _f(r["gradient_microseconds"], 2), _f(r["floor_seconds"], 1),
                     _f(r["program_over_floor"], 1), len(r.get("failing", {})),
                     r["divergences"]])
    table = markdown_table(
        ["run", "fits", "wall s", "s a fit", "leapfrog steps a fit", "program s",
         "µs a gradient", "floor s", "program / floor", "fits missing the ESS bar",
         "divergences"], rows, "lrrrrrrrrrr")
    prov = provenance(path, {**_stamp(d),
                             "load average before": _load(d.get("load_average_before")),
                             "after": _load(d.get("load_average_after"))})
    questions = [(name, what, target) for name, what, target in (
        ("calibration", "real-population calibration, 200 studies, one level", "< 120 s"),
        ("word-sampling", "word-sampling simulation, 200 tables × 2 levels", "< 180 s"),
        ("design", "design analysis, 4 sizes × 100 religion studies", "< 180 s"))
        if name in d]
    if questions:
        table += "\n\n" + markdown_table(
            ["the user's question", "cold s", "warm s", "target"],
            [[what, _f(d[name]["cold"]["wall_seconds"], 1),
              _f(d[name]["warm"]["wall_seconds"], 1), target]
             for name, what, target in questions], "lrrl")
    return prov + "\n\n" + table


def design_table(path: Path) -> str:
    """``bench_design.py``: probability of a credible difference by list size."""
    d = json.loads(path.read_text(encoding="utf-8"))
    sizes = d["attribute_words"]
    rows = []
    for study, t in d["tables"].items():
        for contrast in dict.fromkeys(r["contrast"] for r in t["summary"]):
            cells = {}
            shipped = None
            for r in t["summary"]:
                if r["contrast"] != contrast:
                    continue
                cell = f"{_f(r['p_credible'], 2)} ± {_f(r['p_se'], 2)}"
                if _shipped(r):
                    shipped = f"{cell} ({_f(r['attribute_words'], 1)})"
                else:
                    cells[round(r["attribute_words"])] = cell
            rows.append([study, contrast, shipped or "—",
                         *(cells.get(n, "—") for n in sizes)])
    settings = next(iter(d["tables"].values())).get("fit_settings", {})
    table = markdown_table(
        ["study", "contrast", "shipped lists (attribute words a class)",
         *(f"{n} words" for n in sizes)], rows, "ll" + "r" * (1 + len(sizes)))
    widths = []
    for study, t in d["tables"].items():
        for r in t["summary"]:
            if r["contrast"] == "associated - different" and not _shipped(r):
                widths.append([study, round(r["attribute_words"]), _f(r["width_mean"], 3),
                               _f(r["width_se"], 3), r["n_failed_fits"], r["n_studies"]])
    width_table = markdown_table(["study", "attribute words a class",
                                  "mean HDI width, associated − different", "± se",
                                  "fits missing the ESS bar", "studies"], widths, "lrrrrr")
    prov = provenance(path, {**_stamp(d),
                             "cpus": d.get("cpus"), "seed": d.get("seed"),
                             "studies a design": d.get("studies"),
                             "load average before": _load(d.get("load_before")),
                             "after": _load(d.get("load_after")),
                             "fit settings": _settings(settings)})
    return prov + "\n\n" + table + "\n\n" + width_table


def _shipped(row: dict[str, Any]) -> bool:
    """Whether a design row is the shipped lists (``attributes={class: n, …}``)."""
    return "attributes={" in row["design"]


def _settings(s: dict[str, Any]) -> str:
    if not s:
        return ""
    return (f"level {s.get('level')}, {s.get('chains')} × ({s.get('tune')} + {s.get('draws')}) "
            f"draws, sampler {s.get('sampler')}")


def design_timing_table(path: Path) -> str:
    """``bench_design.py`` timing run: seconds per fit of the design analysis."""
    d = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for study, t in d["tables"].items():
        rows.append([study, t["sizes_fits"], _f(t["sizes_seconds"], 0),
                     _f(t["sizes_seconds"] / t["sizes_fits"], 2),
                     _load(t.get("load_before_sizes")), _load(t.get("load_after_sizes"))])
    table = markdown_table(["study", "fits", "wall s", "s a fit", "load before", "load after"],
                           rows, "lrrrll")
    prov = provenance(path, {**_stamp(d),
                             "cpus": d.get("cpus"), "seed": d.get("seed"),
                             "sizes": ", ".join(map(str, d.get("attribute_words", [])))})
    return prov + "\n\n" + table


def predictive_check_table(path: Path) -> str:
    """``bench_predictive_check.py``: share of rows inside the predictive intervals.

    Each row judged by the fit without its compared word; the in-sample share (the row
    judged by the fit it informed) next to it.
    """
    d = json.loads(path.read_text(encoding="utf-8"))
    probs = sorted({r["ci_prob"] for r in d["rows"]})
    rows = []
    connections = list(dict.fromkeys(r["connection"] for r in d["rows"]))
    for connection in connections:
        cells = []
        for p in probs:
            sel = [r for r in d["rows"] if r["connection"] == connection and r["ci_prob"] == p]
            inside = sum(r["inside"] for r in sel) / len(sel)
            in_sample = sum(r["inside_in_sample"] for r in sel) / len(sel)
            out = f"{sum(not r['in_band'] for r in sel)}"
            if all("in_family_band" in r for r in sel):  # files written before it lack it
                out += f" ({sum(not r['in_family_band'] for r in sel)})"
            cells += [_f(inside, 3), f"{out} of {len(sel)}", _f(in_sample, 3)]
        rows.append([connection, *cells])
    header = ["connection"]
    for p in probs:
        header += [f"mean share inside the {p:.0%} interval, word left out",
                   f"tables outside the 99% band (the family-wise band) at {p:.0%}",
                   f"in-sample mean at {p:.0%}"]
    table = markdown_table(header, rows, "l" + "r" * (3 * len(probs)))
    tables = len({(r["study"], r["embedding"]) for r in d["rows"]})
    refits = d.get("refits", [])
    prov = provenance(path, {**_stamp(d),
                             "level": d.get("level"), "tables": tables,
                             "family-wise band": (
                                 f"Bonferroni over the {len(d['rows'])} cells, "
                                 f"{d['family_band_prob']:.5f} each"
                                 if "family_band_prob" in d else None),
                             "words refitted (Pareto k > 0.7)":
                                 f"{sum(r['refits'] for r in refits)} of "
                                 f"{sum(r['words'] for r in refits)}",
                             "wall seconds (fits)": _f(d.get("seconds"), 0),
                             "wall seconds (checks, refits included)":
                                 _f(d.get("check_seconds"), 0)})
    return prov + "\n\n" + table


def weat_population_table(path: Path) -> str:
    """``bench_weat_population.py`` / ``bench_seat_population.py``: coverage of WEAT's and
    SEAT's intervals of the population d."""
    d = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for r in d["designs"]:
        t, p = r["today"], r["population"]
        rows.append([r["design"], _f(r["population_effect_size"]), _f(r["mean_d"]),
                     f"{_f(t['coverage'])} ± {_f(t['coverage_se'])}", _f(t["below"]),
                     _f(t["mean_width"], 2),
                     f"{_f(p['coverage'])} ± {_f(p['coverage_se'])}", _f(p["below"]),
                     _f(p["mean_width"], 2), r["n_studies"]])
    table = markdown_table(
        ["design", "population d", "mean d", "item bootstrap: coverage", "below", "width",
         "population interval: coverage", "below", "width", "studies"], rows, "lrrrrrrrrr")
    prov = provenance(path, {**_stamp(d),
                             "interval": f"{d.get('ci_prob', 0):.0%}",
                             "bootstrap replicates": d.get("n_boot"),
                             "embedding": d.get("embedding"),
                             "real designs' words drawn": d.get("draws")})
    return prov + "\n\n" + table


def calibration_table(folder: Path) -> str:
    """``bench_calibration.py``: coverage of the 89% HDIs on populations of real words."""
    import csv

    files = sorted(folder.glob("calibration_*.csv.gz"))
    if not files:
        return _missing(folder)
    quantities = (*CONNECTIONS, *CONTRASTS)
    rows = []
    recorded: dict[str, Any] = {}
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
            records = list(csv.DictReader(fh))
        name = path.name.removeprefix("calibration_").removesuffix(".csv.gz")
        levels = list(dict.fromkeys(r["level"] for r in records))
        for level in levels:
            mine = [r for r in records if r["level"] == level]
            cov = {}
            for q in quantities:
                sel = [r for r in mine if r["group"] == q]
                c = sum(r["covered"] == "True" for r in sel) / len(sel)
                cov[q] = (c, math.sqrt(c * (1 - c) / len(sel)), len(sel))
            studies = len({r["study"] for r in mine})
            failed = len({r["study"] for r in mine if r["problems"]})
            dev = sum(abs(c - float(mine[0]["ci_prob"])) for c, _, _ in cov.values())
            rows.append([f"{name}, {level}",
                         *(f"{_f(cov[q][0])} ± {_f(cov[q][1])}" for q in quantities),
                         _f(dev / len(quantities)), studies, failed])
        recorded = {"interval": f"{float(records[0]['ci_prob']):.0%}"}
    table = markdown_table(["set, level", *quantities, "mean |coverage − nominal|", "studies",
                            "fits missing the ESS bar"], rows, "l" + "r" * (len(quantities) + 3))
    sidecars = [p.with_name(p.name.replace(".csv.gz", ".json")) for p in files]
    stamp = (json.loads(sidecars[0].read_text("utf-8"))
             if all(p.is_file() for p in sidecars) else {})
    prov = provenance(files[0], {**_stamp(stamp), **recorded,
                                 "files": ", ".join(f"`{p.name}`" for p in files)})
    return prov + "\n\n" + table


def word_sampling_table(folder: Path) -> str:
    """``bench_word_sampling.py``: false claims and coverage, hierarchical vs crossed."""
    import csv

    settings = json.loads((folder / "word_sampling_settings.json").read_text(encoding="utf-8"))
    with (folder / "word_sampling_results.csv").open(encoding="utf-8", newline="") as fh:
        records = list(csv.DictReader(fh))
    levels = settings["levels"]
    nominal = 1 - settings["ci_prob"]

    def rate(level: str, group: str, column: str, value: str = "True") -> str:
        sel = [r for r in records if r["level"] == level and r["group"] == group]
        p = sum(r[column] == value for r in sel) / len(sel)
        return f"{_f(p)} ± {_f(math.sqrt(p * (1 - p) / len(sel)))}"

    rows = []
    for contrast in CONTRASTS:
        rows.append([f"HDI of {contrast} excludes 0 (a false claim)",
                     *(rate(level, contrast, "excludes_zero") for level in levels),
                     _f(nominal, 2)])
    rows.append(["ROPE decision *credible difference*, associated - none",
                 *(rate(level, "associated - none", "rope_decision", "credible difference")
                   for level in levels), "—"])
    for connection in (*CONNECTIONS[:2], "human", "none"):
        rows.append([f"HDI covers the {connection} mean",
                     *(rate(level, connection, "covered") for level in levels),
                     _f(settings["ci_prob"], 2)])
    failed = {level: len({r["table"] for r in records if r["level"] == level and r["problems"]})
              for level in levels}
    n_tables = len({r["table"] for r in records})
    rows.append(["fits that missed the convergence checks",
                 *(f"{failed[level]} of {n_tables}" for level in levels), "—"])
    table = markdown_table(["share of simulated tables whose 89% …", *levels, "nominal"],
                           rows, "l" + "r" * (len(levels) + 1))
    prov = (f"Source: `notebooks/data/word_sampling_results.csv` and "
            f"`word_sampling_settings.json`, written by `{settings['command']}`; recorded: "
            f"**design**: {settings['design']}; **sampler**: {settings['sampler']}, "
            f"{settings['chains']} × ({settings['tune']} + {settings['draws']}) draws; "
            f"**seed**: {settings['random_seed']}; **tables**: {n_tables}; **machine**: "
            f"{_machine(settings)}; **date**: {settings['date']}"
            + (f"; **note**: {settings['provenance_note']}" if settings.get(
                "provenance_note") else "") + ".")
    return prov + "\n\n" + table


def real_word_models_table(path: Path) -> str:
    """``bench_real_word_models.py``: coverage of candidate model structures on real words."""
    d = json.loads(path.read_text(encoding="utf-8"))
    quantities = (*CONNECTIONS, *CONTRASTS)
    parts = [provenance(path, {**_stamp(d), "design": d.get("design")})]
    for population, p in d["populations"].items():
        rows = []
        for candidate, mean_dev in sorted(p["mean_abs_dev"].items(), key=lambda kv: kv[1]):
            cells = {r["quantity"]: r for r in p["rows"] if r["candidate"] == candidate}
            first = next(iter(cells.values()))
            rows.append([candidate, *(f"{_f(cells[q]['coverage'])} ± "
                                      f"{_f(cells[q]['mc_se'])}" if q in cells else "—"
                                      for q in quantities),
                         _f(mean_dev), _f(p["max_abs_dev"][candidate]),
                         f"{first['failed']} of {first['n']}"])
        parts.append(f"**{population}** (candidates by mean |coverage − 0.89|, best first)")
        parts.append(markdown_table(["candidate", *quantities, "mean |dev|",
                                     "max |dev|", "fits missing r̂/ESS"], rows,
                                    "l" + "r" * (len(quantities) + 3)))
    return "\n\n".join(parts)


def _missing(path: Path) -> str:
    return (f"*`{path}` is not in this checkout: run the benchmark that writes it "
            "(`make bench`).*")


#: output file stem → (results file or folder, table function)
TABLES: dict[str, tuple[str, Callable[[Path], str]]] = {
    "bench_batch": ("batch.json", batch_table),
    "bench_design": ("design.json", design_table),
    "bench_design_timing": ("design_religion_timing.json", design_timing_table),
    "bench_predictive_check": ("predictive_check_crossed.json", predictive_check_table),
    "bench_weat_population": ("weat_population.json", weat_population_table),
    "bench_weat_population_with_replacement": ("weat_population_with_replacement.json",
                                               weat_population_table),
    "bench_seat_population": ("seat_population.json", weat_population_table),
    "bench_calibration": ("calibration", calibration_table),
    "bench_real_word_models": ("real_word_models.json", real_word_models_table),
}


#: tables from files other benchmarks write outside benchmarks/results/ (repository paths)
OTHER_TABLES: dict[str, tuple[str, Callable[[Path], str]]] = {
    "bench_word_sampling": ("notebooks/data", word_sampling_table),
}


#: the scripts whose results files the tables above read
SOURCES = {"bench_batch", "bench_design", "bench_predictive_check", "bench_weat_population",
           "bench_seat_population", "bench_calibration", "bench_word_sampling",
           "bench_real_word_models"}


def recorded_tables(path: Path) -> str:
    """A results file written by :class:`benchmarks.record.Tables`: its tables, as printed."""
    d = json.loads(path.read_text(encoding="utf-8"))
    recorded = {"command": f"`{d['command']}`", "machine": _machine(d), "date": d.get("date"),
                "load average before": _load(d.get("load_average_before")),
                "after": _load(d.get("load_average_after"))}
    recorded |= {k.replace("_", " "): v for k, v in d.get("settings", {}).items()}
    parts = [f"### {d['title']}", provenance(path, recorded)]
    for t in d["tables"]:
        numeric = [all(_numeric(r[i]) for r in t["rows"]) if t["rows"] else False
                   for i in range(len(t["header"]))]
        parts.append(f"**{t['title']}**")
        parts.append(markdown_table(t["header"], t["rows"],
                                    "".join("r" if n else "l" for n in numeric)))
        if t.get("note"):
            parts.append(t["note"])
    return "\n\n".join(parts)


def _numeric(cell: str) -> bool:
    try:
        float(str(cell).replace("−", "-").replace(",", "").rstrip("%×s "))
    except ValueError:
        return False
    return True


def recorded_files(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every results file of ``folder`` written by ``Tables`` (it has ``tables``), read."""
    found = []
    for path in sorted(folder.glob("*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(d, dict) and "tables" in d and "script" in d:
            found.append((path, d))
    return found


def recorded_results(recorded: list[tuple[Path, dict[str, Any]]]) -> str:
    """The section of every ``Tables`` results file, by title."""
    if not recorded:
        return "*No results file of this kind is in this checkout (`make bench`).*"
    return "\n\n".join(recorded_tables(path) for path, _ in
                        sorted(recorded, key=lambda item: (item[1]["title"], item[0])))


def print_only_benchmarks(folder: Path, recorded: set[str]) -> str:
    """A list of the benchmark scripts that write no results file the site reads yet.

    ``recorded``: the stems of the scripts whose ``Tables`` results file is present.
    """
    import ast

    lines = []
    for script in sorted(folder.glob("bench_*.py")):
        if script.stem in SOURCES | recorded:
            continue
        doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
        first = " ".join(doc.split("\n\n")[0].split()) or "(no description)"
        lines.append(f"- `benchmarks/{script.name}`: {first}")
    return "\n".join(lines)


def write_tables(out: Path, results: Path) -> list[Path]:
    """Write one Markdown file per table into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    root = results.parent.parent
    jobs = {stem: (results / name, make) for stem, (name, make) in TABLES.items()}
    jobs |= {stem: (root / name, make) for stem, (name, make) in OTHER_TABLES.items()}
    texts = {stem: make(source) if source.exists() else _missing(source)
             for stem, (source, make) in jobs.items()}
    recorded = recorded_files(results)
    texts["bench_recorded"] = recorded_results(recorded)
    texts["bench_print_only"] = (
        print_only_benchmarks(results.parent, {Path(d["script"]).stem for _, d in recorded})
        or "*None: every benchmark script writes a results file.*")
    for stem, text in texts.items():
        target = out / f"{stem}.md"
        if not target.is_file() or target.read_text(encoding="utf-8") != text + "\n":
            target.write_text(text + "\n", encoding="utf-8")
        written.append(target)
    return written
