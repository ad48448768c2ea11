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


@pytest.mark.skipif(not hasattr(template_budget.signal, "setitimer"), reason="no setitimer")
def test_the_timer_rings_again_where_jinja2_could_not_place_its_exception(monkeypatch):
    """An instruction of a template's code with no line (Python gives some none): an
    exception raised there makes jinja2's traceback rewrite fail with a TypeError,
    which would be reported instead of the timeout; the handler waits a moment."""
    class Frame:
        def __init__(self, line):
            self.f_lineno = line
    signal = template_budget.signal
    monkeypatch.setattr(template_budget._state, "deadline", 0.0, raising=False)
    previous = signal.signal(signal.SIGVTALRM, signal.SIG_IGN)   # should it ring here
    try:
        template_budget._on_alarm(signal.SIGVTALRM, Frame(None))
        assert signal.getitimer(signal.ITIMER_VIRTUAL)[0] > 0       # rings again
        with pytest.raises(template_budget.TemplateTimeout):
            template_budget._on_alarm(signal.SIGVTALRM, Frame(12))
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
