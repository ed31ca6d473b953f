# Stage 1: sampling. One job per batch of points (one ensemble, rule and N);
# chunks run on a Dask cluster (a LocalCluster per job by default).


rule sample:
    output:
        f"{RESULTS}/batches/{{batch}}.json",
    params:
        batch=lambda wc: canonical(BATCHES[wc.batch].to_json()),
        results=lambda wc, output: str(Path(output[0]).parent.parent),
        dask=canonical(CONFIG["dask"]),
        mem_mb=CONFIG["resources"]["mem_mb"],
    threads: CONFIG["resources"]["threads"]
    resources:
        mem_mb=CONFIG["resources"]["mem_mb"],
        runtime=CONFIG["resources"]["runtime"],
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/sample/{{batch}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/sample/{{batch}}.tsv"
    script:
        "../scripts/sample_batch.py"


rule sample_pairs:
    output:
        f"{RESULTS}/datasets/pairs.nc",
    params:
        pairs=canonical(CONFIG["pairs"]),
        seed=CONFIG["seed"],
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/sample_pairs.log",
    benchmark:
        f"{RESULTS}/benchmarks/sample_pairs.tsv"
    script:
        "../scripts/sample_pairs.py"
