"""Indexes over a template table, built once per table, for covering part of a frame."""

from __future__ import annotations

from tod_runtime.nlg.mine import Table

ByKind = dict[str, list[tuple[str, frozenset[str], int]]]  # act -> [(key, items, weight)]
Postings = dict[str, list[str]]  # item -> keys of several act kinds that have it


def _kinds(items: list[str]) -> set[str]:
    return {i.split("(", 1)[0] for i in items}


class TableIndexes:
    """A realiser's indexes of its tables (cached by table; a table is never changed)."""

    def __init__(self) -> None:
        self._by_kind: dict[int, tuple[Table, ByKind]] = {}
        self._mixed: dict[int, tuple[Table, Postings]] = {}

    def by_kind(self, table: Table) -> ByKind:
        """A table's keys of one act kind as item sets, with their weights."""
        found = self._by_kind.get(id(table))
        if found is None or found[0] is not table:
            index: ByKind = {}
            for key, entries in table.items():
                items = key.split(" ")
                kinds = _kinds(items)
                if len(kinds) == 1:
                    weight = sum(n for _, n in entries)
                    index.setdefault(kinds.pop(), []).append((key, frozenset(items), weight))
            found = self._by_kind[id(table)] = (table, index)
        return found[1]

    def mixed(self, table: Table) -> Postings:
        """A table's keys of two or more act kinds (each item once), under each item."""
        found = self._mixed.get(id(table))
        if found is None or found[0] is not table:
            postings: Postings = {}
            for key in table:
                items = key.split(" ")
                if len(_kinds(items)) > 1 and len(set(items)) == len(items):
                    for item in items:
                        postings.setdefault(item, []).append(key)
            found = self._mixed[id(table)] = (table, postings)
        return found[1]
