"""The tools built on the library, not part of it: nothing in the games imports them.

==================  ============================================================
module              what it is
==================  ============================================================
``bench``           ``yaniv bench``: engine and environment speed
``bench_engine``    the batched engine's throughput (``bench`` reports it)
``bench_envs``      the vector environments' throughput (``bench`` reports it)
``verify``          ``yaniv verify``: the batched engine against the scalar one
``configs``         the summary of one verified configuration
``sweep``           ``yaniv sweep``: the batched engine's invariants over random rules
``play``            ``yaniv play``: play in the terminal against agents
``replay``          game records: record, save, load, replay (``yaniv replay``)
``web``             ``yaniv serve`` (play in the browser) and the replay viewer
==================  ============================================================
"""
