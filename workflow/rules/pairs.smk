# Study kind `pairs`: one job per span sigma of two coupled elements in the (c12, c21) plane.


rule pairs:
    output:
        f"{RESULTS}/jobs/pairs/{{job}}.json",
    params:
        kind="pairs",
        job=lambda wc: job_payload("pairs", wc.job),
        config=canonical({}),
        results=lambda wc, output: str(Path(output[0]).parents[2]),
        code=CODE["job/pairs"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/pairs/{{job}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/pairs/{{job}}.tsv"
    script:
        "../scripts/run_job.py"
