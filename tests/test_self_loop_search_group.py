"""The observable group any_self_loop: kernel call, sampler, catalogue, command line, config."""

import numpy as np
import pytest
import xarray as xr

from hyst.catalogue import ANY_SELF_LOOP_MAX_N, ENUMERATION_MAX_N, GROUPS
from hyst.cli.main import main
from hyst.kernels import codes, self_loop_search
from hyst.model.batch import any_self_loop_batch, search_workspace_bytes
from hyst.model.systems import Systems
from hyst.pipeline.config import ConfigError, validate
from hyst.sampling.sampler import Point, resolve_groups, sample_point


def zero_systems(N, n=1):
    z = np.zeros((n, N), np.int64)
    return Systems(z, z.copy(), np.zeros((n, N, N), np.int64))


@pytest.mark.parametrize("N", [1, codes.SEARCH_BITMASK_MAX_N + 1])
def test_sizes_outside_the_bitmask_give_one_line(N):
    with pytest.raises(ValueError, match=rf"^N: {N} is not allowed for the self-loop search"):
        any_self_loop_batch(zero_systems(N), "1")


def test_bad_cap_and_rule_give_one_line():
    with pytest.raises(ValueError, match=r"^reachable_cap: -1 is not allowed"):
        any_self_loop_batch(zero_systems(3), "1", reachable_cap=-1)
    with pytest.raises(ValueError, match=r"^rule: '3' is not one of"):
        any_self_loop_batch(zero_systems(3), "3")


@pytest.mark.parametrize("N", [2, 24, ANY_SELF_LOOP_MAX_N, codes.SEARCH_BITMASK_MAX_N])
def test_workspace_memory_statement(N):
    for cap in (0, 5, codes.SEARCH_REACHABLE_CAP):
        arrays = self_loop_search.workspace(N, cap)
        assert sum(a.nbytes for a in arrays) == search_workspace_bytes(N, cap)
    assert search_workspace_bytes(24) == 77_600  # 76 KiB, as the group description says
    assert search_workspace_bytes(32) < 92 * 1024


def test_uncoupled_degenerate_systems_at_the_largest_bitmask():
    """All thresholds zero: every mixed state has H^-(S) = H^+(S) (not potentially
    stable); each saturated state relaxes by one avalanche: no self-loop, 2 states."""
    cols = any_self_loop_batch(zero_systems(codes.SEARCH_BITMASK_MAX_N, 2), "1")
    assert list(cols["self_loop"]) == [0, 0]
    assert list(cols["potentially_stable_searched"]) == [2, 2]
    assert list(cols["ties"]) == [2 * (codes.SEARCH_BITMASK_MAX_N - 1)] * 2  # all margins equal


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
def test_the_group_gives_the_transitions_probability_per_point(rule):
    point = Point("random", "hysteron", rule, 9, 20.0)
    search = sample_point(point, 1500, seed=5, groups=["any_self_loop"]).counts
    full = sample_point(point, 1500, seed=5, groups=["transitions"]).counts
    both = sample_point(point, 1500, seed=5, groups=["transitions", "any_self_loop"]).counts
    assert search["self_loop_probability"] == full["self_loop_probability"]
    assert both["self_loop_probability"] == full["self_loop_probability"]  # counted once
    assert search["self_loop_probability_trials"] == both["self_loop_probability_trials"] == 1500
    assert 0 < search["self_loop_probability"] < 1500
    assert 0 < search["self_loops_found_by_reachable_search"] <= search["self_loop_probability"]
    assert search["self_loop_search_nodes"] > 0
    assert "self_loop_search_nodes" not in both  # the enumeration served the group


def test_group_limits_are_per_group():
    assert GROUPS["any_self_loop"].max_N == ANY_SELF_LOOP_MAX_N >= 24
    assert GROUPS["transitions"].max_N == GROUPS["zero_field"].max_N == ENUMERATION_MAX_N
    assert not GROUPS["any_self_loop"].default  # not part of "all"
    big = Point("random", "hysteron", "1", ANY_SELF_LOOP_MAX_N, 100.0)
    assert resolve_groups(big, ["any_self_loop"]) == ("any_self_loop",)
    assert "any_self_loop" not in resolve_groups(big, "all")
    too_big = Point("random", "hysteron", "1", ANY_SELF_LOOP_MAX_N + 1, 100.0)
    with pytest.raises(
        ValueError,
        match=r"^observables: 'any_self_loop' needs N <= 32 \(N = 33; at N = 33: addressability",
    ):
        resolve_groups(too_big, ["any_self_loop"])
    with pytest.raises(ValueError, match=r"^observables: 'transitions' needs N <= 18"):
        resolve_groups(Point("random", "hysteron", "1", 24, 100.0), ["transitions"])


def test_hyst_point_at_24_elements(tmp_path):
    out = tmp_path / "n24.nc"
    args = ["point", "--couplings", "random", "--spans", "hysteron", "--rule", "1"]
    args += ["--N", "24", "--NJ0", "100", "--samples", "300", "--seed", "2", "-q"]
    assert main([*args, "--observables", "any_self_loop", "-o", str(out)]) == 0
    ds = xr.open_dataset(out)
    assert int(ds.self_loop_probability_trials) == 300 and ds.attrs["N"] == 24
    assert ds.attrs["observables"] == "any_self_loop"
    assert 0.99 < float(ds.self_loop_probability) <= 1.0
    assert int(ds.self_loops_found_by_reachable_search) <= int(ds.self_loop_probability_count)
    for name in ("ties", "self_loop_search_nodes"):
        assert name in ds
    for name in ("gap_probability_at_zero", "transitions", "avalanche_size"):
        assert name not in ds  # only the group asked for
    bad = tmp_path / "n33.nc"
    args[args.index("--N") + 1] = "33"
    assert main([*args, "--observables", "any_self_loop", "-o", str(bad)]) == 2
    assert not bad.exists()


def study(N, observables):
    return {
        "studies": {
            "s": {
                "couplings": ["random"],
                "N": N,
                "NJ0": [100],
                "samples": 10,
                "observables": observables,
            }
        }
    }


def test_config_accepts_the_group_to_its_limit_and_names_the_key_beyond():
    validate(study([2, 24, ANY_SELF_LOOP_MAX_N], ["any_self_loop"]))
    with pytest.raises(ConfigError) as err:
        validate(study([24, 40], ["any_self_loop"]))
    assert str(err.value) == (
        "studies.s.observables: 'any_self_loop' needs N <= 32 (N = 40; at N = 40: "
        "addressability (N <= 64), avalanche, cyclic, saturated_loop, multiperiodic, periods "
        "(any N))"
    )
    with pytest.raises(
        ConfigError,
        match=r"'transitions' needs N <= 18 \(N = 24; at N = 24: any_self_loop \(N <= 32\)",
    ):
        validate(study([24], ["transitions", "any_self_loop"]))
