"""The one job that crosses from the points kind to the sampler: a frozen
:class:`hyst.sampling.sampler.SamplingJob`, checked once when it is built, pickled to Dask
workers as a plain ``SamplingJob``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from hyst.sampling.sampler import Point, SamplingJob, sample_chunk, sample_job
from hyst.studies.points import PointSpec

POINT = Point("random", "hysteron", "1", 5, 3.0)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("samples", 0, "samples: 0 is not allowed (an integer >= 1)"),
        ("samples", 1.5, "samples: 1.5 is not allowed (an integer >= 1)"),
        ("samples", True, "samples: True is not allowed (an integer >= 1)"),
        ("seed", -1, "seed: -1 is not allowed (an integer, 0 <= seed < 2^64)"),
        ("seed", "7", "seed: '7' is not allowed (an integer, 0 <= seed < 2^64)"),
        ("seed", 2**64, "seed: 18446744073709551616 is not allowed (an integer, 0 <= seed"),
        ("groups", ("nope",), "observables: 'nope' is not one of"),
        ("records", {"l5": 3}, "records: 'l5' is not one of"),
        ("records", {"l4": 0}, "records: l4: 0 is not allowed (an integer >= 1)"),
    ],
)
def test_a_bad_field_is_one_line_naming_it(field, value, message):
    fields = {"point": POINT, "samples": 10, "groups": None, "seed": 1, "records": ()}
    fields[field] = value
    for cls in (SamplingJob, PointSpec):  # the points kind's spec is checked the same way
        with pytest.raises(ValueError) as err:
            cls(**fields)
        assert str(err.value).startswith(message), str(err.value)
        assert "\n" not in str(err.value)


def test_the_job_holds_resolved_plain_values():
    job = SamplingJob(POINT, np.int64(10), ["zero_field", "transitions"], np.int64(3), {"l4": 5})
    assert job.samples == 10 and type(job.samples) is int
    assert job.seed == 3 and type(job.seed) is int
    assert job.groups == ("transitions", "zero_field")  # catalogue order
    assert job.records == (("l4", 5),)
    assert SamplingJob(POINT, 10, None, 3).groups == SamplingJob(POINT, 10, "all", 3).groups
    with pytest.raises(AttributeError):
        job.samples = 11  # frozen


def test_a_point_spec_is_sent_to_the_workers_as_a_plain_job_that_pickles():
    spec = PointSpec(POINT, 40, ("transitions",), 2, (("l4", 3),))
    job = spec.sampling_job()
    assert type(job) is SamplingJob and job.sampling_job() is job
    assert (job.point, job.samples, job.groups, job.seed, job.records) == (
        spec.point,
        spec.samples,
        spec.groups,
        spec.seed,
        spec.records,
    )
    back = pickle.loads(pickle.dumps(job))
    assert back == job and hash(back) == hash(job)
    # the worker's chunk of the unpickled job is the chunk of the spec, sampled here
    there = sample_chunk(back, 0, 40, parallel=False)
    here = sample_job(spec)
    assert there.counts == here.counts
