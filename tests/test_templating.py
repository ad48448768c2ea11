"""The sandboxed, pack-confined jinja2 environment."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from markupsafe import Markup

from eti_print.errors import InputError
from eti_print.templating import TemplateEnv, roman, upper
from eti_print.text import Run, parse

FIXTURES = Path(__file__).parent / "fixtures"
LAYOUT = "templates/layouts/event.yaml"
CTX = {
    "card": {"name": "R&D <Alpha>", "text": "**Gain** :fame: & *more*", "level": 3,
             "tags": ["a", "b"], "flavour": None},
    "game": {"title": "E.T.I."},
}


@pytest.fixture(scope="module")
def env() -> TemplateEnv:
    return TemplateEnv(FIXTURES)


def render(env, source, context=CTX, line=14, field="boxes.title.text"):
    return env.render_string(source, context, where=LAYOUT, line=line, field=field)


def error(fn, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as err:
        fn(*args, **kwargs)
    return err.value


# ---------------------------------------------------------------------------
# Rendering and filters


def test_autoescape_prints_values_as_themselves(env):
    out = render(env, "{{ card.name }}")
    assert isinstance(out, Markup)
    assert out == "R&amp;D &lt;Alpha&gt;"
    assert parse(out) == [Run.of("R&D <Alpha>")]


def test_rich_filter_turns_shorthand_into_markup(env):
    out = render(env, "{{ card.name }}: {{ card.text | rich }}")
    assert out == 'R&amp;D &lt;Alpha&gt;: <b>Gain</b> <icon name="fame"/> &amp; <i>more</i>'
    parse(out)


def test_filters(env):
    assert render(env, "{{ card.level | roman }} {{ 1994 | roman }}") == "III MCMXCIV"
    assert render(env, "{{ card.name | upper }}") == "R&amp;D &lt;ALPHA&gt;"
    # upper on markup leaves tags and entities alone
    assert render(env, "{{ card.text | rich | upper }}") == \
        '<b>GAIN</b> <icon name="fame"/> &amp; <i>MORE</i>'
    assert render(env, "{{ card.text | plain }}") == "Gain &amp; more"
    assert render(env, "{{ 'threat-spy' | icon }}") == '<icon name="threat-spy"/>'
    assert roman(4) == "IV" and upper("x") == "X"


def test_filter_errors_are_located(env):
    err = error(render, env, "{{ card.name | roman }}")
    assert str(err).startswith(f"{LAYOUT}:14: boxes.title.text: template error: TypeError: "
                               "roman expects a whole number")
    err = error(render, env, "{{ 0 | roman }}")
    assert "1 to 3999" in str(err)


def test_inline_templates_are_compiled_once(env):
    source = "{{ card.level | abs }} cached"   # a filter: compiled
    for _ in range(3):
        render(env, source)
    assert env._inline[source] is env._compile_inline(source)


def test_none_is_an_error_not_the_word_none(env):
    err = error(render, env, "x\n{{ card.flavour }}")
    assert str(err).startswith(f"{LAYOUT}:15: boxes.title.text: a value is empty")
    assert render(env, "{{ card.flavour | default('', true) }}") == ""


# ---------------------------------------------------------------------------
# Located errors


def test_strict_undefined_typo_is_located(env):
    err = error(render, env, "{{ card.nmae }}")
    assert str(err).startswith(
        f"{LAYOUT}:14: boxes.title.text: 'dict object' has no attribute 'nmae'")
    problem = err.problems[0]
    assert (problem.path, problem.line, problem.field) == (LAYOUT, 14, "boxes.title.text")
    assert "card, game" in problem.hint


def test_error_line_adds_the_template_line(env):
    err = error(render, env, "{{ card.name }}\n{% if card.level %}\n{{ crad.name }}\n{% endif %}")
    assert err.problems[0].line == 16
    assert "'crad' is undefined" in str(err)


def test_error_without_a_line_names_the_template_line(env):
    err = error(env.render_string, "a\n{{ nope }}", {}, where=LAYOUT, line=None,
                field="boxes.x")
    assert str(err) == f"{LAYOUT}: boxes.x: 'nope' is undefined (template line 2)"


@pytest.mark.parametrize("source, message", [
    ("{% if %}", "template syntax error"),
    ("{{ card.name ", "template syntax error"),
    ("{% for x in card.tags %}", "template syntax error"),
    ("{{ 1 / 0 }}", "ZeroDivisionError"),
    ("{{ card.tags[5] }}", "has no element 5"),
    ("{{ card.name + 1 }}", "TypeError"),
    ("{{ card.name | nosuchfilter }}", "No filter named 'nosuchfilter'"),
])
def test_template_errors_become_input_errors(env, source, message):
    err = error(render, env, source)
    assert str(err).startswith(f"{LAYOUT}:14: boxes.title.text: ")
    assert message in str(err)


# ---------------------------------------------------------------------------
# Sandbox


@pytest.mark.parametrize("source", [
    "{{ ''.__class__.__mro__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ card.__class__ }}",
    "{{ ().__class__.__base__.__subclasses__() }}",
    "{{ card.name.__len__() }}",
    "{{ joiner.__init__.__globals__.os }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ card.tags.append(1) }}",
    "{{ card.update({'x': 1}) }}",
    "{{ card.name.format.__globals__ }}",
    "{{ 'x' * 1000000 }}",
    "{{ [1] * 1000000 }}",
    "{{ 10 ** 100000 }}",
    "{{ '%999999999d' % 1 }}",
    "{{ range(10 ** 9) | list }}",
])
def test_sandbox_blocks(env, source):
    err = error(render, env, source)
    assert str(err).startswith(f"{LAYOUT}:14: boxes.title.text: ")


def test_sandbox_message(env):
    err = error(render, env, "{{ ''.__class__.__mro__ }}")
    assert "access to attribute '__class__' of 'str' object is unsafe" in str(err)
    assert "sandbox" in err.problems[0].hint


def test_output_is_limited(env):
    err = error(render, env, "{% for i in range(100000) %}{% for j in range(100000) %}"
                             "xxxxxxxxxx{% endfor %}{% endfor %}")
    assert "template output exceeds" in str(err)


def test_a_syntax_error_on_a_later_line_of_a_template_names_that_line(env):
    err = error(render, env, "ok\n{% if %}", line=3, field="boxes.a")
    assert str(err).startswith(f"{LAYOUT}:4: boxes.a: template syntax error")


def test_no_lipsum(env):
    error(render, env, "{{ lipsum(1000) }}")


# ---------------------------------------------------------------------------
# File templates and the confined loader


def test_render_file(env):
    out = env.render_file("booklet/page.j2", {
        "title": "Events & more",
        "events": [{"name": "A<B", "text": "**Gain** :ufo:"}, {"name": "C", "text": "x"}],
    })
    runs = parse(out)
    assert runs[0] == Run.of("EVENTS & MORE", bold=True)
    assert Run.of("A<B", bold=True) in runs and Run.art("ufo") in runs


def test_file_error_names_the_template_and_line(env):
    err = error(env.render_file, "booklet/typo.j2", {"title": "t", "card": {}})
    assert str(err).startswith("templates/booklet/typo.j2:3: 'dict object' has no attribute "
                               "'nmae'")


def test_error_in_an_included_file_names_that_file(env):
    err = error(env.render_file, "booklet/uses-typo.j2", {"title": "t", "card": {}})
    assert str(err).startswith("templates/booklet/typo.j2:3: ")
    err = error(render, env, "x\n{% include 'booklet/typo.j2' %}", {"title": "t", "card": {}})
    assert str(err).startswith("templates/booklet/typo.j2:3: boxes.title.text: ")


def test_file_syntax_error(env):
    err = error(env.render_file, "booklet/syntax.j2", {"events": []})
    assert str(err).startswith("templates/booklet/syntax.j2:3: template syntax error")


@pytest.mark.parametrize("name, message", [
    ("../x.j2", "'..' in '../x.j2' is not allowed"),
    ("booklet/../../x.j2", "is not allowed"),
    ("/etc/passwd", "absolute path '/etc/passwd' is not allowed"),
    ("C:/x.j2", "is not a plain relative path"),
    ("booklet\\page.j2", "is not a plain relative path"),
    ("no-such.j2", "file not found: no-such.j2"),
    ("booklet", "is not a file"),
])
def test_loader_refuses(env, name, message):
    err = error(env.render_file, name, {}, where=LAYOUT, line=3, field="booklet.page")
    assert message in str(err)
    assert str(err).startswith(f"{LAYOUT}:3: booklet.page: template ")


def test_include_refusals_name_the_including_line(env):
    err = error(env.render_file, "include-parent.j2", {})
    assert str(err).startswith("templates/include-parent.j2:1: template '../secret.txt': "
                               "'..' in '../secret.txt' is not allowed")
    err = error(env.render_file, "include-missing.j2", {})
    assert str(err).startswith("templates/include-missing.j2:1: template "
                               "'no-such-template.j2': file not found")
    err = error(render, env, "{% include '/etc/passwd' %}")
    assert str(err).startswith(f"{LAYOUT}:14: boxes.title.text: template '/etc/passwd': "
                               "absolute path")


@pytest.fixture
def pack(tmp_path) -> Path:
    root = tmp_path / "pack"
    shutil.copytree(FIXTURES / "templates", root / "templates")
    (root / "cards").mkdir()
    (root / "cards" / "events.yaml").write_text("events: []\n")
    outside = tmp_path / "outside.j2"
    outside.write_text("SECRET {{ 1 }}\n")
    os.symlink(outside, root / "templates" / "link-out.j2")
    os.symlink(tmp_path, root / "templates" / "dir-out")
    os.symlink(root / "cards" / "events.yaml", root / "templates" / "link-cards.j2")
    os.symlink(root / "templates" / "booklet" / "event.j2", root / "templates" / "link-in.j2")
    return root


def test_symlinks_out_are_refused(pack):
    env = TemplateEnv(pack)
    for name in ("link-out.j2", "dir-out/outside.j2"):
        err = error(env.render_file, name, {})
        assert "leads outside the pack" in str(err)
        assert "SECRET" not in str(err)
    err = error(env.render_file, "link-cards.j2", {})
    assert "leads outside the templates/ folder" in str(err)
    err = error(env.render_string, "{% include 'link-out.j2' %}", {}, where=LAYOUT, line=2,
                field="boxes.x")
    assert str(err).startswith(f"{LAYOUT}:2: boxes.x: template 'link-out.j2': ")
    # a symlink that stays inside the template folder is fine
    assert "x" in env.render_file("link-in.j2", {"event": {"name": "x", "text": "y"}})


def test_template_dir_is_configurable(pack):
    env = TemplateEnv(pack, template_dir="templates/booklet")
    assert env.render_file("event.j2", {"event": {"name": "n", "text": "t"}}).startswith("<b>n")
    err = error(env.render_file, "self.j2", {})
    assert "file not found" in str(err)


def test_edited_templates_are_reloaded(pack):
    env = TemplateEnv(pack)
    page = pack / "templates" / "edit.j2"
    page.write_text("one")
    assert env.render_file("edit.j2", {}) == "one"
    page.write_text("two")
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    assert env.render_file("edit.j2", {}) == "two"


# ---------------------------------------------------------------------------
# Recursion


@pytest.mark.parametrize("name, message", [
    ("self.j2", "'self.j2' includes itself (self.j2 -> self.j2)"),
    ("mutual-a.j2", "include loop (mutual-a.j2 -> mutual-b.j2 -> mutual-a.j2)"),
    ("extends-self.j2", "templates recurse too deeply"),
    ("macro-recursion.j2", "templates recurse too deeply"),
])
def test_recursion_is_a_clear_error(env, name, message):
    err = error(env.render_file, name, {})
    assert message in str(err)
    assert str(err).startswith(f"templates/{name}:")


def test_inline_self_include(env):
    err = error(render, env, "{% include 'self.j2' %}")
    assert str(err).startswith("templates/self.j2:1: boxes.title.text: templates include "
                               "each other more than 16 deep")


def test_legitimate_nested_includes_work(env):
    out = render(env, "{% for event in events %}{% include 'booklet/event.j2' %}{% endfor %}",
                 {"events": [{"name": str(i), "text": "t"} for i in range(30)]})
    assert out.count("<br/>") == 30


@pytest.mark.parametrize("value", ["plain", "a < b & 'c' \"d\"", "**bold** <b>x</b>", "", 3, -2,
                                   1.5, 0.1 + 0.2, "é ü"])
def test_a_bare_attribute_template_renders_as_jinja2_does(tmp_path, value):
    """``{{ card.x }}`` skips jinja2 (templating._bare_value) with the very same markup."""
    from eti_print.templating import _bare_value, _render
    env = TemplateEnv(tmp_path)
    context = {"card": {"x": value}}
    for source in ("{{ card.x }}", "{{card.x}}", "{{ card.x }}mm", "<i>{{ card.x }}</i>",
                   "threat-{{card.x}}", "a & b < {{ card.x }} ; c"):
        fast = _bare_value(source, context)
        assert fast is not None
        assert fast == _render(env._compile_inline(source), context)
        assert env.render_string(source, context, where="t.yaml") == fast


_PORTS = {"ports": [{"y": 3, "n": "a&b"}, {"y": 4.5}], "i": 1, "card": {"up": [], "x": "é"}}


@pytest.mark.parametrize("source", [
    "{{ ports[i].y }}mm", "{{ ports[0].n }}", "{{ ports[1].y|default(0) }}",
    "{{ card.up[0] | default('staffing') }}", "trait-{{ card.up[0] | default('a & b') }}",
    "{{ card.flavor | default('') }}", "<i>{{ card.flavor | default('') }}</i>",
    "RATING {{ card.ufos | default(0) }} OF 4", "{{ card.x | default('y') }}",
])
def test_an_indexed_or_defaulted_value_renders_as_jinja2_does(tmp_path, source):
    from eti_print.templating import _bare_value, _render
    env = TemplateEnv(tmp_path)
    fast = _bare_value(source, _PORTS)
    assert fast is not None
    assert fast == _render(env._compile_inline(source), _PORTS)


@pytest.mark.parametrize("source", [
    "{{ ports[2].y }}",                  # past the end, no default: jinja2's error
    "{{ ports[i].z }}",                  # missing, no default
    "{{ card.nothing[0] | default('') }}",  # missing before the last step: an error
    "{{ ports[-1].y }}", "{{ ports[01].y }}", "{{ ports[card].y }}", "{{ ports.y }}",
    "{{ card[i] }}", "{{ ports[true].y }}", "{{ card.x | default('a', true) }}",
    "{{ card.x | default(\"b\") }}", "{{ card.x | default('\\n') }}",
])
def test_anything_else_indexed_goes_through_jinja2(source):
    from eti_print.templating import _bare_value
    assert _bare_value(source, _PORTS) is None


@pytest.mark.parametrize("source, context", [
    ("{{ card.items }}", {"card": {"items": "x"}}),        # a dict attribute: jinja2 decides
    ("{{ card.x }}", {"card": {"x": None}}),               # null: jinja2's located error
    ("{{ card.x }}", {"card": {}}),                        # missing: likewise
    ("{{ card.x }}", {"card": {"x": [1]}}),                # not text or a number
    ("{{ card.x }}", {"card": {"x": True}}),
    ("{{ card.x | upper }}", {"card": {"x": "a"}}),        # not bare
    ("{{ card.x }}", {"lookup": {"x": "a"}}),
    ("{{ card.x }}\n", {"card": {"x": "a"}}),             # jinja2 drops a last line break
    ("a\n{{ card.x }}", {"card": {"x": "a"}}),
    ("{{{ card.x }}", {"card": {"x": "a"}}),               # another tag's braces
    ("{{ card.x }}}", {"card": {"x": "a"}}),
    ("{{ card.x }}{{ card.y }}", {"card": {"x": "a", "y": "b"}}),
    ("{{ card.x }} {# c #}", {"card": {"x": "a"}}),
    ("{{ none.x }}", {"none": {"x": "a"}}),                # a constant to jinja2, not a name
])
def test_anything_but_a_plain_value_goes_through_jinja2(source, context):
    from eti_print.templating import _bare_value
    assert _bare_value(source, context) is None
