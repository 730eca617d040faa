"""Section 1 of the audit page: what was measured.

The word lists with their counts and the words missing from each embedding, the words
themselves, every embedding's provenance, and the glossary of the connections present
(``measured_section``, ``connections_present``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .render import frame_table
from .sources import FitEntry
from .wording import CONNECTION_MEANING

if TYPE_CHECKING:  # pragma: no cover
    from ..wordlists import Study


def _lists_of_table(table: pd.DataFrame) -> dict[str, tuple[str, str, list[str]]]:
    """List name → (role, associated-with, words measured), from the fitted table."""
    lists: dict[str, tuple[str, str, list[str]]] = {}
    if "protected_class" in table.columns:
        for cls, part in table.groupby("protected_class", sort=False):
            lists[f"protected: {cls}"] = ("protected words", "",
                                          list(dict.fromkeys(part["protected_word"])))
    else:
        lists["protected words"] = ("protected words", "",
                                    list(dict.fromkeys(table["protected_word"])))
    classes = table["word_class"] if "word_class" in table.columns else table["connection"]
    associated: dict[str, set[str]] = {}
    if "protected_class" in table.columns and "word_class" in table.columns:
        assoc = table[table["connection"] == "associated"]
        for wc, pcs in assoc.groupby("word_class")["protected_class"]:
            associated[str(wc)] = set(pcs)
    for wc, part in table.groupby(classes, sort=False):
        connection = str(part["connection"].iloc[0])
        role = {"none": "neutral control", "human": "human control"}.get(connection,
                                                                           "attribute words")
        name = {"none": "neutral", "human": "human"}.get(connection, f"attributes: {wc}")
        lists[name] = (role, ", ".join(sorted(associated.get(str(wc), set()))),
                       list(dict.fromkeys(part["word_to_compare"])))
    return lists


def _missing_of(attrs: Mapping[str, Any], name: str) -> tuple[int | None, str]:
    """(missing count, missing words / note) of a list, from the table's ``attrs``."""
    report = attrs.get("missing") or {}
    key = (name.replace("protected: ", "protected:").replace("attributes: ", "attributes:"))
    info = report.get(key) or report.get(name.split(": ")[-1])
    if not isinstance(info, Mapping):
        return None, ""
    if "missing" in info:
        words = list(info.get("missing") or [])
        return len(words), ", ".join(words)
    if "coded_missing" in info:
        coded = int(info.get("coded_missing", 0))
        return None, (f"{coded} of {info.get('total')} rows coded missing (-100) by the "
                      "authors, left out" if coded else "")
    return None, ""


def measured_section(entries: Sequence[FitEntry], study: Study | None) -> dict[str, Any]:
    """Return what was measured: the word lists and the embeddings.

    The lists with their counts and missing words (per embedding), the words themselves,
    and every embedding's provenance.
    """
    from ..embeddings import BUILTIN_EMBEDDINGS

    firsts = list({e.label: e for e in entries}.values())  # one entry per embedding
    rows = []
    for entry in firsts:
        lists = _lists_of_table(entry.fit.table)
        for name, (role, with_class, words) in lists.items():
            count, missing = _missing_of(entry.fit.table.attrs, name)
            rows.append({"embedding": entry.label, "list": name, "role": role,
                         "associated with": with_class, "words measured": len(words),
                         "missing": count, "missing words": missing})
    frame = pd.DataFrame(rows).astype({"missing": "Int64"})
    columns = ["list", "role", "associated with", "words measured", "missing", "missing words"]
    if len(firsts) > 1:
        columns.insert(0, "embedding")
    lists_table = frame_table(frame, columns=columns, caption="Word lists and missing words",
                              id="word-lists")
    word_lists = [(name, ", ".join(ws)) for name, (_, _, ws)
                  in _lists_of_table(firsts[0].fit.table).items()]
    provenance = []
    for entry in firsts:
        attrs = entry.fit.table.attrs
        source = entry.source
        if source in BUILTIN_EMBEDDINGS:
            what = BUILTIN_EMBEDDINGS[source]
        elif source.startswith("published:"):
            what = str(attrs.get("source") or "the authors' published cosine table")
            if attrs.get("duplicates"):
                what += f"; {attrs['duplicates']} exact duplicate rows dropped"
        else:
            what = "embeddings read from this source"
        lookup = ("lower case" if attrs.get("lowercase") else "as given"
                  if "lowercase" in attrs else "")
        provenance.append({"embedding": entry.label, "source": source, "description": what,
                           "words looked up": lookup,
                           "table rows": len(entry.fit.table),
                           "self-pairs dropped": len(attrs.get("self_pairs_dropped") or [])})
    provenance_table = frame_table(pd.DataFrame(provenance), caption="Embeddings",
                                   id="embeddings")
    classes = ({c: study.associations.get(c, "") for c in study.protected}
               if study is not None else {})
    return {"lists": lists_table, "words": word_lists, "provenance": provenance_table,
            "associations": classes, "connections": connections_present(entries)}


def connections_present(entries: Sequence[FitEntry]) -> dict[str, str]:
    """Return the page's glossary: connection → what it compares protected words with.

    Only the connections present in the fitted tables, in :data:`CONNECTION_MEANING` order.
    """
    present = list(dict.fromkeys(str(c) for e in entries
                                 for c in e.fit.table["connection"].unique()))
    ordered = [c for c in CONNECTION_MEANING if c in present]
    ordered += [c for c in present if c not in CONNECTION_MEANING]
    return {c: CONNECTION_MEANING.get(c, f"{c} words") for c in ordered}
