"""template_budget: a render stops when its CPU budget is spent, under the timer in the
main thread and by the hooks' own clock checks where no timer can interrupt."""

from __future__ import annotations

import threading

import pytest

from eti_print import template_budget
from eti_print.errors import InputError
from eti_print.templating import TemplateEnv

#: Loops that print nothing and read an attribute each time (the hooks' clock checks).
SPIN = ("{% for i in range(4000) %}{% for j in range(4000) %}"
        "{% if card.title %}{% endif %}{% endfor %}{% endfor %}")


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setattr(template_budget, "SECONDS", 0.2)
    return TemplateEnv(tmp_path)


def _spin(env: TemplateEnv) -> str:
    with pytest.raises(InputError) as raised:
        env.render_string(SPIN, {"card": {"title": "x"}}, where="layout.yaml", line=3,
                          field="boxes.title.text")
    return str(raised.value)


def test_a_spinning_render_stops_in_the_main_thread(env):
    assert "of CPU time" in _spin(env)
    assert not getattr(template_budget._state, "timed", False)     # the timer disarmed


def test_a_spinning_render_stops_outside_the_main_thread(env):
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(_spin(env)))
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive() and "of CPU time" in found[0]
