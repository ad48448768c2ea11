"""What the E.T.I. model demands of a pack's data, whatever the pack's own schemas say.

A pack with ``rules: eti`` brings its own ``cards/schemas/``; a pack may loosen
them (make a project's ``level`` optional, say) and its data then passes its
own checks.  The model reads those fields all the same, so before it is built
every data file it reads is checked against E.T.I.'s shipped schema of the same
name too, with unknown fields allowed (a pack may add fields; it may not take
away or retype one the rules use).  A miss is a located problem, never a
``KeyError`` inside the model.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from ...errors import Problem
from ...files import digest
from ...pack import default_pack_root
from ...schema import Schema, StrictValidator, load_schema, validate

#: Schema files are small; a larger one is compared by size and time only.
_DIGEST_CAP = 4 * 1024 * 1024


def _shipped_path(name: str):
    return default_pack_root() / "cards" / "schemas" / f"{name}.yaml"


@cache
def _shipped(name: str) -> Schema | None:
    path = _shipped_path(name)
    if not path.is_file():
        return None
    schema = load_schema(path, f"cards/schemas/{name}.yaml")
    return replace(schema, validator=StrictValidator(schema.cerberus, allow_unknown=True))


def need_problems(dataset: Any) -> list[Problem]:
    """Every field the model reads, present and of its type in every data file."""
    problems: list[Problem] = []
    for name, doc in dataset.docs.items():
        own = dataset.pack.root / "cards" / "schemas" / f"{name}.yaml"
        if digest(own, _DIGEST_CAP) == digest(_shipped_path(name), _DIGEST_CAP):
            continue        # the pack's own schema is E.T.I.'s: its data already passed it
        shipped = _shipped(name)
        if shipped is None:
            continue
        for p in validate(doc, shipped):
            problems.append(replace(p, hint=f"rules: eti reads this field as E.T.I.'s own "
                                            f"{shipped.source} gives it"))
    return problems
