"""Privacy core: budget and ledger, noise calibration, and the one module that draws noise.

See ``docs/privacy.md`` for every sensitivity bound and calibration formula used by dpgraph.
"""

from dpgraph.privacy.calibration import (
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    approx_dp_to_zcdp_rho,
    classical_gaussian_sigma,
    gaussian_zcdp_rho,
    zcdp_sigma,
    zcdp_to_approx_dp,
)
from dpgraph.privacy.ledger import (LedgerEntry, PrivacyBudgetError, PrivacyLedger,
                                    reproducible_tag, spent_text)
from dpgraph.privacy.rng import REPRODUCIBLE_NOTICE, ReproducibleNoiseWarning, is_secure, make_rng, secure_rng
from dpgraph.privacy.noise import (
    GaussianMatrixNoise,
    SymmetricGaussianNoise,
    ball_knorm_mechanism,
    ball_knorm_noise,
    gaussian_mechanism,
    gaussian_noise,
    laplace_mechanism,
    laplace_add,
    LaplaceDraws,
    gumbel_noise,
    monotone_exponential_mechanism,
    randomized_response,
    flip_probability,
    symmetric_gaussian_noise,
)
from dpgraph.privacy.validation import InvalidParameterError

__all__ = [
    "InvalidParameterError",
    "PrivacyLedger",
    "LedgerEntry",
    "reproducible_tag",
    "spent_text",
    "PrivacyBudgetError",
    "analytic_gaussian_sigma",
    "analytic_gaussian_delta",
    "classical_gaussian_sigma",
    "gaussian_zcdp_rho",
    "zcdp_sigma",
    "zcdp_to_approx_dp",
    "approx_dp_to_zcdp_rho",
    "make_rng",
    "secure_rng",
    "is_secure",
    "ReproducibleNoiseWarning",
    "REPRODUCIBLE_NOTICE",
    "gaussian_mechanism",
    "gaussian_noise",
    "laplace_mechanism",
    "laplace_add",
    "LaplaceDraws",
    "gumbel_noise",
    "monotone_exponential_mechanism",
    "ball_knorm_mechanism",
    "ball_knorm_noise",
    "randomized_response",
    "flip_probability",
    "GaussianMatrixNoise",
    "SymmetricGaussianNoise",
    "symmetric_gaussian_noise",
]
