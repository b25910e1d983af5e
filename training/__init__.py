"""Training and evaluation of Yaniv agents (``yaniv train``, ``yaniv eval``)."""
