"""``hyst system --file`` with switching fields (the general model): the walkthrough's
example graph of Teunisse & van Hecke, a pairwise system read back as parameters, and
bad files refused in one line."""

from __future__ import annotations

import pytest

from hyst.cli.main import main
from hyst.model.general import SwitchingFields, label

#: The peer walkthrough's two-hysteron example (18 linear extensions, 4.46e-4).
EXAMPLE = 'switching_fields:\n  "00": [7, 6]\n  "01": [4, 2]\n  "10": [3, 8]\n  "11": [1, 5]\n'


def _run(tmp_path, monkeypatch, capsys, text, *options, name="s.yaml"):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    code = main(["system", "--file", name, *options])
    return code, capsys.readouterr().out


def test_the_walkthrough_example(tmp_path, monkeypatch, capsys):
    code, out = _run(tmp_path, monkeypatch, capsys, EXAMPLE, "--rule", "0")
    assert code == 0
    assert "general model, n = 2, rule 0: 4 states" in out
    assert "t-graph: well defined" in out
    assert "design inequalities (7, the transitive reduction)" in out
    assert "statistical weight: 18 linear extensions of the 40,320 total orders" in out
    assert "(probability 0.000446)" in out
    assert "realizable (LP): yes, integer fields checked" in out
    assert "pairwise form: none" in out


def test_a_pairwise_system_is_read_back_as_its_parameters(tmp_path, monkeypatch, capsys):
    f = SwitchingFields.from_pairwise([3, 5], [-1, 1], [[0, 1], [2, 0]])
    rows = "".join(f'  "{label(S, 2)}": {f.values[S].tolist()}\n' for S in range(4))
    code, out = _run(tmp_path, monkeypatch, capsys, "switching_fields:\n" + rows)
    assert code == 0
    assert "pairwise form: h_plus = [3, 5], h_minus = [-1, 1], c = [[0, 1], [2, 0]]" in out


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ('switching_fields: {"00": [1, 2], "01": [1]}', (), "01: [1] is not allowed (2 integers"),
        ('switching_fields: {"00": [1, 2], "01": [1, 3]}', (), "2 states given, 4 needed"),
        ('switching_fields: {"0x": [1, 2]}', (), "are not allowed (strings of n 0s and 1s"),
        ('switching_fields: {"0": [1.5], "1": [0]}', (), "0: [1.5] is not allowed (1 integers"),
        ("switching_fields: [1, 2]", (), "switching_fields: not allowed (a mapping of state"),
        (EXAMPLE + "c: 1\n", (), "c: unknown key (a switching-field file has only"),
        (EXAMPLE, ("--sweep",), "--file: drive protocols need a pairwise system"),
        (EXAMPLE, ("--export", "x.yaml"), "--export: not allowed with switching fields"),
    ],
)
def test_bad_switching_field_files_are_one_line(tmp_path, monkeypatch, capsys, text, options,
                                                 message):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(text)
    assert main(["system", "--file", "s.yaml", *options]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]
