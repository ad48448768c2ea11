"""eti_print.lazy_platypus: reportlab's platypus package runs whole only when asked
for more than ``Flowable``; a cold build draws its art without it, and all else works."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_art_draws_without_the_whole_package_and_the_rest_still_imports():
    found = _run(
        "import json, sys\n"
        "import eti_print\n"
        "from eti_print import lazy_platypus as platypus\n"
        "from reportlab.graphics import renderPDF\n"            # shapes: Flowable only
        "from reportlab.graphics.shapes import Drawing\n"
        "before = platypus.whole(), 'reportlab.platypus.paragraph' in sys.modules\n"
        "from reportlab.platypus import Paragraph, SimpleDocTemplate\n"
        "import reportlab.platypus as p\n"
        "names = {}\n"
        "exec('from reportlab.platypus import *', names)\n"
        "print(json.dumps({'before': before, 'after': platypus.whole(),\n"
        "                  'same': p.Flowable is renderPDF.Flowable,\n"
        "                  'star': 'Table' in names and 'Paragraph' in names,\n"
        "                  'tables': p.Table.__module__}))\n")
    assert found["before"] == [False, False]
    assert found["after"] and found["same"] and found["star"]
    assert found["tables"] == "reportlab.platypus.tables"


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_cold_build_lays_out_its_documents_only_in_their_job(tmp_path):
    """The parent of a split cold build draws the decks; the rules reference's job, in
    its own child, is the only one that imports the document layer and its tables."""
    found = _run(
        "import json, sys\n"
        "from eti_print import cli, forked\n"
        "forked.idle_core = lambda: True\n"
        "cli.main(['build', '-q', '--no-cache', '--out', sys.argv[1]])\n"
        "print(json.dumps([m for m in ('reportlab.platypus.paragraph',\n"
        "    'reportlab.platypus.tables', 'eti_print.render.document') if m in sys.modules]))\n",
        str(tmp_path / "out"))
    assert found == []
    assert (tmp_path / "out" / "eti-rules-reference.pdf").stat().st_size > 100_000
