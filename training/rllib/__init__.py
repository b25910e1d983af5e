"""Training and tournaments on Ray (RLlib): the ``[rllib]`` extra, ``pip install -e ".[rllib]"``.

=============================  =================================================================
module                         what it holds
=============================  =================================================================
:mod:`.env`                    ``YanivMultiAgentEnv``: the AEC env as an RLlib ``MultiAgentEnv``
                               (turn order, masks, rewards of every seat, baseline seats)
:mod:`.module`                 ``MaskedActorCritic``: the action-masking PPO RLModule
:mod:`.train`                  ``yaniv train-rllib``: multi-agent PPO self-play, checkpoints,
                               resume, TensorBoard, ``--address`` to join a cluster
:mod:`.export`                 RLlib policies as ``.safetensors`` play files (``agents.load``)
:mod:`.shards`                 ``RayExecutor``: ``yaniv eval --ray`` plays shards as Ray tasks
=============================  =================================================================

Importing this package imports nothing from Ray; its modules do (``export`` and
``shards`` only when called), and nothing outside ``training.rllib`` imports them unless
asked for Ray (``yaniv train-rllib``, ``yaniv eval --ray``).
"""
