"""`hyst system` input: files with one-line errors, and the very system the sampler drew."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hyst.model.systems import Systems, quantize
from hyst.sampling.sampler import Point, chunk_size, sample_point
from hyst.systems.files import SystemInputError, load_system, sampled_system, system_from_mapping

GOOD = {"h_plus": [0.5, 0.25], "h_minus": [-0.5, -0.25], "c": [[0, 0.75], [-0.75, 0]]}


def _write(tmp_path, name, data):
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data))
    elif name.endswith(".npz"):
        np.savez(path, **{k: np.asarray(v) for k, v in data.items()})
    else:
        import yaml

        path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("name", ["s.yaml", "s.yml", "s.json", "s.npz"])
def test_good_files(tmp_path, name):
    sy = load_system(_write(tmp_path, name, GOOD))
    assert isinstance(sy, Systems) and sy.N == 2 and sy.samples == 1
    assert sy.couplings[0, 0, 1] == quantize(0.75) and sy.couplings[0, 1, 0] == quantize(-0.75)
    assert sy.h_plus[0].tolist() == quantize([0.5, 0.25]).tolist()


def test_couplings_key_is_accepted():
    data = dict(GOOD)
    data["couplings"] = data.pop("c")
    assert system_from_mapping(data).N == 2


@pytest.mark.parametrize(
    "change,message",
    [
        ({"c": [[0, 1, 2], [1, 0, 2]]}, "c: must be a square N x N matrix, got shape (2, 3)"),
        ({"c": [[0.5, 1], [1, 0]]}, "c[0,0]: 0.5 must be 0 (no self-coupling)"),
        ({"h_plus": [0.1, 0.2, 0.3]}, "h_plus: must have N = 2 entries (the size of c)"),
        ({"h_minus": [float("nan"), 0.0]}, "h_minus[0]: nan is not a finite number"),
        ({"c": [[0, float("inf")], [1, 0]]}, "c[0,1]: inf is not a finite number"),
        ({"c": [[0, "a"], [1, 0]]}, "c[0,1]: 'a' is not allowed (a real number)"),
        ({"c": [[0, 1], [1]]}, "c: not a square matrix of numbers"),
        ({"h_plus": [True, 0.5]}, "h_plus[0]: True is not allowed (a real number)"),
        ({"c": [[0]]}, "c: N = 1 is not allowed (N >= 2)"),
        ({"h_plus": None}, "h_plus: None is not allowed (a list of real numbers)"),
        ({"J": 1}, "unknown key 'J'"),
    ],
)
def test_bad_mappings_give_one_line(change, message):
    data = {**GOOD, **change}
    with pytest.raises(SystemInputError) as err:
        system_from_mapping(data)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_missing_keys(tmp_path):
    for key in ("h_plus", "h_minus", "c"):
        data = {k: v for k, v in GOOD.items() if k != key}
        with pytest.raises(SystemInputError, match=f"missing key '{key}'"):
            load_system(_write(tmp_path, "s.json", data))


def test_bad_files(tmp_path):
    cases = {
        "a.yaml": "h_plus: [1, 2\n",
        "a.json": "{",
        "a.txt": "h_plus: [1]",
        "a.npz": "not a zip",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(SystemInputError) as err:
            load_system(tmp_path / name)
        assert str(err.value).startswith(str(tmp_path / name)) and "\n" not in str(err.value)
    with pytest.raises(SystemInputError, match="no such file"):
        load_system(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("[1, 2]\n")
    with pytest.raises(SystemInputError, match="expected a mapping"):
        load_system(tmp_path / "list.yaml")


def test_sampled_system_is_the_one_the_sampler_drew():
    """The point's L = 4 records name their system by sample index and carry its
    couplings: the re-drawn system at that index has exactly those couplings."""
    N, samples = 3, chunk_size(3) + 40  # two chunks, the second one short
    point = Point("random", "hysteron", "1", N, 30.0)
    tally = sample_point(point, samples, seed=7, groups=["transitions"], records={"l4": 10**6})
    rec = tally.records["l4"]
    assert rec["system"].size > 100 and rec["system"].max() >= chunk_size(N)
    picks = np.unique(np.r_[rec["system"][:20], rec["system"][rec["system"] >= chunk_size(N)]])
    for index in picks:
        sy = sampled_system("random", "hysteron", N, 30.0, 7, samples, int(index))
        _hp, _hm, c = sy.to_floats()
        mine = rec["system"] == index
        for ckl, clk in zip(rec["c_kl"][mine], rec["c_lk"][mine], strict=True):
            # the records store couplings as float32 (hyst.catalogue, the l4 records)
            pairs = {
                (np.float32(c[0, k, l]), np.float32(c[0, l, k]))
                for k in range(N)
                for l in range(N)
                if k < l
            }
            assert (ckl, clk) in pairs


def test_sampled_system_errors():
    with pytest.raises(SystemInputError, match="index: 5 is not allowed"):
        sampled_system("random", "hysteron", 3, 1.0, 0, 5, 5)
    with pytest.raises(SystemInputError, match="couplings: 'nope'"):
        sampled_system("nope", "hysteron", 3, 1.0, 0, 5, 0)
    with pytest.raises(SystemInputError, match="NJ0"):
        sampled_system("random", "hysteron", 3, -1.0, 0, 5, 0)
