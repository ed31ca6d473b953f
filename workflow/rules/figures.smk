# Stage 4: figures. Each figure of the paper is rendered (PNG and PDF) from the
# study datasets it needs and their analyses; only plotting parameters
# (config `figures:`) and the plotting code trigger a re-render.


rule figure:
    input:
        datasets=lambda wc: [f"{RESULTS}/datasets/{d}.nc" for d in figure_datasets(wc.figure)],
        analysis=lambda wc: [
            f"{RESULTS}/analysis/{d}.nc" for d in figure_datasets(wc.figure) if d in ANALYSED
        ],
        code=PACKAGE / "plotting.py",  # a change to the plotting code re-renders
    output:
        png=report(
            f"{RESULTS}/figures/{{figure}}.png",
            caption="../report/figure.rst",
            category="Figures",
        ),
        pdf=f"{RESULTS}/figures/{{figure}}.pdf",
        caption=f"{RESULTS}/figures/{{figure}}.caption.rst",
    params:
        names=lambda wc: figure_datasets(wc.figure),
        analysed=lambda wc: [d for d in figure_datasets(wc.figure) if d in ANALYSED],
        plot=lambda wc: canonical(CONFIG["figures"].get(wc.figure, {})),
        caption=lambda wc: CaptionFile(f"{RESULTS}/figures/{wc.figure}.caption.rst"),
    wildcard_constraints:
        figure="|".join(RENDERED) if RENDERED else "NONE",
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
