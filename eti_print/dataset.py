"""Loading a pack's data: manifest, data files, schemas and declarative checks.

Everything is read and checked before anything is built from it, and every
problem of the pass is collected so the user sees them all at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from .errors import InputError, Problem
from .pack import Pack, confine
from .schema import Schema, load_checked, load_schema, validate
from .yamlload import Document, load


@dataclass
class Dataset:
    """A pack's validated data: each file's Document, by name."""

    pack: Pack
    manifest: Document
    docs: dict[str, Document]
    schemas: dict[str, Schema]

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest.data

    @property
    def slug(self) -> str:
        return self.config["slug"]

    def split(self, ref: str) -> tuple[str, tuple[str, ...]]:
        name, *keys = ref.split(".")
        return name, tuple(keys)

    def items(self, ref: str) -> list[Any]:
        """The list named by ``file.key`` (empty when absent)."""
        name, keys = self.split(ref)
        value: Any = self.docs[name].data
        for key in keys:
            if not isinstance(value, dict):
                return []
            value = value.get(key)
        return value if isinstance(value, list) else []

    def located(self, ref: str) -> Iterator[tuple[int, Any, Document, tuple]]:
        """Each item of ``file.key`` with its index, document and path."""
        name, keys = self.split(ref)
        doc = self.docs[name]
        for index, item in enumerate(self.items(ref)):
            yield index, item, doc, keys + (index,)

    def problem(self, ref: str, index: int | None, message: str, key: str | None = None,
                hint: str | None = None) -> Problem:
        name, keys = self.split(ref)
        path = keys + ((index,) if index is not None else ()) + ((key,) if key else ())
        # A problem with a whole list points at its key, not at its first item.
        return self.docs[name].problem(path, message, hint=hint,
                                       key=index is None and key is None)

    def by_id(self, ref: str) -> dict[str, Any]:
        return {item["id"]: item for item in self.items(ref)
                if isinstance(item, dict) and "id" in item}


#: The suffixes of files in cards/ that could be data.
DATA_SUFFIXES = (".yaml", ".yml", ".csv", ".tsv", ".xlsx")


def unlisted_files(ds: Dataset) -> list[str]:
    """Files in ``cards/`` that look like data but that pack.yaml's ``data:`` does not
    name, so nothing reads them (a spreadsheet beside a listed YAML file of the same
    name, an export of it, does not count)."""
    folder = ds.pack.root / "cards"
    if not folder.is_dir():
        return []
    listed: set[str] = set()
    files: set[str] = set()
    for entry in ds.config.get("data") or []:
        if isinstance(entry, dict):
            listed.add(str(entry.get("name")))
            files.add(str(entry.get("file", "")).split("#", 1)[0])
        else:
            listed.add(str(entry))
    found = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in DATA_SUFFIXES or not path.is_file():
            continue
        if path.stem in listed or path.name in files:
            continue
        found.append(f"cards/{path.name}")
    return found


def unlisted_note(ds: Dataset) -> str:
    """One line naming the unlisted data files, or ''."""
    found = unlisted_files(ds)
    if not found:
        return ""
    return (f"note: {', '.join(found)} {'is' if len(found) == 1 else 'are'} in cards/ but not "
            f"in pack.yaml's data: list, so nothing reads {'it' if len(found) == 1 else 'them'}"
            f" (add {'it' if len(found) == 1 else 'them'} to data: to use)")


def load_manifest(pack: Pack, schema_for: Callable[[Any], Schema] | None = None
                  ) -> Document:
    """pack.yaml, validated against ``schema_for(its value)`` (the pack's game's sections
    too: ``games.manifest_schema``), else the core's schema."""
    # through the gate: a pack.yaml that is a symlink out of the pack is refused
    path = pack.root / "pack.yaml"
    if path.is_symlink():
        path = confine(pack.root, "pack.yaml", where="pack.yaml")
    if schema_for is None:
        return load_checked(path, "pack.yaml", "pack")
    doc = load(path, "pack.yaml")
    problems = validate(doc, schema_for(doc.data))
    if problems:
        raise InputError(problems)
    return doc


def load_dataset(pack: Pack, checks: bool = True,
                 schema_for: Callable[[Any], Schema] | None = None) -> Dataset:
    """Load every data file of ``pack`` against its schema; raise all problems together
    (pack.yaml against ``schema_for``: see ``load_manifest``).

    With ``checks`` the manifest's declarative checks run too; without, the
    caller runs ``run_checks`` itself (to report them with its own rules).
    """
    manifest = load_manifest(pack, schema_for)
    problems: list[Problem] = []
    docs: dict[str, Document] = {}
    schemas: dict[str, Schema] = {}
    for index, entry in enumerate(manifest.data["data"]):
        line, _ = manifest.where(("data", index))
        sheet = entry if isinstance(entry, dict) else None
        name = sheet["name"] if sheet else entry
        try:
            if sheet:       # a spreadsheet's rows: its reader only for a pack that has one
                from .spreadsheet import load_sheet, split_ref
                file, _sheet = split_ref(sheet["file"])
                data_path = confine(pack.root, file, "cards", where=manifest.path, line=line,
                                    field=f"data[{index}].file")
            else:
                data_path = confine(pack.root, f"{name}.yaml", "cards", where=manifest.path,
                                    line=line, field=f"data[{index}]")
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        try:
            # named by the schema's own path: "file not found: cards.yaml" read as the data
            schema_path = confine(pack.root, f"cards/schemas/{name}.yaml",
                                  where=manifest.path, line=line, field=f"data[{index}]")
        except InputError as exc:
            problems.extend(replace(p, hint=p.hint or "every data file has a schema of the "
                                    "same name in cards/schemas/") for p in exc.problems)
            continue
        try:
            schemas[name] = load_schema(schema_path, pack.display(schema_path))
        except InputError as exc:
            problems.extend(exc.problems)
            if sheet:
                continue
        try:
            if sheet:
                docs[name] = load_sheet(data_path, pack.display(data_path), _sheet,
                                        sheet["list"], schemas[name].fields)
            else:
                docs[name] = load(data_path, pack.display(data_path))
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if name in schemas:
            problems.extend(validate(docs[name], schemas[name]))
    if problems:
        raise InputError(problems)
    dataset = Dataset(pack, manifest, docs, schemas)
    if checks:
        problems.extend(run_checks(dataset))
    if problems:
        raise InputError(problems)
    return dataset


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def run_checks(ds: Dataset) -> list[Problem]:
    """The manifest's declarative checks: counts, unique keys, references, art files,
    allowed values and files inside the pack."""
    problems: list[Problem] = []
    manifest = ds.manifest
    seen: dict[str, int] = {}
    for index, deck in enumerate(ds.config.get("decks") or []):
        if deck["id"] in seen:
            problems.append(manifest.problem(("decks", index, "id"),
                                             f"duplicate deck id {deck['id']!r} (first at line "
                                             f"{manifest.where(('decks', seen[deck['id']]))[0]})"))
        seen.setdefault(deck["id"], index)
        parts = [(("decks", index), deck)]
        if "parts" in deck:
            for key in ("items", "cards", "front", "back"):
                if key in deck:
                    problems.append(manifest.problem(("decks", index, key),
                                                     f"a deck with parts gives {key} in each part",
                                                     key=True))
            parts = [(("decks", index, "parts", n), part) for n, part in enumerate(deck["parts"])]
        for here, part in parts:
            if "items" not in part and "cards" not in part:
                problems.append(manifest.problem(here, "a deck needs items (lists of the data) "
                                                       "or cards (written here), or parts"))
            if "front" not in part:     # a deck without a back is one-sided
                problems.append(manifest.problem(here, "a deck needs a front layout"))
            for n, ref in enumerate(part.get("items") or ()):
                if ref.split(".")[0] not in ds.docs:
                    problems.append(manifest.problem(here + ("items", n),
                                                     f"no data file {ref.split('.')[0]!r}",
                                             hint=_data_hint(ds, ref.split('.')[0])))
    for index, board in enumerate(ds.config.get("boards") or []):
        ref = board.get("for_each")
        if ref is not None and ref.split(".")[0] not in ds.docs:
            problems.append(manifest.problem(("boards", index, "for_each"),
                                             f"no data file {ref.split('.')[0]!r}",
                                             hint=_data_hint(ds, ref.split('.')[0])))
        elif "as" in board and ref is None:
            problems.append(manifest.problem(("boards", index, "as"), "as: names the item of "
                                             "for_each, and the board has no for_each"))
    for index, piece in enumerate(ds.config.get("pieces") or []):
        here = ("pieces", index)
        if "items" not in piece and "cards" not in piece:
            problems.append(manifest.problem(here, "pieces need items (lists of the data) "
                                                   "or cards (written here)"))
        if "count" in piece and "copies" in piece:
            problems.append(manifest.problem(here + ("copies",), "give count (a field of each "
                                             "item) or copies (one number), not both", key=True))
        if "where" in piece and "items" not in piece:
            problems.append(manifest.problem(here + ("where",), "where: narrows items, and "
                                             "these pieces have no items", key=True))
        for n, ref in enumerate(piece.get("items") or ()):
            if ref.split(".")[0] not in ds.docs:
                problems.append(manifest.problem(here + ("items", n),
                                                 f"no data file {ref.split('.')[0]!r}",
                                             hint=_data_hint(ds, ref.split('.')[0])))
    problems.extend(_check_copies(ds))
    for index, check in enumerate(ds.config.get("checks") or []):
        here = ("checks", index)
        kinds = [k for k in CHECK_KINDS if k in check]
        if len(kinds) != 1:
            problems.append(manifest.problem(here, "a check needs exactly one of "
                                                   + ", ".join(CHECK_KINDS)))
            continue
        kind = kinds[0]
        ref = check[kind]
        name = ref.split(".")[0]
        if name not in ds.docs:
            problems.append(manifest.problem(here + (kind,), f"no data file {name!r}",
                                             hint=_data_hint(ds, name)))
            continue
        if kind != "count" and "key" not in check:
            problems.append(manifest.problem(here, f"a {kind} check needs a key"))
            continue
        problems.extend(_CHECKS[kind](ds, ref, check, manifest, here))
    return problems


def _check_copies(ds: Dataset) -> list[Problem]:
    """Every copy count a deck's or pieces' ``count`` field reads is a whole number within
    ``copies`` of specs/limits.yaml, and no output gets more cards than the ``cards``
    budget: checked before anything multiplies by them."""
    from . import limits
    problems: list[Problem] = []
    entries = [(("decks", i), part) for i, deck in enumerate(ds.config.get("decks") or [])
               for part in (deck.get("parts") or [deck])]
    entries += [(("pieces", i), piece) for i, piece in enumerate(ds.config.get("pieces") or [])]
    totals: dict[tuple, int] = {}
    for here, entry in entries:
        key = entry.get("count")
        each = entry.get("copies", 1) if isinstance(entry.get("copies", 1), int) else 1
        for ref in entry.get("items") or ():
            if ref.split(".")[0] not in ds.docs:
                continue
            for _index, item, doc, path in ds.located(ref):
                n = each if key is None else None
                if key is not None and isinstance(item, dict) and key in item:
                    line, _ = doc.where(path + (key,))
                    try:
                        n = limits.count(item[key], doc.path, line, doc_field(path + (key,)))
                    except InputError as exc:
                        problems.extend(exc.problems)
                totals[here] = totals.get(here, 0) + (1 if n is None else n)
        totals[here] = totals.get(here, 0) + len(entry.get("cards") or ()) * each
    for here, total in totals.items():
        try:
            limits.cap(total, "cards", f"{here[0]}[{here[1]}] prints too many",
                       ds.manifest.path)
        except InputError as exc:
            line, _ = ds.manifest.where(here)
            problems.extend(Problem(p.message, p.path, line, hint=p.hint) for p in exc.problems)
    return problems


def doc_field(path: tuple) -> str:
    from .yamlload import format_path
    return format_path(path)


def _data_hint(ds: Dataset, name: str) -> str:
    """The nearest data file to a misspelt one, else the list of them."""
    from .suggest import did_you_mean
    return did_you_mean(name, ds.docs) or "data files are " + ", ".join(ds.docs)


def _check_count(ds: Dataset, ref: str, check: dict, manifest: Document,
                 here: tuple) -> list[Problem]:
    items = ds.items(ref)
    if "sum" in check:
        from . import limits
        total, problems = 0, []
        for _index, item, doc, path in ds.located(ref):
            if isinstance(item, dict) and check["sum"] in item:
                line, _ = doc.where(path + (check["sum"],))
                try:   # each a whole number of copies: strings are never added up
                    total += limits.count(item[check["sum"]], doc.path, line,
                                          doc_field(path + (check["sum"],)))
                except InputError as exc:
                    problems.extend(exc.problems)
            elif isinstance(item, dict):
                total += 1
        if problems:
            return problems
        what = f"{check['sum']} adds up to"
    else:
        total, what = len(items), "has"
    expected = check.get("equals")
    if expected is not None and total != expected:
        line, _ = manifest.where(here + ("equals",))
        where = f"{manifest.path}:{line}" if line else manifest.path
        return [ds.problem(ref, None, f"{what} {total} cards; expected {expected} "
                                      f"(set at {where})")]
    return []


def _check_unique(ds: Dataset, ref: str, check: dict, manifest: Document,
                  here: tuple) -> list[Problem]:
    key = check["key"]
    seen: dict[Any, int] = {}
    problems = []
    for index, item, doc, path in ds.located(ref):
        if not isinstance(item, dict) or key not in item:
            continue
        value = _hashable(item[key])
        if value in seen:
            first_line, _ = doc.where(path[:-1] + (seen[value], key))
            problems.append(doc.problem(path + (key,), f"duplicate {key} {item[key]!r} "
                                        f"(first used at line {first_line})"))
        else:
            seen[value] = index
    return problems


def _hashable(value: Any) -> Any:
    """A value as a key of a dict: lists and mappings compared by their contents."""
    if isinstance(value, list):
        return ("list", tuple(_hashable(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _hashable(v)) for k, v in value.items())))
    return (type(value).__name__, value) if isinstance(value, (bool, float)) else value


def _check_ref(ds: Dataset, ref: str, check: dict, manifest: Document,
               here: tuple) -> list[Problem]:
    target = check.get("to", "")
    if target.split(".")[0] not in ds.docs:
        return [manifest.problem(here + ("to",), f"no data file {target.split('.')[0]!r}",
                                 hint=_data_hint(ds, target.split('.')[0]))]
    ids = set(ds.by_id(target))
    key = check["key"]
    problems = []
    for _index, item, doc, path in ds.located(ref):
        if not isinstance(item, dict):
            continue
        for n, value in enumerate(_as_list(item.get(key))):
            if isinstance(value, (list, dict)) or value not in ids:
                where = path + (key,) + ((n,) if isinstance(item.get(key), list) else ())
                problems.append(doc.problem(where, f"unknown id {value!r} (not in {target})",
                                            hint="known: " + ", ".join(sorted(ids))))
    return problems


def _check_art(ds: Dataset, ref: str, check: dict, manifest: Document,
               here: tuple) -> list[Problem]:
    from .art import EXTENSIONS
    key = check["key"]
    problems = []
    for _index, item, doc, path in ds.located(ref):
        if not isinstance(item, dict):
            continue
        for value in _as_list(item.get(key)):
            if not any(_art_file(ds, f"{value}.{ext}") for ext in EXTENSIONS):
                problems.append(doc.problem(path + (key,), f"no art {value!r} "
                                            f"(templates/art/{value}.svg, .png or .jpg)",
                                            hint="art ids name the SVG, PNG and JPEG files "
                                                 "in templates/art/"))
    return problems


def _art_file(ds: Dataset, name: str) -> bool:
    try:
        confine(ds.pack.root, name, "templates/art")
    except InputError:
        return False
    return True


def _check_allowed(ds: Dataset, ref: str, check: dict, manifest: Document,
                   here: tuple) -> list[Problem]:
    """``{allowed: file.key, key: k, values: [..]}``: every value of ``k`` is one of ``values``."""
    values = check.get("values")
    if not isinstance(values, list) or not values:
        return [manifest.problem(here, "an allowed check needs values (the list of allowed "
                                       "values)")]
    key = check["key"]
    shown = ", ".join(str(v) for v in values)
    problems = []
    for _index, item, doc, path in ds.located(ref):
        if not isinstance(item, dict) or key not in item:
            continue
        value = item[key]
        for n, one in enumerate(_as_list(value)):
            # True == 1 in Python: compare types too, so `yes` never passes for 1
            if not any(one == v and type(one) is type(v) for v in values):
                where = path + (key,) + ((n,) if isinstance(value, list) else ())
                problems.append(doc.problem(where, f"{key} {one!r} is not allowed",
                                            hint=f"allowed: {shown}"))
    return problems


def _check_file(ds: Dataset, ref: str, check: dict, manifest: Document,
                here: tuple) -> list[Problem]:
    """``{file: file.key, key: k, base: folder}``: ``k`` names a file inside the pack.

    The path is relative to ``base`` (a pack-relative folder, default the
    pack's top level) and goes through ``pack.confine``: no ``..``, no
    absolute paths, no symlinks out of the pack.
    """
    key = check["key"]
    base = check.get("base", "")
    problems = []
    for _index, item, doc, path in ds.located(ref):
        if not isinstance(item, dict):
            continue
        value = item.get(key)
        for n, one in enumerate(_as_list(value)):
            where = path + (key,) + ((n,) if isinstance(value, list) else ())
            try:
                found = confine(ds.pack.root, one, base)
            except InputError as exc:
                p = exc.problems[0]
                problems.append(doc.problem(where, p.message, hint=p.hint or (
                    f"paths are relative to {base + '/' if base else 'the pack folder'}")))
                continue
            if not found.is_file():
                problems.append(doc.problem(where, f"{one!r} is not a file"))
    return problems


_CHECKS = {"count": _check_count, "unique": _check_unique, "ref": _check_ref, "art": _check_art,
           "allowed": _check_allowed, "file": _check_file}
#: The kinds of declarative check, in the order messages list them.
CHECK_KINDS = tuple(_CHECKS)
