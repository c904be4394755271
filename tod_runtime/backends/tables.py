"""Entity tables in an in-memory SQLite database, shared by the mock and SGD backends.

Values are stored as text; a query matches a row when every given parameter equals the
column case-insensitively (``dontcare`` matches anything; unknown columns are ignored).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from tod_runtime.dialogue.models import DONTCARE


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Tables:
    """Named tables of string rows; columns are created from the rows given."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.columns: dict[str, list[str]] = {}

    def create(self, table: str, rows: Sequence[Mapping[str, object]]) -> None:
        columns: list[str] = []
        for row in rows:
            columns += [c for c in row if c not in columns]
        self.columns[table] = columns
        cols = ", ".join(f"{_quote(c)} TEXT COLLATE NOCASE" for c in columns) or '"_" TEXT'
        self.db.execute(f"CREATE TABLE {_quote(table)} (_rowid INTEGER PRIMARY KEY, {cols})")
        if columns:
            marks = ", ".join("?" for _ in columns)
            names = ", ".join(_quote(c) for c in columns)
            self.db.executemany(
                f"INSERT INTO {_quote(table)} ({names}) VALUES ({marks})",
                [[_text(row.get(c)) for c in columns] for row in rows],
            )
        for column in columns:
            self.db.execute(
                f"CREATE INDEX {_quote(f'{table}.{column}')} ON {_quote(table)} ({_quote(column)})"
            )

    def select(
        self, table: str, params: Mapping[str, str], *, limit: int | None = None
    ) -> list[dict[str, str]]:
        """Rows of ``table`` matching every known, non-dontcare parameter, in insertion order."""
        columns = self.columns.get(table)
        if columns is None:
            return []
        where = [
            (c, v) for c, v in params.items() if c in columns and v.lower() != DONTCARE.lower()
        ]
        sql = f"SELECT * FROM {_quote(table)}"
        if where:
            sql += " WHERE " + " AND ".join(f"{_quote(c)} = ?" for c, _ in where)
        sql += " ORDER BY _rowid"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self.db.execute(sql, [v for _, v in where])
        names = [d[0] for d in cursor.description][1:]
        return [
            {n: v for n, v in zip(names, row[1:], strict=True) if v is not None}
            for row in cursor.fetchall()
        ]

    def distinct(self, table: str, columns: Iterable[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for column in columns:
            if column in self.columns.get(table, ()):
                rows = self.db.execute(
                    f"SELECT DISTINCT {_quote(column)} FROM {_quote(table)} "
                    f"WHERE {_quote(column)} IS NOT NULL ORDER BY 1"
                )
                out[column] = [r[0] for r in rows]
        return out

    def close(self) -> None:
        self.db.close()


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    return str(value)
