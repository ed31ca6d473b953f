# Stage: the manifest. The run's last job lists every result file with its SHA-256 and the
# code fingerprints of the rules that made it (hyst/pipeline/manifest.py); `hyst verify`
# checks a results folder against it, `hyst export --ro-crate` packages what it lists.


rule manifest:
    input:
        [f"{RESULTS}/{path}" for path in RESULT_FILES],
    output:
        f"{RESULTS}/manifest.json",
    params:
        configuration=canonical(result_config(CONFIG)),
        code=canonical({k: CODE[k] for keys in RESULT_FILES.values() for k in keys}),
        results=lambda wc, output: str(Path(output[0]).parent),
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/manifest.log",
    benchmark:
        f"{RESULTS}/benchmarks/manifest.tsv"
    script:
        "../scripts/write_manifest.py"
