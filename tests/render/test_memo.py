"""The face resolver's memo of inline templates: a render is reused only for the same
values read, so every card still prints its own."""

from __future__ import annotations

import pytest

from eti_print.render.memo import RenderMemo, reads
from eti_print.templating import TemplateEnv


@pytest.fixture
def env(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "part.j2").write_text("[{{ card.title }}]", encoding="utf-8")
    return TemplateEnv(tmp_path)


def renderer(env, memo):
    """``render(source, context)`` through the memo, and the renders really made."""
    made = []

    def render(source, context):
        def now():
            made.append(source)
            return str(env.render_string(source, context, where="layout.yaml"))
        return memo.text(source, context, now)
    return render, made


def test_same_values_render_once_and_each_card_prints_its_own(env):
    render, made = renderer(env, RenderMemo())
    title = "{{ card.title | upper }}!"
    assert render(title, {"card": {"title": "spy", "id": "a"}}) == "SPY!"
    assert render(title, {"card": {"title": "spy", "id": "b"}}) == "SPY!"
    assert render(title, {"card": {"title": "arson", "id": "c"}}) == "ARSON!"
    assert made == [title, title]       # the second card read the same title


def test_lists_and_dicts_by_content_and_order(env):
    render, made = renderer(env, RenderMemo())
    source = "{{ spaces[i].label }}{% for k in order %}{{ k }}{% endfor %}"
    ctx = {"spaces": [{"label": "A"}, {"label": "B"}], "i": 1, "order": {"x": 1, "y": 2}}
    assert render(source, ctx) == "Bxy"
    assert render(source, {**ctx, "spaces": [{"label": "A"}, {"label": "B"}]}) == "Bxy"
    assert render(source, {**ctx, "order": {"y": 2, "x": 1}}) == "Byx"
    assert render(source, {**ctx, "i": 0}) == "Axy"
    assert len(made) == 3


def test_plain_values_by_type_and_printed_form(env):
    render, made = renderer(env, RenderMemo())
    assert [render("{{ n }}", {"n": n}) for n in (1, 1.0, True, 0.0, -0.0)] == [
        "1", "1.0", "True", "0.0", "-0.0"]
    assert len(made) == 5


def test_closures_by_what_they_close_over(env):
    def lookup_in(table):
        return lambda key: table[key]
    table = {"a": "alpha"}
    render, made = renderer(env, RenderMemo())
    source = "{{ lookup('a') }}"
    assert render(source, {"lookup": lookup_in(table)}) == "alpha"
    assert render(source, {"lookup": lookup_in(table)}) == "alpha"     # made anew, alike
    assert render(source, {"lookup": lookup_in({"a": "beta"})}) == "beta"
    assert len(made) == 2


def test_other_objects_by_identity(env):
    class Thing:
        def __init__(self, name):
            self.name = name
    render, made = renderer(env, RenderMemo())
    one = Thing("one")
    assert render("{{ t.name }}", {"t": one}) == "one"
    assert render("{{ t.name }}", {"t": one}) == "one"
    assert render("{{ t.name }}", {"t": Thing("two")}) == "two"
    assert len(made) == 2


def test_a_dict_method_name_reads_the_whole_dict(env):
    assert reads("{{ card.items }}") == (("card", None),)
    assert reads("{{ card.title ~ card.id }}") == (("card", ("id", "title")),)
    render, made = renderer(env, RenderMemo())
    source = "{{ card.get('title') }}"
    assert render(source, {"card": {"title": "a"}}) == "a"
    assert render(source, {"card": {"title": "b"}}) == "b"


def test_includes_and_identity_tests_always_render(env):
    assert reads("{% include 'part.j2' %}") is None
    assert reads("{{ a is sameas b }}") is None
    render, made = renderer(env, RenderMemo())
    ctx = {"card": {"title": "x"}}
    assert render("{% include 'part.j2' %}", ctx) == "[x]"
    assert render("{% include 'part.j2' %}", ctx) == "[x]"
    assert len(made) == 2


def test_an_error_is_never_kept(env):
    memo = RenderMemo()
    calls = []

    def failing():
        calls.append(1)
        raise ValueError("bad card")
    for _ in range(2):
        with pytest.raises(ValueError):
            memo.text("{{ card.title }}", {"card": {"title": "x"}}, failing)
    assert len(calls) == 2
