"""The release stage: a graph in, a :class:`PrivateGraph` out.

:func:`privatize` orchestrates; each route (``routes/``) is one module behind
:class:`dpgraph.release.routes.RouteSpec`; :mod:`private_graph` holds the released object and
:mod:`posterior` the randomized-response posterior objectives. Everything here spends privacy
budget and records it in a :class:`dpgraph.privacy.PrivacyLedger`.
"""
