"""The sandboxed jinja2 environment for box templates and file templates.

Templates come from packs and are untrusted.  ``TemplateEnv`` is an
``ImmutableSandboxedEnvironment`` with ``StrictUndefined`` (a typo is an
error, not an empty string), autoescaping (values from YAML print as
themselves in the card-text markup of ``text.py``) and a loader that resolves
names only through ``pack.confine``: no ``..``, no absolute paths, no symlink
out of the pack's template folder.  Every error a template can cause becomes
an ``InputError`` located at the layout file and line (inline templates) or
the template file and line.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from jinja2 import BaseLoader, StrictUndefined, Template, TemplateNotFound
from jinja2.exceptions import (
    SecurityError,
    TemplateError,
    TemplateRuntimeError,
    TemplateSyntaxError,
    UndefinedError,
)
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from . import bare_templates, template_budget, tracking
from .errors import InputError, Problem
from .files import NOT_REGULAR, read
from .pack import confine
from .text import icon, plain, rich

__all__ = ["TemplateEnv", "roman", "upper", "MAX_INCLUDE_DEPTH"]

#: Deepest chain of includes/imports before a template is assumed to recurse.
MAX_INCLUDE_DEPTH = 16
#: Largest template file read.
MAX_TEMPLATE_BYTES = 1024 * 1024
#: Largest string or list a template may build with ``*`` (characters/items).
MAX_REPEAT = template_budget.CHARS
#: Largest output of one render (characters) and longest render (seconds);
#: checked whenever the template emits text.
MAX_OUTPUT = bare_templates.MAX_OUTPUT
MAX_SECONDS = 10.0

_INLINE = "<inline template>"
_DEPTH_KEY = "eti-include-depth"   # not an identifier: templates cannot read or set it
_INLINE_CACHE_MAX = 4096


# ---------------------------------------------------------------------------
# Filters


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


def roman(value: Any) -> str:
    """1..3999 as a Roman numeral (``3`` -> ``III``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"roman expects a whole number, got {value!r}")
    if not 0 < value < 4000:
        raise ValueError(f"roman numerals go from 1 to 3999, got {value}")
    out = []
    for n, numeral in _ROMAN:
        count, value = divmod(value, n)
        out.append(numeral * count)
    return "".join(out)


_TAG_OR_ENTITY_RE = re.compile(r"(<[^>]*>|&[^;\s]*;)")


def upper(value: Any) -> Any:
    """Uppercase text; on markup only the text, never tags or entities."""
    if isinstance(value, Markup):
        parts = _TAG_OR_ENTITY_RE.split(str(value))
        return Markup("".join(p if i % 2 else p.upper() for i, p in enumerate(parts)))
    if isinstance(value, str):
        return value.upper()
    raise TypeError(f"upper expects text, got {type(value).__name__}")


def _finalize(value: Any) -> Any:
    if value is None:
        raise TemplateRuntimeError("a value is empty (null in the data) and would print as 'None'; "
                         "guard it with {% if ... %} or use | default('', true)")
    return value


# ---------------------------------------------------------------------------
# Loader and environment


class PackLoader(BaseLoader):
    """Loads templates from ``root/template_dir`` through ``pack.confine`` only."""

    def __init__(self, root: Path, template_dir: str = "templates"):
        self.root = Path(root).resolve()
        self.template_dir = template_dir
        self.base = (self.root / template_dir).resolve()
        self.files: set[str] = set()

    def get_source(self, environment: Any, template: str) -> tuple[str, str, Callable[[], bool]]:
        try:
            path = confine(self.root, template, self.template_dir)
        except InputError as exc:
            p = exc.problems[0]
            raise TemplateNotFound(template, message=f"template {template!r}: {p.message}"
                                   + (f" ({p.hint})" if p.hint else "")) from None
        try:
            path.relative_to(self.base)
        except ValueError:
            raise TemplateNotFound(template, message=f"template {template!r} leads outside "
                                   f"the {self.template_dir}/ folder") from None
        try:
            data = read(path, template, MAX_TEMPLATE_BYTES, what="template")
            mtime = path.stat().st_mtime_ns
        except InputError as exc:
            p = exc.problems[0]
            said = (f" is not a file ({p.hint})" if p.message == NOT_REGULAR
                    else f": {p.message}")
            raise TemplateNotFound(template, message=f"template {template!r}{said}") from None
        except OSError as exc:
            raise TemplateNotFound(template, message=f"template {template!r} cannot be read: "
                                   f"{exc.strerror}") from None
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TemplateNotFound(template, message=f"template {template!r} is not UTF-8 "
                                   f"(byte {exc.start})") from None
        display = path.relative_to(self.root).as_posix()
        self.files.add(display)
        tracking.read(("file", display))

        def uptodate() -> bool:   # on every reuse of the compiled template: a read too
            tracking.read(("file", display))
            try:
                return path.stat().st_mtime_ns == mtime
            except OSError:
                return False

        return source, display, uptodate


class _Template(Template):
    """Counts include/import depth so a template including itself fails cleanly."""

    def new_context(self, vars=None, shared=False, locals=None):  # type: ignore[override]
        chain = tuple(vars.get(_DEPTH_KEY, ())) if vars is not None else ()
        chain += (self.name or "the inline template",)
        if len(chain) > MAX_INCLUDE_DEPTH + 1:
            raise TemplateRuntimeError(
                f"templates include each other more than {MAX_INCLUDE_DEPTH} deep: "
                f"{_cycle(chain)}")
        vars = dict(vars or {})
        vars[_DEPTH_KEY] = chain
        return super().new_context(vars, shared, locals)


def _cycle(chain: tuple[str, ...]) -> str:
    """Describe the first loop in an include chain (``a.j2 -> b.j2 -> a.j2``)."""
    seen: dict[str, int] = {}
    for i, name in enumerate(chain):
        if name in seen:
            loop = chain[seen[name]:i + 1]
            what = "includes itself" if len(loop) == 2 else "is part of an include loop"
            return f"{name!r} {what} ({' -> '.join(loop)})"
        seen[name] = i
    return " -> ".join(chain[:4]) + " -> ..."




#: Compiled templates by (source, name, file name), shared by every environment of the
#: process: they are all configured alike (``TemplateEnv``), so the same source always
#: compiles to the same code.  A build in a long-lived process (watch, tests, a second
#: build) compiles nothing it compiled before; a syntax error is never cached.
_CODE: dict[tuple[str, str | None, str | None], Any] = {}
_CODE_MAX = 8192


class _CompiledOnDisk:
    """Compiled template code kept between processes (``diskcache.Persistent``: one file
    per version of eti-print, jinja2 and Python, so the same source compiles to the
    same code); a syntax error is never kept."""

    def __init__(self) -> None:
        from .diskcache import Persistent
        self.store = Persistent("templates", _CODE_MAX)

    @staticmethod
    def _key(key: tuple) -> str:
        import hashlib
        return hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: tuple) -> Any:
        import marshal
        blob = self.store.get(self._key(key))
        if blob is None:
            return None
        try:
            return marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            return None

    def keep(self, key: tuple, code: Any) -> None:
        import marshal
        self.store.keep(self._key(key), marshal.dumps(code))


_COMPILED = _CompiledOnDisk()


class _Sandbox(ImmutableSandboxedEnvironment):
    template_class = _Template
    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def compile(self, source: Any, name: str | None = None,  # type: ignore[override]
                filename: str | None = None, raw: bool = False,
                defer_init: bool = False) -> Any:
        if raw or defer_init or not isinstance(source, str):
            return super().compile(source, name, filename, raw, defer_init)
        key = (source, name, filename)
        code = _CODE.get(key)
        if code is None:
            code = _COMPILED.get(key)
            if code is None:
                code = super().compile(source, name, filename)
                _COMPILED.keep(key, code)
            if len(_CODE) >= _CODE_MAX:
                _CODE.clear()
            _CODE[key] = code
        return code

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        template_budget.check_binop(operator_, left, right)
        return super().call_binop(context, operator_, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        template_budget.check_call(__obj, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)

    def getattr(self, obj: Any, attribute: str) -> Any:
        template_budget.tick()
        return super().getattr(obj, attribute)


def contrast(colour: Any, dark: str = "#1E2430", light: str = "#FFFFFF") -> str:
    """The readable ink on a ``#RRGGBB`` background: ``dark`` on light colours, else ``light``."""
    from .colour import readable
    return readable(colour, dark, light)


# ---------------------------------------------------------------------------


class TemplateEnv:
    """Templates of one pack: inline box templates and files under ``template_dir``."""

    def __init__(self, pack_root: Path, template_dir: str = "templates"):
        self.pack_root = Path(pack_root).resolve()
        self.template_dir = template_dir
        self.loader = PackLoader(self.pack_root, template_dir)
        # optimized=False: no constant folding at compile time; it saves a sixth of a
        # compile, and every filter then runs in the render, under its limits
        env = _Sandbox(loader=self.loader, undefined=StrictUndefined, autoescape=True,
                       trim_blocks=True, lstrip_blocks=True, finalize=_finalize,
                       auto_reload=True, cache_size=400, optimized=False)
        env.globals.pop("lipsum", None)
        env.globals["range"] = template_budget.BudgetRange
        env.filters.update(template_budget.FILTERS)
        env.filters["rich"] = rich
        env.filters["plain"] = plain
        env.filters["roman"] = roman
        env.filters["upper"] = upper
        env.filters["icon"] = icon
        env.filters["contrast"] = contrast
        self.env = env
        self._inline: dict[str, Template] = {}

    # -- inline templates --------------------------------------------------

    def _compile_inline(self, source: str) -> Template:
        tmpl = self._inline.get(source)
        if tmpl is None:
            code = self.env.compile(source, name=None, filename=_INLINE)
            tmpl = self.env.template_class.from_code(self.env, code, self.env.make_globals(None))
            if len(self._inline) >= _INLINE_CACHE_MAX:
                self._inline.clear()
            self._inline[source] = tmpl
        return tmpl

    def render_string(self, source: str, context: Mapping[str, Any], *, where: str | None,
                      line: int | None = None, field: str | None = None) -> Markup:
        """Render an inline template kept in a layout file.

        ``where`` is the layout file as shown to users, ``line`` the line
        holding the template's first line, ``field`` the box/field path.
        Errors are ``InputError``s at ``where:line+template_line-1: field``.
        The result is markup for ``text.parse``.
        """
        if not isinstance(source, str):
            raise self._error(TypeError(f"a template must be text, got {type(source).__name__}"),
                              where, line, field, context)
        fast = _bare_value(source, context)
        if fast is not None:
            return fast
        try:
            tmpl = self._compile_inline(source)
            return _render(tmpl, context)
        except InputError:
            raise
        except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError,
                AttributeError, RecursionError, MemoryError, UnicodeError) as exc:
            raise self._error(exc, where, line, field, context) from None

    # -- file templates ----------------------------------------------------

    def render_file(self, name: str, context: Mapping[str, Any], *, where: str | None = None,
                    line: int | None = None, field: str | None = None) -> Markup:
        """Render ``template_dir/name``; errors name the template file and line.

        ``where``/``line``/``field`` locate the reference to ``name`` (used when
        the template itself cannot be found or loaded).
        """
        try:
            tmpl = self.env.get_template(name)
        except TemplateNotFound as exc:
            if exc.name == name:
                raise InputError(Problem(exc.message or f"template {name!r} not found",
                                         where, line, None, field)) from None
            raise self._error(exc, where, line, field, context) from None
        except (TemplateError, RecursionError) as exc:
            raise self._error(exc, where, line, field, context) from None
        try:
            return _render(tmpl, context)
        except InputError:
            raise
        except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError,
                AttributeError, RecursionError, MemoryError, UnicodeError) as exc:
            raise self._error(exc, where, line, field, context) from None

    # -- errors --------------------------------------------------------------

    def _locate(self, exc: BaseException) -> tuple[str | None, int | None]:
        """The innermost template (filename, line) of an error."""
        if isinstance(exc, TemplateSyntaxError):
            return exc.filename, exc.lineno
        found: tuple[str | None, int | None] = (None, None)
        tb: TracebackType | None = exc.__traceback__
        while tb is not None:
            filename = tb.tb_frame.f_code.co_filename
            if filename == _INLINE or filename in self.loader.files:
                found = (filename, tb.tb_lineno)
            tb = tb.tb_next
        return found

    def _error(self, exc: BaseException, where: str | None, line: int | None,
               field: str | None, context: Mapping[str, Any]) -> InputError:
        filename, tline = self._locate(exc)
        message, hint = _describe(exc, context)
        if filename is None or filename == _INLINE:
            path = where
            if tline is not None:
                if line is not None:
                    at_line: int | None = line + tline - 1
                else:
                    at_line = None
                    message += f" (template line {tline})"
            else:
                at_line = line
        else:
            path, at_line = filename, tline
        return InputError(Problem(message, path, at_line, None, field, hint))


#: Templates of one value print without jinja2 (``bare_templates``); the tests call it so.
_bare_value = bare_templates.value


def _render(tmpl: Template, context: Mapping[str, Any]) -> Markup:
    """``tmpl.render`` with output-size and time limits (checked per emitted chunk)."""
    out: list[str] = []
    size = 0
    deadline = time.monotonic() + MAX_SECONDS
    with template_budget.watchdog(tmpl):
        for chunk in tmpl.generate(dict(context)):
            out.append(chunk)
            size += len(chunk)
            if size > MAX_OUTPUT:
                raise SecurityError(f"template output exceeds {MAX_OUTPUT} characters")
            if time.monotonic() > deadline:
                raise SecurityError(f"template rendering took more than {MAX_SECONDS:g} s")
    return Markup("".join(out))


_MISSING_RE = re.compile(r"has no attribute '([^']+)'|^'([^']+)' is undefined")


def _nearest_name(message: str, context: Mapping[str, Any]) -> str | None:
    """``did you mean card.title?`` for a mistyped name or field (``card.titel``): the
    nearest top-level name, or field of a top-level mapping (difflib)."""
    from .suggest import nearest
    m = _MISSING_RE.search(message)
    if not m:
        return None
    if m.group(2):
        near = nearest(m.group(2), [k for k in context if isinstance(k, str)])
        return f"did you mean {near}?" if near else None
    fields = {f"{name}.{key}": str(key) for name, value in context.items()
              if isinstance(name, str) and isinstance(value, Mapping)
              for key in value if isinstance(key, str)}
    by_key: dict[str, list[str]] = {}
    for dotted, key in fields.items():
        by_key.setdefault(key, []).append(dotted)
    near = nearest(m.group(1), by_key)
    if near is None:
        return None
    return "did you mean " + " or ".join(sorted(by_key[near])[:3]) + "?"


def _describe(exc: BaseException, context: Mapping[str, Any]) -> tuple[str, str | None]:
    if isinstance(exc, TemplateSyntaxError):
        return f"template syntax error: {exc.message}", None
    if isinstance(exc, SecurityError):
        if "unsafe" in str(exc):
            return (f"not allowed in a template: {exc}",
                    "templates run in a sandbox: no names starting with '_', no internals")
        return f"not allowed in a template: {exc}", "templates run in a sandbox with size limits"
    if isinstance(exc, UndefinedError):
        names = sorted(k for k in context if isinstance(k, str))
        hint = ("names available here: " + ", ".join(names)) if names else None
        near = _nearest_name(str(exc.message or exc), context)
        if near:
            hint = f"{hint}; {near}" if hint else near
        return str(exc.message or exc), hint
    if isinstance(exc, TemplateNotFound):
        return str(exc.message or f"template {exc.name!r} not found"), None
    if isinstance(exc, TemplateRuntimeError):
        return str(exc), None
    if isinstance(exc, RecursionError):
        return ("templates recurse too deeply (does a template include or call itself?)",
                None)
    if isinstance(exc, MemoryError):
        return "template builds too much text", None
    return f"template error: {type(exc).__name__}: {exc}", None
