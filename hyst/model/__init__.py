"""Layer 2, the model: exact integer systems (:mod:`hyst.model.systems`), the interaction and
span ensembles (:mod:`hyst.model.ensembles`), identity-keyed random streams
(:mod:`hyst.model.seeds`), one system relaxed from one state (:mod:`hyst.model.relax`), batch
kernel calls with named outputs (:mod:`hyst.model.batch`), the transition graph of one system
(:mod:`hyst.model.transition_graph`) and two coupled elements
(:mod:`hyst.model.two_elements`)."""
