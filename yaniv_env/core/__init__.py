"""The game-neutral core that Yaniv and Pis Yedili share.

Nothing here knows either game:

===================  ===========================================================================
module               what it holds
===================  ===========================================================================
``cards``            card kinds (``kind = suit * 13 + rank``, 52 = joker), names and parsing
``rules``            :class:`RulesBase`, the base of every game's frozen rules dataclass
``layout``           :class:`PieceLayout`: named pieces of a flat observation vector
``game``             :class:`Game` descriptions and the game registry (``register_game``)
``policies``         the policy registry (opponents by name; ``random`` here, ``agents`` the others)
``opponents``        ``draw_opponents``: each other seat's opponent of an episode (mix and pool)
``random_policy``    :class:`RandomPolicy`, the uniform random policy (the default opponent)
``batched_random``   the random policy on a batch and the compiled random words (Numba)
``seeding``          the counter-based random streams of a game
``engine``           ``blank_state``: the fields every game's new state starts from
``streams``          the per-decision random words of the policies that draw
``outcome``          places (ties share the better place) and a round's :class:`Outcome`
``imports``          ``when_imported``: run a hook when a library is imported (registration)
``frames``           the table as a picture (Pillow) and the window (pygame-ce) of ``render()``
``cpus``             ``available_cpus``: the CPUs this process may run on (thread and worker counts)
``ids``              ``is_int``: what counts as an integer id (an action, a card) at the API's edges
``aec``              :class:`CardGameEnv`, the PettingZoo AEC base (``wrap``, places, rewards)
``gym``              :class:`CardGameGymEnv`, the single-agent Gymnasium wrapper base
===================  ===========================================================================

``aec`` and ``gym`` import PettingZoo and Gymnasium; only the environment layers import
them, and ``batched_random`` imports Numba, so ``import yaniv_env.core`` and its other
modules stay as light as NumPy (``frames`` imports Pillow and pygame-ce when it first draws).
"""
