"""reportlab's ``platypus`` package, run whole only when a process asks it for more.

``reportlab.graphics.shapes``, under every SVG drawing (``renderPDF``, svglib),
starts with ``from reportlab.platypus import Flowable``, which runs the package's
``__init__``: every platypus module, the paragraph parser and its regular
expressions among them, about 40 ms of every process that draws art.  eti-print
uses the ``flowables`` and ``tables`` modules, which it imports by their own names
(a document's tables are laid out in its documents job, a forked child in a cold
build).

``install`` (run when this module is imported, which ``eti_print/art/__init__.py``
does before its modules import reportlab's graphics) puts the package in
``sys.modules`` without running it, holding ``Flowable``; its submodules import as
usual.  Any other name asked of it runs the real ``__init__`` into the same module
first, so ``reportlab.platypus.Paragraph`` or ``from reportlab.platypus import *``
works as it always did.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

NAME = "reportlab.platypus"


def install() -> None:
    """``reportlab.platypus`` as this module says, unless it is imported already."""
    if NAME in sys.modules:
        return
    import importlib.util
    spec = importlib.util.find_spec(NAME)
    if spec is None or spec.loader is None:        # pragma: no cover - no reportlab
        return
    module = importlib.util.module_from_spec(spec)
    lock = threading.Lock()

    def __getattr__(name: str) -> Any:   # noqa: N807 - the module hook (PEP 562)
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
                spec.loader.exec_module(module)      # the whole package, as imported
        return getattr(module, name)

    module.__getattr__ = __getattr__  # type: ignore[attr-defined]
    sys.modules[NAME] = module
    import reportlab
    reportlab.platypus = module  # type: ignore[attr-defined]
    from reportlab.platypus.flowables import Flowable
    module.Flowable = Flowable  # type: ignore[attr-defined]


def whole() -> bool:
    """Has the package's ``__init__`` run in this process?"""
    module = sys.modules.get(NAME)
    return module is not None and "__getattr__" not in module.__dict__


install()
