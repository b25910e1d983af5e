"""Training of Yaniv and Pis Yedili agents (``yaniv train``, ``yaniv train-rllib``) and the
``yaniv`` command line (:mod:`training.cli`); evaluation is :mod:`agents.evaluation`."""
