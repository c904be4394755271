"""SGD-X: the five crowd-written variants of every SGD schema (Lee et al., AAAI 2022).

The archive carries only the variant schemas, ``sgd_x/data/v1..v5/<split>/schema.json``; a
variant's dialogues are the original ones under the variant's names, matched by position as
the dataset's own ``sgd_x/generate_sgdx_dialogues.py`` matches them: service i of the original
schema.json is service i of the variant, and within it slot j is slot j and intent k is
intent k. Renaming reuses ``tod_runtime.data.rename.Renaming`` (frames, spans, acts with the
intent names inside ``INFORM_INTENT`` / ``OFFER_INTENT`` values, states, service calls and
results); utterances and values stay as they are. The variant schema is written as published:
its names, its reworded descriptions.

``tod data sgdx SGD_DIR [--split dev] [--variants v1,...] --out DIR`` writes
``DIR/<variant>/<split>/``; ``tod replay SGD_DIR --sgdx`` scores every variant.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from tod_runtime.data.rename import Renaming
from tod_runtime.data.sgd import SGDSplit
from tod_runtime.dialogue.validate import check_against_schemas
from tod_runtime.errors import DataError
from tod_runtime.files import check_output_dir, write_json
from tod_runtime.progress import progress
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import ServiceSchema

VARIANTS = ("v1", "v2", "v3", "v4", "v5")


def parse_variants(text: str | None) -> list[str]:
    """``"v1,v3"`` -> ["v1", "v3"]; None or "" -> all five. Unknown names are an error."""
    if not text:
        return list(VARIANTS)
    names = [v.strip() for v in text.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown or not names:
        raise DataError(f"unknown SGD-X variant(s) {unknown}; the variants are {list(VARIANTS)}")
    return list(dict.fromkeys(names))


def _variant_inner(root: Path, split: str, variant: str) -> str:
    """Where ``sgd_x/data/<variant>/<split>/schema.json`` lies under a dataset root."""
    tail = ("sgd_x", "data", variant, split, "schema.json")
    if root.is_file():
        try:
            with zipfile.ZipFile(root) as archive:
                names = archive.namelist()
        except (OSError, zipfile.BadZipFile) as exc:
            raise DataError(f"not a readable zip archive: {exc}", file=str(root)) from None
        for name in names:
            path = PurePosixPath(name)
            if path.parts[-len(tail) :] == tail:
                return str(path.parent)
    else:
        for base in (root, *sorted(p for p in root.glob("*") if p.is_dir())):
            folder = base.joinpath(*tail[:-1])
            if (folder / "schema.json").is_file():
                return str(folder)
    raise DataError(
        f"no SGD-X schema for variant {variant!r} of split {split!r}",
        file=str(root),
        hint="the dataset archive's sgd_x/data/v1..v5/<split>/schema.json are needed",
    )


def variant_split(root: str | Path, split: str, variant: str) -> SGDSplit:
    """The variant's schema.json as a split (it holds no dialogues)."""
    root = Path(root)
    return SGDSplit(root, split, _variant_inner(root, split, variant))


def positional_renaming(
    original: Sequence[ServiceSchema], variant: Sequence[ServiceSchema], *, label: str = ""
) -> Renaming:
    """Original names -> the variant's, by position (services, then slots and intents)."""
    if len(original) != len(variant):
        raise DataError(
            f"the variant has {len(variant)} services, the original {len(original)}", file=label
        )
    renaming = Renaming()
    for index, (old, new) in enumerate(zip(original, variant, strict=True)):
        if len(old.slots) != len(new.slots) or len(old.intents) != len(new.intents):
            raise DataError(
                f"service {index} ({old.service_name} / {new.service_name}): slot or intent "
                "counts differ, so names cannot be matched by position",
                file=label,
            )
        renaming.services[old.service_name] = new.service_name
        renaming.slots[old.service_name] = {
            a.name: b.name for a, b in zip(old.slots, new.slots, strict=True)
        }
        renaming.intents[old.service_name] = {
            a.name: b.name for a, b in zip(old.intents, new.intents, strict=True)
        }
    return renaming


def reworded(original: Sequence[ServiceSchema], variant: Sequence[ServiceSchema]) -> Schemas:
    """The original schemas, names and possible values unchanged, with the variant's
    descriptions (of services, slots and intents, matched by position)."""
    positional_renaming(original, variant)  # the same shape, or a clear error
    out = []
    for old, new in zip(original, variant, strict=True):
        slots = [
            a.model_copy(update={"description": b.description})
            for a, b in zip(old.slots, new.slots, strict=True)
        ]
        intents = [
            a.model_copy(update={"description": b.description})
            for a, b in zip(old.intents, new.intents, strict=True)
        ]
        update = {"description": new.description, "slots": slots, "intents": intents}
        out.append(old.model_copy(update=update))
    return Schemas(out)


def reworded_schemas(split: SGDSplit) -> list[Schemas]:
    """Every SGD-X variant of the split's schemas in the original's names (``reworded``);
    none when the dataset has no SGD-X schemas for the split. Their value types as a backend
    decides them: ``learning.reworded_variants``."""
    original = list(split.schemas().values())
    root, name = split.root, split.name
    out = []
    for variant in VARIANTS:
        try:
            schemas = variant_split(root, name, variant).schemas()
        except DataError:
            return []
        out.append(reworded(original, list(schemas.values())))
    return out


def write_variant(
    split: SGDSplit,
    variant: str,
    out: str | Path,
    *,
    limit: int | None = None,
    force: bool = False,
) -> Path:
    """Write ``variant`` of ``split`` (its first ``limit`` dialogues in file order, default all)
    to ``out/<variant>/<split>/``. Returns that folder."""
    source = variant_split(split.root, split.name, variant)
    schemas = list(split.schemas().values())
    variant_schemas = list(source.schemas().values())
    renaming = positional_renaming(schemas, variant_schemas, label=source.label("schema.json"))
    folder = check_output_dir(
        Path(out) / variant / split.name,
        force=force,
        inputs=[split.root],
        owned="*.json",
        what=f"SGD-X {variant} folder",
    )
    write_json(folder / "schema.json", [s.to_json() for s in variant_schemas])
    tasks = split.slices(limit)
    checked = Schemas(variant_schemas)
    with progress(f"sgdx {variant}", len(tasks)) as bar:
        for file, count in tasks:
            renamed = [renaming.dialogue(d) for d in split.read_file(file)[:count]]
            for dialogue in renamed:  # the renamed dialogue must fit the variant schema
                check_against_schemas(dialogue, checked, file=str(folder / file))
            write_json(folder / file, [d.to_json() for d in renamed])
            bar.advance()
    return folder


def write_variants(
    split: SGDSplit,
    out: str | Path,
    variants: Sequence[str] = VARIANTS,
    *,
    limit: int | None = None,
    force: bool = False,
) -> list[Path]:
    for variant in variants:  # every variant's schema is found before anything is written
        variant_split(split.root, split.name, variant)
    return [write_variant(split, v, out, limit=limit, force=force) for v in variants]
