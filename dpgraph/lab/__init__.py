"""NOT PRIVATE: the lab around the product.

Evaluation against the true graph (:mod:`evaluate`), non-private and naive baselines
(:mod:`baselines`, :mod:`pca_baselines`), benchmarking helpers (:mod:`benchmarking`) and the
empirical privacy audits (:mod:`audit`). These read the input graph without noise: never
release their outputs.
"""
