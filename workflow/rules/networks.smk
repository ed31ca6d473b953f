# Study kind `networks`: one job per (d1, d2) panel of two serial bilinear elements, or one
# job per N of random serial chains; cells and chunks run on a Dask cluster (a LocalCluster
# per job by default).


rule networks:
    output:
        f"{RESULTS}/jobs/networks/{{job}}.json",
    params:
        kind="networks",
        job=lambda wc: job_payload("networks", wc.job),
        config=canonical({k: CONFIG[k] for k in ("dask", "resources")}),
        results=lambda wc, output: str(Path(output[0]).parents[2]),
        code=CODE["job/networks"],
    threads: CONFIG["resources"]["threads"]
    resources:
        mem_mb=CONFIG["resources"]["mem_mb"],
        runtime=CONFIG["resources"]["runtime"],
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/networks/{{job}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/networks/{{job}}.tsv"
    script:
        "../scripts/run_job.py"
