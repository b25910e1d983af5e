"""Imitation warm start (``--pretrain``, ``--pretrain-data``): the teacher agent plays the
learner's seat, its decisions are saved or loaded as a ``.npz`` and the policy is fitted to
its moves (behaviour cloning) and the value net to its returns. With ``--advice`` this is
distillation: the network learns the teacher's departures from the advisor.

``--dagger-rounds`` adds DAgger (Ross et al., 2011): in each round the fitted policy plays
the learner's seat (sampling its moves) while the teacher says what it would play in each
of those positions; the policy is then fitted again on every decision gathered so far.
Behaviour cloning only sees the positions the teacher reaches; the student's own mistakes
lead to positions it never saw, and DAgger labels exactly those.
"""

from __future__ import annotations

import io
import json
import math
import time
import zipfile
from pathlib import Path

import numpy as np

from agents.batched import batched
from agents.evaluation.progress import progress_bar
from agents.trained import action_fingerprint, atomic_write_bytes, observation_fingerprint, rules_to_dict
from training.args import ConfigError
from training.envs import make_train_venv
from training.plan import ImitationSettings
from yaniv_env.core.limits import ZIP_ERRORS, ZipLimits, loads, open_zip, read_member


def collect_demonstrations(settings: ImitationSettings, seed: int, samples: int | None = None, student=None) -> dict:
    """The --pretrain agent plays the learner's seat in ``settings.envs`` training environments
    (same opponents, reward and shaping) for about ``samples`` (--pretrain-samples) decisions:
    the observations, masks and moves of its finished episodes, with their discounted
    returns and episode numbers. With a ``student`` (``(observations, masks) -> actions``)
    the student's moves are played and the teacher's are recorded (DAgger); the returns
    are then the student's. ``seed`` seeds the environments, the teacher and the advisor."""
    t0 = time.time()
    n_envs, env = settings.envs, settings.env
    venv = make_train_venv(env, seed, n_envs, None, settings.kind, advice_seed=seed)
    venv.seed(seed)
    teacher = batched(settings.teacher, seed=seed, rules=env.rules, **dict(settings.teacher_options))
    want = settings.samples if samples is None else samples
    # one row per decision, in the order taken; the episodes still open when the budget is
    # reached are dropped, so the rows are kept until then (no fixed-size buffer: with many
    # environments and whole-game episodes the open ones hold tens of thousands of rows)
    rows: dict[str, list[np.ndarray]] = {"obs": [], "mask": [], "act": []}
    # a searching teacher's candidate first moves and their rollout values (soft targets)
    searching = hasattr(teacher, "searched_values")
    if searching:
        rows.update(cand_act=[], cand_value=[])
    width = getattr(teacher, "candidates", 0) + 1  # its plans, plus Yaniv
    episodes = _Episodes(n_envs, env.gamma)
    what = f"{settings.teacher}'s moves" if student is None else f"{settings.teacher}'s moves in the student's games"
    bar = progress_bar(want, settings.progress, f"imitation: collecting {what}", "decisions")
    obs = venv.reset()
    while episodes.finished_rows < want:
        masks = np.asarray(venv.env_method("action_masks"), dtype=bool)
        seen = obs[:, :-1] if env.advice else obs  # the teacher sees the environment's observation
        actions = teacher.act_batch(seen, masks)
        if searching:
            cand_act, cand_value = _candidates(teacher.searched_values, n_envs, width)
            rows["cand_act"].append(cand_act)
            rows["cand_value"].append(cand_value)
        rows["obs"].append(np.asarray(obs, dtype=np.float32))
        rows["mask"].append(masks)
        rows["act"].append(np.asarray(actions, dtype=np.int64))
        episodes.decided()
        played = actions if student is None else student(obs, masks)
        obs, rewards, dones, _ = venv.step(played)
        for length in episodes.rewarded(rewards, dones):
            if bar is not None:
                bar.update(min(length, want - bar.n))
    venv.close()
    if bar is not None:
        bar.close()
    keep = episodes.finished()
    data = {k: np.concatenate(v)[keep] for k, v in rows.items()}
    data.setdefault("cand_act", None)
    data.setdefault("cand_value", None)
    data["ret"] = np.asarray(episodes.returns, dtype=np.float32)[keep]
    data["episode"] = np.asarray(episodes.episode_of, dtype=np.int64)[keep]
    data.update(episodes=episodes.count, collect_seconds=time.time() - t0)
    return data


class _Episodes:
    """The episodes of the collected decisions, one row per decision in the order taken
    (a row per environment at each step): each row's discounted return and episode number,
    known once its episode ends."""

    def __init__(self, n_envs: int, gamma: float):
        self.gamma = gamma
        self.returns: list[float] = []
        self.episode_of: list[int] = []
        self.open_steps: list[list[int]] = [[] for _ in range(n_envs)]  # rows of each env's open episode
        self.open_rewards: list[list[float]] = [[] for _ in range(n_envs)]
        self.count = 0  # episodes finished
        self.finished_rows = 0  # rows of the finished episodes

    def decided(self) -> None:
        """Every environment took a decision: a row each."""
        n = len(self.returns)
        for i, steps in enumerate(self.open_steps):
            steps.append(n + i)
        self.returns.extend([0.0] * len(self.open_steps))
        self.episode_of.extend([0] * len(self.open_steps))

    def rewarded(self, rewards, dones) -> list[int]:
        """The step's rewards and ends; returns the lengths of the episodes it ended, in
        environment order (their rows now have returns and an episode number)."""
        ended = []
        for i, (steps, got) in enumerate(zip(self.open_steps, self.open_rewards, strict=True)):
            got.append(float(rewards[i]))
            if dones[i]:
                g = 0.0
                for idx, r in zip(reversed(steps), reversed(got), strict=True):
                    g = r + self.gamma * g
                    self.returns[idx] = g
                    self.episode_of[idx] = self.count
                self.count += 1
                self.finished_rows += len(steps)
                ended.append(len(steps))
                self.open_steps[i], self.open_rewards[i] = [], []
        return ended

    def finished(self) -> np.ndarray:
        """The rows of the finished episodes (those cut by the sample budget are dropped)."""
        finished = np.ones(len(self.returns), dtype=bool)
        for steps in self.open_steps:
            finished[steps] = False
        return np.flatnonzero(finished)


def _candidates(searched_values: dict, n_envs: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """A searching teacher's candidate first moves and their rollout values, one row per
    environment (``-1`` and 0 where it did not search)."""
    cand_act = np.full((n_envs, width), -1, dtype=np.int16)
    cand_value = np.zeros((n_envs, width), dtype=np.float32)
    for i, (acts, values) in searched_values.items():
        cand_act[i, : len(acts)], cand_value[i, : len(acts)] = acts, values
    return cand_act, cand_value


def demonstration_key(settings: ImitationSettings) -> dict:
    """What demonstrations depend on: a saved set is reused only when all of it matches."""
    env, rules = settings.env, settings.env.rules
    return {
        "teacher": settings.teacher,
        "teacher_options": dict(settings.teacher_options),
        "advice": env.advice,
        "game": env.game,
        "rules": rules_to_dict(rules),
        "observation": observation_fingerprint(rules),
        "actions": action_fingerprint(rules),
        "opponents": settings.opponents,
        "learner_seat": settings.learner_seat,
        "episode": env.episode,
        "reward": env.reward,
        "turn_limit": env.turn_limit,
        "shaping": env.shaping,
        "gamma": env.gamma,
    }


def save_demonstrations(path: Path, data: dict, key: dict) -> None:
    """Write ``data`` (from :func:`collect_demonstrations`) and its key as one ``.npz``,
    atomically (the masks bit-packed)."""
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        obs=data["obs"],
        mask=np.packbits(data["mask"], axis=1),
        actions=np.int64(data["mask"].shape[1]),
        act=data["act"],
        ret=data["ret"],
        episode=data["episode"],
        episodes=np.int64(data["episodes"]),
        key=np.array(json.dumps(key, sort_keys=True)),
        **({} if data["cand_act"] is None else {"cand_act": data["cand_act"], "cand_value": data["cand_value"]}),
    )
    atomic_write_bytes(Path(path), buf.getvalue())


#: Limits on a demonstration file (``--pretrain-data``, a ``.npz``), checked before its
#: arrays are decompressed: entries, the bytes its arrays declare in all (60,000 decisions
#: of the standard rules take about 100 MB), and the JSON key's size.
MAX_DEMONSTRATION_ENTRIES = 16
MAX_DEMONSTRATION_BYTES = 4 << 30
MAX_KEY_BYTES = 1 << 20
DEMONSTRATION_LIMITS = ZipLimits(
    max_entries=MAX_DEMONSTRATION_ENTRIES,
    max_directory_bytes=1 << 16,
    max_entry_bytes=MAX_DEMONSTRATION_BYTES,
    max_total_bytes=MAX_DEMONSTRATION_BYTES,
    max_ratio=MAX_DEMONSTRATION_BYTES,  # zeros compress well in real data too: the total bounds it
    ratio_from=0,
    name="training.imitation.DEMONSTRATION_LIMITS",
)


_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def _check_arrays(z: zipfile.ZipFile, what: str) -> None:
    """Every ``.npy`` entry's header (read without its data): a plain dtype and a shape
    whose bytes are the entry's declared size, so that reading it allocates no more."""
    for info in z.infolist():
        with z.open(info) as f:
            read_header = _NPY_HEADERS.get(np.lib.format.read_magic(f))
            if read_header is None:
                raise ValueError(f"{what}: entry {info.filename!r} is not a .npy array of format 1 or 2")
            shape, _, dtype = read_header(f, max_header_size=1 << 16)
            header = f.tell()
        if dtype.hasobject or header + math.prod(shape) * dtype.itemsize != info.file_size:
            raise ValueError(
                f"{what}: entry {info.filename!r} declares {dtype} {shape}, not its {info.file_size} bytes"
            )


def load_demonstrations(path: Path, key: dict) -> dict:
    """Demonstrations saved by :func:`save_demonstrations` under the same ``key``, within
    the module's limits (checked before any array is decompressed); :class:`ConfigError`
    naming what differs, or what is wrong with the file."""
    what = f"--pretrain-data {str(path)!r}: not a demonstration file"
    try:
        with open(path, "rb") as f, open_zip(f, DEMONSTRATION_LIMITS, what) as z:
            saved = loads(
                str(np.load(io.BytesIO(read_member(z, "key.npy", MAX_KEY_BYTES, "MAX_KEY_BYTES", what)))),
                what=f"{what}: its key",
                max_bytes=MAX_KEY_BYTES,
                limit="MAX_KEY_BYTES",
            )
            if not isinstance(saved, dict):
                raise ValueError(f"{what}: its key is not a JSON object")
            differ = sorted(k for k in set(key) | set(saved) if key.get(k) != saved.get(k))
            if differ:  # before the arrays are read
                shown = "; ".join(f"{k}: saved {saved.get(k)!r}, this run {key.get(k)!r}" for k in differ)
                raise ConfigError(f"--pretrain-data {str(path)!r} was collected under other settings ({shown})")
            _check_arrays(z, what)
        with np.load(path, allow_pickle=False) as z:
            data = {name: z[name] for name in ("obs", "act", "ret", "episode")}
            data["mask"] = np.unpackbits(z["mask"], axis=1, count=int(z["actions"])).astype(bool)
            data["episodes"] = int(z["episodes"])
            searched = "cand_act" in z.files
            data["cand_act"] = z["cand_act"] if searched else None
            data["cand_value"] = z["cand_value"] if searched else None
    except ConfigError:
        raise
    except (ValueError, *ZIP_ERRORS) as e:
        why = str(e) if isinstance(e, ValueError) and str(e).startswith(what) else f"{what} ({type(e).__name__}: {e})"
        raise ConfigError(why) from None
    data["collect_seconds"] = 0.0
    return data


def policy_targets(data: dict, temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """Per decision, the target moves and their probabilities (``[N, K]`` each): on a
    searching teacher's searched decisions (``data["cand_act"]``) a softmax of the
    candidates' rollout values at ``temperature`` points, elsewhere (or with
    ``temperature`` 0) the move played. Unused columns repeat the move played with
    probability 0, so every column is a legal move."""
    act = data["act"].astype(np.int64)
    if temperature <= 0 or data.get("cand_act") is None:
        return act[:, None], np.ones((len(act), 1), dtype=np.float32)
    valid = data["cand_act"] >= 0
    searched = valid.any(axis=1)
    idx = np.where(valid, data["cand_act"].astype(np.int64), act[:, None])
    z = np.where(valid, data["cand_value"].astype(np.float64) / temperature, -np.inf)
    z[searched] -= z[searched].max(axis=1, keepdims=True)
    prob = np.zeros(idx.shape, dtype=np.float64)
    prob[searched] = np.exp(z[searched])
    prob[searched] /= prob[searched].sum(axis=1, keepdims=True)
    prob[~searched, 0] = 1.0
    idx[~searched] = act[~searched, None]
    return idx, prob.astype(np.float32)


def imitation_pretrain(policy, settings: ImitationSettings, log=print) -> dict:
    """Behaviour cloning warm start on the --pretrain agent's decisions
    (:func:`collect_demonstrations`, or --pretrain-data when it exists): the policy is
    fitted to its moves (cross-entropy over the legal actions) and the value net to its
    discounted returns. 5% of the episodes are held out to report the imitation accuracy.
    Then --dagger-rounds rounds of DAgger (the module's docstring), each fitting
    --dagger-epochs passes over all the decisions so far. ``policy``: an SB3 actor-critic
    policy (``get_distribution`` with masks, ``predict_values``), MaskablePPO's or the lean
    learner's (:mod:`training.ppo`), fitted in place."""
    import torch

    seed = settings.seed
    t0 = time.time()
    source = "collected"
    key = demonstration_key(settings)
    path = settings.data
    if path is not None and path.is_file():
        data = load_demonstrations(path, key)
        source = f"loaded from {path}"
    else:
        data = collect_demonstrations(settings, seed)
        if path is not None:
            save_demonstrations(path, data, key)
            source = f"collected, saved to {path}"
    if settings.temperature > 0 and data.get("cand_act") is None:
        raise ConfigError(
            f"--pretrain-data {str(path)!r} holds no rollout values for --pretrain-temperature "
            "(collected before they were saved): collect it again"
        )
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=settings.lr)
    _fit(policy, opt, data, settings, settings.epochs, rng)
    data, rounds = _dagger(policy, opt, data, settings, rng, log)

    obs_buf, act_buf, collect_s = data["obs"], data["act"], data["collect_seconds"]
    soft = settings.temperature > 0 and data.get("cand_act") is not None  # as policy_targets decides
    held = data["episode"] % 20 == 0
    keep = np.arange(len(act_buf))
    train_idx, test_idx = keep[~held], keep[held]
    info = {
        "agent": settings.teacher,
        "options": dict(settings.teacher_options),
        "samples": int(len(train_idx)),
        "held_out": int(len(test_idx)),
        "episodes": int(data["episodes"]),
        "epochs": settings.epochs,
        "train_accuracy": round(_accuracy(policy, data, train_idx[:20000]), 4),
        "held_out_accuracy": round(_accuracy(policy, data, test_idx), 4),
        "collect_seconds": round(collect_s, 1),
        "seconds": round(time.time() - t0, 1),
        "source": source,
        "temperature": settings.temperature,
        # decisions with soft targets (searched, and a temperature given)
        "soft_targets": round(float((data["cand_act"] >= 0).any(1).mean()), 4) if soft else 0.0,
    }
    if rounds:
        info["dagger"] = rounds
    departures = ""
    if settings.env.advice:  # what the advice alone cannot give: the teacher's departures from it
        differs = act_buf != obs_buf[:, -1].astype(np.int64)
        info["teacher_departs"] = round(float(differs.mean()), 4) if len(differs) else float("nan")
        held_out_departures = test_idx[differs[test_idx]]
        departures = f"; the teacher departs from the advice in {info['teacher_departs']:.3f} of its decisions"
        if len(held_out_departures):
            info["held_out_departure_accuracy"] = round(_accuracy(policy, data, held_out_departures), 4)
            departures += f", {info['held_out_departure_accuracy']:.3f} of those (held out) are copied"
        else:  # the teacher is the advisor (or never departs): the value net is what it learns
            departures += " (none held out to copy)"
    dagger = f" and {len(rounds)} DAgger rounds" if rounds else ""
    log(
        f"imitation warm start: {info['samples']:,} decisions of {settings.teacher!r} ({info['episodes']:,} episodes), "
        f"{settings.epochs} epochs{dagger}; accuracy {info['train_accuracy']:.3f} (train), "
        f"{info['held_out_accuracy']:.3f} (held out){departures} in {info['seconds']:.0f} s "
        f"({source}{f' in {collect_s:.0f} s' if source == 'collected' else ''})"
    )
    return info


def _dagger(
    policy, opt, data: dict, settings: ImitationSettings, rng: np.random.Generator, log
) -> tuple[dict, list[dict]]:
    """--dagger-rounds rounds: the student plays (sampling, as PPO will), the teacher labels
    its positions, and the policy is fitted again on all the decisions so far."""
    rounds = []
    total = len(settings.dagger_seeds)
    for r, round_seed in enumerate(settings.dagger_seeds):
        student = _sampler(policy, np.random.default_rng(round_seed))
        new = collect_demonstrations(settings, round_seed, settings.dagger_samples, student)
        agreement = _accuracy(policy, new, np.arange(len(new["act"])))
        data = _merged(data, new)
        _fit(policy, opt, data, settings, settings.dagger_epochs, rng, f"DAgger round {r + 1}")
        rounds.append({"decisions": int(len(new["act"])), "agreement": round(agreement, 4)})
        log(
            f"DAgger round {r + 1}/{total}: {len(new['act']):,} of the student's decisions labelled "
            f"by {settings.teacher!r} in {new['collect_seconds']:.0f} s; it agreed with {agreement:.3f} of them"
        )
    return data, rounds


def _fit(
    policy, opt, data: dict, settings: ImitationSettings, epochs: int, rng: np.random.Generator, what: str = ""
) -> None:
    """``epochs`` passes of the policy (cross-entropy over the legal actions, the
    departures from the advice weighted by --pretrain-departure-weight) and value (mean
    squared error to the returns) losses over ``data``'s decisions but the held-out
    episodes (every 20th)."""
    import torch

    obs_buf, mask_buf, act_buf, ret_buf = data["obs"], data["mask"], data["act"], data["ret"]
    target_act, target_prob = policy_targets(data, settings.temperature)
    train_idx = np.flatnonzero(data["episode"] % 20 != 0)
    policy.set_training_mode(True)
    desc = f"imitation: fitting{f' ({what})' if what else ''} ({epochs} epochs)"
    bar = progress_bar(epochs * len(train_idx), settings.progress, desc, "decisions")
    for _ in range(epochs):
        rng.shuffle(train_idx)
        for s in range(0, len(train_idx), settings.batch_size):
            b = train_idx[s : s + settings.batch_size]
            x = torch.as_tensor(obs_buf[b])
            dist = policy.get_distribution(x, action_masks=mask_buf[b])
            # the expected log-probability of the targets (the move played, or the soft targets)
            log_prob = sum(
                torch.as_tensor(target_prob[b, k]) * dist.log_prob(torch.as_tensor(target_act[b, k]))
                for k in range(target_act.shape[1])
            )
            if settings.env.advice and settings.departure_weight != 1.0:
                departs = act_buf[b] != obs_buf[b, -1].astype(np.int64)
                w = torch.as_tensor(np.where(departs, settings.departure_weight, 1.0), dtype=log_prob.dtype)
                loss_pi = -(w * log_prob).sum() / w.sum()
            else:
                loss_pi = -log_prob.mean()
            loss_v = ((policy.predict_values(x).squeeze(-1) - torch.as_tensor(ret_buf[b])) ** 2).mean()
            loss = loss_pi + settings.vf_coef * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm)
            opt.step()
            if bar is not None:
                bar.update(len(b))
    if bar is not None:
        bar.close()
    policy.set_training_mode(False)


def _probabilities(policy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(obs, dtype=torch.float32), action_masks=masks)
        return dist.distribution.probs.numpy()


def _accuracy(policy, data: dict, idx: np.ndarray) -> float:
    """How often the policy's most probable move is the teacher's, on decisions ``idx``."""
    if len(idx) == 0:
        return float("nan")
    hits = 0
    for s in range(0, len(idx), 4096):
        b = idx[s : s + 4096]
        hits += int((_probabilities(policy, data["obs"][b], data["mask"][b]).argmax(-1) == data["act"][b]).sum())
    return hits / len(idx)


def _sampler(policy, rng: np.random.Generator):
    """``(observations, masks) -> actions`` sampled from the policy with ``rng`` (not
    torch's global generator)."""

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        cdf = _probabilities(policy, np.asarray(obs), masks).cumsum(axis=1)
        # the first action whose cumulative probability reaches u in (0, 1]: never a masked one
        u = (1.0 - rng.random(len(cdf)))[:, None] * cdf[:, -1:]
        return np.minimum((cdf < u).sum(axis=1), cdf.shape[1] - 1)

    return act


def _merged(data: dict, new: dict) -> dict:
    """``data`` and ``new`` as one set of decisions (episode numbers kept distinct)."""
    out = {k: np.concatenate([data[k], new[k]]) for k in ("obs", "mask", "act", "ret")}
    out["episode"] = np.concatenate([data["episode"], new["episode"] + data["episodes"]])
    out["episodes"] = data["episodes"] + new["episodes"]
    searched = data.get("cand_act") is not None and new.get("cand_act") is not None
    for k in ("cand_act", "cand_value"):
        out[k] = np.concatenate([data[k], new[k]]) if searched else None
    out["collect_seconds"] = data["collect_seconds"] + new["collect_seconds"]
    return out
