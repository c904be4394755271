"""Indexes over a template table, built once per table, for covering part of a frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tod_runtime.nlg.mine import Table

T = TypeVar("T")

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
        return _cached(self._by_kind, table, _by_kind)

    def mixed(self, table: Table) -> Postings:
        """A table's keys of two or more act kinds (each item once), under each item."""
        return _cached(self._mixed, table, _mixed)


def _cached(cache: dict[int, tuple[Table, T]], table: Table, build: Callable[[Table], T]) -> T:
    """``build(table)``, built once per table (its id, checked against the table itself)."""
    found = cache.get(id(table))
    if found is None or found[0] is not table:
        found = cache[id(table)] = (table, build(table))
    return found[1]


def _by_kind(table: Table) -> ByKind:
    index: ByKind = {}
    for key, entries in table.items():
        items = key.split(" ")
        kinds = _kinds(items)
        if len(kinds) == 1:
            weight = sum(n for _, n in entries)
            index.setdefault(kinds.pop(), []).append((key, frozenset(items), weight))
    return index


def _mixed(table: Table) -> Postings:
    postings: Postings = {}
    for key in table:
        items = key.split(" ")
        if len(_kinds(items)) > 1 and len(set(items)) == len(items):
            for item in items:
                postings.setdefault(item, []).append(key)
    return postings
