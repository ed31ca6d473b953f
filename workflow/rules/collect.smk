# Stage 2: collect. Merge a study's point files into one NetCDF dataset with
# dimensions named after the study's axes.


rule collect:
    input:
        batch_manifests,
    output:
        f"{RESULTS}/datasets/{{study}}.nc",
    params:
        study=lambda wc: canonical(CONFIG["studies"][wc.study]),
        seed=CONFIG["seed"],
        results=lambda wc, output: str(Path(output[0]).parent.parent),
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
