"""A small SGD dataset with SGD-X variant schemas, for the tests of SGD-X and of training on
its rewordings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

MINI = Path(__file__).parent / "fixtures" / "sgd_mini"


def sgdx_dataset(tmp_path: Path, variants: tuple[str, ...] = ("v1", "v2")) -> Path:
    """The mini dev split with variant schemas: every name changed, descriptions reworded."""
    root = tmp_path / "sgd"
    shutil.copytree(MINI / "dev", root / "dev")
    schemas = json.loads((MINI / "dev" / "schema.json").read_text())
    for variant in variants:
        out = []
        for schema in schemas:
            slots = {s["name"]: f"{s['name']}_{variant}" for s in schema["slots"]}
            intents = {i["name"]: f"{i['name']}{variant.upper()}" for i in schema["intents"]}
            out.append(
                {
                    "service_name": f"{schema['service_name']}{variant}",
                    "description": f"{schema['description']} ({variant})",
                    "slots": [
                        {**s, "name": slots[s["name"]], "description": s["description"] + "!"}
                        for s in schema["slots"]
                    ],
                    "intents": [
                        {
                            **i,
                            "name": intents[i["name"]],
                            "required_slots": [slots[s] for s in i["required_slots"]],
                            "optional_slots": {slots[k]: v for k, v in i["optional_slots"].items()},
                            "result_slots": [slots[s] for s in i["result_slots"]],
                        }
                        for i in schema["intents"]
                    ],
                }
            )
        folder = root / "sgd_x" / "data" / variant / "dev"
        folder.mkdir(parents=True)
        (folder / "schema.json").write_text(json.dumps(out))
    return root
