# Stage: collect. A study's dataset from its jobs' result files, assembled by its kind.


rule collect:
    input:
        job_manifests,
    output:
        f"{RESULTS}/datasets/{{study}}.nc",
    params:
        study=lambda wc: canonical(STUDIES[wc.study]),
        seed=CONFIG["seed"],
        results=lambda wc, output: str(Path(output[0]).parent.parent),
        code=study_code,
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/collect/{{study}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/collect/{{study}}.tsv"
    script:
        "../scripts/collect_study.py"
