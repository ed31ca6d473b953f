# Stage: figures. Every figure of the configuration (`figures:`) is rendered (a PNG and the
# formats of `figure_files:`, PDF by default) from the datasets of the studies bound to it
# and their analyses; only its binding, its params, `figure_files:` and the plotting code
# trigger a re-render.


rule figure:
    input:
        datasets=lambda wc: [f"{RESULTS}/datasets/{s}.nc" for s in figure_studies(wc.figure)],
        analysis=lambda wc: [
            f"{RESULTS}/analysis/{s}.nc" for s in figure_studies(wc.figure) if s in ANALYSED
        ],
    output:
        png=report(
            f"{RESULTS}/figures/{{figure}}.png",
            caption="../report/figure.rst",
            category="Figures",
        ),
        formats=[f"{RESULTS}/figures/{{figure}}.{ext}" for ext in FIGURE_FILES["formats"]],
        caption=f"{RESULTS}/figures/{{figure}}.caption.rst",
    params:
        binding=lambda wc: canonical(FIGURES[wc.figure]),
        files=canonical(FIGURE_FILES),
        analysed=lambda wc: [s for s in figure_studies(wc.figure) if s in ANALYSED],
        caption=lambda wc: CaptionFile(f"{RESULTS}/figures/{wc.figure}.caption.rst"),
        code=lambda wc: CODE[f"figure/{wc.figure}"],
    wildcard_constraints:
        figure="|".join(FIGURES) if FIGURES else "NONE",
    resources:
        mem_mb=2000,
        runtime=20,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/figures/{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{figure}}.tsv"
    script:
        "../scripts/render_figure.py"
