# Study kind `points`: one job per batch of sampled points (one ensemble and rule, ordered by
# N and NJ0); chunks run on a Dask cluster (a LocalCluster per job by default).


rule points:
    output:
        f"{RESULTS}/jobs/points/{{job}}.json",
    params:
        kind="points",
        job=lambda wc: job_payload("points", wc.job),
        config=canonical({k: CONFIG[k] for k in ("dask", "resources")}),
        results=lambda wc, output: str(Path(output[0]).parents[2]),
        code=CODE["job/points"],
    threads: CONFIG["resources"]["threads"]
    resources:
        mem_mb=CONFIG["resources"]["mem_mb"],
        runtime=CONFIG["resources"]["runtime"],
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/points/{{job}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/points/{{job}}.tsv"
    script:
        "../scripts/run_job.py"


# The jobs the plan marks long (hyst.studies.base.Job.long) start before the others: the
# same rule with a higher priority, for their names alone.
use rule points as points_long with:
    wildcard_constraints:
        job=PLAN.long_jobs_pattern("points"),
    priority: 1


ruleorder: points_long > points
