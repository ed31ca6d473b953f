# Stage: figures. Every figure of the configuration (`figures:`) is rendered (a PNG and the
# formats of `figure_files:`, PDF by default) from the datasets of the studies bound to it
# and their analyses; only its data, its binding, its params, `figure_files:` and its code
# (its type's drawing module and what it imports) trigger a re-render. Its caption for the
# report is a rule of its own: the studies' descriptions change captions, never figures.
# Each figure's job carries the run's summary that the report's first page shows
# (`run`, hyst.pipeline.landing: read when the report is made, never a reason to re-run).
RUN_SUMMARY = RunSummary(RESULTS, CONFIG, workflow.config_settings.configfiles)


rule figure:
    input:
        unpack(figure_inputs),
    output:
        png=report(
            f"{RESULTS}/figures/{{figure}}.png",
            caption="../report/figure.rst",
            category="Figures",
        ),
        formats=[f"{RESULTS}/figures/{{figure}}.{ext}" for ext in FIGURE_FILES["formats"]],
    params:
        binding=lambda wc: canonical(FIGURES[wc.figure]),
        files=canonical(FIGURE_FILES),
        analysed=lambda wc: [s for s in figure_studies(wc.figure) if s in ANALYSED],
        caption=lambda wc: CaptionFile(f"{RESULTS}/figures/{wc.figure}.caption.rst"),
        run=RUN_SUMMARY,
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


rule caption:
    input:
        unpack(figure_inputs),
    output:
        f"{RESULTS}/figures/{{figure}}.caption.rst",
    params:
        description=lambda wc: FIGURE_TYPES[FIGURES[wc.figure]["type"]].description,
        studies=lambda wc: figure_studies(wc.figure),
        descriptions=lambda wc: canonical(
            {s: STUDIES[s].get("description", "") for s in figure_studies(wc.figure)}
        ),
        analysed=lambda wc: [s for s in figure_studies(wc.figure) if s in ANALYSED],
        code=lambda wc: CODE[f"caption/{wc.figure}"],
    wildcard_constraints:
        figure="|".join(FIGURES) if FIGURES else "NONE",
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../envs/hyst.yaml"
    log:
        f"{RESULTS}/logs/captions/{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/captions/{{figure}}.tsv"
    script:
        "../scripts/figure_caption.py"
