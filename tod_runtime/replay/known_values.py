"""Where the NLU's known values come from in a replay (``tod replay --nlu-values``).

The learned NLU reads the values a backend knows (``Backend.entity_values``): they spell its
values, mark spans as values and break close calls. Replaying an SGD split, the backend is
built from that split's own recorded results, so the NLU would know the evaluated split's
values before the user says them; DSTC8's systems get the schema, not the split's database.

- ``backend``: the backend's own values (what a deployed assistant knows of its database: the
  default in chat and serve, and when replaying train or a recorded chat);
- ``train``: the values of train's recordings for the services train has, none for the others
  (the default when replaying an SGD split other than train: the DSTC8 protocol);
- ``none``: no values at all.

Only the NLU sees these values; the policy's service calls still run on the backend. The slot
types the backend's values decide (``schema.roles.note_values``) stay the backend's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Literal, get_args

from tod_runtime.errors import ConfigError, TodError

if TYPE_CHECKING:
    from tod_runtime.backends.base import Backend
    from tod_runtime.dialogue.models import ServiceCall
    from tod_runtime.schema.loader import Schemas

NLUValues = Literal["backend", "train", "none"]
CHOICES: tuple[str, ...] = get_args(NLUValues)
TRAIN = "train"


def has_train(root: str) -> bool:
    """Whether a split named train lies beside the data (a folder or zip holding it)."""
    from tod_runtime.data.sgd import open_split

    try:
        open_split(root, TRAIN, itself=False)
    except TodError:
        return False
    return True


def default_nlu_values(root: str, split: str, services: str | None) -> NLUValues:
    """``train`` for an SGD split other than train that has train beside it, replayed on its
    own recordings; else ``backend`` (train itself, a recorded chat, given services)."""
    if services is None and split != TRAIN and has_train(root):
        return "train"
    return "backend"


Values = Mapping[str, Mapping[str, list[str]]]  # service -> slot -> values


def train_values(root: str, held: Collection[str] = ()) -> Values:
    """Every service's values in train's recordings, the ``held`` services left out."""
    from tod_runtime.backends.sgd_tables import recorded_values
    from tod_runtime.data.sgd import open_split

    try:
        split = open_split(root, TRAIN, itself=False)
    except TodError:
        raise ConfigError(
            "--nlu-values train needs the train split beside the data",
            file=root,
            hint="replay a dataset holding train, or use --nlu-values backend|none",
        ) from None
    return {s: v for s, v in recorded_values(split).items() if s not in held}


class KnownValues:
    """A backend whose ``entity_values`` come from a fixed table (a service it lacks has no
    values); everything else is the wrapped backend's. Closing it leaves the wrapped backend
    open: its owner closes it."""

    def __init__(self, backend: Backend, values: Values) -> None:
        self._backend = backend
        self._values = values

    def schemas(self) -> Schemas:
        return self._backend.schemas()

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        return await self._backend.call(service, call)

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        return {slot: list(v) for slot, v in self._values.get(service, {}).items()}

    async def close(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:  # optional capabilities (service_dirs, ...)
        return getattr(self._backend, name)


def renamed(values: Values, root: str, split: str, variant: str) -> Values:
    """``values`` under an SGD-X variant's names of the split's services and slots."""
    from tod_runtime.data.sgd import open_split
    from tod_runtime.data.sgdx import positional_renaming, variant_split

    originals = list(open_split(root, split).schemas().values())
    renaming = positional_renaming(
        originals, list(variant_split(root, split, variant).schemas().values())
    )
    return {
        renaming.services[service]: {
            renaming.slots[service].get(slot, slot): v for slot, v in values[service].items()
        }
        for service in renaming.services
        if service in values
    }


def nlu_backend(
    backend: Backend,
    source: NLUValues,
    root: str,
    held: Collection[str] = (),
    variant: tuple[str, str, str] | None = None,
) -> Backend | None:
    """The backend the NLU reads its values from; None: the pipeline's own. ``held``: services
    whose values the NLU is not given (held out of a model's training). ``variant``: (dataset
    root, split, SGD-X variant) when replaying a variant, whose names the values take."""
    if source == "backend":
        if held:
            raise ConfigError(
                "--hold-values goes with --nlu-values train or none",
                hint="the backend's values are the replayed split's own",
            )
        return None
    if source != TRAIN:
        return KnownValues(backend, {})
    if variant is None:
        return KnownValues(backend, train_values(root, held))
    original, split, name = variant
    return KnownValues(backend, renamed(train_values(original, held), original, split, name))
