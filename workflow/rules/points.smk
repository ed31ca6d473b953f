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
        code=CODE["points"],
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
