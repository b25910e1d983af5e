"""The policy networks of trained agents: MaskablePPO actor-critics and their description.

=========================  ===================================================================
name                       what it is
=========================  ===================================================================
``MlpPolicy``              sb3-contrib's ``MaskableActorCriticPolicy`` (what
                           ``MaskablePPO("MlpPolicy", env)`` builds)
``ActionFeaturePolicy``    the same plus a bilinear term over fixed per-action features
                           (:func:`action_features`): learning generalises across action ids
``AdvisedPolicy``          ``ActionFeaturePolicy`` whose observation carries one more column,
                           the advisor's move (:mod:`agents.advice`), added to the logits as
                           ``advice_scale`` times its one-hot
=========================  ===================================================================

Either of the last two may also read the *score features* (``score_features=True``,
:class:`ScoreFeatures`): one-hot encodings of each seat's distance to its next milestone
and to the score limit, appended to the observation inside the network, so a model file
needs nothing but the observation to compute them.

:func:`describe_policy` gives a policy's architecture as JSON-able data (class name, sizes,
activation, action rules, advice scale) and :func:`build_policy` rebuilds an untrained
policy from that description alone; with the weights (``policy.state_dict()``) that is
all the play format (:mod:`agents.play_format`) stores, so that loading a model never
unpickles anything. :func:`actor_logits` gives a policy's raw action logits.

The advised policy takes its advice from each call's observations (their last column)
and passes it explicitly to its action head: no state is kept between calls.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from yaniv_env.yaniv.cards import NUM_KINDS, NUM_RANKS

ACTION_KINDS = ("draw", "call", "slam", "asaf", "blast", "pass", "take", "discard")
#: The meld types an action's features tell apart.
_MELDS = ("single", "set", "run")
#: Width of :func:`action_features` (without the value one-hot): kind, cards moved, cards
#: takeable, ranks (and joker), meld type, number of cards, value.
ACTION_FEATURES_SIZE = len(ACTION_KINDS) + 2 * NUM_KINDS + (NUM_RANKS + 1) + len(_MELDS) + 2

#: Default starting weight of the advised move's logit (:class:`AdvisedPolicy`).
DEFAULT_ADVICE_SCALE = 5.0

#: Activations a described network may name (``describe_policy``/``build_policy``).
ACTIVATIONS = ("relu", "tanh", "elu", "leaky_relu", "gelu", "silu")


def action_features(rules, value_one_hot: bool = False) -> np.ndarray:
    """A fixed feature vector per action id, ``(num_actions, F)`` float32: the action's kind
    (one-hot), the cards it moves (count vector over the 53 kinds, and per rank), what the
    next player may take from a discard, the meld type, the number of cards and their
    Yaniv value. Actions sharing cards share features, so what is learnt for one discard
    carries over to every discard holding the same cards. ``value_one_hot``: also the cards'
    Yaniv value as a one-hot over ``0..SCORE_HORIZON`` (the score features' partner: a
    state's distance to a milestone times it tells which discard lands there). Yaniv rules
    only."""
    from yaniv_env.games import game_of
    from yaniv_env.yaniv.actions import action_table

    if game_of(rules).name != "yaniv":
        raise ValueError(f"action features describe Yaniv's actions; these are {game_of(rules).title} rules")
    from yaniv_env.yaniv.cards import RANK, YANIV_VALUE

    table = action_table(rules)
    melds = _MELDS
    out = np.zeros((table.num_actions, ACTION_FEATURES_SIZE), dtype=np.float32)
    o_cards = len(ACTION_KINDS)
    o_take = o_cards + NUM_KINDS
    o_rank = o_take + NUM_KINDS
    o_meld = o_rank + NUM_RANKS + 1
    for a in range(table.num_actions):
        d = table.decode(a)
        row = out[a]
        row[ACTION_KINDS.index(d.kind)] = 1.0
        for k in d.cards:
            row[o_cards + k] += 1.0
            row[o_rank + (RANK[k] if RANK[k] >= 0 else NUM_RANKS)] += 1.0
        if d.kind == "discard":
            for k in d.takeable:
                row[o_take + k] = 1.0
            row[o_meld + melds.index(d.meld)] = 1.0
        row[o_meld + 3] = len(d.cards) / rules.hand_size
        row[o_meld + 4] = sum(YANIV_VALUE[k] for k in d.cards) / 30.0
    if not value_one_hot:
        return out
    values = np.zeros((table.num_actions, SCORE_HORIZON + 1), dtype=np.float32)
    for a in range(table.num_actions):
        values[a, min(SCORE_HORIZON, sum(YANIV_VALUE[k] for k in table.decode(a).cards))] = 1.0
    return np.concatenate([out, values], axis=1)


#: Largest distance in points the score features tell apart; farther ones share the last bucket.
SCORE_HORIZON = 50


def score_feature_tables(rules) -> dict[str, np.ndarray]:
    """Per total ``t`` in ``0..score_limit`` (``int64`` arrays): ``to_milestone[t]``, the
    points to the nearest higher total that a milestone changes (``engine.after_milestone``;
    ``SCORE_HORIZON`` when none is that near), and ``headroom[t]``, the points that can be
    added before the score limit ends the game for the player (at most ``SCORE_HORIZON``).
    Yaniv rules only."""
    from yaniv_env.yaniv.engine import after_milestone, past_limit

    limit = rules.score_limit
    to_milestone = np.full(limit + 1, SCORE_HORIZON, dtype=np.int64)
    for t in range(limit + 1):
        for d in range(1, SCORE_HORIZON):
            if after_milestone(rules, t + d) != t + d:
                to_milestone[t] = d
                break
    last_safe = limit - 1 if past_limit(rules, limit) else limit
    headroom = np.clip(last_safe - np.arange(limit + 1), 0, SCORE_HORIZON).astype(np.int64)
    return {"to_milestone": to_milestone, "headroom": headroom}


def score_features_size(num_players: int) -> int:
    """Length of the score features (:class:`ScoreFeatures`) for ``num_players`` seats."""
    return (2 * num_players + 1) * (SCORE_HORIZON + 1)


try:  # the network classes need the [train] extra; action_features does not
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.policies import BasePolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor
    from torch import nn
except ImportError:  # pragma: no cover
    MaskableActorCriticPolicy = None

if MaskableActorCriticPolicy is not None:
    from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution
    from torch.distributions import Distribution
    from torch.distributions.utils import lazy_property

    class LeanMaskableCategorical(MaskableCategorical):
        """sb3-contrib's ``MaskableCategorical`` (same masking, log-probabilities and entropy)
        without its costs on ~1,500 actions: torch's argument validation is off (it checked
        the whole logits tensor at every construction), the logits are normalised once, when
        first used, after the mask is applied (sb3-contrib normalises at construction and
        again at masking), and :meth:`sample` draws by inverse CDF, one uniform number per
        row, instead of ``torch.multinomial`` (its speed against sb3-contrib's:
        ``docs/experiments/2026-11-25-speed.md``). A masked action's probability is exactly 0 in
        float32 and the search returns the first index whose cumulative probability exceeds
        the uniform draw, so a masked action is never drawn."""

        def __init__(self, logits: torch.Tensor, masks=None):
            self._original_logits = self._param = logits
            self._num_events = logits.size(-1)
            self.masks = None
            Distribution.__init__(self, logits.size()[:-1], validate_args=False)
            if masks is not None:
                self.apply_masking(masks)

        @lazy_property
        def logits(self) -> torch.Tensor:
            raw = self._original_logits
            if self.masks is not None:
                raw = raw.masked_fill(~self.masks, -1e8)  # sb3-contrib's value for a masked logit
            return raw - raw.logsumexp(-1, keepdim=True)

        def apply_masking(self, masks) -> None:
            logits = self._original_logits
            self.masks = None
            if masks is not None:
                self.masks = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
            self.__dict__.pop("logits", None)
            self.__dict__.pop("probs", None)

        def sample(self, sample_shape=torch.Size()) -> torch.Tensor:  # noqa: B008 (torch's own signature)
            if sample_shape != torch.Size():
                return super().sample(sample_shape)
            cdf = self.probs.reshape(-1, self._num_events).cumsum(-1)
            total = cdf[:, -1:]
            # u < total strictly, so that some index has cdf > u (rounding could give u == total)
            u = torch.minimum(torch.rand_like(total) * total, torch.nextafter(total, torch.zeros_like(total)))
            return torch.searchsorted(cdf, u, right=True).reshape(self._batch_shape)

    class LeanMaskableCategoricalDistribution(MaskableCategoricalDistribution):
        """``MaskableCategoricalDistribution`` building :class:`LeanMaskableCategorical`."""

        def proba_distribution(self, action_logits: torch.Tensor):
            self.distribution = LeanMaskableCategorical(logits=action_logits.view(-1, self.action_dim))
            return self

    class ActionFeatureHead(nn.Module):
        """``logits = base(latent) + proj(latent) @ features.T``: the usual per-action output
        layer plus a bilinear term over the fixed action features."""

        def __init__(self, base: nn.Module, features: np.ndarray, latent_dim: int):
            super().__init__()
            self.base = base
            self.proj = nn.Linear(latent_dim, features.shape[1])
            self.register_buffer("features", torch.as_tensor(features), persistent=False)

        def forward(self, latent):
            return self.base(latent) + self.proj(latent) @ self.features.T

    class ScoreFeatures(BaseFeaturesExtractor):
        """The observation (without its last column, the advised move, when ``advised``)
        followed by one-hot features of the game score that an MLP reads poorly from the
        totals' scalars, for the rules ``rules`` (a dict, as ``action_rules``). Per seat
        (relative, the observer first): the points to its next milestone and the points
        it can add before the score limit (:func:`score_feature_tables`); then, for the
        observer, its points to the next milestone minus its hand's total (0: the hand it
        holds would land it on the milestone if the round ended now), clipped to
        ``±SCORE_HORIZON/2``. Each is a one-hot over ``SCORE_HORIZON + 1`` buckets. The
        search wins its games by scoring rollouts on these totals (halving included),
        which round points do not show. No trained parameters."""

        def __init__(self, observation_space: spaces.Box, rules: dict, advised: bool = False):
            from yaniv_env.games import get_game
            from yaniv_env.yaniv.cards import YANIV_VALUE
            from yaniv_env.yaniv.observation import ObservationLayout

            r = get_game("yaniv").rules_from_dict(rules)
            layout = ObservationLayout(r)
            self.size = int(observation_space.shape[0]) - int(advised)
            if self.size != layout.size:
                raise ValueError(
                    f"score features for {r.name!r} with {r.num_players} players read observations of length "
                    f"{layout.size}, the space has {self.size}"
                )
            super().__init__(observation_space, features_dim=self.size + score_features_size(r.num_players))
            tables = score_feature_tables(r)
            self.register_buffer("to_milestone", torch.as_tensor(tables["to_milestone"]), persistent=False)
            self.register_buffer("headroom", torch.as_tensor(tables["headroom"]), persistent=False)
            values = torch.as_tensor(np.asarray(YANIV_VALUE, dtype=np.float32))
            self.register_buffer("card_values", values, persistent=False)
            self.hand = layout.pieces["hand"].slice
            self.scores = layout.pieces["scores"].slice
            self.limit = r.score_limit

        def forward(self, observations: torch.Tensor) -> torch.Tensor:
            obs = observations[..., : self.size]
            totals = torch.round(obs[..., self.scores] * self.limit).long().clamp(0, self.limit)
            to_milestone = self.to_milestone[totals]
            hand_total = torch.round(obs[..., self.hand] @ self.card_values).long()
            half = SCORE_HORIZON // 2
            gap = (to_milestone[..., 0] - hand_total).clamp(-half, half) + half
            buckets = SCORE_HORIZON + 1
            one_hot = nn.functional.one_hot
            parts = [one_hot(to_milestone, buckets).flatten(-2), one_hot(self.headroom[totals], buckets).flatten(-2)]
            return torch.cat([obs, *(p.to(obs.dtype) for p in parts), one_hot(gap, buckets).to(obs.dtype)], dim=-1)

    class ActionFeaturePolicy(MaskableActorCriticPolicy):
        """MaskablePPO's MLP actor-critic whose action head also scores the actions'
        features (:func:`action_features`), so that learning generalises across the ~1,500
        action ids. ``action_rules``: the rules (as a dict) that define the actions; ``None``
        gives the plain MLP head (``MlpPolicy``'s network). ``score_features``: the networks
        also read :class:`ScoreFeatures`, and the actions' features include their value as
        a one-hot (needs ``action_rules``). Its action distribution is
        :class:`LeanMaskableCategorical`: the same distribution, cheaper to build and sample."""

        def __init__(self, *args, action_rules: dict | None = None, score_features: bool = False, **kwargs):
            self.action_rules = action_rules
            self.score_features = bool(score_features)
            if self.score_features:
                if action_rules is None:
                    raise ValueError("score_features needs action_rules (the rules the features are computed for)")
                kwargs["features_extractor_class"] = ScoreFeatures
                kwargs["features_extractor_kwargs"] = {"rules": action_rules, "advised": self._advised}
            super().__init__(*args, **kwargs)

        #: Whether the observations carry the advised move as their last column.
        _advised = False

        def _build(self, lr_schedule) -> None:
            from yaniv_env.games import get_game

            self.action_dist = LeanMaskableCategoricalDistribution(int(self.action_space.n))
            super()._build(lr_schedule)
            if self.action_rules is None:
                return
            feats = action_features(get_game("yaniv").rules_from_dict(self.action_rules), self.score_features)
            if feats.shape[0] != self.action_space.n:
                raise ValueError(f"action_rules define {feats.shape[0]} actions, the space has {self.action_space.n}")
            head = ActionFeatureHead(self.action_net, feats, self.mlp_extractor.latent_dim_pi)
            if self.ortho_init:
                head.proj.apply(partial(self.init_weights, gain=0.01))
            self.action_net = head
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

        def _get_constructor_parameters(self) -> dict[str, Any]:
            data = super()._get_constructor_parameters()
            data["action_rules"] = self.action_rules
            data["score_features"] = self.score_features
            return data

    class WithoutAdvice(BaseFeaturesExtractor):
        """The observation without its last column (the advised action id): the MLPs never
        see the advice. Stateless; :class:`AdvisedPolicy` reads the advice itself."""

        def __init__(self, observation_space: spaces.Box):
            super().__init__(observation_space, features_dim=int(observation_space.shape[0]) - 1)

        def forward(self, observations: torch.Tensor) -> torch.Tensor:
            return observations[..., :-1]

    def _actor_latent(policy: MaskableActorCriticPolicy, obs: torch.Tensor) -> torch.Tensor:
        features = BasePolicy.extract_features(policy, obs, policy.pi_features_extractor)
        return policy.mlp_extractor.forward_actor(features)

    class AdvisedPolicy(ActionFeaturePolicy):
        """:class:`ActionFeaturePolicy` plus ``advice_scale`` times the one-hot of the
        advised move (the observation's last column) in the logits.

        Every path from observations to an action distribution (``forward``,
        ``evaluate_actions``, ``get_distribution``) reads the advice of the same
        observations and hands it to :meth:`action_logits`."""

        _advised = True

        def __init__(self, *args, advice_scale: float = DEFAULT_ADVICE_SCALE, **kwargs):
            self.advice_scale_init = float(advice_scale)
            kwargs.setdefault("features_extractor_class", WithoutAdvice)
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule) -> None:
            # before the optimizer is made, so that the scale is trained too
            self.advice_scale = nn.Parameter(torch.tensor(self.advice_scale_init))
            super()._build(lr_schedule)

        @staticmethod
        def advice_of(obs: torch.Tensor) -> torch.Tensor:
            """The advised action ids: the observations' last column."""
            return obs[..., -1].long()

        def action_logits(self, latent_pi: torch.Tensor, advice: torch.Tensor) -> torch.Tensor:
            one_hot = nn.functional.one_hot(advice, int(self.action_space.n)).to(latent_pi.dtype)
            return self.action_net(latent_pi) + self.advice_scale * one_hot

        def _distribution(self, latent_pi: torch.Tensor, advice: torch.Tensor, action_masks=None):
            distribution = self.action_dist.proba_distribution(action_logits=self.action_logits(latent_pi, advice))
            if action_masks is not None:
                distribution.apply_masking(action_masks)
            return distribution

        def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            features = self.extract_features(obs)
            if self.share_features_extractor:
                return self.mlp_extractor(features)
            pi_features, vf_features = features
            return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

        def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks=None):
            latent_pi, latent_vf = self._latents(obs)
            distribution = self._distribution(latent_pi, self.advice_of(obs), action_masks)
            actions = distribution.get_actions(deterministic=deterministic)
            log_prob = distribution.log_prob(actions)
            return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), log_prob

        def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks=None):
            latent_pi, latent_vf = self._latents(obs)
            distribution = self._distribution(latent_pi, self.advice_of(obs), action_masks)
            return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

        def get_distribution(self, obs: torch.Tensor, action_masks=None):
            return self._distribution(_actor_latent(self, obs), self.advice_of(obs), action_masks)

        def _get_action_dist_from_latent(self, latent_pi: torch.Tensor):
            raise RuntimeError("an advised policy needs the advice of its observations: use get_distribution")

        def _get_constructor_parameters(self) -> dict:
            data = super()._get_constructor_parameters()
            data["advice_scale"] = self.advice_scale_init
            return data

    def actor_logits(policy: MaskableActorCriticPolicy, obs: torch.Tensor) -> torch.Tensor:
        """Raw (unmasked, unnormalised) action logits of ``policy`` for a batch of observations."""
        latent_pi = _actor_latent(policy, obs)
        if isinstance(policy, AdvisedPolicy):
            return policy.action_logits(latent_pi, policy.advice_of(obs))
        return policy.action_net(latent_pi)

    _POLICY_CLASSES = {
        "MlpPolicy": MaskableActorCriticPolicy,
        "ActionFeaturePolicy": ActionFeaturePolicy,
        "AdvisedPolicy": AdvisedPolicy,
    }
    _FEATURE_EXTRACTORS = {"MlpPolicy": FlattenExtractor, "ActionFeaturePolicy": FlattenExtractor}
    _ACTIVATION_CLASSES = {
        "relu": nn.ReLU,
        "tanh": nn.Tanh,
        "elu": nn.ELU,
        "leaky_relu": nn.LeakyReLU,
        "gelu": nn.GELU,
        "silu": nn.SiLU,
    }

    def describe_policy(policy) -> dict[str, Any]:
        """The architecture of a MaskablePPO ``policy`` as JSON-able data, enough for
        :func:`build_policy` to rebuild it. ``ValueError`` for a policy it cannot describe
        (another class, features extractor or activation, or a non-flat observation)."""
        kind = next((name for name, cls in _POLICY_CLASSES.items() if type(policy) is cls), None)
        if kind is None:
            raise ValueError(
                f"cannot describe a {type(policy).__name__} policy; describable: {', '.join(_POLICY_CLASSES)}"
            )
        scored = bool(getattr(policy, "score_features", False))
        extractor = ScoreFeatures if scored else _FEATURE_EXTRACTORS.get(kind, WithoutAdvice)
        if type(policy.pi_features_extractor) is not extractor or (policy.features_extractor_kwargs and not scored):
            raise ValueError(
                f"cannot describe a policy whose features extractor is {type(policy.pi_features_extractor).__name__}"
                f" (a {kind} uses {extractor.__name__})"
            )
        activation = next((n for n, c in _ACTIVATION_CLASSES.items() if policy.activation_fn is c), None)
        if activation is None:
            raise ValueError(f"cannot describe activation {policy.activation_fn!r}; known: {', '.join(ACTIVATIONS)}")
        obs_space, act_space = policy.observation_space, policy.action_space
        if not isinstance(obs_space, spaces.Box) or len(obs_space.shape) != 1:
            raise ValueError(f"cannot describe a policy of observation space {obs_space}: a flat Box is needed")
        if not isinstance(act_space, spaces.Discrete):
            raise ValueError(f"cannot describe a policy of action space {act_space}: Discrete is needed")
        arch = policy.net_arch if isinstance(policy.net_arch, dict) else {"pi": policy.net_arch, "vf": policy.net_arch}
        out = {
            "policy": kind,
            "observation_size": int(obs_space.shape[0]),
            "num_actions": int(act_space.n),
            "net_arch": {"pi": [int(n) for n in arch.get("pi", [])], "vf": [int(n) for n in arch.get("vf", [])]},
            "activation": activation,
            "share_features_extractor": bool(policy.share_features_extractor),
        }
        if kind != "MlpPolicy":
            out["action_rules"] = policy.action_rules
        if kind == "AdvisedPolicy":
            out["advice_scale"] = policy.advice_scale_init
        if scored:
            out["score_features"] = True
        return out

    def check_description(description: dict[str, Any]) -> None:
        """``ValueError`` unless ``description`` names a known network, activation and keys,
        with sizes within :data:`MAX_LAYER_WIDTH`, :data:`MAX_LAYERS` and
        :data:`MAX_PARAMETERS` (checked before anything is allocated)."""
        if not isinstance(description, dict):
            raise ValueError(f"the network description is not an object: {type(description).__name__}")
        known = {"policy", "observation_size", "num_actions", "net_arch", "activation", "share_features_extractor"}
        unknown = set(description) - known - {"action_rules", "advice_scale", "score_features"}
        if unknown:
            raise ValueError(f"the network description has unknown keys: {', '.join(sorted(map(str, unknown)))}")
        kind = description.get("policy")
        if kind not in _POLICY_CLASSES:
            raise ValueError(f"unknown network {kind!r}; known: {', '.join(_POLICY_CLASSES)}")
        if description.get("score_features", False) not in (True, False) or (
            description.get("score_features") and kind == "MlpPolicy"
        ):
            raise ValueError(
                f"bad score_features {description.get('score_features')!r}: true or false, and only with an "
                "ActionFeaturePolicy or AdvisedPolicy"
            )
        if description.get("activation") not in _ACTIVATION_CLASSES:
            raise ValueError(f"unknown activation {description.get('activation')!r}; known: {', '.join(ACTIVATIONS)}")
        n_obs, n_act = description.get("observation_size"), description.get("num_actions")
        arch = description.get("net_arch")
        layers = None
        if isinstance(arch, dict) and not set(arch) - {"pi", "vf"}:
            layers = [arch.get("pi", []), arch.get("vf", [])]
        if layers is None or not all(isinstance(x, list) and len(x) <= MAX_LAYERS for x in layers):
            raise ValueError(f"bad net_arch {arch!r}: {{'pi': [...], 'vf': [...]}} of at most {MAX_LAYERS} layers each")
        if not all(_small_int(v) for v in [n_obs, n_act, *layers[0], *layers[1]]):
            raise ValueError(
                f"bad network sizes (observation {n_obs!r}, actions {n_act!r}, net_arch {arch!r}): "
                f"positive integers up to {MAX_LAYER_WIDTH} are needed"
            )
        if "advice_scale" in description and not (
            isinstance(description["advice_scale"], int | float) and math.isfinite(description["advice_scale"])
        ):
            raise ValueError(f"bad advice_scale {description['advice_scale']!r}: a finite number is needed")
        params = parameter_count(description)
        if params > MAX_PARAMETERS:
            raise ValueError(
                f"the network would have {params:,} parameters, more than MAX_PARAMETERS = {MAX_PARAMETERS:,}"
            )

    def parameter_count(description: dict[str, Any]) -> int:
        """The number of trained values (``policy.state_dict()``) of the network a
        description names, computed from its sizes alone (nothing is built)."""
        kind, arch = description["policy"], description["net_arch"]
        advised = kind == "AdvisedPolicy"
        inputs = description["observation_size"] - advised  # the advised move is not an input
        if description.get("score_features"):  # the features the network appends to its input
            from yaniv_env.yaniv.observation import ObservationLayout

            inputs += score_features_size(ObservationLayout.players_from_size(inputs))
        count = 0
        latent = {}
        for name, out in (("pi", description["num_actions"]), ("vf", 1)):
            sizes = [inputs, *arch.get(name, [])]
            count += sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))
            latent[name] = sizes[-1]
            count += latent[name] * out + out  # action_net, value_net
        if kind != "MlpPolicy":  # ActionFeatureHead.proj over the actions' features
            width = ACTION_FEATURES_SIZE + (SCORE_HORIZON + 1 if description.get("score_features") else 0)
            count += latent["pi"] * width + width
        return count + advised  # AdvisedPolicy.advice_scale

    def _no_optimizer(parameters, lr, **kwargs) -> None:
        """A rebuilt policy only plays: making an optimizer would import ``torch._dynamo``
        (seconds in every process that loads a model) for nothing."""
        return None

    def build_policy(description: dict[str, Any]):
        """An untrained policy of the architecture ``description`` (:func:`describe_policy`),
        in evaluation mode, to load weights into (PyTorch's default initialisation, not
        Stable-Baselines3's orthogonal one); ``ValueError`` naming anything it does not
        accept (:func:`check_description`)."""
        check_description(description)
        kind, arch = description["policy"], description["net_arch"]
        kwargs: dict[str, Any] = {
            # the weights are loaded next: the orthogonal initialisation (a QR decomposition
            # per layer, seconds for a large one) would only be overwritten
            "ortho_init": False,
            "net_arch": {"pi": list(arch.get("pi", [])), "vf": list(arch.get("vf", []))},
            "activation_fn": _ACTIVATION_CLASSES[description["activation"]],
            "share_features_extractor": bool(description.get("share_features_extractor", True)),
            "optimizer_class": _no_optimizer,
        }
        if kind != "MlpPolicy":
            kwargs["action_rules"] = description.get("action_rules")
        if kind == "AdvisedPolicy":
            kwargs["advice_scale"] = float(description.get("advice_scale", DEFAULT_ADVICE_SCALE))
        if description.get("score_features"):
            kwargs["score_features"] = True
        observation_space = spaces.Box(-np.inf, np.inf, shape=(description["observation_size"],), dtype=np.float32)
        action_space = spaces.Discrete(description["num_actions"])
        policy = _POLICY_CLASSES[kind](observation_space, action_space, lambda _: 0.0, **kwargs)
        policy.set_training_mode(False)
        return policy

    def _small_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_LAYER_WIDTH


#: Largest layer width, observation size or action count a described network may ask for.
MAX_LAYER_WIDTH = 65_536
#: Most hidden layers per network (actor, critic) a described network may ask for.
MAX_LAYERS = 16
#: Most parameters a described network may ask for (16 M: 64 MB of float32; the shipped
#: models have under 1 M).
MAX_PARAMETERS = 16 << 20

__all__ = [
    "ACTION_FEATURES_SIZE",
    "ACTION_KINDS",
    "ACTIVATIONS",
    "DEFAULT_ADVICE_SCALE",
    "ActionFeatureHead",
    "ActionFeaturePolicy",
    "AdvisedPolicy",
    "LeanMaskableCategorical",
    "LeanMaskableCategoricalDistribution",
    "SCORE_HORIZON",
    "ScoreFeatures",
    "WithoutAdvice",
    "action_features",
    "actor_logits",
    "build_policy",
    "check_description",
    "parameter_count",
    "describe_policy",
    "score_feature_tables",
    "score_features_size",
]
